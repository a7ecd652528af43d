// The torch operator an exported function carries (KWCALL_EXPORT_TORCH_OP): read from a module
// and from a statically linked symbol, and refused with the companion named when it is not
// torch's "ns::name(arguments) -> returns".
#include <kwcall/kwcall.h>
#include <tvm/ffi/extra/module.h>

#include <string>

#include "test_util.h"

// The same exports, linked into this test statically (exported_kernels.cc).
extern "C" int __tvm_ffi___kwcall_torch_op_scale(void*, const TVMFFIAny*, int32_t, TVMFFIAny*);
extern "C" int __tvm_ffi___kwcall_torch_op_returns_int(void*, const TVMFFIAny*, int32_t,
                                                       TVMFFIAny*);

namespace kwcall {
namespace {

using testing::ErrorOf;

ffi::Module Kernels() { return ffi::Module::LoadFromFile(KWCALL_TEST_KERNELS_LIBRARY); }

TEST(ExportedTorchOp, SplitsTheSchemaAtItsName) {
  std::optional<TorchOpSchema> op = ExportedTorchOp(Kernels(), "scale");
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(op->qualified_name, "kwcall_test::scale");
  EXPECT_EQ(op->schema, "(int x, int y=10, *, int alpha=2) -> int[]");
  TorchOpSchema linked = ExportedTorchOp(__tvm_ffi___kwcall_torch_op_scale);
  EXPECT_EQ(linked.qualified_name, op->qualified_name);
  EXPECT_EQ(linked.schema, op->schema);
}

TEST(ExportedTorchOp, NoneWhereTheModuleExportsNone) {
  EXPECT_FALSE(ExportedTorchOp(Kernels(), "bare").has_value());
  EXPECT_FALSE(ExportedTorchOp(Kernels(), "missing").has_value());
}

TEST(ExportedTorchOp, CompanionsThatReturnNoStringAreNamed) {
  EXPECT_EQ(ErrorOf([] { ExportedTorchOp(Kernels(), "returns_int"); }),
            "TypeError: kwcall: the torch operator exported for 'returns_int' "
            "(__kwcall_torch_op_returns_int) returned int, not the operator's schema text "
            "(KWCALL_EXPORT_TORCH_OP writes the function that returns it)");
  EXPECT_EQ(ErrorOf([] { ExportedTorchOp(__tvm_ffi___kwcall_torch_op_returns_int); }),
            "TypeError: kwcall: the torch operator symbol given to kwcall::ExportedTorchOp "
            "returned int, not the operator's schema text (KWCALL_EXPORT_TORCH_OP writes the "
            "function that returns it)");
  EXPECT_EQ(ErrorOf([] { ExportedTorchOp(nullptr); }),
            "TypeError: kwcall::ExportedTorchOp: the symbol is null");
}

TEST(ExportedTorchOp, TextsOfAnotherFormAreRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"unpack_int", "scale(int x) -> ()"},
      {"version_true", "kwcall_test::scale"},
      {"reserved_name", "kwcall_test::1scale(int x) -> ()"},
      {"broken", "kwcall_test::scale(int x)"},
  };
  for (const auto& [name, text] : cases) {
    EXPECT_EQ(ErrorOf([&] { ExportedTorchOp(Kernels(), name); }),
              std::string("ValueError: kwcall: the torch operator exported for '") + name +
                  "' (__kwcall_torch_op_" + name + ") is not valid: '" + text +
                  "' is not a schema 'namespace::name(arguments) -> returns'");
  }
}

}  // namespace
}  // namespace kwcall
