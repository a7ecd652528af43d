// The demo's C++ side: a target kernel-like function, and a C++ caller that looks a global
// function up by name and calls it positionally and with keywords, as a C++ server would.
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>

#include <sstream>
#include <string>

namespace ffi = tvm::ffi;

// The target: every parameter positional, as CuTeDSL's compiled functions are.
double ScaleAdd(double x, double y, double alpha, double beta) { return alpha * x + y + beta; }

// Calls the global `name` the ways a C++ caller can, and reports what came back.
ffi::Array<ffi::String> CallFromCpp(const ffi::String& name) {
  ffi::Function f = ffi::Function::GetGlobalRequired(name);
  ffi::Array<ffi::String> report;
  auto line = [&](const std::string& call, const ffi::Any& result) {
    std::ostringstream os;
    os << call << " = " << result.cast<double>();
    report.push_back(os.str());
  };
  line("f(1, 2, 3, 4)           [native: every parameter]", f(1.0, 2.0, 3.0, 4.0));
  line("f(1, 2)                 [defaults filled in C++]", f(1.0, 2.0));
  line("f(1, 2, alpha=10)       [kwcall::Call, KWARGS]",
       kwcall::Call(f, 1.0, 2.0, kwcall::Kw("alpha", 10.0)));
  line("f(y=2, x=1, beta=0.5)   [kwcall::Call, KWARGS]",
       kwcall::Call(f, kwcall::Kw("y", 2.0), kwcall::Kw("x", 1.0), kwcall::Kw("beta", 0.5)));
  try {
    kwcall::Call(f, 1.0, kwcall::Kw("gamma", 1.0));
  } catch (const ffi::Error& err) {
    report.push_back("f(1, gamma=1)           raises " + err.kind() + ": " + err.message());
  }
  return report;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale_add, ScaleAdd);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_from_cpp, CallFromCpp);
