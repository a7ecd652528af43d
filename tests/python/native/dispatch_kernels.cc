// Test helper for tests/python/test_dispatch.py: a kernel library that exports a dispatch table
// beside its entries (KWCALL_EXPORT_DISPATCH_TABLE), as a C++ library would.
#include <kwcall/export.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

namespace {

namespace ffi = tvm::ffi;

// def scale(x, *, times=2), keyed by value(times): each entry knows its own factor.
int64_t Double(int64_t x, int64_t times) { return 2 * x; }
int64_t Triple(int64_t x, int64_t times) { return 3 * x; }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale_by_2, Double);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale_by_3, Triple);
KWCALL_EXPORT_DISPATCH_TABLE(scale, R"json({"version": 1, "name": "scale",
  "signature": {"version": 1, "name": "scale", "params": [
    {"name": "x", "kind": "POSITIONAL_OR_KEYWORD"},
    {"name": "times", "kind": "KEYWORD_ONLY", "default": 2}]},
  "key": ["value(times)"],
  "entries": [{"key": [2], "function": "scale_by_2"}, {"key": [3], "function": "scale_by_3"}]})json");
