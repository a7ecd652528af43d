// Binding through the kwcall function: every parameter kind, every CPython error, and
// malformed KWARGS tails. The expected texts are what CPython prints for the same `def`.
#include <kwcall/kwcall.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "binding/binder.h"
#include "binding/keyword_shapes.h"
#include "test_util.h"

namespace kwcall {
namespace {

using testing::EchoTarget;
using testing::ErrorOf;
using testing::Ints;
using testing::MakeF;

TEST(Binding, NativeFullArityCallIsForwardedUntouched) {
  const ffi::AnyView* seen = nullptr;
  auto target = ffi::Function::FromPacked([&](ffi::PackedArgs args, ffi::Any* rv) {
    seen = args.data();
    *rv = args.size();
  });
  ffi::Function f = MakeFunction(target, SignatureBuilder("g").Param("x").KeywordOnly("k").Build());
  ffi::AnyView packed[2] = {1, 2};
  ffi::Any rv;
  f.CallPacked(packed, 2, &rv);
  EXPECT_EQ(seen, packed);  // the very same array: no copy
  EXPECT_EQ(rv.cast<int>(), 2);
}

TEST(Binding, PositionalKeywordsAndDefaults) {
  ffi::Function f = MakeF();
  EXPECT_EQ(Ints(Call(f, 1, 2, Kw("k", 3))), (std::vector<int64_t>{1, 2, 10, 3, 20}));
  EXPECT_EQ(Ints(Call(f, 1, Kw("a", 2), Kw("k", 3), Kw("m", 4))),
            (std::vector<int64_t>{1, 2, 10, 3, 4}));
  EXPECT_EQ(Ints(Call(f, 1, Kw("m", 4), Kw("k", 3), Kw("b", 5), Kw("a", 2))),
            (std::vector<int64_t>{1, 2, 5, 3, 4}));
  EXPECT_EQ(Ints(Call(f, 1, 2, 3, Kw("k", 4))), (std::vector<int64_t>{1, 2, 3, 4, 20}));
}

TEST(Binding, FewerArgumentsThanArityUseDefaults) {
  ffi::Function f =
      MakeFunction(EchoTarget(), SignatureBuilder("h").Param("x").Param("y", 7).Build());
  EXPECT_EQ(Ints(f(1)), (std::vector<int64_t>{1, 7}));
  EXPECT_EQ(Ints(f(1, 2)), (std::vector<int64_t>{1, 2}));
}

// Positional calls that leave out trailing defaults skip the binder; the edges of that shortcut.
TEST(Binding, TrailingDefaultsLeftOutPositionally) {
  // def f(a, b=1, *, c=2)
  ffi::Function f = MakeFunction(
      EchoTarget(), SignatureBuilder("f").Param("a").Param("b", 1).KeywordOnly("c", 2).Build());
  EXPECT_EQ(Ints(f(5)), (std::vector<int64_t>{5, 1, 2}));
  EXPECT_EQ(Ints(f(5, 6)), (std::vector<int64_t>{5, 6, 2}));
  EXPECT_EQ(ErrorOf([&] { f(); }), "TypeError: f() missing 1 required positional argument: 'a'");
  EXPECT_EQ(ErrorOf([&] { f(5, 6, 7, 8); }),
            "TypeError: f() takes from 1 to 2 positional arguments but 4 were given");
  // def g(a, b=1, *, c): a required keyword-only parameter keeps every call on the binder.
  ffi::Function g = MakeFunction(
      EchoTarget(), SignatureBuilder("g").Param("a").Param("b", 1).KeywordOnly("c").Build());
  EXPECT_EQ(ErrorOf([&] { g(5); }), "TypeError: g() missing 1 required keyword-only argument: 'c'");
}

TEST(Binding, KeywordNamesOfEveryStringKind) {
  ffi::Function f = MakeF();
  // Raw C string, small string (<= 7 bytes) and heap string object.
  ffi::String small("k");
  ffi::Function g = MakeFunction(
      EchoTarget(), SignatureBuilder("g").Param("x").Param("a_long_parameter_name").Build());
  ffi::String large("a_long_parameter_name");
  EXPECT_EQ(Ints(f(1, 2, KwargsSentinel(), small, 3)), (std::vector<int64_t>{1, 2, 10, 3, 20}));
  EXPECT_EQ(Ints(g(1, KwargsSentinel(), large, 2)), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Ints(g(1, KwargsSentinel(), "a_long_parameter_name", 2)), (std::vector<int64_t>{1, 2}));
}

TEST(Binding, CPythonErrors) {
  ffi::Function f = MakeF();
  EXPECT_EQ(ErrorOf([&] { f(); }),
            "TypeError: f() missing 2 required positional arguments: 'p' and 'a'");
  EXPECT_EQ(ErrorOf([&] { f(1); }), "TypeError: f() missing 1 required positional argument: 'a'");
  EXPECT_EQ(ErrorOf([&] { f(1, 2); }),
            "TypeError: f() missing 1 required keyword-only argument: 'k'");
  EXPECT_EQ(ErrorOf([&] { Call(f, 1, 2, 3, 4, Kw("k", 1)); }),
            "TypeError: f() takes from 2 to 3 positional arguments but 4 positional arguments "
            "(and 1 keyword-only argument) were given");
  EXPECT_EQ(ErrorOf([&] { f(1, 2, 3, 4); }),
            "TypeError: f() takes from 2 to 3 positional arguments but 4 were given");
  EXPECT_EQ(ErrorOf([&] { Call(f, 1, 2, Kw("k", 1), Kw("x", 1)); }),
            "TypeError: f() got an unexpected keyword argument 'x'");
  EXPECT_EQ(ErrorOf([&] { Call(f, 1, 2, Kw("a", 1), Kw("k", 1)); }),
            "TypeError: f() got multiple values for argument 'a'");
  EXPECT_EQ(ErrorOf([&] { Call(f, 1, 2, Kw("k", 1), Kw("k", 2)); }),
            "TypeError: f() got multiple values for argument 'k'");
  EXPECT_EQ(ErrorOf([&] { Call(f, Kw("p", 1), Kw("a", 2), Kw("k", 1)); }),
            "TypeError: f() got some positional-only arguments passed as keyword arguments: "
            "'p'");
  // CPython reports positional-only names before an unknown keyword that precedes them.
  EXPECT_EQ(ErrorOf([&] { Call(f, 1, 2, Kw("x", 1), Kw("p", 1)); }),
            "TypeError: f() got some positional-only arguments passed as keyword arguments: "
            "'p'");
}

TEST(Binding, MissingListsAndPluralForms) {
  ffi::Function three = MakeFunction(EchoTarget(), SignatureBuilder("t")
                                                       .Param("a")
                                                       .Param("b")
                                                       .Param("c")
                                                       .KeywordOnly("x")
                                                       .KeywordOnly("y")
                                                       .KeywordOnly("z")
                                                       .Build());
  EXPECT_EQ(ErrorOf([&] { three(); }),
            "TypeError: t() missing 3 required positional arguments: 'a', 'b', and 'c'");
  EXPECT_EQ(ErrorOf([&] { Call(three, 1, 2, 3, Kw("y", 1)); }),
            "TypeError: t() missing 2 required keyword-only arguments: 'x' and 'z'");
  ffi::Function one = MakeFunction(EchoTarget(), SignatureBuilder("o").Param("a").Build());
  EXPECT_EQ(ErrorOf([&] { one(1, 2); }),
            "TypeError: o() takes 1 positional argument but 2 were given");
  ffi::Function none = MakeFunction(EchoTarget(), SignatureBuilder("n").KeywordOnly("k").Build());
  EXPECT_EQ(ErrorOf([&] { none(1, 2); }),
            "TypeError: n() takes 0 positional arguments but 2 were given");
  EXPECT_EQ(ErrorOf([&] { Call(none, 5, Kw("k", 1)); }),
            "TypeError: n() takes 0 positional arguments but 1 positional argument (and 1 "
            "keyword-only argument) were given");
}

TEST(Binding, MalformedKwargsTails) {
  ffi::Function f = MakeF();
  EXPECT_EQ(ErrorOf([&] { f(1, 2, KwargsSentinel(), "k"); }),
            "TypeError: f(): KWARGS must be followed by name/value pairs, got 1 values after it");
  EXPECT_EQ(ErrorOf([&] { f(1, 2, KwargsSentinel(), 5, 3); }),
            "TypeError: f(): keyword 0 after KWARGS must be a string, got int");
  EXPECT_EQ(ErrorOf([&] { f(1, 2, KwargsSentinel(), KwargsSentinel(), 3); }),
            "TypeError: f(): the KWARGS sentinel appears twice");
  EXPECT_EQ(ErrorOf([&] { f(1, 2, KwargsSentinel(), "k", KwargsSentinel()); }),
            "TypeError: f(): the KWARGS sentinel cannot be the value of keyword 'k'");
  // A full-arity call that carries the sentinel is bound, not forwarded.
  EXPECT_EQ(ErrorOf([&] { f(1, KwargsSentinel(), "k", 3, "m"); }),
            "TypeError: f(): KWARGS must be followed by name/value pairs, got 3 values after it");
  // An empty tail is a positional call.
  EXPECT_EQ(ErrorOf([&] { f(1, 2, KwargsSentinel()); }),
            "TypeError: f() missing 1 required keyword-only argument: 'k'");
}

// A full-arity call with the sentinel at any position is a tail, well formed or not, at every
// arity the entry points are made for (0 to 4 unrolled, then the loop): never forwarded.
TEST(Binding, FullArityCallsWithTheSentinelAnywhere) {
  for (int arity = 1; arity <= 6; ++arity) {
    SignatureBuilder builder("p");
    for (int i = 0; i < arity; ++i) builder.Param("p" + std::to_string(i));
    ffi::Function f = MakeFunction(EchoTarget(), builder.Build());
    for (int at = 0; at < arity; ++at) {
      std::vector<ffi::AnyView> packed(arity, ffi::AnyView(7));
      packed[at] = KwargsSentinel();
      const int tail = arity - at - 1;
      std::string expected;
      if (tail % 2 != 0) {
        expected = "TypeError: p(): KWARGS must be followed by name/value pairs, got " +
                   std::to_string(tail) + " values after it";
      } else if (tail == 0) {
        expected = "TypeError: p() missing 1 required positional argument: 'p" +
                   std::to_string(arity - 1) + "'";
      } else {
        expected = "TypeError: p(): keyword 0 after KWARGS must be a string, got int";
      }
      EXPECT_EQ(ErrorOf([&] {
                  ffi::Any rv;
                  f.CallPacked(packed.data(), arity, &rv);
                }),
                expected)
          << "arity " << arity << ", sentinel at " << at;
    }
  }
}

TEST(Binding, WideSignaturesUseTheHeapFallback) {
  SignatureBuilder builder("wide");
  for (int i = 0; i < 40; ++i) builder.Param("p" + std::to_string(i), i);
  ffi::Function f = MakeFunction(EchoTarget(), builder.Build());
  std::vector<ffi::AnyView> packed = {1, KwargsSentinel()};
  std::vector<std::string> names;
  for (int i = 39; i >= 20; --i) names.push_back("p" + std::to_string(i));
  for (const std::string& name : names) {
    packed.push_back(name.c_str());
    packed.push_back(-1);
  }
  ffi::Any rv;
  f.CallPacked(packed.data(), static_cast<int32_t>(packed.size()), &rv);
  std::vector<int64_t> got = Ints(rv);
  ASSERT_EQ(got.size(), 40u);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[19], 19);
  EXPECT_EQ(got[20], -1);
  EXPECT_EQ(got[39], -1);
}

// No keywords: what a Python call with only positional arguments passes to BindSlots.
struct NoKeys {
  int32_t size() const { return 0; }
  ParamLookup Find(int32_t) const { return Lookup::kNoParam; }
  int Names(int32_t, int32_t) const { return 0; }
  std::string_view Text(int32_t) const { return ""; }
  bool Shown(int32_t, std::string_view*) const { return false; }
};

TEST(Binding, PositionalCountsBeyondInt32AreReportedNotTruncated) {
  // Python can pass more than 2**31 positional arguments; the count must reach the message
  // intact, and slots (sized by the signature) must never be indexed by it.
  Signature sig = SignatureBuilder("f").Param("a").Param("b").Build();
  Slot slots[2] = {SlotMark::kDefault, SlotMark::kDefault};
  std::string error;
  const int64_t huge = (int64_t{1} << 31) + 1;
  EXPECT_FALSE(BindSlots(sig, huge, NoKeys(), slots, &error));
  EXPECT_EQ(error, "f() takes 2 positional arguments but 2147483649 were given");
  EXPECT_EQ(slots[0].index(), 0);
  EXPECT_EQ(slots[1].index(), 1);
}

TEST(Binding, KeywordShapesRememberOnlyWhatThePolicyCovers) {
  KeywordShapes::Shape one, none, many;
  one.num_keywords = 1;
  many.num_keywords = KeywordShapes::kMaxKeywords + 1;
  KeywordShapes wide(/*fit_masks=*/false);  // a signature past the masks' 64 parameters
  wide.Remember(one);
  EXPECT_EQ(wide.Get(0), nullptr);
  KeywordShapes shapes(/*fit_masks=*/true);
  shapes.Remember(none);  // no keywords: nothing to look up again
  shapes.Remember(many);
  EXPECT_EQ(shapes.Get(0), nullptr);
  shapes.Remember(one);
  ASSERT_NE(shapes.Get(0), nullptr);
  EXPECT_EQ(shapes.Get(0)->num_keywords, 1);
}

TEST(Binding, RememberingTheLastShapeAgainWritesNothing) {
  // Issue 31.17: a caller whose keys miss the pointer compare remembers the same shape on
  // every call; every thread reads the cache's lines, so that must write nothing. The cache
  // sits on a page made read-only: a write there would kill the process.
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t size = (sizeof(KeywordShapes) + page - 1) / page * page;
  void* memory = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  auto* shapes = new (memory) KeywordShapes(/*fit_masks=*/true);
  KeywordShapes::Shape first, second;
  first.num_keywords = second.num_keywords = 1;
  first.params[0] = 1;
  second.params[0] = 2;
  shapes->Remember(first);
  shapes->Remember(second);
  ASSERT_EQ(shapes->last(), 1);
  ASSERT_EQ(mprotect(memory, size, PROT_READ), 0);
  EXPECT_EXIT(
      {
        shapes->Remember(second);
        // _Exit: no exit-time leak check in the child, which would count the shapes' memory
        // (referenced only from this mmap'd page, which LeakSanitizer does not scan) as leaked.
        std::_Exit(shapes->last() == 1 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  ASSERT_EQ(mprotect(memory, size, PROT_READ | PROT_WRITE), 0);
  shapes->Remember(first);  // another shape than the last one: written
  EXPECT_EQ(shapes->last(), 0);
  shapes->~KeywordShapes();
  munmap(memory, size);
}

TEST(Binding, RepeatedShapesCheckEveryNameAgain) {
  // Repeat calls reuse the parameter each keyword position named last time, after checking the
  // name again: the same C string buffer may hold another name, and the same shape may name
  // other parameters.
  ffi::Function f = MakeFunction(
      EchoTarget(), SignatureBuilder("f").Param("a").Param("b", 0).Param("c", 0).Build());
  char buffer[8] = "b";
  for (int i = 0; i < 3; ++i) {
    std::strcpy(buffer, "b");
    EXPECT_EQ(Ints(f(1, KwargsSentinel(), static_cast<const char*>(buffer), 5)),
              (std::vector<int64_t>{1, 5, 0}));
    std::strcpy(buffer, "c");
    EXPECT_EQ(Ints(f(1, KwargsSentinel(), static_cast<const char*>(buffer), 5)),
              (std::vector<int64_t>{1, 0, 5}));
    std::strcpy(buffer, "a");
    EXPECT_EQ(ErrorOf([&] { f(1, KwargsSentinel(), static_cast<const char*>(buffer), 5); }),
              "TypeError: f() got multiple values for argument 'a'");
  }
  // More distinct shapes than are remembered keep binding correctly.
  for (int round = 0; round < 2; ++round) {
    for (int n = 0; n < 3; ++n) {
      for (const char* name : {"b", "c"}) {
        std::vector<ffi::AnyView> packed;
        for (int i = 0; i < n; ++i) packed.push_back(10 + i);
        if (n == 0) packed.push_back(1);
        packed.push_back(KwargsSentinel());
        packed.push_back(name);
        packed.push_back(7);
        ffi::Any rv;
        if (n > 1 && std::string(name) == "b") {
          EXPECT_EQ(ErrorOf([&] { f.CallPacked(packed.data(), packed.size(), &rv); }),
                    "TypeError: f() got multiple values for argument 'b'");
          continue;
        }
        f.CallPacked(packed.data(), static_cast<int32_t>(packed.size()), &rv);
        std::vector<int64_t> got = Ints(rv);
        EXPECT_EQ(got[std::string(name) == "b" ? 1 : 2], 7);
      }
    }
  }
  // A value that is the sentinel is refused on a repeated shape too.
  EXPECT_EQ(Ints(Call(f, 1, Kw("c", 2))), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(ErrorOf([&] { Call(f, 1, Kw("c", KwargsSentinel())); }),
            "TypeError: f(): the KWARGS sentinel cannot be the value of keyword 'c'");
}

}  // namespace
}  // namespace kwcall
