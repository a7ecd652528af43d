// The C++ side of the example: a caller that looks a registered kernel function up by name,
// as a C++ inference server would, and launches it positionally or with keywords.
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

#include <chrono>

namespace ffi = tvm::ffi;

// c = a + alpha * b, every parameter positional: the native convention.
void LaunchPositional(const ffi::String& name, ffi::Tensor a, ffi::Tensor b, ffi::Tensor c,
                      double alpha) {
  ffi::Function::GetGlobalRequired(name)(a, b, c, alpha);
}

// The same with alpha as a keyword (tvm-ffi's KWARGS convention, bound by kwcall in C++).
void LaunchKeyword(const ffi::String& name, ffi::Tensor a, ffi::Tensor b, ffi::Tensor c,
                   double alpha) {
  kwcall::Call(ffi::Function::GetGlobalRequired(name), a, b, c, kwcall::Kw("alpha", alpha));
}

// CPU nanoseconds per launch over `launches` launches, with every parameter (a, b, c,
// alpha) or, when `pass_alpha` is false, with alpha left to its default. Launches are
// asynchronous; the caller synchronizes the device around this.
double TimeLaunches(const ffi::String& name, ffi::Tensor a, ffi::Tensor b, ffi::Tensor c,
                    int64_t launches, bool pass_alpha) {
  ffi::Function f = ffi::Function::GetGlobalRequired(name);
  auto start = std::chrono::steady_clock::now();
  if (pass_alpha) {
    for (int64_t i = 0; i < launches; ++i) f(a, b, c, 1.0);
  } else {
    for (int64_t i = 0; i < launches; ++i) f(a, b, c);
  }
  std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / static_cast<double>(launches);
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(launch_positional, LaunchPositional);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(launch_keyword, LaunchKeyword);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(time_launches, TimeLaunches);
