// A kernel library as a C++ project writes one: the function, exported for tvm-ffi, and its
// signature beside it, so that callers can pass keywords and leave defaults out.
#include <kwcall/export.h>
#include <tvm/ffi/function.h>

namespace {

// def axpy(x, y, /, alpha=1.0, *, beta=0.0): alpha * x + y + beta
double Axpy(double x, double y, double alpha, double beta) { return alpha * x + y + beta; }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy, Axpy);
// What kwcall.Signature(["x", "y", "alpha"], (1.0,), ["beta"], {"beta": 0.0}, posonly_count=2,
// name="axpy").to_json() writes.
KWCALL_EXPORT_SIGNATURE(axpy, R"({"version": 1, "name": "axpy", "params": [
  {"name": "x", "kind": "POSITIONAL_ONLY"},
  {"name": "y", "kind": "POSITIONAL_ONLY"},
  {"name": "alpha", "kind": "POSITIONAL_OR_KEYWORD", "default": 1.0},
  {"name": "beta", "kind": "KEYWORD_ONLY", "default": 0.0}]})");
