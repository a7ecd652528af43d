// Eight C++ threads call one kwcall function at once: positionally, with defaults left out,
// with keywords of more shapes than the keyword-shape cache keeps (so it is written and read
// concurrently), and with calls that fail, while they copy the function and drop the copies.
// scripts/sanitize.sh runs this under ThreadSanitizer; it passes in every build.
#include <kwcall/kwcall.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace kwcall {
namespace {

using testing::EchoTarget;

constexpr int kThreads = 8;
constexpr int kRounds = 150;

// def f(p, /, a, b=10, c=11, *, k=12, m=20, n=30, long_keyword_name=40)
const char* const kNames[] = {"p", "a", "b", "c", "k", "m", "n", "long_keyword_name"};
const int64_t kDefaults[] = {0, 0, 10, 11, 12, 20, 30, 40};
constexpr int kArity = 8;

Signature MakeSignature() {
  return SignatureBuilder("f")
      .PositionalOnly("p")
      .Param("a")
      .Param("b", 10)
      .Param("c", 11)
      .KeywordOnly("k", 12)
      .KeywordOnly("m", 20)
      .KeywordOnly("n", 30)
      .KeywordOnly("long_keyword_name", 40)
      .Build();
}

// A call: `nargs` positional arguments (100 + i), then keywords naming parameters (value
// 200 + the parameter's index); what it returns or the TypeError it raises.
struct Case {
  int nargs;
  std::vector<int> keywords;
  std::string error;  // empty: the call binds
};

std::vector<Case> Cases() {
  std::vector<Case> cases = {
      // More keyword shapes than KeywordShapes::kMaxShapes, some with equal counts.
      {1, {1}},
      {1, {1, 4}},
      {1, {4, 1}},
      {2, {4}},
      {2, {4, 5}},
      {2, {5, 4}},
      {3, {6}},
      {4, {7}},
      {1, {1, 2, 3, 4, 5, 6, 7}},
      {2, {7, 6, 5, 4, 3, 2}},
      {2, {3}},
      {3, {4, 6}},
      // Positional calls: full arity (forwarded untouched) and defaults left out.
      {kArity, {}},
      {2, {}},
      {3, {}},
      // Failures, with CPython's texts.
      {0, {}, "f() missing 2 required positional arguments: 'p' and 'a'"},
      {1, {}, "f() missing 1 required positional argument: 'a'"},
      {5, {}, "f() takes from 2 to 4 positional arguments but 5 were given"},
      {2, {1}, "f() got multiple values for argument 'a'"},
      {1, {4, 4}, "f() got multiple values for argument 'k'"},
      {1, {0, 1}, "f() got some positional-only arguments passed as keyword arguments: 'p'"},
  };
  return cases;
}

std::vector<int64_t> Expected(const Case& c) {
  std::vector<int64_t> out;
  for (int i = 0; i < kArity; ++i) {
    int64_t value = i < c.nargs ? 100 + i : kDefaults[i];
    for (int param : c.keywords) {
      if (param == i) value = 200 + i;
    }
    out.push_back(value);
  }
  return out;
}

// Runs one case through `f`; returns an empty string when the outcome is the expected one.
std::string Check(const ffi::Function& f, const Case& c, bool string_objects, bool c_abi) {
  std::vector<ffi::String> names;  // keeps string objects alive for the call
  std::vector<ffi::AnyView> packed;
  for (int i = 0; i < c.nargs; ++i) packed.push_back(100 + i);
  if (!c.keywords.empty()) packed.push_back(KwargsSentinel());
  for (int param : c.keywords) {
    if (string_objects) {
      names.reserve(c.keywords.size());
      names.push_back(std::string(kNames[param]));
      packed.push_back(names.back());
    } else {
      packed.push_back(kNames[param]);
    }
    packed.push_back(200 + param);
  }
  std::string got;
  try {
    ffi::Any rv;
    if (c_abi) {
      TVMFFIAny result{};
      result.type_index = kTVMFFINone;
      TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionCall(const_cast<ffi::FunctionObj*>(f.get()),
                                                 reinterpret_cast<TVMFFIAny*>(packed.data()),
                                                 static_cast<int32_t>(packed.size()), &result));
      rv = ffi::details::AnyUnsafe::MoveTVMFFIAnyToAny(&result);
    } else {
      f.CallPacked(packed.data(), static_cast<int32_t>(packed.size()), &rv);
    }
    if (!c.error.empty()) return "expected an error, the call bound: " + c.error;
    if (testing::Ints(rv) != Expected(c))
      return "wrong values for a call of " + std::to_string(c.nargs) + " positional arguments";
    return "";
  } catch (const ffi::Error& err) {
    got = std::string(err.kind()) + ": " + std::string(err.message());
  }
  return got == "TypeError: " + c.error ? "" : "unexpected error: " + got;
}

TEST(Threads, ConcurrentCallsCopiesAndShapes) {
  SetKeywordSuggestions(false);
  const std::vector<Case> cases = Cases();
  // The cases are right on a function of their own first, so that the shared function's
  // keyword-shape cache starts empty when the threads start.
  {
    ffi::Function warmup = MakeFunction(EchoTarget(), MakeSignature());
    for (const Case& c : cases) EXPECT_EQ(Check(warmup, c, false, false), "");
  }
  ffi::Function f = MakeFunction(EchoTarget(), MakeSignature());
  std::atomic<int> ready{0};
  std::atomic<int> failures{0};
  std::mutex mu;
  std::string first_failure;

  auto work = [&](int thread) {
    ++ready;
    while (ready.load() < kThreads) std::this_thread::yield();  // start together
    std::vector<ffi::Function> copies;
    for (int round = 0; round < kRounds; ++round) {
      for (size_t i = 0; i < cases.size(); ++i) {
        // Each thread walks the cases from its own starting point, so that new shapes are
        // remembered by several threads at once.
        const Case& c = cases[(i + thread * 3 + round) % cases.size()];
        copies.push_back(f);
        const ffi::Function& callee = copies[round % copies.size()];
        std::string problem = Check(callee, c, (round + thread) % 2 == 1, (i + round) % 3 == 0);
        if (!problem.empty() && failures.fetch_add(1) == 0) {
          std::lock_guard<std::mutex> lock(mu);
          first_failure = problem;
        }
        if (copies.size() > 4) copies.erase(copies.begin(), copies.begin() + (thread % 4 + 1));
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  for (std::thread& thread : threads) thread.join();
  SetKeywordSuggestions(true);

  EXPECT_EQ(failures.load(), 0) << first_failure;
  // Still whole after all that.
  for (const Case& c : cases) EXPECT_EQ(Check(f, c, false, false), "");
  EXPECT_EQ(GetSignature(f)->ToJson(), MakeSignature().ToJson());
}

}  // namespace
}  // namespace kwcall
