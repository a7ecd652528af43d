// A kernel library as C++ users write one: tvm-ffi functions exported with their signatures
// (KWCALL_EXPORT_SIGNATURE), loaded by test_load.cc as a module and linked into it statically.
#include <kwcall/export.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>

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
