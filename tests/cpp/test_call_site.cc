// kwcall::CallSite: every shape of a few signatures binds exactly as the same call through
// KWARGS (kwcall::Call) does, with the same result or the same error, and a call costs no heap.
#include <kwcall/kwcall.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "test_util.h"

// Counts heap allocations on the thread that asks, for NoHeapPerCall. Replacing the global
// operators is the only way to see allocations made inside tvm-ffi and libkwcall too.
namespace {
thread_local bool t_counting = false;
thread_local int64_t t_allocations = 0;
void* CountedAlloc(std::size_t size) {
  if (t_counting) ++t_allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace
// Every form that a replaced delete may free: the nothrow forms too (std::stable_sort's buffer
// comes from new(nothrow) and goes back through sized delete; ASan calls a half-replaced pair a
// mismatch).
void* operator new(std::size_t size) { return CountedAlloc(size); }
void* operator new[](std::size_t size) { return CountedAlloc(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return CountedAlloc(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace kwcall {
namespace {

using testing::EchoTarget;
using testing::ErrorOf;
using testing::Ints;
using testing::MakeF;

constexpr size_t kMaxPositional = 4;
constexpr size_t kMaxKeywords = 3;
using Values = std::vector<int64_t>;
using Names = std::vector<std::string>;

// kwcall::Call(f, v[0], ..., v[np-1], Kw(names[0], v[np]), ...), for counts known at run time.
// Without keywords the tail is the sentinel alone: a KWARGS call is bound by CPython's rules
// even when it passes every parameter positionally (which, without the sentinel, would be the
// native call that forwards untouched).
template <size_t... P, size_t... K>
ffi::Any KwCall(const ffi::Function& f, const Values& v, const Names& names,
                std::index_sequence<P...>, std::index_sequence<K...>) {
  if constexpr (sizeof...(K) == 0) {
    return Call(f, v[P]..., KwargsSentinel());
  } else {
    return Call(f, v[P]..., Kw(names[K], v[sizeof...(P) + K])...);
  }
}
template <size_t NP, size_t NK>
ffi::Any KwCallOf(const ffi::Function& f, const Values& v, const Names& names) {
  return KwCall(f, v, names, std::make_index_sequence<NP>(), std::make_index_sequence<NK>());
}
using KwCaller = ffi::Any (*)(const ffi::Function&, const Values&, const Names&);
template <size_t NP, size_t... NK>
constexpr std::array<KwCaller, kMaxKeywords + 1> KwRow(std::index_sequence<NK...>) {
  return {&KwCallOf<NP, NK>...};
}
template <size_t... NP>
constexpr std::array<std::array<KwCaller, kMaxKeywords + 1>, kMaxPositional + 1> KwTable(
    std::index_sequence<NP...>) {
  return {KwRow<NP>(std::make_index_sequence<kMaxKeywords + 1>())...};
}
ffi::Any CallWithKw(const ffi::Function& f, const Values& v, size_t np, const Names& names) {
  static constexpr auto kTable = KwTable(std::make_index_sequence<kMaxPositional + 1>());
  return kTable[np][names.size()](f, v, names);
}

// site(v[0], ..., v[n-1]), for a count known at run time.
template <size_t... I>
ffi::Any SiteCall(const CallSite& site, const Values& v, std::index_sequence<I...>) {
  return site(v[I]...);
}
template <size_t N>
ffi::Any SiteCallOf(const CallSite& site, const Values& v) {
  return SiteCall(site, v, std::make_index_sequence<N>());
}
template <size_t... N>
ffi::Any CallSiteWith(const CallSite& site, const Values& v, std::index_sequence<N...>) {
  using Caller = ffi::Any (*)(const CallSite&, const Values&);
  static constexpr Caller kTable[] = {&SiteCallOf<N>...};
  return kTable[v.size()](site, v);
}
ffi::Any CallSiteWith(const CallSite& site, const Values& v) {
  return CallSiteWith(site, v, std::make_index_sequence<kMaxPositional + kMaxKeywords + 1>());
}

// Every keyword list of up to kMaxKeywords names drawn from `pool` (repeats included).
std::vector<Names> KeywordLists(const Names& pool) {
  std::vector<Names> lists = {{}};
  for (size_t begin = 0, length = 0; length < kMaxKeywords; ++length) {
    const size_t end = lists.size();
    for (size_t i = begin; i < end; ++i) {
      for (const std::string& name : pool) {
        Names longer = lists[i];
        longer.push_back(name);
        lists.push_back(longer);
      }
    }
    begin = end;
  }
  return lists;
}

std::string Shape(size_t np, const Names& names) {
  std::string text = std::to_string(np) + " positional";
  for (const std::string& name : names) text += ", " + name;
  return text;
}

// Every shape of up to kMaxPositional positional values and kMaxKeywords keywords from `pool`:
// the site either fails to be made with exactly the KWARGS call's error, or returns what the
// KWARGS call returns. Returns how many shapes bound.
int CheckEveryShape(const ffi::Function& f, const Names& pool) {
  int bound = 0;
  for (size_t np = 0; np <= kMaxPositional; ++np) {
    for (const Names& names : KeywordLists(pool)) {
      SCOPED_TRACE(Shape(np, names));
      Values values;
      for (size_t i = 0; i < np + names.size(); ++i) values.push_back(int64_t{101} + i);
      std::string kwargs_error;
      ffi::Any want;
      try {
        want = CallWithKw(f, values, np, names);
      } catch (const ffi::Error& err) {
        kwargs_error = std::string(err.kind()) + ": " + std::string(err.message());
      }
      if (!kwargs_error.empty()) {
        EXPECT_EQ(ErrorOf([&] { CallSite(f, static_cast<int32_t>(np), names); }), kwargs_error);
        continue;
      }
      CallSite site(f, static_cast<int32_t>(np), names);
      EXPECT_EQ(site.num_values(), static_cast<int32_t>(values.size()));
      EXPECT_EQ(Ints(CallSiteWith(site, values)), Ints(want));
      ++bound;
    }
  }
  return bound;
}

TEST(CallSite, EveryShapeOfEveryParameterKindBindsAsKwargs) {
  // "x" is unknown, "a_" close enough to "a" for CPython 3.13's suggestion.
  // 14 shapes with 1 positional value, 11 with 2, 3 with 3.
  EXPECT_EQ(CheckEveryShape(MakeF(), {"p", "a", "b", "k", "m", "x", "a_"}), 28);
}

TEST(CallSite, EveryShapeOfPositionalOnlyParametersBindsAsKwargs) {
  // def g(x, y=2, z=3, /)
  ffi::Function g = MakeFunction(EchoTarget(), SignatureBuilder("g")
                                                   .PositionalOnly("x")
                                                   .PositionalOnly("y", 2)
                                                   .PositionalOnly("z", 3)
                                                   .Build());
  EXPECT_EQ(CheckEveryShape(g, {"x", "y", "w"}), 3);  // only positional counts 1 to 3 bind
}

TEST(CallSite, EveryShapeOfKeywordOnlyParametersBindsAsKwargs) {
  // def h(*, a=1, b=2, c=3)
  ffi::Function h = MakeFunction(
      EchoTarget(),
      SignatureBuilder("h").KeywordOnly("a", 1).KeywordOnly("b", 2).KeywordOnly("c", 3).Build());
  EXPECT_EQ(CheckEveryShape(h, {"a", "b", "c", "d"}), 16);  // 1 + 3 + 6 + 6 orders
}

TEST(CallSite, EveryShapeWithLongNamesAndAnUnpackedParameterBindsAsKwargs) {
  // def u(config_of_the_kernel, beta_longer_name=5, *, gamma_is_very_long_indeed=6), the first
  // unpacked from a dataclass by Python callers (C++ passes every value as it is).
  ffi::Function u = MakeFunction(EchoTarget(), SignatureBuilder("u")
                                                   .Param("config_of_the_kernel")
                                                   .Unpack()
                                                   .Param("beta_longer_name", 5)
                                                   .KeywordOnly("gamma_is_very_long_indeed", 6)
                                                   .Build());
  // 11 shapes with no positional value, 5 with 1, 2 with 2.
  EXPECT_EQ(CheckEveryShape(u, {"config_of_the_kernel", "beta_longer_name",
                                "gamma_is_very_long_indeed", "beta_longer_nam"}),
            18);
}

TEST(CallSite, DefaultsAndReorderedKeywords) {
  ffi::Function f = MakeF();
  CallSite site(f, 1, {"m", "k", "a"});
  EXPECT_EQ(site.num_values(), 4);
  EXPECT_EQ(site.num_positional(), 1);
  EXPECT_EQ(site.keywords(), (Names{"m", "k", "a"}));
  EXPECT_TRUE(site.signature().same_as(*GetSignature(f)));
  EXPECT_EQ(Ints(site(1, 4, 3, 2)), (Values{1, 2, 10, 3, 4}));
  EXPECT_EQ(Ints(site(5, 6, 7, 8)), Ints(Call(f, 5, Kw("m", 6), Kw("k", 7), Kw("a", 8))));
  // Any value type, as a KWARGS call passes it.
  CallSite names(f, 2, {"k"});
  ffi::Any out = names(std::string("x"), 2.5, ffi::String("k"));
  auto items = out.cast<ffi::Array<ffi::Any>>();
  EXPECT_EQ(items[0].cast<std::string>(), "x");
  EXPECT_EQ(items[1].cast<double>(), 2.5);
  EXPECT_EQ(items[2].cast<int>(), 10);
  EXPECT_EQ(items[3].cast<std::string>(), "k");
}

TEST(CallSite, ShapeErrorsAreCPythonsWhenTheSiteIsMade) {
  ffi::Function f = MakeF();
  EXPECT_EQ(ErrorOf([&] {
              CallSite(f, 2, {"k", "x"});
            }),
            "TypeError: f() got an unexpected keyword argument 'x'");
  EXPECT_EQ(ErrorOf([&] {
              CallSite(f, 2, {"k", "k"});
            }),
            "TypeError: f() got multiple values for argument 'k'");
  EXPECT_EQ(ErrorOf([&] {
              CallSite(f, 2, {"a", "k"});
            }),
            "TypeError: f() got multiple values for argument 'a'");
  EXPECT_EQ(ErrorOf([&] {
              CallSite(f, 0, {"p", "a", "k"});
            }),
            "TypeError: f() got some positional-only arguments passed as keyword arguments: 'p'");
  EXPECT_EQ(ErrorOf([&] { CallSite(f, 2, {}); }),
            "TypeError: f() missing 1 required keyword-only argument: 'k'");
  EXPECT_EQ(ErrorOf([&] { CallSite(f, 0, {"k"}); }),
            "TypeError: f() missing 2 required positional arguments: 'p' and 'a'");
  EXPECT_EQ(ErrorOf([&] { CallSite(f, 4, {"k"}); }),
            "TypeError: f() takes from 2 to 3 positional arguments but 4 positional arguments "
            "(and 1 keyword-only argument) were given");
  // CPython's rules, as for a KWARGS call: every parameter positionally is the native call
  // of f itself, not a shape a site binds.
  EXPECT_EQ(ErrorOf([&] { CallSite(f, 5, {}); }),
            "TypeError: f() takes from 2 to 3 positional arguments but 5 were given");
}

TEST(CallSite, WrongValueCountIsAClearError) {
  ffi::Function f = MakeF();
  CallSite site(f, 2, {"k", "m"});
  EXPECT_EQ(ErrorOf([&] { site(1, 2, 3); }),
            "TypeError: kwcall::CallSite for f() takes 4 values (2 positional, then 'k', 'm'), "
            "but 3 were given");
  EXPECT_EQ(ErrorOf([&] { site(1, 2, 3, 4, 5); }),
            "TypeError: kwcall::CallSite for f() takes 4 values (2 positional, then 'k', 'm'), "
            "but 5 were given");
  // Values in declaration order take the direct way when the count is right, and are
  // refused the same way when it is not.
  CallSite in_order(f, 2, {"b", "k"});
  EXPECT_EQ(Ints(in_order(1, 2, 3, 4)), (Values{1, 2, 3, 4, 20}));
  EXPECT_EQ(ErrorOf([&] { in_order(1, 2, 3); }),
            "TypeError: kwcall::CallSite for f() takes 4 values (2 positional, then 'b', 'k'), "
            "but 3 were given");
  ffi::Function one = MakeFunction(EchoTarget(), SignatureBuilder("one").Param("x").Build());
  EXPECT_EQ(ErrorOf([&] { CallSite(one, 1)(); }),
            "TypeError: kwcall::CallSite for one() takes 1 value (1 positional), but 0 were given");
}

TEST(CallSite, RefusesWhatIsNotAKwcallFunction) {
  EXPECT_EQ(ErrorOf([&] { CallSite(ffi::Function(), 0); }),
            "TypeError: kwcall::CallSite: the function is null");
  EXPECT_EQ(ErrorOf([&] { CallSite(EchoTarget(), 1); }),
            "TypeError: kwcall::CallSite: the function is not a kwcall function, so it has no "
            "signature to bind keywords to (make one with kwcall::MakeFunction or "
            "kwcall::LoadFunction, or call a plain tvm-ffi function positionally)");
  EXPECT_EQ(ErrorOf([&] { CallSite(MakeF(), -1, {"k"}); }),
            "ValueError: kwcall::CallSite for f(): the number of positional values must be 0 or "
            "more, got -1");
}

TEST(CallSite, HoldsTheTargetAlive) {
  auto token = std::make_shared<int>(7);
  std::weak_ptr<int> watch = token;
  ffi::Function target =
      ffi::Function::FromTyped([token](int64_t x, int64_t y) { return x * 10 + y + *token - 7; });
  token.reset();
  Signature sig = SignatureBuilder("t").Param("x").Param("y", 2).Build();
  auto site = std::make_unique<CallSite>(MakeFunction(target, sig), 0, Names{"x"});
  target = ffi::Function();  // the site's reference is the last one
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ((*site)(4).cast<int64_t>(), 42);
  CallSite copy = *site;
  site.reset();
  EXPECT_EQ(copy(5).cast<int64_t>(), 52);
  copy = CallSite(MakeF(), 2, {"k"});
  EXPECT_TRUE(watch.expired());
}

TEST(CallSite, NoHeapPerCall) {
  // A target that allocates nothing: the only allocations would be the site's.
  ffi::Function target =
      ffi::Function::FromTyped([](int64_t a, double b, int64_t c) { return a + b + c; });
  ffi::Function f = MakeFunction(
      target, SignatureBuilder("s").Param("a").Param("b", 2.0).KeywordOnly("c").Build());
  CallSite reordered(f, 1, {"c", "b"});
  CallSite with_default(f, 1, {"c"});
  double sum = 0;
  t_counting = true;
  for (int i = 0; i < 1000; ++i) {
    sum += reordered(1, 3, 2.0).cast<double>() + with_default(1, 3).cast<double>();
  }
  t_counting = false;
  EXPECT_EQ(sum, 12000.0);
  EXPECT_EQ(t_allocations, 0);
  // The count sees allocations: a KWARGS call of a shape the function has not seen records it.
  t_counting = true;
  Call(f, Kw("a", 1), Kw("b", 2.0), Kw("c", 3));
  t_counting = false;
  EXPECT_GT(t_allocations, 0);
}

// Parameters p0 ... p(n-1), the last `num_defaults` with default 1000 + i.
ffi::Function Wide(int32_t n, int32_t num_defaults) {
  SignatureBuilder builder("wide");
  for (int32_t i = 0; i < n; ++i) {
    if (i >= n - num_defaults) {
      builder.Param("p" + std::to_string(i), int64_t{1000} + i);
    } else {
      builder.Param("p" + std::to_string(i));
    }
  }
  return MakeFunction(EchoTarget(), builder.Build());
}

template <size_t... I>
ffi::Any SiteCallWide(const CallSite& site, std::index_sequence<I...>) {
  return site(static_cast<int64_t>(I)...);
}

TEST(CallSite, TargetsWiderThanTheStackArrayBindOnTheHeap) {
  constexpr int32_t kArity = CallSite::kInlineArity + 6;
  ffi::Function f = Wide(kArity, 5);
  // Values 0 ... kArity - 4: the positional ones, then p(kArity-4) and p(kArity-6) by keyword.
  const int32_t np = kArity - 6;
  CallSite site(f, np, {"p" + std::to_string(kArity - 4), "p" + std::to_string(kArity - 6)});
  ffi::Any got = SiteCallWide(site, std::make_index_sequence<kArity - 4>());
  Values want;
  for (int32_t i = 0; i < np; ++i) want.push_back(i);
  want.push_back(np + 1);         // p(kArity-6), the second keyword
  want.push_back(1000 + np + 1);  // p(kArity-5), a default
  want.push_back(np);             // p(kArity-4), the first keyword
  for (int32_t i = kArity - 3; i < kArity; ++i) want.push_back(1000 + i);
  EXPECT_EQ(Ints(got), want);
}

TEST(CallSite, SharedByThreads) {
  ffi::Function target = ffi::Function::FromTyped(
      [](int64_t a, int64_t b, int64_t c) { return a * 100 + b * 10 + c; });
  const CallSite site(
      MakeFunction(target, SignatureBuilder("s").Param("a").Param("b").Param("c", 9).Build()), 1,
      {"b"});
  std::atomic<int64_t> mismatches{0};
  std::vector<std::thread> threads;
  for (int64_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int64_t i = 0; i < 20000; ++i) {
        if (site(t, i % 10).cast<int64_t>() != t * 100 + (i % 10) * 10 + 9) ++mismatches;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace kwcall
