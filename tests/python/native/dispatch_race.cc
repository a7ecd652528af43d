// Test helper for tests/python/test_dispatch_threads.py: plain C++ threads that call one function
// at the same moment, as C++ callers of a dispatch table missing the same key do.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace ffi = tvm::ffi;

// race(f, threads, value): each thread calls f(value); the results in thread order, an error as
// "Kind: message".
ffi::Array<ffi::Any> Race(ffi::Function f, int64_t num_threads, ffi::Any value) {
  std::vector<ffi::Any> results(num_threads);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int64_t i = 0; i < num_threads; ++i) {
    threads.emplace_back([&, i] {
      while (!go.load()) std::this_thread::yield();
      try {
        results[i] = f(value);
      } catch (const ffi::Error& error) {
        results[i] = ffi::String(std::string(error.kind()) + ": " + std::string(error.message()));
      }
    });
  }
  go.store(true);
  for (std::thread& t : threads) t.join();
  return ffi::Array<ffi::Any>(results.begin(), results.end());
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(race, Race);
