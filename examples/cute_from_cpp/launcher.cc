// The C++ side of the example: a caller that looks a registered kernel function up by name,
// as a C++ inference server would, and launches it positionally or with keywords.
#include <dlpack/dlpack.h>
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

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

// A server's shape: `num_threads` plain C++ threads (Python never saw them), each with its own
// CUDA stream made current for tvm-ffi (CuTeDSL's kernel launches on the caller's current
// stream), look `name` up and launch `launches_each` times, all released together. mode 0:
// a, b, c, alpha (native call); 1: a, b, c (alpha's default); 2: a, b, c, alpha=... by keyword.
// Returns launches per second over all threads (the queueing of launches, as a server does
// it; the caller synchronizes the device afterwards).
double ThreadedLaunches(const ffi::String& name, ffi::Tensor a, ffi::Tensor b, ffi::Tensor c,
                        int64_t num_threads, int64_t launches_each, int64_t mode,
                        ffi::Array<int64_t> streams, int64_t device_id) {
  std::atomic<int64_t> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int64_t t = 0; t < num_threads; ++t) {
    threads.emplace_back([&, t] {
      ffi::Function f = ffi::Function::GetGlobalRequired(name);
      TVMFFIEnvSetStream(kDLCUDA, static_cast<int32_t>(device_id),
                         reinterpret_cast<void*>(streams[t]), nullptr);
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      for (int64_t i = 0; i < launches_each; ++i) {
        if (mode == 0) {
          f(a, b, c, 1.0);
        } else if (mode == 1) {
          f(a, b, c);
        } else {
          kwcall::Call(f, a, b, c, kwcall::Kw("alpha", 1.0));
        }
      }
    });
  }
  while (ready.load() < num_threads) std::this_thread::yield();
  auto start = std::chrono::steady_clock::now();
  go.store(true);
  for (std::thread& thread : threads) thread.join();
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return static_cast<double>(num_threads * launches_each) / elapsed.count();
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(launch_positional, LaunchPositional);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(threaded_launches, ThreadedLaunches);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(launch_keyword, LaunchKeyword);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(time_launches, TimeLaunches);
