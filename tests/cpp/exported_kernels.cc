// A kernel library as C++ users write one: tvm-ffi functions exported with their signatures
// (KWCALL_EXPORT_SIGNATURE), loaded by test_load.cc as a module and linked into it statically.
#include <kwcall/export.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <string>

namespace {

namespace ffi = tvm::ffi;

// def scale(x, y=10, *, alpha=2): returns its arguments, so tests see how they were bound.
ffi::Array<int64_t> Scale(int64_t x, int64_t y, int64_t alpha) { return {x, y, alpha}; }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale, Scale);
KWCALL_EXPORT_SIGNATURE(scale, R"({"version": 1, "name": "scale", "params": [
  {"name": "x", "kind": "POSITIONAL_OR_KEYWORD"},
  {"name": "y", "kind": "POSITIONAL_OR_KEYWORD", "default": 10},
  {"name": "alpha", "kind": "KEYWORD_ONLY", "default": 2}]})");

// Exported without a signature.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(bare, Scale);
// Exported with a signature that is not valid.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(broken, Scale);
KWCALL_EXPORT_SIGNATURE(broken,
                        R"({"version": 1, "params": [{"name": "1x", "kind": "KEYWORD_ONLY"}]})");

// Hostile companions (issue 18): `__kwcall_signature_<name>` functions that return something
// other than a signature's JSON text, or text that is too large or read too laxly before.
namespace {

int64_t ReturnsInt() { return 7; }
ffi::Any ReturnsNone() { return nullptr; }
ffi::Bytes ReturnsBytes() { return ffi::Bytes(std::string(R"({"version": 1, "params": []})")); }
ffi::Array<int64_t> ReturnsArray() { return {1, 2}; }
ffi::Map<ffi::String, ffi::Any> ReturnsMap() {
  return {{"version", 1}, {"params", ffi::Array<ffi::Any>()}};
}
ffi::Function ReturnsFunction() {
  return ffi::Function::FromTyped([]() {});
}

// {"version": 1, ..., "default": [0, 0, ...]}: about 100 MB of valid JSON, built in blocks so
// that building it stays fast under the sanitizers.
ffi::String HugeJson() {
  std::string block;
  for (int i = 0; i < 1'000'000; ++i) block += ",0";
  std::string json = R"({"version": 1, "name": "huge", "params": [{"name": "x", )"
                     R"("kind": "POSITIONAL_OR_KEYWORD", "default": [0)";
  json.reserve(json.size() + 50 * block.size() + 8);
  for (int i = 0; i < 50; ++i) json += block;
  json += "]}]}";
  return ffi::String(std::move(json));
}

}  // namespace

// The companions are tvm-ffi functions like any other: TVM_FFI_DLL_EXPORT_TYPED_FUNC gives each
// its `__tvm_ffi___kwcall_signature_<name>` symbol.
#define KWCALL_TEST_HOSTILE(Name, Returns)    \
  TVM_FFI_DLL_EXPORT_TYPED_FUNC(Name, Scale); \
  TVM_FFI_DLL_EXPORT_TYPED_FUNC(__kwcall_signature_##Name, Returns)

KWCALL_TEST_HOSTILE(returns_int, ReturnsInt);
KWCALL_TEST_HOSTILE(returns_none, ReturnsNone);
KWCALL_TEST_HOSTILE(returns_bytes, ReturnsBytes);
KWCALL_TEST_HOSTILE(returns_array, ReturnsArray);
KWCALL_TEST_HOSTILE(returns_map, ReturnsMap);
KWCALL_TEST_HOSTILE(returns_function, ReturnsFunction);
KWCALL_TEST_HOSTILE(returns_huge, HugeJson);

// Valid JSON that the strict reader refuses: an integer for "unpack", true for "version", and
// a name tvm-ffi reserves.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(unpack_int, Scale);
KWCALL_EXPORT_SIGNATURE(unpack_int, R"({"version": 1, "params": [
  {"name": "x", "kind": "POSITIONAL_OR_KEYWORD", "unpack": 2}]})");
TVM_FFI_DLL_EXPORT_TYPED_FUNC(version_true, Scale);
KWCALL_EXPORT_SIGNATURE(version_true, R"({"version": true, "params": []})");
TVM_FFI_DLL_EXPORT_TYPED_FUNC(reserved_name, Scale);
KWCALL_EXPORT_SIGNATURE(reserved_name, R"({"version": 1, "params": [
  {"name": "__i_target_func", "kind": "POSITIONAL_OR_KEYWORD"}]})");

// Torch operator schemas beside the functions (KWCALL_EXPORT_TORCH_OP), read by
// test_exported_torch_op.cc: one valid, one that returns no string, and texts of the wrong form.
KWCALL_EXPORT_TORCH_OP(scale, "kwcall_test::scale(int x, int y=10, *, int alpha=2) -> int[]");
TVM_FFI_DLL_EXPORT_TYPED_FUNC(__kwcall_torch_op_returns_int, ReturnsInt);
KWCALL_EXPORT_TORCH_OP(unpack_int, "scale(int x) -> ()");  // no namespace
KWCALL_EXPORT_TORCH_OP(version_true, "kwcall_test::scale");
KWCALL_EXPORT_TORCH_OP(reserved_name, "kwcall_test::1scale(int x) -> ()");
KWCALL_EXPORT_TORCH_OP(broken, "kwcall_test::scale(int x)");

// A function for kwcall::torch::RegisterExported (test_torch_exported.cc): fill(out, value=10,
// *, alpha=2) writes value * alpha into each float of `out`.
namespace {

void Fill(DLTensor* out, int64_t value, int64_t alpha) {
  for (int64_t i = 0; i < out->shape[0]; ++i) {
    static_cast<float*>(out->data)[i] = static_cast<float>(value * alpha);
  }
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(fill, Fill);
KWCALL_EXPORT_SIGNATURE(fill, R"({"version": 1, "name": "fill", "params": [
  {"name": "out", "kind": "POSITIONAL_OR_KEYWORD"},
  {"name": "value", "kind": "POSITIONAL_OR_KEYWORD", "default": 10},
  {"name": "alpha", "kind": "KEYWORD_ONLY", "default": 2}]})");
KWCALL_EXPORT_TORCH_OP(fill,
                       "kwcall_cpp_test::fill(Tensor(a!) out, int value=10, *, int alpha=2) -> ()");
// The same function under a schema whose comments hide a quote (issue 37): torch reads
// (Tensor(a!) out, int value, *, int alpha), a reader that knows no comments (Tensor, int,
// Tensor), and would unbox alpha as a tensor handle. RegisterExported refuses it.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fill_hostile, Fill);
KWCALL_EXPORT_SIGNATURE(fill_hostile, R"({"version": 1, "name": "fill", "params": [
  {"name": "out", "kind": "POSITIONAL_OR_KEYWORD"},
  {"name": "value", "kind": "POSITIONAL_OR_KEYWORD"},
  {"name": "alpha", "kind": "KEYWORD_ONLY"}]})");
KWCALL_EXPORT_TORCH_OP(fill_hostile,
                       "kwcall_cpp_test::fill_hostile(Tensor(a!) out, int value # , Tensor z='\n"
                       ", *, int alpha # '\n) -> ()");
// The same function with a signature and no torch operator.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fill_without_op, Fill);
KWCALL_EXPORT_SIGNATURE(fill_without_op, R"({"version": 1, "name": "fill", "params": [
  {"name": "out", "kind": "POSITIONAL_OR_KEYWORD"},
  {"name": "value", "kind": "POSITIONAL_OR_KEYWORD"},
  {"name": "alpha", "kind": "KEYWORD_ONLY"}]})");

// A dispatch table exported beside its entries (KWCALL_EXPORT_DISPATCH_TABLE): def pick(x, *,
// mode="fast"), keyed by value(mode); each entry returns its name and x.
namespace {

ffi::Array<ffi::Any> PickFast(int64_t x, ffi::String mode) { return {ffi::String("fast"), x}; }
ffi::Array<ffi::Any> PickExact(int64_t x, ffi::String mode) { return {ffi::String("exact"), x}; }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(pick_fast, PickFast);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(pick_exact, PickExact);
KWCALL_EXPORT_DISPATCH_TABLE(pick, R"json({"version": 1, "name": "pick",
  "signature": {"version": 1, "name": "pick", "params": [
    {"name": "x", "kind": "POSITIONAL_OR_KEYWORD"},
    {"name": "mode", "kind": "KEYWORD_ONLY", "default": "fast"}]},
  "key": ["value(mode)"],
  "entries": [{"key": ["fast"], "function": "pick_fast"},
              {"key": ["exact"], "function": "pick_exact"}]})json");
// One that names an entry the library lacks.
KWCALL_EXPORT_DISPATCH_TABLE(pick_missing, R"json({"version": 1, "name": "pick_missing",
  "signature": {"version": 1, "name": "pick", "params": [{"name": "x", "kind": "POSITIONAL_OR_KEYWORD"}]},
  "key": ["value(x)"], "entries": [{"key": [1], "function": "no_such_function"}]})json");
