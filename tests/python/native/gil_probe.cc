// Test helper for tests/python/test_no_gil.py and test_function.py: native threads that call
// a global tvm-ffi function by name while Python decides whether the GIL is held, and a target
// that reports whether its caller holds the GIL.
//
// Nothing here includes Python.h: if these threads can complete calls while the
// Python thread holds the GIL, the function they call never needed the GIL.
#include <kwcall/kwcall.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace ffi = tvm::ffi;
using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC, same as time.monotonic_ns()

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// The C++ target that kwcall wraps: def add3(a, b, *, c=1).
int64_t Add3(int64_t a, int64_t b, int64_t c) { return a + b + c; }

// def gil_held(a, b) -> [whether the calling thread holds the GIL, a, b]. Python's
// PyGILState_Check is looked up in the process at run time (this module does not link
// Python): with release_gil set, tvm-ffi releases the GIL before calling in, so this reads 0.
ffi::Array<int64_t> GilHeld(int64_t a, int64_t b) {
  using Check = int (*)();
  static Check check = reinterpret_cast<Check>(dlsym(RTLD_DEFAULT, "PyGILState_Check"));
  TVM_FFI_ICHECK(check != nullptr) << "PyGILState_Check is not in this process";
  return {check(), a, b};
}

// One run at a time is all the test needs, so the state is a plain global.
struct Run {
  std::vector<std::thread> threads;
  bool go = false;  // set by Wait(): no call starts before the GIL is held
  std::atomic<bool> stop{false};
  std::atomic<int64_t> completed{0};   // calls that returned (right or wrong)
  std::atomic<int64_t> mismatches{0};  // wrong results or thrown errors
  std::mutex mu;
  std::condition_variable cv;
  int running = 0;
} g_run;

// Calls `name` num_calls times, cycling through the four ways C++ calls a
// kwcall function: native arity (direct forward), fewer arguments (defaults bound
// in C++), tvm-ffi's KWARGS convention [a, b, KWARGS, "c", c] and a kwcall::CallSite
// (a function that is not a kwcall function takes KWARGS there instead).
void Worker(std::string name, int64_t num_calls) {
  try {
    ffi::Function f = ffi::Function::GetGlobalRequired(name);
    ffi::Any kwargs = ffi::Function::GetGlobalRequired("ffi.GetKwargsObject")();
    std::optional<kwcall::CallSite> site;
    if (kwcall::GetSignature(f).has_value()) site.emplace(f, 2, std::vector<std::string>{"c"});
    {
      std::unique_lock<std::mutex> lock(g_run.mu);
      g_run.cv.wait(lock, [] { return g_run.go || g_run.stop; });
    }
    for (int64_t i = 0; i < num_calls && !g_run.stop.load(std::memory_order_relaxed); ++i) {
      int64_t a = i, b = 2 * i, c = i % 7;
      int64_t got = 0, want = 0;
      switch (i % 4) {
        case 0:
          got = f(a, b, c).cast<int64_t>(), want = a + b + c;
          break;
        case 1:
          got = f(a, b).cast<int64_t>(), want = a + b + 1;
          break;
        case 2:
          got = f(a, b, kwargs, "c", c).cast<int64_t>(), want = a + b + c;
          break;
        default:
          got = (site ? (*site)(a, b, c) : f(a, b, kwargs, "c", c)).cast<int64_t>();
          want = a + b + c;
          break;
      }
      if (got != want) g_run.mismatches.fetch_add(1);
      g_run.completed.fetch_add(1);
    }
  } catch (...) {
    g_run.mismatches.fetch_add(1);
  }
  std::lock_guard<std::mutex> lock(g_run.mu);
  if (--g_run.running == 0) g_run.cv.notify_all();
}

// Spawns num_threads threads that each make num_calls calls to global `name`.
void Start(ffi::String name, int64_t num_calls, int64_t num_threads) {
  TVM_FFI_ICHECK(g_run.threads.empty()) << "a run is already active; call join()";
  g_run.go = false;
  g_run.stop = false;
  g_run.completed = 0;
  g_run.mismatches = 0;
  g_run.running = static_cast<int>(num_threads);
  for (int64_t t = 0; t < num_threads; ++t) {
    g_run.threads.emplace_back(Worker, std::string(name), num_calls);
  }
}

// Lets the threads start calling, then blocks until every thread finished or
// timeout_ms passed. Python calls it with release_gil=False, so the GIL is held
// from before the first call until Wait returns.
// Returns [completed calls, wait begin ns, wait end ns].
ffi::Array<int64_t> Wait(int64_t timeout_ms) {
  int64_t begin = NowNs();
  {
    std::unique_lock<std::mutex> lock(g_run.mu);
    g_run.go = true;
    g_run.cv.notify_all();
    g_run.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                      [] { return g_run.running == 0; });
  }
  return {g_run.completed.load(), begin, NowNs()};
}

// Stops and joins the threads. Must be called with the GIL released, so that a
// thread blocked on the GIL inside a Python callback can finish its call.
// Returns [completed calls, mismatches].
ffi::Array<int64_t> Join() {
  {
    std::lock_guard<std::mutex> lock(g_run.mu);  // pairs with the workers' cv wait
    g_run.stop = true;
  }
  g_run.cv.notify_all();
  for (std::thread& t : g_run.threads) t.join();
  g_run.threads.clear();
  return {g_run.completed.load(), g_run.mismatches.load()};
}

// kwcall's registration rule (tvm-ffi's registry is not safe against a registration racing a
// lookup): names registered once, then num_threads threads that each look a name up again for
// every call, num_calls times. Returns [completed calls, mismatches].
ffi::Array<int64_t> LookUpAndCall(ffi::Array<ffi::String> names, int64_t num_calls,
                                  int64_t num_threads) {
  std::atomic<int64_t> completed{0}, mismatches{0};
  std::vector<std::thread> threads;
  for (int64_t t = 0; t < num_threads; ++t) {
    threads.emplace_back([&, t] {
      for (int64_t i = 0; i < num_calls; ++i) {
        try {
          const ffi::String& name = names[(i + t) % names.size()];
          ffi::Function f = ffi::Function::GetGlobalRequired(name);
          int64_t a = i, b = t;
          int64_t got = i % 2 ? f(a, b).cast<int64_t>() : f(a, b, int64_t{5}).cast<int64_t>();
          if (got != a + b + (i % 2 ? 1 : 5)) mismatches.fetch_add(1);
        } catch (...) {
          mismatches.fetch_add(1);
        }
        completed.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return {completed.load(), mismatches.load()};
}

// Calls f (a kwcall function over gil_held) num_calls times on each of num_threads threads,
// natively and with tvm-ffi's KWARGS convention, and counts the calls whose thread had Python
// attached (PyGILState_Check): a plain C++ thread never has, unless calling f attached it.
// Returns [completed calls, calls that saw Python attached, wrong results or errors].
ffi::Array<int64_t> CallAndCheckAttached(ffi::Function f, int64_t num_calls, int64_t num_threads) {
  std::atomic<int64_t> completed{0}, attached{0}, mismatches{0};
  std::vector<std::thread> threads;
  for (int64_t t = 0; t < num_threads; ++t) {
    threads.emplace_back([&, t] {
      try {
        ffi::Any kwargs = ffi::Function::GetGlobalRequired("ffi.GetKwargsObject")();
        for (int64_t i = 0; i < num_calls; ++i) {
          const int64_t a = i, b = t;
          auto got = (i % 2 ? f(a, b) : f(a, kwargs, "b", b)).cast<ffi::Array<int64_t>>();
          if (got.size() != 3 || got[1] != a || got[2] != b) mismatches.fetch_add(1);
          if (got.size() == 3 && got[0] != 0) attached.fetch_add(1);
          completed.fetch_add(1);
        }
      } catch (...) {
        mismatches.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return {completed.load(), attached.load(), mismatches.load()};
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_and_check_attached, CallAndCheckAttached);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(look_up_and_call, LookUpAndCall);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add3, Add3);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(gil_held, GilHeld);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(start, Start);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(wait, Wait);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(join, Join);
