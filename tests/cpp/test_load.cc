// Loading exported code: modules with KWCALL_EXPORT_SIGNATURE, and statically linked symbols.
#include <kwcall/kwcall.h>
#include <tvm/ffi/extra/module.h>

#include <chrono>
#include <string>

#include "test_util.h"

// The same exports, linked into this test statically (exported_kernels.cc).
extern "C" int __tvm_ffi_scale(void*, const TVMFFIAny*, int32_t, TVMFFIAny*);
extern "C" int __tvm_ffi___kwcall_signature_scale(void*, const TVMFFIAny*, int32_t, TVMFFIAny*);
extern "C" int __tvm_ffi___kwcall_signature_returns_int(void*, const TVMFFIAny*, int32_t,
                                                        TVMFFIAny*);
extern "C" int __tvm_ffi___kwcall_signature_returns_huge(void*, const TVMFFIAny*, int32_t,
                                                         TVMFFIAny*);
extern "C" int __tvm_ffi___kwcall_signature_unpack_int(void*, const TVMFFIAny*, int32_t,
                                                       TVMFFIAny*);

namespace kwcall {
namespace {

using testing::ErrorOf;
using testing::Ints;

ffi::Module Kernels() { return ffi::Module::LoadFromFile(KWCALL_TEST_KERNELS_LIBRARY); }

void ExpectBindsLikePython(const ffi::Function& scale) {
  EXPECT_EQ(Ints(scale(1, 2, 3)), (std::vector<int64_t>{1, 2, 3}));  // native
  EXPECT_EQ(Ints(scale(1)), (std::vector<int64_t>{1, 10, 2}));       // defaults
  EXPECT_EQ(Ints(Call(scale, 1, Kw("alpha", 5))), (std::vector<int64_t>{1, 10, 5}));
  EXPECT_EQ(Ints(Call(scale, Kw("y", 4), Kw("x", 3))), (std::vector<int64_t>{3, 4, 2}));
  EXPECT_EQ(ErrorOf([&] { Call(scale, 1, Kw("alpah", 5)); }),
            "TypeError: scale() got an unexpected keyword argument 'alpah'. Did you mean "
            "'alpha'?");
}

TEST(Load, ModuleExportsTheSignature) {
  ffi::Module mod = Kernels();
  ffi::Function scale = LoadFunction(mod, "scale");
  ASSERT_TRUE(GetSignature(scale).has_value());
  EXPECT_EQ(GetSignature(scale)->name(), "scale");
  ExpectBindsLikePython(scale);
  EXPECT_TRUE(ExportedSignature(mod, "scale").has_value());
  EXPECT_FALSE(ExportedSignature(mod, "bare").has_value());
}

TEST(Load, ClearErrors) {
  ffi::Module mod = Kernels();
  EXPECT_EQ(ErrorOf([&] { LoadFunction(mod, "missing"); }),
            "AttributeError: kwcall::LoadFunction: the module has no function 'missing'");
  EXPECT_EQ(ErrorOf([&] { LoadFunction(mod, "bare"); }),
            "AttributeError: kwcall::LoadFunction: the module exports no signature for 'bare'; "
            "export one with KWCALL_EXPORT_SIGNATURE (or kwcall.cute.export_to_c), or pass a "
            "kwcall::Signature");
  EXPECT_EQ(ErrorOf([&] { LoadFunction(mod, "broken"); })
                .rfind("ValueError: kwcall: the signature exported for 'broken' "
                       "(__kwcall_signature_broken) is not valid: Invalid parameter name: '1x' is "
                       "not a valid Python identifier",
                       0),
            0u);
}

// Issue 18.5: a companion that returns anything but a string fails with kwcall's error, naming
// the function and the companion, from a module and from a statically linked symbol.
TEST(Load, CompanionsThatReturnNoStringAreNamed) {
  ffi::Module mod = Kernels();
  const std::pair<const char*, const char*> cases[] = {
      {"returns_int", "int"},         {"returns_none", "None"},
      {"returns_bytes", "ffi.Bytes"}, {"returns_array", "ffi.Array"},
      {"returns_map", "ffi.Map"},     {"returns_function", "ffi.Function"},
  };
  for (const auto& [name, type] : cases) {
    const std::string want = std::string("TypeError: kwcall: the signature exported for '") + name +
                             "' (__kwcall_signature_" + name + ") returned " + type +
                             ", not the signature's JSON text (KWCALL_EXPORT_SIGNATURE writes "
                             "the function that returns it)";
    EXPECT_EQ(ErrorOf([&] { LoadFunction(mod, name); }), want);
    EXPECT_EQ(ErrorOf([&] { ExportedSignature(mod, name); }), want);
  }
  EXPECT_EQ(ErrorOf([] { FromExternC(__tvm_ffi_scale, __tvm_ffi___kwcall_signature_returns_int); }),
            "TypeError: kwcall: the signature symbol given to kwcall::FromExternC returned int, "
            "not the signature's JSON text (KWCALL_EXPORT_SIGNATURE writes the function that "
            "returns it)");
}

// Issue 18.6: ~100 MB of JSON is refused by its length, before it is parsed (it took 9 s and
// 2.5 GB when it was parsed).
TEST(Load, OversizedSignaturesAreRefusedBeforeParsing) {
  const std::string limit = "bytes; the limit (kwcall::kMaxJsonBytes) is 4194304";
  const auto start = std::chrono::steady_clock::now();
  const std::string from_module = ErrorOf([] { LoadFunction(Kernels(), "returns_huge"); });
  const std::string from_symbol =
      ErrorOf([] { FromExternC(__tvm_ffi_scale, __tvm_ffi___kwcall_signature_returns_huge); });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(from_module.rfind("ValueError: kwcall: the signature exported for 'returns_huge' "
                              "(__kwcall_signature_returns_huge) is not valid: Invalid signature "
                              "JSON: ",
                              0),
            0u)
      << from_module;
  EXPECT_NE(from_module.find(limit), std::string::npos) << from_module;
  EXPECT_NE(from_symbol.find(limit), std::string::npos) << from_symbol;
}

// Issue 18.7: the strict reader holds for exported signatures too.
TEST(Load, ExportedSignaturesAreReadStrictly) {
  ffi::Module mod = Kernels();
  EXPECT_EQ(ErrorOf([&] { LoadFunction(mod, "unpack_int"); }),
            "TypeError: kwcall: the signature exported for 'unpack_int' "
            "(__kwcall_signature_unpack_int) is not valid: Signature parameter 0 field 'unpack' "
            "must be a bool, got int");
  EXPECT_EQ(ErrorOf([&] { LoadFunction(mod, "version_true"); }),
            "TypeError: kwcall: the signature exported for 'version_true' "
            "(__kwcall_signature_version_true) is not valid: Signature field 'version' must be an "
            "integer, got bool");
  EXPECT_EQ(ErrorOf([&] { LoadFunction(mod, "reserved_name"); }),
            "ValueError: kwcall: the signature exported for 'reserved_name' "
            "(__kwcall_signature_reserved_name) is not valid: Invalid parameter name: "
            "'__i_target_func' is reserved by tvm-ffi's make_kwargs_wrapper "
            "(kwcall::kReservedNames)");
  EXPECT_EQ(ErrorOf([] { FromExternC(__tvm_ffi_scale, __tvm_ffi___kwcall_signature_unpack_int); }),
            "TypeError: kwcall: the signature symbol given to kwcall::FromExternC is not valid: "
            "Signature parameter 0 field 'unpack' must be a bool, got int");
}

TEST(Load, ExplicitSignatureForModulesWithoutOne) {
  ffi::Function bare = LoadFunction(
      Kernels(), "bare",
      SignatureBuilder("bare").Param("x").Param("y", 10).KeywordOnly("alpha", 2).Build());
  EXPECT_EQ(Ints(Call(bare, 7, Kw("alpha", 1))), (std::vector<int64_t>{7, 10, 1}));
}

TEST(Load, StaticallyLinkedSymbols) {
  ExpectBindsLikePython(FromExternC(__tvm_ffi_scale, __tvm_ffi___kwcall_signature_scale));
  ffi::Function with_signature = FromExternC(
      __tvm_ffi_scale, SignatureBuilder("s").Param("x").Param("y").KeywordOnly("alpha").Build());
  EXPECT_EQ(ErrorOf([&] { with_signature(1, 2); }),
            "TypeError: s() missing 1 required keyword-only argument: 'alpha'");
  EXPECT_EQ(ErrorOf([] { FromExternC(nullptr, SignatureBuilder().Build()); }),
            "TypeError: kwcall::FromExternC: the symbol is null");
}

}  // namespace
}  // namespace kwcall
