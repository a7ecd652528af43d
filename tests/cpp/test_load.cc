// Loading exported code: modules with KWCALL_EXPORT_SIGNATURE, and statically linked symbols.
#include <kwcall/kwcall.h>
#include <tvm/ffi/extra/module.h>

#include "test_util.h"

// The same exports, linked into this test statically (exported_kernels.cc).
extern "C" int __tvm_ffi_scale(void*, const TVMFFIAny*, int32_t, TVMFFIAny*);
extern "C" int __tvm_ffi___kwcall_signature_scale(void*, const TVMFFIAny*, int32_t, TVMFFIAny*);

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
  EXPECT_EQ(
      ErrorOf([&] {
        LoadFunction(mod, "broken");
      }).rfind("ValueError: Invalid parameter name: '1x' is not a valid Python identifier", 0),
      0u);
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
