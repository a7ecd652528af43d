// kwcall::torch::RegisterOp from C++, with libtorch loaded into this process by dlopen (the
// torch wheel's libtorch_cpu.so, found when the tests were configured): no Python, and the
// operator called through torch's dispatcher with the shim's aoti_torch_call_dispatcher.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <kwcall/function.h>
#include <kwcall/signature.h>
#include <kwcall/torch.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"
#include "torch/op_schema.h"

namespace kwcall {
namespace {

using StableIValue = uint64_t;
using TensorHandle = void*;

using testing::ErrorOf;
using testing::TorchLibraryPath;

bool TorchMapped() {
  return !TorchLibraryPath().empty() &&
         dlopen(TorchLibraryPath().c_str(), RTLD_LAZY | RTLD_NOLOAD) != nullptr;
}

// The few shim functions the test itself calls to make tensors and call the dispatcher.
struct TestShim {
  void* library = nullptr;
  int32_t (*dtype_float32)();
  int32_t (*device_type_cpu)();
  int32_t (*empty_strided)(int64_t, const int64_t*, const int64_t*, int32_t, int32_t, int32_t,
                           TensorHandle*);
  int32_t (*new_tensor_handle)(TensorHandle, TensorHandle*);
  int32_t (*delete_tensor_object)(TensorHandle);
  int32_t (*get_data_ptr)(TensorHandle, void**);
  int32_t (*call_dispatcher)(const char*, const char*, StableIValue*);

  template <typename Fn>
  void Get(Fn* slot, const char* name) {
    *slot = reinterpret_cast<Fn>(dlsym(library, name));
    ASSERT_NE(*slot, nullptr) << name;
  }
};

class TorchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TorchLibraryPath().empty()) {
      GTEST_SKIP() << "torch was not installed when the tests were configured "
                      "(scripts/test.sh --torch installs it)";
    }
    shim_.library = dlopen(TorchLibraryPath().c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(shim_.library, nullptr) << dlerror();
    shim_.Get(&shim_.dtype_float32, "aoti_torch_dtype_float32");
    shim_.Get(&shim_.device_type_cpu, "aoti_torch_device_type_cpu");
    shim_.Get(&shim_.empty_strided, "aoti_torch_empty_strided");
    shim_.Get(&shim_.new_tensor_handle, "aoti_torch_new_tensor_handle");
    shim_.Get(&shim_.delete_tensor_object, "aoti_torch_delete_tensor_object");
    shim_.Get(&shim_.get_data_ptr, "aoti_torch_get_data_ptr");
    shim_.Get(&shim_.call_dispatcher, "aoti_torch_call_dispatcher");
  }

  // A new 1-D float32 CPU tensor holding `values`.
  TensorHandle Tensor(const std::vector<float>& values) {
    int64_t size = static_cast<int64_t>(values.size()), stride = 1;
    TensorHandle t = nullptr;
    EXPECT_EQ(shim_.empty_strided(1, &size, &stride, shim_.dtype_float32(), shim_.device_type_cpu(),
                                  0, &t),
              0);
    void* data = nullptr;
    shim_.get_data_ptr(t, &data);
    for (size_t i = 0; i < values.size(); ++i) static_cast<float*>(data)[i] = values[i];
    return t;
  }

  std::vector<float> Values(TensorHandle t, size_t n) {
    void* data = nullptr;
    shim_.get_data_ptr(t, &data);
    return std::vector<float>(static_cast<float*>(data), static_cast<float*>(data) + n);
  }

  // The dispatcher takes the stack's tensor handles: it gets new ones.
  StableIValue Pass(TensorHandle t) {
    TensorHandle handle = nullptr;
    shim_.new_tensor_handle(t, &handle);
    return reinterpret_cast<StableIValue>(handle);
  }

  static StableIValue Pass(double value) {
    StableIValue s = 0;
    std::memcpy(&s, &value, sizeof(value));
    return s;
  }

  TestShim shim_;
};

// out = alpha * x (a C++ target taking DLPack views, as the kernel passes tensors).
ffi::Function Scale() {
  return ffi::Function::FromTyped([](DLTensor* x, DLTensor* out, double alpha) {
    for (int64_t i = 0; i < x->shape[0]; ++i) {
      static_cast<float*>(out->data)[i] =
          static_cast<float>(alpha) * static_cast<float*>(x->data)[i];
    }
  });
}

constexpr const char* kSchema = "(Tensor x, Tensor(a!) out, *, float alpha=1.0) -> ()";

TEST_F(TorchTest, RegisteredOperatorRunsThroughTheDispatcher) {
  torch::Operator op = torch::RegisterOp(Scale(), "kwcall_cpp_test::scale", kSchema);
  EXPECT_EQ(op.qualified_name(), "kwcall_cpp_test::scale");
  EXPECT_EQ(op.schema(), std::string("scale") + kSchema);
  TensorHandle x = Tensor({1, 2, 3}), out = Tensor({0, 0, 0});
  StableIValue stack[3] = {Pass(x), Pass(out), Pass(2.5)};
  ASSERT_EQ(shim_.call_dispatcher("kwcall_cpp_test::scale", "", stack), 0);
  EXPECT_EQ(Values(out, 3), (std::vector<float>{2.5, 5, 7.5}));
  shim_.delete_tensor_object(x);
  shim_.delete_tensor_object(out);
}

TEST_F(TorchTest, DestroyingTheHandleUnregisters) {
  {
    torch::Operator op = torch::RegisterOp(Scale(), "kwcall_cpp_test::gone", kSchema);
    torch::Operator moved = std::move(op);
    EXPECT_FALSE(op);
    EXPECT_TRUE(moved);
  }
  // The name is free again: registering it once more succeeds, and the operator works.
  torch::Operator again = torch::RegisterOp(Scale(), "kwcall_cpp_test::gone", kSchema);
  TensorHandle x = Tensor({4}), out = Tensor({0});
  StableIValue stack[3] = {Pass(x), Pass(out), Pass(0.5)};
  ASSERT_EQ(shim_.call_dispatcher("kwcall_cpp_test::gone", "", stack), 0);
  EXPECT_EQ(Values(out, 1), std::vector<float>{2});
  again.Reset();
  EXPECT_FALSE(again);
  shim_.delete_tensor_object(x);
  shim_.delete_tensor_object(out);
}

TEST_F(TorchTest, RefusalsSayWhy) {
  torch::Operator op = torch::RegisterOp(Scale(), "kwcall_cpp_test::twice", kSchema);
  EXPECT_EQ(ErrorOf([] { torch::RegisterOp(Scale(), "kwcall_cpp_test::twice", kSchema); }),
            "RuntimeError: kwcall.torch: the operator kwcall_cpp_test::twice is registered "
            "already (by kwcall); unregister it first");
  EXPECT_EQ(ErrorOf([] { torch::RegisterOp(Scale(), "no_namespace", kSchema); }),
            "ValueError: kwcall.torch: the operator name 'no_namespace' must be "
            "'namespace::name' or 'namespace::name.overload', identifiers (as in 'mylib::axpy' "
            "or 'mylib::axpy.out')");
  EXPECT_EQ(
      ErrorOf([] { torch::RegisterOp(Scale(), "kwcall_cpp_test::ret", "(Tensor x) -> Tensor"); }),
      "ValueError: kwcall.torch: the schema '(Tensor x) -> Tensor' must return '()': kwcall's "
      "operators write into tensors marked as mutated ('Tensor(a!)') and return one new Tensor "
      "per output rule (0 here)");
  EXPECT_EQ(ErrorOf([] { torch::RegisterOp(Scale(), "kwcall_cpp_test::l", "(int[] x) -> ()"); }),
            "ValueError: kwcall.torch: argument 'x' has the schema type 'int[]', which kwcall's "
            "kernel cannot pass to a tvm-ffi function: use Tensor, int, float, bool or str (each "
            "may be optional, 'T?')");
  // A kernel for a key that runs before the Meta kernel would get FakeTensorMode's tensors.
  EXPECT_EQ(ErrorOf([] {
              torch::RegisterOp(Scale(), "kwcall_cpp_test::alias", kSchema, {"CPU", "AutogradCPU"});
            }),
            "ValueError: kwcall.torch: device_types names 'AutogradCPU': a kwcall operator gets a "
            "kernel for 'CPU' and 'CUDA', the devices whose tensors it passes (and a Meta kernel, "
            "always); a kernel for another key, an alias or autograd key among them, could run "
            "before the Meta kernel and call the function with fake tensors");
  // A namespace a TORCH_LIBRARY defines: aten::add has overloads (add.Tensor, ...) but no
  // default one, so torch itself would have let the name join them.
  for (const char* name : {"aten::add", "aten::relu", "quantized::kwcall_new"}) {
    std::string ns = std::string(name).substr(0, std::string(name).find("::"));
    std::string op = std::string(name).substr(ns.size() + 2);
    EXPECT_EQ(ErrorOf([name] { torch::RegisterOp(Scale(), name, kSchema); }),
              "RuntimeError: kwcall.torch: the namespace '" + ns + "' of " + name +
                  " is defined by a TORCH_LIBRARY (torch's own, or an extension's), where the "
                  "name could join an existing operator's overloads: register kwcall operators "
                  "in a namespace of your own, as in 'mylib::" +
                  op + "'");
  }
  // torch's own refusal: inductor::_mm_plus_mm exists (with the default overload), in a
  // namespace torch's libraries share as fragments.
  std::string taken = ErrorOf([] { torch::RegisterOp(Scale(), "inductor::_mm_plus_mm", kSchema); });
  EXPECT_EQ(
      taken.rfind("RuntimeError: kwcall.torch: torch refused to define "
                  "inductor::_mm_plus_mm(Tensor x, Tensor(a!) out, *, float alpha=1.0) -> (): ",
                  0),
      0u)
      << taken;
  // torch's reason where it gives one (2.13 and newer), never a guess.
  const std::string no_reason = "this torch gives no reason (2.13 and newer do)";
  const bool gives_reasons =
      dlsym(shim_.library, "torch_exception_get_what_without_backtrace") != nullptr;
  EXPECT_NE(
      taken.find(gives_reasons ? "with the same name and overload name multiple times" : no_reason),
      std::string::npos)
      << taken;
  // A schema torch cannot read (a parameter named NoneType).
  std::string unreadable = ErrorOf([] {
    torch::RegisterOp(Scale(), "kwcall_cpp_test::unreadable",
                      "(Tensor NoneType, Tensor(a!) out, *, float alpha=1.0) -> ()");
  });
  EXPECT_EQ(
      unreadable.rfind("RuntimeError: kwcall.torch: torch refused to define "
                       "kwcall_cpp_test::unreadable(Tensor NoneType, Tensor(a!) out, *, "
                       "float alpha=1.0) -> (): " +
                           (gives_reasons ? "expected ident but found 'NoneType' here" : no_reason),
                       0),
      0u)
      << unreadable;
}

// Schemas torch reads as other arguments than a reader that does not know its comments, line
// continuations or triple quotes would (issue 37). The first makes torch pass (Tensor, int, int)
// where such a reader unboxes (Tensor, int, Tensor): an int the caller chooses used as a tensor
// handle; the second is its mirror. Each is refused before torch sees it.
constexpr const char* kHostileSchemas[][2] = {
    {"(Tensor t, *, int a=1 # , Tensor z='\n, int b # '\n) -> ()",
     "'#' (a comment, to torch) at offset 22"},
    {"(Tensor t, *, int a=1 # , int z='\n, Tensor b # '\n) -> ()",
     "'#' (a comment, to torch) at offset 22"},
    {"(Tensor t, str s=''' ', Tensor x, int y=' ''') -> ()", "a triple-quoted string at offset 17"},
    {"(Tensor t, str s=\"\"\" \", Tensor x=\" \"\"\") -> ()",
     "a triple-quoted string at offset 17"},
    {"(Tensor t, int a=1 \\\n, Tensor b) -> ()",
     "'\\' (a line continuation, to torch) at offset 19"},
    {"(Tensor t, str s='a\nb', int b) -> ()", "a line break in a quoted default at offset 19"},
    {"(Tensor t, str s='a\\\nb', int b) -> ()", "a line break in a quoted default at offset 20"},
    {"(Tensor t; int b) -> ()", "';' at offset 9"},
    {"(Tensor t, int b=1\r) -> ()", "the byte 0x0d at offset 18"},
    {"(Tensor t, int \xc3\xa9) -> ()", "the byte 0xc3 at offset 15"},
};

TEST(TorchSchemaReader, RefusesTextTorchCouldReadOtherwise) {
  for (const auto& [schema, what] : kHostileSchemas) {
    EXPECT_EQ(ErrorOf([&] { torch::ParseArgKinds(schema); }),
              std::string("ValueError: kwcall.torch: cannot read the schema '") + schema +
                  "': it has " + what +
                  ", where torch could read other arguments than kwcall's kernel would pass; "
                  "write the arguments as 'Type name' or 'Type name=default' without comments, "
                  "line continuations, triple-quoted strings or control characters");
  }
  // A NUL would cut the C string torch gets short of what the reader read.
  const char text[] = "(Tensor t, str s='a\0', Tensor x) -> ()";
  const std::string with_nul(text, sizeof(text) - 1);
  EXPECT_NE(ErrorOf([&] {
              torch::ParseArgKinds(with_nul);
            }).find("it has the byte 0x00 in a quoted default at offset 19"),
            std::string::npos);
}

std::string Kinds(const std::string& schema) {
  std::string kinds;
  for (const torch::ArgKind& kind : torch::ParseArgKinds(schema)) {
    kinds += (kinds.empty() ? "" : ", ") + kind.name + ":" +
             std::to_string(static_cast<int>(kind.type)) + (kind.optional ? "?" : "");
  }
  return kinds;
}

TEST(TorchSchemaReader, ReadsWhatItModels) {
  // Quoted defaults may hold what is refused outside them (but line breaks), and escapes.
  EXPECT_EQ(Kinds("(Tensor(a!) x, str s='a#b, \\'c\\' (d)\\\\', str t=\"'\", int n=-1) -> ()"),
            "x:0, s:4, t:4, n:1");
  // Arguments on several lines, aliases, optional types, floats with exponents.
  EXPECT_EQ(Kinds("(\n  Tensor(a!) out,\n  Tensor(b -> *)? o=None,\n  *,\n  float e=1e-05,\n"
                  "\tbool b=True\n) -> ()"),
            "out:0, o:0?, e:2, b:3");
}

TEST(TorchSchemaReader, RefusesAnOperatorThatWritesNothing) {
  // It returns nothing too: torch.compile would take it for pure and could drop its calls.
  for (const char* schema : {"(Tensor x, int n) -> ()", "(Tensor(a) x, Tensor? y) -> ()"}) {
    EXPECT_EQ(ErrorOf([&] { torch::ParseArgKinds(schema); }),
              std::string("ValueError: kwcall.torch: the schema '") + schema +
                  "' returns nothing and writes no tensor: torch.compile takes such an operator "
                  "for a pure function and may drop its calls; mark each tensor the function "
                  "writes, as in 'Tensor(a!) out' (kwcall.torch.register: mutates_args=['out'])");
  }
  EXPECT_EQ(Kinds("(Tensor x, Tensor(a!)? o=None) -> ()"), "x:0, o:0?");
}

TEST_F(TorchTest, HostileSchemasAreRefusedBeforeTorchSeesThem) {
  for (const auto& [schema, what] : kHostileSchemas) {
    std::string error = ErrorOf(
        [schema = schema] { torch::RegisterOp(Scale(), "kwcall_cpp_test::hostile", schema); });
    EXPECT_EQ(error.rfind("ValueError: kwcall.torch: cannot read the schema", 0), 0u) << error;
  }
  // Nothing was registered: the name is free.
  torch::Operator op = torch::RegisterOp(Scale(), "kwcall_cpp_test::hostile", kSchema);
  EXPECT_TRUE(op);
}

// Scale as a kwcall function, def scale(x, out, *, alpha=1.0): outputs name its parameters.
ffi::Function ScaleWithSignature() {
  Signature signature =
      SignatureBuilder("scale").Param("x").Param("out").KeywordOnly("alpha", 1.0).Build();
  return MakeFunction(Scale(), signature);
}

constexpr const char* kFunctionalSchema = "(Tensor x, *, float alpha=1.0) -> Tensor";

TEST_F(TorchTest, AnOutputRuleMakesTheKernelReturnANewTensor) {
  torch::Operator op =
      torch::RegisterOp(ScaleWithSignature(), "kwcall_cpp_test::scaled", kFunctionalSchema,
                        torch::DefaultDeviceTypes(), {torch::Output{"out", "x"}});
  EXPECT_EQ(op.schema(), std::string("scaled") + kFunctionalSchema);
  TensorHandle x = Tensor({1, 2, 3});
  StableIValue stack[2] = {Pass(x), Pass(2.0)};
  ASSERT_EQ(shim_.call_dispatcher("kwcall_cpp_test::scaled", "", stack), 0);
  auto out = reinterpret_cast<TensorHandle>(stack[0]);  // the kernel's new tensor, ours now
  EXPECT_EQ(Values(out, 3), (std::vector<float>{2, 4, 6}));
  shim_.delete_tensor_object(out);
  shim_.delete_tensor_object(x);
}

TEST_F(TorchTest, ARankTheRuleCannotUseIsAnErrorAtCallTime) {
  torch::Operator op =
      torch::RegisterOp(ScaleWithSignature(), "kwcall_cpp_test::rank", kFunctionalSchema,
                        torch::DefaultDeviceTypes(), {torch::Output{"out", "x", {0, 1}}});
  TensorHandle x = Tensor({1, 2, 3});  // one dimension: the rule takes two
  StableIValue stack[2] = {Pass(x), Pass(2.0)};
  EXPECT_NE(shim_.call_dispatcher("kwcall_cpp_test::rank", "", stack), 0);
  shim_.delete_tensor_object(x);
}

TEST_F(TorchTest, OutputRefusals) {
  EXPECT_EQ(ErrorOf([] {
              torch::RegisterOp(Scale(), "kwcall_cpp_test::plain", kFunctionalSchema,
                                torch::DefaultDeviceTypes(), {torch::Output{"out", "x"}});
            }),
            "ValueError: kwcall.torch: kwcall_cpp_test::plain has outputs, which name the "
            "function's parameters: register a kwcall function (one with a kwcall::Signature, "
            "kwcall::MakeFunction)");
  EXPECT_EQ(ErrorOf([] {
              torch::RegisterOp(ScaleWithSignature(), "kwcall_cpp_test::alpha", kFunctionalSchema,
                                torch::DefaultDeviceTypes(), {torch::Output{"out", "alpha"}});
            }),
            "ValueError: kwcall.torch: kwcall_cpp_test::alpha's output 'out' is like 'alpha', "
            "which is not a Tensor that is always given: name a Tensor argument");
  EXPECT_EQ(ErrorOf([] {
              torch::RegisterOp(ScaleWithSignature(), "kwcall_cpp_test::dtype", kFunctionalSchema,
                                torch::DefaultDeviceTypes(),
                                {torch::Output{"out", "x", {}, "float128"}});
            })
                .rfind("ValueError: kwcall.torch: kwcall_cpp_test::dtype's output 'out' has the "
                       "dtype 'float128', not one of float32, float16",
                       0),
            0u);
}

TEST_F(TorchTest, OverloadNamesAndKernelsForFurtherDevices) {
  torch::Operator op = torch::RegisterOp(Scale(), "kwcall_cpp_test::scale2.out", kSchema, {"CPU"});
  TensorHandle x = Tensor({1, 2}), out = Tensor({0, 0});
  StableIValue stack[3] = {Pass(x), Pass(out), Pass(3.0)};
  ASSERT_EQ(shim_.call_dispatcher("kwcall_cpp_test::scale2", "out", stack), 0);
  EXPECT_EQ(Values(out, 2), (std::vector<float>{3, 6}));
  op.AddKernels(Scale(), {"CUDA"});
  EXPECT_EQ(ErrorOf([&] { op.AddKernels(Scale(), {"CPU"}); }),
            "ValueError: kwcall.torch: kwcall_cpp_test::scale2.out has a kernel for 'CPU' "
            "already");
  shim_.delete_tensor_object(x);
  shim_.delete_tensor_object(out);
}

TEST(TorchNotLoaded, RegisterOpNamesWhatIsMissing) {
  if (TorchMapped()) GTEST_SKIP() << "libtorch is loaded in this process already";
  std::string error = ErrorOf([] { torch::RegisterOp(Scale(), "kwcall_cpp_test::none", kSchema); });
  EXPECT_EQ(error,
            "RuntimeError: kwcall.torch: torch is not loaded in this process (no "
            "libtorch_cpu.so is mapped); import torch, or link or dlopen libtorch, before "
            "registering an operator");
}

}  // namespace
}  // namespace kwcall
