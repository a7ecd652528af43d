// The C++ helpers: kwcall::Call, GetSignature/GetTarget and the FFI globals.
#include <kwcall/kwcall.h>

#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <type_traits>

#include "test_util.h"

namespace kwcall {
namespace {

using testing::EchoTarget;
using testing::ErrorOf;
using testing::Ints;

TEST(KwargsCall, CallPacksTheKwargsTail) {
  // The echo target sees exactly what kwcall::Call packed.
  const std::string beta = "beta";
  ffi::Any packed = Call(EchoTarget(), 1, 2, Kw("alpha", 3), Kw(beta, 4));
  auto items = packed.cast<ffi::Array<ffi::Any>>();
  ASSERT_EQ(items.size(), 7u);
  EXPECT_EQ(items[0].cast<int>(), 1);
  EXPECT_TRUE(items[2].same_as(KwargsSentinel()));
  EXPECT_EQ(items[3].cast<ffi::String>(), "alpha");
  EXPECT_EQ(items[4].cast<int>(), 3);
  EXPECT_EQ(items[5].cast<ffi::String>(), "beta");
  EXPECT_EQ(items[6].cast<int>(), 4);
  EXPECT_EQ(Call(EchoTarget(), 1).cast<ffi::Array<ffi::Any>>().size(), 1u);
  EXPECT_EQ(Call(EchoTarget()).cast<ffi::Array<ffi::Any>>().size(), 0u);
}

TEST(KwargsCall, SignatureAndTargetReadBack) {
  ffi::Function target = EchoTarget();
  Signature sig = SignatureBuilder("f").Param("x").KeywordOnly("k", 1).Build();
  ffi::Function f = MakeFunction(target, sig);
  ASSERT_TRUE(GetSignature(f).has_value());
  EXPECT_EQ(GetSignature(f)->ToJson(), sig.ToJson());
  EXPECT_TRUE(GetTarget(f).value().same_as(target));
  EXPECT_FALSE(GetSignature(target).has_value());
  EXPECT_FALSE(GetTarget(target).has_value());
}

TEST(KwargsCall, GlobalsWorkForEveryLanguage) {
  Signature sig = SignatureBuilder("f").Param("x").Param("y", 5).Build();
  ffi::Function make = ffi::Function::GetGlobalRequired("kwcall.MakeFunction");
  ffi::Function from_json = make(EchoTarget(), sig.ToJson()).cast<ffi::Function>();
  ffi::Function from_map = make(EchoTarget(), sig.ToMap()).cast<ffi::Function>();
  EXPECT_EQ(Ints(Call(from_json, 1)), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(Ints(Call(from_map, Kw("y", 2), Kw("x", 1))), (std::vector<int64_t>{1, 2}));

  ffi::Function from_object = make(EchoTarget(), sig).cast<ffi::Function>();
  EXPECT_TRUE(GetSignature(from_object)->same_as(sig));  // no copy, no second validation

  ffi::Function get = ffi::Function::GetGlobalRequired("kwcall.GetSignature");
  EXPECT_EQ(get(from_json).cast<Signature>().ToJson(), sig.ToJson());
  EXPECT_EQ(get(EchoTarget()).type_index(), ffi::TypeIndex::kTVMFFINone);
  ffi::Function to_map = ffi::Function::GetGlobalRequired("kwcall.SignatureToMap");
  ffi::Function parse = ffi::Function::GetGlobalRequired("kwcall.Signature");
  EXPECT_EQ(parse(to_map(sig)).cast<Signature>().ToJson(), sig.ToJson());
  EXPECT_EQ(ErrorOf([&] { make(EchoTarget(), 3); }),
            "TypeError: A signature must be a kwcall.Signature, its map form or its JSON text, "
            "got int");
}

TEST(KwargsCall, KeywordNamesInEveryForm) {
  ffi::Function f = MakeFunction(
      EchoTarget(),
      SignatureBuilder("f").Param("x").Param("alpha", 1).Param("a_long_name", 2).Build());
  const std::vector<int64_t> want = {0, 7, 8};
  // kwcall::Kw with a C string, a std::string and an ffi::String (small and heap-allocated).
  EXPECT_EQ(Ints(Call(f, 0, Kw("alpha", 7), Kw("a_long_name", 8))), want);
  const std::string alpha = "alpha", a_long_name = "a_long_name";
  EXPECT_EQ(Ints(Call(f, 0, Kw(alpha, 7), Kw(a_long_name, 8))), want);
  const ffi::String alpha_object("alpha"), a_long_name_object("a_long_name");
  EXPECT_EQ(Ints(Call(f, 0, Kw(alpha_object, 7), Kw(a_long_name_object, 8))), want);
  // What generic tvm-ffi callers pass: C string literals after the sentinel.
  EXPECT_EQ(Ints(f(0, KwargsSentinel(), "alpha", 7, "a_long_name", 8)), want);
}

// Kw views its name: a temporary string would be gone before the call (issue 18.10), so the
// forms that take one do not compile. tests/cpp/CMakeLists.txt also compiles the exact form.
static_assert(!std::is_constructible_v<Kw<int>, std::string&&, int>);
static_assert(!std::is_constructible_v<Kw<int>, const std::string&&, int>);
static_assert(!std::is_constructible_v<Kw<int>, ffi::String&&, int>);
static_assert(!std::is_constructible_v<Kw<int>, const ffi::String&&, int>);
static_assert(std::is_constructible_v<Kw<int>, const char (&)[6], int>);
static_assert(std::is_constructible_v<Kw<int>, std::string&, int>);
static_assert(std::is_constructible_v<Kw<int>, const std::string&, int>);
static_assert(std::is_constructible_v<Kw<int>, ffi::String&, int>);

TEST(KwargsCall, ShortKwNamesAreTvmFfisSmallStrings) {
  // A name of fewer than 8 bytes is packed as tvm-ffi packs that string, so that the kwcall
  // function compares it as two words (ParamNames::IsPackedForm); from a literal and from a
  // std::string, whose length is known only at run time.
  for (const char* text : {"", "a", "alpha", "abcdefg"}) {
    const ffi::String object(text);
    const ffi::AnyView view(object);
    TVMFFIAny want;
    std::memcpy(&want, &view, sizeof(want));
    const std::string name(text);
    for (const TVMFFIAny& got : {Kw(text, 1).name, Kw(name, 1).name}) {
      EXPECT_EQ(std::memcmp(&got, &want, sizeof(got)), 0) << "'" << text << "'";
    }
  }
  EXPECT_EQ(Kw("alpha", 1).name.type_index, ffi::TypeIndex::kTVMFFISmallStr);
}

TEST(KwargsCall, KeysNotInTheirPackedFormStillBind) {
  // A small string key with bytes past its length that are not zero, a raw C string and a
  // string object: each is read as text when the two-word compare says nothing.
  ffi::Function f = MakeFunction(
      EchoTarget(), SignatureBuilder("f").Param("x").Param("alpha", 1).Param("beta", 2).Build());
  TVMFFIAny alpha = Kw("alpha", 0).name;
  alpha.v_bytes[6] = 'z';  // beyond the length: not part of the name
  const ffi::String beta("beta");
  for (int repeat = 0; repeat < 2;
       ++repeat) {  // the first call learns the shape, the second uses it
    ffi::AnyView packed[6] = {ffi::AnyView(0), ffi::AnyView(KwargsSentinel()), ffi::AnyView(),
                              ffi::AnyView(7), ffi::AnyView("beta"),           ffi::AnyView(8)};
    std::memcpy(reinterpret_cast<TVMFFIAny*>(&packed[2]), &alpha, sizeof(alpha));
    ffi::Any result;
    f.CallPacked(packed, 6, &result);
    EXPECT_EQ(Ints(result), (std::vector<int64_t>{0, 7, 8}));
    EXPECT_EQ(Ints(Call(f, 0, Kw("alpha", 5), Kw(beta, 6))), (std::vector<int64_t>{0, 5, 6}));
  }
}

TEST(KwargsCall, KeywordsBuiltBeforeTheCallReadLiveNames) {
  // The form with a name that outlives the Kw: past 15 bytes it is viewed, not copied.
  ffi::Function f = MakeFunction(
      EchoTarget(), SignatureBuilder("f").Param("x").Param("alpha_long_name", 1).Build());
  const std::string name = "alpha_long_name";
  auto kw = Kw(name, 7);
  auto literal = Kw("alpha_long_name", 8);
  EXPECT_EQ(Ints(Call(f, 0, kw)), (std::vector<int64_t>{0, 7}));
  EXPECT_EQ(Ints(Call(f, 0, literal)), (std::vector<int64_t>{0, 8}));
}

TEST(KwargsCall, KwNamesAreCopiedBelowSixteenBytes) {
  // Issue 31.12: a name shorter than 16 bytes is copied into the Kw, so a buffer reused
  // before the call does not change what binds; the Kw's copies hold their own copy.
  ffi::Function f = MakeFunction(
      EchoTarget(),
      SignatureBuilder("f").Param("x").Param("alpha_beta", 1).Param("gamma_delt", 2).Build());
  char buffer[16] = "alpha_beta";  // 10 bytes
  auto kw = Kw(static_cast<const char*>(buffer), 7);
  std::memcpy(buffer, "gamma_delt", 10);
  EXPECT_EQ(Ints(Call(f, 0, kw)), (std::vector<int64_t>{0, 7, 2}));
  alignas(Kw<int>) unsigned char storage[sizeof(Kw<int>)];
  auto* original = new (storage) Kw<int>(kw);
  Kw<int> copy = *original;
  original->~Kw<int>();
  std::memset(storage, 'z', sizeof(storage));  // the storage the original used, overwritten
  EXPECT_EQ(Ints(Call(f, 0, copy)), (std::vector<int64_t>{0, 7, 2}));
  // Sixteen bytes and more are viewed: the caller keeps them alive and unchanged.
  ffi::Function g = MakeFunction(
      EchoTarget(), SignatureBuilder("g").Param("x").Param("alpha_long_name1", 1).Build());
  char long_name[] = "alpha_long_name0";
  auto viewed = Kw(static_cast<const char*>(long_name), 5);
  long_name[15] = '1';
  EXPECT_EQ(Ints(Call(g, 0, viewed)), (std::vector<int64_t>{0, 5}));
}

TEST(KwargsCall, KwFfiStringNamesAreCopiedBelowSixteenBytes) {
  // Issue 37.3: an ffi::String name of 8 to 15 bytes (a string object, not a small string) is
  // copied as a std::string's is, so a Kw that outlives its string still binds by its own
  // bytes (AddressSanitizer saw the old view read freed memory).
  ffi::Function f =
      MakeFunction(EchoTarget(), SignatureBuilder("f").Param("x").Param("alpha_beta", 1).Build());
  std::optional<ffi::String> object(ffi::String("alpha_beta"));
  auto kw = Kw(*object, 7);
  EXPECT_EQ(kw.name.type_index, ffi::TypeIndex::kTVMFFIRawStr);
  EXPECT_NE(kw.name.v_c_str, object->c_str());  // the Kw's own copy
  object.reset();
  const ffi::String reuse("gamma_delt");  // likely the freed object's memory
  EXPECT_EQ(Ints(Call(f, 0, kw)), (std::vector<int64_t>{0, 7}));
  // Sixteen bytes and more are viewed, as a std::string's are: the string must stay alive.
  const ffi::String long_name("alpha_long_name1");
  EXPECT_EQ(Kw(long_name, 1).name.v_c_str, long_name.c_str());
}

TEST(KwargsCall, KwStdStringNamesKeepEmbeddedNulBytes) {
  // Issue 31.9: a std::string name is all its bytes, as CallSite and Kw(ffi::String) read
  // it; cut at the NUL it would bind `b` (or `beta_name`).
  ffi::Function f =
      MakeFunction(EchoTarget(), SignatureBuilder("f").Param("a").Param("b", 2).Build());
  const std::string short_name("b\0zzz", 5), long_name("b\0zzzzzzzzzzzzzzzzzz", 20);
  for (const std::string& name : {short_name, long_name}) {
    const std::string want = "TypeError: f() got an unexpected keyword argument '" + name + "'";
    EXPECT_EQ(ErrorOf([&] { Call(f, 1, Kw(name, 7)); }), want);
    const ffi::String object(name);
    EXPECT_EQ(ErrorOf([&] { Call(f, 1, Kw(object, 7)); }), want);
    EXPECT_EQ(ErrorOf([&] { CallSite(f, 1, {name}); }), want);
  }
  ffi::Function g =
      MakeFunction(EchoTarget(), SignatureBuilder("g").Param("a").Param("beta_name", 2).Build());
  const std::string cut("beta_name\0zz", 12);
  const std::string error = ErrorOf([&] { Call(g, 1, Kw(cut, 7)); });
  EXPECT_NE(error.find("unexpected keyword argument '" + cut + "'"), std::string::npos) << error;
  EXPECT_EQ(error, ErrorOf([&] { CallSite(g, 1, {cut}); }));
  // A copy of such a Kw, beside a plain keyword, after the original's storage is reused.
  alignas(Kw<int>) unsigned char storage[sizeof(Kw<int>)];
  auto* original = new (storage) Kw<int>(cut, 7);
  Kw<int> copy = *original;
  std::memset(storage, 'z', sizeof(storage));
  EXPECT_EQ(ErrorOf([&] { Call(g, Kw("a", 1), copy); }), error);
}

TEST(KwargsCall, KwHasNoDestructorToRun) {
  // A Kw that owned a string object made each keyword of kwcall::Call cost nanoseconds
  // (the compiler kept the Kw in memory across the call to destroy it after).
  static_assert(std::is_trivially_destructible_v<Kw<int>>);
  static_assert(std::is_trivially_destructible_v<Kw<double>>);
}

TEST(KwargsCall, EmptyAndInvalidArgumentArrays) {
  ffi::Function none = MakeFunction(EchoTarget(), SignatureBuilder("n").Param("a", 1).Build());
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.v_int64 = 0;
  // A C caller may pass no array at all for an empty call.
  ASSERT_EQ(TVMFFIFunctionCall(const_cast<ffi::FunctionObj*>(none.get()), nullptr, 0, &result), 0);
  ffi::Any out = ffi::details::AnyUnsafe::MoveTVMFFIAnyToAny(&result);
  EXPECT_EQ(Ints(out), (std::vector<int64_t>{1}));
  EXPECT_EQ(ErrorOf([&] {
              ffi::Any rv;
              none.CallPacked(nullptr, -1, &rv);
            }),
            "ValueError: n(): invalid argument count -1");
}

TEST(KwargsCall, ManyPositionalOnlyParametersByKeywordFailFast) {
  // CPython lists every positional-only parameter passed by keyword; with one lookup per
  // keyword that stays quadratic at worst (it was cubic).
  SignatureBuilder builder("wide");
  for (int i = 0; i < kMaxParams; ++i) builder.PositionalOnly("p" + std::to_string(i));
  ffi::Function f = MakeFunction(EchoTarget(), builder.Build());
  std::vector<std::string> names;
  std::vector<ffi::AnyView> packed = {KwargsSentinel()};
  for (int i = 0; i < kMaxParams; ++i) names.push_back("p" + std::to_string(i));
  for (const std::string& name : names) {
    packed.push_back(name.c_str());
    packed.push_back(0);
  }
  std::string error = ErrorOf([&] {
    ffi::Any rv;
    f.CallPacked(packed.data(), static_cast<int32_t>(packed.size()), &rv);
  });
  EXPECT_EQ(error.rfind("TypeError: wide() got some positional-only arguments passed as keyword "
                        "arguments: 'p0, p1, p2, ",
                        0),
            0u);
}

TEST(KwargsCall, KeywordSuggestionsFollowTheSetting) {
  ffi::Function f = MakeFunction(EchoTarget(), SignatureBuilder("f").Param("alpha").Build());
  EXPECT_EQ(ErrorOf([&] { Call(f, Kw("alhpa", 1)); }),
            "TypeError: f() got an unexpected keyword argument 'alhpa'. Did you mean 'alpha'?");
  EXPECT_TRUE(KeywordSuggestions());
  SetKeywordSuggestions(false);
  EXPECT_FALSE(KeywordSuggestions());
  EXPECT_EQ(ErrorOf([&] { Call(f, Kw("alhpa", 1)); }),
            "TypeError: f() got an unexpected keyword argument 'alhpa'");
  // A call site's shape errors follow the same setting.
  EXPECT_EQ(ErrorOf([&] { CallSite(f, 0, {"alhpa"}); }),
            "TypeError: f() got an unexpected keyword argument 'alhpa'");
  SetKeywordSuggestions(true);
  EXPECT_EQ(ErrorOf([&] { CallSite(f, 0, {"alhpa"}); }),
            "TypeError: f() got an unexpected keyword argument 'alhpa'. Did you mean 'alpha'?");
}

TEST(KwargsCall, ErrorsFromTheTargetPropagate) {
  auto target = ffi::Function::FromPacked(
      [](ffi::PackedArgs, ffi::Any*) { TVM_FFI_THROW(RuntimeError) << "kernel failed"; });
  ffi::Function f = MakeFunction(target, SignatureBuilder("f").Param("x", 1).Build());
  EXPECT_EQ(ErrorOf([&] { f(); }), "RuntimeError: kernel failed");
  EXPECT_EQ(ErrorOf([&] { f(1); }), "RuntimeError: kernel failed");
}

TEST(KwargsCall, NullTargetIsRejected) {
  EXPECT_EQ(ErrorOf([] { MakeFunction(ffi::Function(nullptr), SignatureBuilder().Build()); }),
            "TypeError: kwcall::MakeFunction: the target function is null");
}

}  // namespace
}  // namespace kwcall
