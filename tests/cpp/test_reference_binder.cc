// kwcall's binder against the reference binder (tests/reference/reference_binder.h, CPython's
// rules written apart from src/, shared with fuzz/fuzz_binder.cc) over generated signatures
// and packed calls, from a fixed seed so that every run checks the same calls. The fuzzer
// explores further; this runs in every ctest.
#include <gtest/gtest.h>
#include <kwcall/kwcall.h>
#include <tvm/ffi/string.h>

#include <algorithm>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "reference/reference_binder.h"

namespace kwcall {
namespace {

// Names of every length class a packed name can take: small (up to 7 bytes), exactly 8 (the
// compare prefix), longer (two sharing an 8-byte prefix), and non-ASCII.
const std::vector<std::string> kNames = {"a",           "b",
                                         "x",           "alpha",
                                         "beta",        "stream0",
                                         "abcdefgh",    "abcdefgh1",
                                         "abcdefgh2",   "a_long_parameter_name",
                                         "\u00e9",      "\u03b1\u03b2\u03b3",
                                         "\u53d8\u91cf"};
// Keywords that name no parameter of these signatures, some close to one.
const std::vector<std::string> kMisses = {"Alpha", "alhpa", "abcdefgi", "", "zz", "\u00e8"};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool OneIn(int n) { return Int(0, n - 1) == 0; }

  Signature MakeSignature() {
    const int num_params = OneIn(8) ? Int(17, 70) : Int(0, 8);
    const int num_posonly = Int(0, num_params);
    const int num_positional = Int(num_posonly, num_params);
    const int first_default = Int(0, num_positional);
    std::vector<Param> params;
    std::vector<bool> used(kNames.size());
    for (int i = 0; i < num_params; ++i) {
      Param param;
      const int pick = Int(0, static_cast<int>(kNames.size()) + 2);
      if (pick < static_cast<int>(kNames.size()) && !used[pick]) {
        used[pick] = true;
        param.name = kNames[pick];
      } else {
        param.name = "p" + std::to_string(i);
      }
      param.kind = i < num_posonly      ? ParamKind::kPositionalOnly
                   : i < num_positional ? ParamKind::kPositionalOrKeyword
                                        : ParamKind::kKeywordOnly;
      if (i < num_positional ? i >= first_default : Int(0, 1) == 0) {
        param.default_value =
            OneIn(2) ? ffi::Any(int64_t{1000} + i) : ffi::Any(ffi::String("d" + std::to_string(i)));
      }
      params.push_back(std::move(param));
    }
    return Signature::Make(OneIn(2) ? "f" : "kernel", std::move(params));
  }

  // A packed call: half of them planned to bind (enough positional arguments, then a keyword
  // for each other required parameter and some optional ones, in some order), the others
  // random; in both, keywords may be misnamed, repeated, positional-only or malformed, and
  // names are packed as C strings, small strings and string objects.
  std::vector<TVMFFIAny> MakeCall(const Signature& sig) {
    std::vector<TVMFFIAny> args;
    const int num_params = sig.num_params();
    std::vector<int> plan;  // the parameter each keyword names, -1 for any
    int nargs;
    if (OneIn(2)) {
      int required_posonly = 0;
      while (required_posonly < sig.posonly_count() && !sig.has_default(required_posonly)) {
        ++required_posonly;
      }
      nargs = Int(required_posonly, sig.num_positional());
      for (int i = std::max(nargs, sig.posonly_count()); i < num_params; ++i) {
        if (!sig.has_default(i) || OneIn(2)) plan.push_back(i);
      }
      std::shuffle(plan.begin(), plan.end(), rng_);
    } else {
      nargs = Int(0, num_params + 1);
      plan.assign(Int(0, num_params + 1), -1);
    }
    for (int i = 0; i < nargs; ++i) args.push_back(Int64(next_id_++));
    if (plan.empty() && OneIn(3)) return args;
    args.push_back(reference::Raw(ffi::AnyView(KwargsSentinel())));
    for (int param : plan) {
      if (OneIn(40)) {
        args.push_back(Int64(next_id_++));  // a key that is not a string
      } else {
        args.push_back(Name(param >= 0 && !OneIn(8) ? sig.param_name(param) : KeyText(sig)));
      }
      args.push_back(Int64(next_id_++));
    }
    if (OneIn(20)) args.push_back(Name(KeyText(sig)));  // an odd tail
    return args;
  }

  // The same call with the key at one keyword position renamed: the keyword-shape cache must
  // check every name again.
  bool Rename(const Signature& sig, std::vector<TVMFFIAny>* args) {
    std::vector<size_t> keys;
    for (size_t i = 0; i < args->size(); ++i) {
      if (reference::StringText((*args)[i]).has_value()) keys.push_back(i);
    }
    if (keys.empty()) return false;
    (*args)[keys[Int(0, static_cast<int>(keys.size()) - 1)]] = Name(KeyText(sig));
    return true;
  }

 private:
  static TVMFFIAny Int64(int64_t value) {
    TVMFFIAny raw{};
    raw.type_index = kTVMFFIInt;
    raw.v_int64 = value;
    return raw;
  }

  std::string KeyText(const Signature& sig) {
    if (sig.num_params() == 0 || OneIn(6)) {
      return kMisses[Int(0, static_cast<int>(kMisses.size()) - 1)];
    }
    return sig.param_name(Int(0, sig.num_params() - 1));
  }

  TVMFFIAny Name(const std::string& text) {
    strings_.push_back(text);
    switch (Int(0, 2)) {
      case 0: {
        TVMFFIAny raw{};
        raw.type_index = kTVMFFIRawStr;
        raw.v_c_str = strings_.back().c_str();
        return raw;
      }
      case 1:
        objects_.push_back(ffi::String(text));  // small up to 7 bytes, an object beyond
        return reference::Raw(objects_.back());
      default:
        objects_.push_back(ffi::String(std::string(text)));  // always an object
        return reference::Raw(objects_.back());
    }
  }

  std::mt19937_64 rng_;
  int64_t next_id_ = 100000;
  std::deque<std::string> strings_;  // what C string names point at
  std::deque<ffi::String> objects_;  // what string object names are
};

TEST(ReferenceBinder, KwcallBindsAsTheReferenceOverGeneratedCalls) {
  Generator gen(20261201);
  int checked = 0, bound = 0, type_errors = 0, malformed = 0, failures = 0;
  for (int s = 0; s < 300 && failures < 5; ++s) {
    const Signature sig = gen.MakeSignature();
    const ffi::Function f = MakeFunction(reference::EchoTarget(), sig);
    for (int c = 0; c < 30 && failures < 5; ++c) {
      std::vector<TVMFFIAny> args = gen.MakeCall(sig);
      for (int repeat = 0; repeat < 3; ++repeat) {
        const reference::Expected want =
            reference::Bind(sig, args.data(), static_cast<int64_t>(args.size()));
        const reference::Outcome got = reference::CallPacked(f, args);
        ++checked;
        bound += want.what == reference::Expected::kValues;
        type_errors += want.what == reference::Expected::kTypeError;
        malformed += want.what == reference::Expected::kMalformed;
        if (!reference::Matches(sig, want, got)) {
          ++failures;
          ADD_FAILURE() << reference::DescribeSignature(sig) << " with " << args.size()
                        << " packed arguments\n  want: " << reference::Describe(want)
                        << "\n  got:  " << reference::Describe(got);
        }
        if (!gen.Rename(sig, &args)) break;
      }
    }
  }
  // Every outcome is exercised, so that agreement means something.
  EXPECT_GT(checked, 10000);
  EXPECT_GT(bound, checked / 10);
  EXPECT_GT(type_errors, checked / 10);
  EXPECT_GT(malformed, 50);
}

// The reference itself, on calls whose outcome CPython fixes (so that a reference that agreed
// with a wrong binder would fail here).
TEST(ReferenceBinder, FollowsCPythonOnKnownCalls) {
  const Signature sig =
      SignatureBuilder("f").PositionalOnly("p").Param("a").Param("b", 10).KeywordOnly("k").Build();
  const TVMFFIAny sentinel = reference::Raw(ffi::AnyView(KwargsSentinel()));
  const ffi::String k("k"), p("p"), a("a");
  const auto integer = [](int64_t v) {
    TVMFFIAny raw{};
    raw.type_index = kTVMFFIInt;
    raw.v_int64 = v;
    return raw;
  };
  std::vector<TVMFFIAny> ok = {integer(1), integer(2), sentinel, reference::Raw(k), integer(3)};
  const reference::Expected bound = reference::Bind(sig, ok.data(), 5);
  ASSERT_EQ(bound.what, reference::Expected::kValues);
  ASSERT_EQ(bound.values.size(), 4u);
  EXPECT_EQ(bound.values[2].v_int64, 10);  // b's default
  EXPECT_EQ(bound.values[3].v_int64, 3);

  std::vector<TVMFFIAny> posonly = {sentinel, reference::Raw(p), integer(1)};
  EXPECT_EQ(reference::Bind(sig, posonly.data(), 3).text,
            "f() got some positional-only arguments passed as keyword arguments: 'p'");
  std::vector<TVMFFIAny> twice = {integer(1), integer(2), sentinel, reference::Raw(a), integer(3)};
  EXPECT_EQ(reference::Bind(sig, twice.data(), 5).text, "f() got multiple values for argument 'a'");
  std::vector<TVMFFIAny> missing = {integer(1), sentinel};
  EXPECT_EQ(reference::Bind(sig, missing.data(), 2).text,
            "f() missing 1 required positional argument: 'a'");
  std::vector<TVMFFIAny> many = {integer(1), integer(2),        integer(3), integer(4),
                                 sentinel,   reference::Raw(k), integer(5)};
  EXPECT_EQ(reference::Bind(sig, many.data(), 7).text,
            "f() takes from 2 to 3 positional arguments but 4 positional arguments (and 1 "
            "keyword-only argument) were given");
  std::vector<TVMFFIAny> odd = {integer(1), sentinel, reference::Raw(k)};
  EXPECT_EQ(reference::Bind(sig, odd.data(), 3).what, reference::Expected::kMalformed);
}

}  // namespace
}  // namespace kwcall
