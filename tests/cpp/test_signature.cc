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
                      .Param("b", 1)
                      .KeywordOnly("k")
                      .KeywordOnly("m", 2.5)
                      .Unpack("a")
                      .Build();
  EXPECT_EQ(sig.name(), "f");
  EXPECT_EQ(sig.num_params(), 5);
  EXPECT_EQ(sig.num_positional(), 3);
  EXPECT_EQ(sig.num_kwonly(), 2);
  EXPECT_EQ(sig.posonly_count(), 1);
  EXPECT_EQ(sig.num_positional_defaults(), 1);
  EXPECT_FALSE(sig.has_default(1));
  EXPECT_TRUE(sig.has_default(2));
  EXPECT_EQ(sig.default_value(2).cast<int>(), 1);
  EXPECT_FALSE(sig.has_default(3));
  EXPECT_DOUBLE_EQ(sig.default_value(4).cast<double>(), 2.5);
  EXPECT_EQ(sig.FindParam("k"), 3);
  EXPECT_EQ(sig.FindParam("zz"), -1);
  ASSERT_EQ(sig.unpack().size(), 1u);
  EXPECT_EQ(sig.unpack()[0], "a");
}

TEST(Signature, EmptyNameDisplaysAsFunction) {
  EXPECT_EQ(SignatureBuilder().Param("x").Build().name(), "function");
}

TEST(Signature, RejectsDuplicates) {
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("a").Param("a").Build(); }),
            "ValueError: Duplicate parameter name 'a' in signature of f()");
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").KeywordOnly("k").KeywordOnly("k").Build(); }),
            "ValueError: Duplicate parameter name 'k' in signature of f()");
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("a").KeywordOnly("a").Build(); }),
            "ValueError: Parameter 'a' cannot be both positional and keyword-only");
}

TEST(Signature, RejectsNonIdentifiersKeywordsAndReservedNames) {
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("1a").Build(); }),
            "ValueError: Invalid argument name: '1a' is not a valid Python identifier");
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").KeywordOnly("a-b").Build(); }),
            "ValueError: Invalid keyword-only argument name: 'a-b' is not a valid Python "
            "identifier");
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("").Build(); }),
            "ValueError: Invalid argument name: '' is not a valid Python identifier");
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("class").Build(); }),
            "ValueError: Invalid argument name: 'class' is a Python keyword and cannot be used "
            "as a parameter name");
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("__i_x").Build(); }),
            "ValueError: Invalid argument name: '__i_x' starts with the reserved prefix '__i_'");
  // Soft keywords and non-ASCII identifiers are fine, as in Python.
  EXPECT_EQ(SignatureBuilder("f")
                .Param("match")
                .Param("_")
                .Param("\xC3\xA9t\xC3\xA9")
                .Build()
                .num_params(),
            3);
}

TEST(Signature, RejectsMisplacedDefaults) {
  SignatureSpec spec;
  spec.arg_names = {"a"};
  spec.arg_defaults = {ffi::Any(1), ffi::Any(2)};
  EXPECT_EQ(ErrorOf([&] { Signature::Make(spec); }),
            "ValueError: arg_defaults has 2 values but only 1 positional arguments");
  SignatureSpec kw;
  kw.kwonly_names = {"k"};
  kw.kwonly_defaults = {{"z", ffi::Any(1)}};
  EXPECT_EQ(ErrorOf([&] { Signature::Make(kw); }),
            "ValueError: Default provided for 'z' which is not in kwonly_names");
  kw.kwonly_defaults = {{"k", ffi::Any(1)}, {"k", ffi::Any(2)}};
  EXPECT_EQ(ErrorOf([&] { Signature::Make(kw); }),
            "ValueError: Two defaults provided for keyword-only argument 'k'");
}

TEST(Signature, RejectsBadPosonlyCountAndUnpack) {
  SignatureSpec spec;
  spec.arg_names = {"a"};
  spec.posonly_count = 2;
  EXPECT_EQ(ErrorOf([&] { Signature::Make(spec); }),
            "ValueError: posonly_count must be between 0 and 1, got 2");
  EXPECT_EQ(ErrorOf([] { SignatureBuilder("f").Param("a").Unpack("b").Build(); }),
            "ValueError: Cannot unpack 'b': f() has no such parameter");
}

TEST(Signature, MapRoundTrip) {
  Signature sig = SignatureBuilder("f")
                      .PositionalOnly("p")
                      .Param("a", ffi::String("s"))
                      .KeywordOnly("k", true)
                      .KeywordOnly("m")
                      .Unpack("p")
                      .Build();
  Signature back = Signature::FromMap(sig.ToMap());
  EXPECT_EQ(back.ToJson(), sig.ToJson());
  EXPECT_EQ(back.posonly_count(), 1);
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
  EXPECT_EQ(ErrorOf([] { Signature::FromJson(R"({"arg_names": [1]})"); }),
            "TypeError: Signature field 'arg_names' must hold strings, got int");
  EXPECT_EQ(ErrorOf([] { Signature::FromJson(R"({"arg_names": "a"})"); }),
            "TypeError: Signature field 'arg_names' must be an array, got ffi.SmallStr");
  EXPECT_EQ(ErrorOf([] { Signature::FromJson(R"({"argnames": []})"); }),
            "ValueError: Unknown signature field 'argnames'");
}

}  // namespace
}  // namespace kwcall
