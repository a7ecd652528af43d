// Test helper for tests/python/test_thread_stress.py: the target `weigh`, and plain C++ threads
// that call one kwcall function over it with random keyword shapes (tvm-ffi's KWARGS
// convention) until told to stop, checking every result against the values they passed.
//
// The shapes follow the test's signature, def weigh(a, b, c=3, d=4, e=5, f=6, g=7, *, h=8):
// `weigh` returns sum(value_i * 100**i), so any argument bound to the wrong parameter (or a
// default used where a value was passed) changes the result. Nothing here includes Python.h.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace ffi = tvm::ffi;

constexpr int kParams = 8;      // a..h
constexpr int kPositional = 7;  // a..g; h is keyword-only
constexpr int kRequired = 2;    // a and b have no default
const char* const kNames[kParams] = {"a", "b", "c", "d", "e", "f", "g", "h"};
constexpr int64_t kDefaults[kParams] = {0, 0, 3, 4, 5, 6, 7, 8};  // a, b: none

int64_t Weigh(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f, int64_t g,
              int64_t h) {
  int64_t total = 0;
  for (int64_t value : {h, g, f, e, d, c, b, a}) total = total * 100 + value;
  return total;
}

struct Run {
  std::vector<std::thread> threads;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> completed{0};
  std::atomic<int64_t> mismatches{0};
  std::mutex mu;
  std::string first_problem;  // the first wrong result or error, for the test's message
} g_run;

void Report(const std::string& problem) {
  g_run.mismatches.fetch_add(1);
  std::lock_guard<std::mutex> lock(g_run.mu);
  if (g_run.first_problem.empty()) g_run.first_problem = problem;
}

// One random call: the first nargs parameters positionally, then some of the others (every
// required one) as keywords in a random order, keys as C strings or as tvm-ffi strings.
void CallOnce(const ffi::Function& f, const ffi::Any& kwargs, std::mt19937_64& rng) {
  int64_t values[kParams];
  for (int64_t& value : values) value = 10 + static_cast<int64_t>(rng() % 90);
  const int nargs = static_cast<int>(rng() % (kPositional + 1));
  std::vector<int> keywords;
  for (int i = nargs; i < kParams; ++i) {
    if (i < kRequired || rng() % 2) keywords.push_back(i);
  }
  std::shuffle(keywords.begin(), keywords.end(), rng);
  const bool string_keys = rng() % 2;
  std::vector<ffi::String> keys;  // alive until the call returns
  std::vector<ffi::AnyView> args;
  for (int i = 0; i < nargs; ++i) args.emplace_back(values[i]);
  int64_t bound[kParams];
  std::copy(kDefaults, kDefaults + kParams, bound);
  std::copy(values, values + nargs, bound);
  if (!keywords.empty()) {
    args.emplace_back(kwargs);
    keys.reserve(keywords.size());
    for (int param : keywords) {
      if (string_keys) {
        keys.emplace_back(kNames[param]);
        args.emplace_back(keys.back());
      } else {
        args.emplace_back(kNames[param]);
      }
      args.emplace_back(values[param]);
      bound[param] = values[param];
    }
  }
  const int64_t want =
      Weigh(bound[0], bound[1], bound[2], bound[3], bound[4], bound[5], bound[6], bound[7]);
  ffi::Any result;
  f.CallPacked(args.data(), static_cast<int32_t>(args.size()), &result);
  const int64_t got = result.cast<int64_t>();
  if (got != want) {
    Report("C++ call with " + std::to_string(nargs) + " positional and " +
           std::to_string(keywords.size()) + " keywords returned " + std::to_string(got) +
           ", expected " + std::to_string(want));
  }
}

void Worker(ffi::Function f, uint64_t seed) {
  std::mt19937_64 rng(seed);
  try {
    ffi::Any kwargs = ffi::Function::GetGlobalRequired("ffi.GetKwargsObject")();
    while (!g_run.stop.load(std::memory_order_relaxed)) {
      try {
        CallOnce(f, kwargs, rng);
      } catch (const std::exception& err) {
        Report(std::string("C++ call raised: ") + err.what());
      }
      g_run.completed.fetch_add(1, std::memory_order_relaxed);
    }
  } catch (const std::exception& err) {
    Report(std::string("C++ thread failed: ") + err.what());
  }
}

// Starts num_threads threads calling f (a reference each holds: the caller may re-register or
// drop its own meanwhile) until Stop.
void Start(ffi::Function f, int64_t num_threads, int64_t seed) {
  TVM_FFI_ICHECK(g_run.threads.empty()) << "a run is already active; call stop()";
  g_run.stop = false;
  g_run.completed = 0;
  g_run.mismatches = 0;
  g_run.first_problem.clear();
  for (int64_t t = 0; t < num_threads; ++t) {
    g_run.threads.emplace_back(Worker, f, static_cast<uint64_t>(seed + t));
  }
}

// Stops and joins the threads: [completed calls, wrong results or errors, the first of those].
ffi::Array<ffi::Any> Stop() {
  g_run.stop = true;
  for (std::thread& thread : g_run.threads) thread.join();
  g_run.threads.clear();
  return {g_run.completed.load(), g_run.mismatches.load(), ffi::String(g_run.first_problem)};
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(weigh, Weigh);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(start, Start);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(stop, Stop);
