// C++ callers: the target itself vs the kwcall function bound to it (and a call site made from
// it), three scalar arguments.
// Run through bench/cpp_table.py, which prints medians and ratios to the direct call.
#include <benchmark/benchmark.h>
#include <kwcall/kwcall.h>

namespace {

namespace ffi = tvm::ffi;

ffi::Function Target() {
  static ffi::Function target =
      ffi::Function::FromTyped([](int64_t a, double b, int64_t c) { return a + b + c; });
  return target;
}

// def scale(a, b, c)
ffi::Function Plain() {
  static ffi::Function f = kwcall::MakeFunction(
      Target(), kwcall::SignatureBuilder("scale").Param("a").Param("b").Param("c").Build());
  return f;
}

// def scale(a, b=2.0, c=3)
ffi::Function WithDefaults() {
  static ffi::Function f = kwcall::MakeFunction(
      Target(), kwcall::SignatureBuilder("scale").Param("a").Param("b", 2.0).Param("c", 3).Build());
  return f;
}

void TargetDirect(benchmark::State& state) {
  ffi::Function f = Target();
  for (auto _ : state) benchmark::DoNotOptimize(f(1, 2.0, 3));
}

void KwcallPositional(benchmark::State& state) {
  ffi::Function f = Plain();
  for (auto _ : state) benchmark::DoNotOptimize(f(1, 2.0, 3));
}

void KwcallDefaultsLeftOut(benchmark::State& state) {
  ffi::Function f = WithDefaults();
  for (auto _ : state) benchmark::DoNotOptimize(f(1));
}

void KwcallTwoKeywords(benchmark::State& state) {
  ffi::Function f = Plain();
  for (auto _ : state) {
    benchmark::DoNotOptimize(kwcall::Call(f, 1, kwcall::Kw("c", 3), kwcall::Kw("b", 2.0)));
  }
}

// Route G: the same keyword call as KwcallTwoKeywords, bound once by a call site (the values
// reordered into the target's slots).
void KwcallCallSite(benchmark::State& state) {
  const kwcall::CallSite site(Plain(), 1, {"c", "b"});
  for (auto _ : state) benchmark::DoNotOptimize(site(1, 3, 2.0));
}

// A call site whose keywords come in declaration order (route G of python -m kwcall.bench):
// the values are written where a direct call writes them.
void KwcallCallSiteInOrder(benchmark::State& state) {
  const kwcall::CallSite site(Plain(), 1, {"b", "c"});
  for (auto _ : state) benchmark::DoNotOptimize(site(1, 2.0, 3));
}

BENCHMARK(TargetDirect);
BENCHMARK(KwcallPositional);
BENCHMARK(KwcallDefaultsLeftOut);
BENCHMARK(KwcallTwoKeywords);
BENCHMARK(KwcallCallSite);
BENCHMARK(KwcallCallSiteInOrder);

}  // namespace

BENCHMARK_MAIN();
