// The C++ helpers: kwcall::Call, GetSignature/GetTarget and the FFI globals.
#include <kwcall/kwcall.h>

#include "test_util.h"

namespace kwcall {
namespace {

using testing::EchoTarget;
using testing::ErrorOf;
using testing::Ints;

TEST(KwargsCall, CallPacksTheKwargsTail) {
  // The echo target sees exactly what kwcall::Call packed.
  ffi::Any packed = Call(EchoTarget(), 1, 2, Kw("alpha", 3), Kw(std::string("beta"), 4));
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

  ffi::Function get = ffi::Function::GetGlobalRequired("kwcall.GetSignature");
  auto map = get(from_json).cast<ffi::Map<ffi::String, ffi::Any>>();
  EXPECT_EQ(Signature::FromMap(map).ToJson(), sig.ToJson());
  EXPECT_EQ(get(EchoTarget()).type_index(), ffi::TypeIndex::kTVMFFINone);
  EXPECT_EQ(ErrorOf([&] { make(EchoTarget(), 3); }),
            "TypeError: A signature must be a JSON string or a map, got int");
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
