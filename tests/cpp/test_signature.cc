// Signature construction, validation and the map/JSON forms.
#include <kwcall/signature.h>

#include "test_util.h"

namespace kwcall {
namespace {

using testing::ErrorOf;

TEST(Signature, BuilderDescribesEveryParameterKind) {
  Signature sig = SignatureBuilder("f")
                      .PositionalOnly("p")
                      .Param("a")
                      .Unpack()
                      .Param("b", 1)
                      .KeywordOnly("k")
                      .KeywordOnly("m", 2.5)
                      .Build();
  EXPECT_EQ(sig.name(), "f");
  EXPECT_EQ(sig.num_params(), 5);
  EXPECT_EQ(sig.num_positional(), 3);
  EXPECT_EQ(sig.num_kwonly(), 2);
  EXPECT_EQ(sig.posonly_count(), 1);
  EXPECT_EQ(sig.num_positional_defaults(), 1);
  EXPECT_EQ(sig.param(0).kind, ParamKind::kPositionalOnly);
  EXPECT_EQ(sig.param(1).kind, ParamKind::kPositionalOrKeyword);
  EXPECT_EQ(sig.param(3).kind, ParamKind::kKeywordOnly);
  EXPECT_FALSE(sig.has_default(1));
  EXPECT_TRUE(sig.has_default(2));
  EXPECT_EQ(sig.default_value(2).cast<int>(), 1);
  EXPECT_FALSE(sig.has_default(3));
  EXPECT_DOUBLE_EQ(sig.default_value(4).cast<double>(), 2.5);
  EXPECT_TRUE(sig.param(1).unpack);
  EXPECT_FALSE(sig.param(0).unpack);
  EXPECT_TRUE(sig.has_unpack());
}

TEST(Signature, IsAnFfiObject) {
  Signature sig = SignatureBuilder("f").Param("x").Build();
  ffi::Any held = sig;
  EXPECT_EQ(held.GetTypeKey(), "kwcall.Signature");
  EXPECT_TRUE(held.cast<Signature>().same_as(sig));
}

TEST(Signature, EmptyNameDisplaysAsFunction) {
  EXPECT_EQ(SignatureBuilder().Param("x").Build().name(), "function");
}

TEST(Signature, RejectsDuplicates) {
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("a").Param("a").Build(); }),
            "ValueError: Duplicate parameter name 'a' in signature of f()");
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("a").KeywordOnly("a").Build(); }),
            "ValueError: Duplicate parameter name 'a' in signature of f()");
}

TEST(Signature, RejectsNonIdentifiersAndKeywords) {
  EXPECT_EQ(
      ErrorOf([] {
        SignatureBuilder("f").Param("1a").Build();
      }).rfind("ValueError: Invalid parameter name: '1a' is not a valid Python identifier", 0),
      0u);
  EXPECT_EQ(ErrorOf([] {
              SignatureBuilder("f").Param("").Build();
            }).rfind("ValueError: Invalid parameter name: '' ", 0),
            0u);
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("class").Build(); }),
            "ValueError: Invalid parameter name: 'class' is a Python keyword and cannot be used "
            "as a parameter name");
  // Soft keywords, tvm-ffi's "__i_" prefix and non-ASCII identifiers are fine, as in Python.
  EXPECT_EQ(SignatureBuilder("f")
                .Param("match")
                .Param("_")
                .Param("__i_x")
                .Param("\xC3\xA9t\xC3\xA9")
                .Build()
                .num_params(),
            4);
}

TEST(Signature, RejectsKindsOutOfOrderAndMisplacedDefaults) {
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("a").PositionalOnly("p").Build(); }),
            "ValueError: Parameter 'p' is positional-only but follows positional-or-keyword "
            "parameter 'a': kinds come in the order positional-only, positional-or-keyword, "
            "keyword-only");
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").KeywordOnly("k").Param("a").Build(); }),
            "ValueError: Parameter 'a' is positional-or-keyword but follows keyword-only "
            "parameter 'k': kinds come in the order positional-only, positional-or-keyword, "
            "keyword-only");
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("a", 1).Param("b").Build(); }),
            "ValueError: Parameter 'b' without a default follows parameter 'a' with a default");
  EXPECT_EQ(ErrorOf([] {
              Signature::Make("f", {Param{"a", static_cast<ParamKind>(7), std::nullopt, false}});
            }),
            "ValueError: Parameter 'a' has an unknown kind 7");
  // Keyword-only parameters may have defaults in any order, as in Python.
  EXPECT_EQ(SignatureBuilder("f").KeywordOnly("k", 1).KeywordOnly("m").Build().num_kwonly(), 2);
}

TEST(Signature, MapRoundTrip) {
  Signature sig = SignatureBuilder("f")
                      .PositionalOnly("p")
                      .Unpack()
                      .Param("a", ffi::String("s"))
                      .KeywordOnly("k", true)
                      .KeywordOnly("m")
                      .Build();
  Signature back = Signature::FromMap(sig.ToMap());
  EXPECT_EQ(back.ToJson(), sig.ToJson());
  EXPECT_EQ(back.posonly_count(), 1);
  EXPECT_TRUE(back.param(0).unpack);
  EXPECT_EQ(back.default_value(1).cast<ffi::String>(), "s");
  EXPECT_TRUE(back.default_value(2).cast<bool>());
  EXPECT_FALSE(back.has_default(3));
}

TEST(Signature, JsonRoundTripKeepsValueTypes) {
  Signature sig = SignatureBuilder("g")
                      .Param("a", 1)
                      .Param("b", 2.5)
                      .Param("c", nullptr)
                      .KeywordOnly("d", ffi::Array<ffi::Any>{1, ffi::String("x")})
                      .Build();
  Signature back = Signature::FromJson(sig.ToJson());
  EXPECT_EQ(back.name(), "g");
  EXPECT_EQ(back.default_value(0).type_index(), ffi::TypeIndex::kTVMFFIInt);
  EXPECT_EQ(back.default_value(1).type_index(), ffi::TypeIndex::kTVMFFIFloat);
  EXPECT_EQ(back.default_value(2).type_index(), ffi::TypeIndex::kTVMFFINone);
  auto d = back.default_value(3).cast<ffi::Array<ffi::Any>>();
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].cast<ffi::String>(), "x");
  EXPECT_EQ(back.ToJson(), sig.ToJson());
}

TEST(Signature, JsonRejectsNonJsonDefaultsAndBadInput) {
  Signature sig = SignatureBuilder("f").Param("fn", testing::EchoTarget()).Build();
  EXPECT_EQ(ErrorOf([&] { sig.ToJson(); }),
            "ValueError: The default of parameter 'fn' of f() has type ffi.Function, which JSON "
            "cannot represent");
  EXPECT_NE(ErrorOf([] { Signature::FromJson("{not json"); })
                .find("ValueError: Invalid "
                      "signature JSON"),
            std::string::npos);
  EXPECT_EQ(ErrorOf([] { Signature::FromJson("[1]"); }),
            "TypeError: Signature JSON must be an object, got ffi.Array");
  EXPECT_EQ(ErrorOf([] { Signature::FromJson(R"({"version": 1})"); }),
            "ValueError: Signature has no 'params' field");
  EXPECT_EQ(ErrorOf([] { Signature::FromJson(R"({"version": 2, "params": []})"); }),
            "ValueError: Signature version 2 is not supported (this kwcall reads version 1)");
  EXPECT_EQ(ErrorOf([] { Signature::FromJson(R"({"version": 1, "params": [1]})"); }),
            "TypeError: Signature parameter 0 must be a map, got int");
  EXPECT_EQ(ErrorOf([] { Signature::FromJson(R"({"version": 1, "params": [{"name": "a"}]})"); }),
            "ValueError: Signature parameter 0 has no 'kind' field");
  EXPECT_EQ(ErrorOf([] {
              Signature::FromJson(R"({"version": 1, "params": [{"name": "a", "kind": "VAR"}]})");
            }),
            "ValueError: Signature parameter 0 has an unknown kind 'VAR' (expected "
            "POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD or KEYWORD_ONLY)");
  EXPECT_EQ(ErrorOf([] { Signature::FromJson(R"({"version": 1, "params": [], "x": 1})"); }),
            "ValueError: Signature has an unknown field 'x'");
  EXPECT_EQ(ErrorOf([] {
              Signature::FromJson(R"({"version": 1, "params": [{"name": 1, "kind": "x"}]})");
            }),
            "TypeError: Signature parameter 0 field 'name' must be a string, got int");
}

TEST(Signature, LimitsAreExplicit) {
  std::vector<Param> many;
  for (int i = 0; i <= kMaxParams; ++i) many.push_back(Param{"p" + std::to_string(i)});
  EXPECT_EQ(ErrorOf([&] { Signature::Make("f", many); }),
            "ValueError: f() has 1025 parameters; the limit (kwcall::kMaxParams) is 1024");
  many.pop_back();
  EXPECT_EQ(Signature::Make("f", many).num_params(), kMaxParams);

  std::string long_name(kMaxNameBytes + 1, 'x');
  EXPECT_NE(ErrorOf([&] {
              SignatureBuilder("f").Param(long_name).Build();
            }).find("1025 bytes long; the limit (kwcall::kMaxNameBytes) is 1024"),
            std::string::npos);
  EXPECT_EQ(SignatureBuilder("f").Param(std::string(kMaxNameBytes, 'x')).Build().num_params(), 1);

  ffi::Any nested = 1;
  for (int i = 0; i < kMaxNestingDepth; ++i) nested = ffi::Array<ffi::Any>{nested};
  EXPECT_EQ(SignatureBuilder("f").Param("a", nested).Build().num_params(), 1);
  nested = ffi::Array<ffi::Any>{nested};
  EXPECT_EQ(ErrorOf([&] { SignatureBuilder("f").Param("a", nested).Build(); }),
            "ValueError: The default of parameter 'a' of f() nests arrays or maps deeper than the "
            "limit (kwcall::kMaxNestingDepth) of 64");
}

TEST(Signature, DeepJsonIsRefusedBeforeParsing) {
  std::string deep = std::string(20000, '[') + std::string(20000, ']');
  EXPECT_EQ(ErrorOf([&] { Signature::FromJson(deep); }),
            "ValueError: Invalid signature JSON: arrays and objects nest deeper than the limit "
            "(kwcall::kMaxNestingDepth) of 64");
  // Brackets inside strings do not count.
  std::string name =
      "{\"version\": 1, \"name\": \"" + std::string(100, '[') + "\", \"params\": []}";
  EXPECT_EQ(Signature::FromJson(name).num_params(), 0);
  // The deepest default that Make accepts still travels through JSON.
  ffi::Any nested = 1;
  for (int i = 0; i < kMaxNestingDepth; ++i) nested = ffi::Array<ffi::Any>{nested};
  Signature sig = SignatureBuilder("f").Param("a", nested).Build();
  EXPECT_EQ(Signature::FromJson(sig.ToJson()).ToJson(), sig.ToJson());
}

// Issue 18.6: the defaults' size and the JSON text's length are bounded, with messages that
// name the limits.
TEST(Signature, DefaultElementsAreBounded) {
  ffi::Array<ffi::Any> at_limit;
  for (int64_t i = 0; i < kMaxDefaultElements; ++i) at_limit.push_back(0);
  EXPECT_EQ(SignatureBuilder("f").Param("a", at_limit).Build().num_params(), 1);
  // All defaults count together: one more element anywhere is refused.
  EXPECT_EQ(
      ErrorOf([&] {
        SignatureBuilder("f").Param("a", at_limit).Param("b", ffi::Array<ffi::Any>{0}).Build();
      }),
      "ValueError: The defaults of f() hold more than 65536 array items and map entries (at "
      "parameter 'b'); the limit is kwcall::kMaxDefaultElements");
  // A container shared at every level would take 2^64 steps to walk; the count stops early.
  ffi::Any shared = 0;
  for (int i = 0; i < kMaxNestingDepth; ++i) shared = ffi::Array<ffi::Any>{shared, shared};
  EXPECT_NE(ErrorOf([&] {
              SignatureBuilder("f").Param("a", shared).Build();
            }).find("the limit is kwcall::kMaxDefaultElements"),
            std::string::npos);
}

TEST(Signature, JsonLengthIsBounded) {
  std::string text = R"({"version": 1, "name": ")" + std::string(kMaxJsonBytes, 'x') + R"("})";
  EXPECT_EQ(ErrorOf([&] { Signature::FromJson(text); }),
            "ValueError: Invalid signature JSON: " + std::to_string(text.size()) +
                " bytes; the limit (kwcall::kMaxJsonBytes) is 4194304");
  // ToJson refuses what FromJson could not read back.
  Signature big =
      SignatureBuilder("f").Param("a", ffi::String(std::string(kMaxJsonBytes, 'x'))).Build();
  EXPECT_NE(ErrorOf([&] { big.ToJson(); }).find("; the limit (kwcall::kMaxJsonBytes) is 4194304"),
            std::string::npos);
  // The widest signature the other limits allow still fits: 1024 names of 1024 bytes.
  std::vector<Param> wide;
  for (int i = 0; i < kMaxParams; ++i) {
    std::string name = "p" + std::to_string(i);
    wide.push_back(Param{name + std::string(kMaxNameBytes - name.size(), 'x')});
  }
  Signature sig = Signature::Make("wide", wide);
  EXPECT_EQ(Signature::FromJson(sig.ToJson()).num_params(), kMaxParams);
}

// Issue 18.7: JSON types are read exactly, and tvm-ffi's reserved names are refused by Make, so
// by every route.
TEST(Signature, JsonFieldsAreReadStrictly) {
  EXPECT_EQ(
      ErrorOf([] {
        Signature::FromJson(
            R"({"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY", "unpack": 1}]})");
      }),
      "TypeError: Signature parameter 0 field 'unpack' must be a bool, got int");
  EXPECT_EQ(ErrorOf([] { Signature::FromJson(R"({"version": true, "params": []})"); }),
            "TypeError: Signature field 'version' must be an integer, got bool");
  EXPECT_EQ(ErrorOf([] { Signature::FromJson(R"({"version": 1.0, "params": []})"); }),
            "TypeError: Signature field 'version' must be an integer, got float");
  EXPECT_TRUE(
      Signature::FromJson(
          R"({"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY", "unpack": true}]})")
          .has_unpack());
}

TEST(Signature, ReservedNamesAreRefusedEverywhere) {
  for (std::string_view reserved : kReservedNames) {
    const std::string name(reserved);
    const std::string want = "ValueError: Invalid parameter name: '" + name +
                             "' is reserved by tvm-ffi's make_kwargs_wrapper "
                             "(kwcall::kReservedNames)";
    EXPECT_EQ(ErrorOf([&] { SignatureBuilder("f").KeywordOnly(name).Build(); }), want);
    EXPECT_EQ(ErrorOf([&] { Signature::Make("f", {Param{name}}); }), want);
    EXPECT_EQ(ErrorOf([&] {
                Signature::FromJson(R"({"version": 1, "params": [{"name": ")" + name +
                                    R"(", "kind": "POSITIONAL_ONLY"}]})");
              }),
              want);
  }
  EXPECT_EQ(SignatureBuilder("f").Param("__i_other").Build().num_params(), 1);
}

// CPython refuses to bind __debug__ ("cannot assign to __debug__"), so every route does.
TEST(Signature, DebugConstantIsRefusedEverywhere) {
  const std::string want =
      "ValueError: Invalid parameter name: '__debug__' is Python's built-in constant and "
      "cannot be used as a parameter name (Python refuses it: cannot assign to __debug__); "
      "rename the parameter";
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("__debug__").Build(); }), want);
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").PositionalOnly("__debug__").Build(); }), want);
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("a").KeywordOnly("__debug__").Build(); }),
            want);
  EXPECT_EQ(ErrorOf([] { Signature::Make("f", {Param{"__debug__"}}); }), want);
  const std::string json =
      R"({"version": 1, "params": [{"name": "__debug__", "kind": "KEYWORD_ONLY"}]})";
  EXPECT_EQ(ErrorOf([&] { Signature::FromJson(json); }), want);
  const ffi::Function make_function = ffi::Function::GetGlobalRequired("kwcall.MakeFunction");
  EXPECT_EQ(ErrorOf([&] { make_function(testing::EchoTarget(), ffi::String(json)); }), want);
  // Its neighbours are ordinary identifiers, as in Python.
  EXPECT_EQ(SignatureBuilder("f")
                .Param("__debug")
                .Param("_debug__")
                .Param("__debug__x")
                .Param("__DEBUG__")
                .Param("debug")
                .Build()
                .num_params(),
            5);
}

TEST(Signature, DisplayNameMustBeUtf8) {
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f\xff").Param("a").Build(); }),
            "ValueError: Signature name 'f\\xff' is not valid UTF-8");
  EXPECT_EQ(SignatureBuilder(std::string("a\0b", 3)).Build().name().size(), 3u);
}

}  // namespace
}  // namespace kwcall
