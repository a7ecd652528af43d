// kwcall::torch::RegisterExported: a kernel library's function registered as the torch
// operator the library exports beside it, with libtorch dlopened into this process (as
// test_torch.cc does) and the operator called through the shim's aoti_torch_call_dispatcher.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <kwcall/torch.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_util.h"

namespace kwcall {
namespace {

using testing::ErrorOf;

class RegisterExportedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::TorchLibraryPath().empty()) {
      GTEST_SKIP() << "torch was not installed when the tests were configured "
                      "(scripts/test.sh --torch installs it)";
    }
    void* torch = dlopen(testing::TorchLibraryPath().c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(torch, nullptr) << dlerror();
    Get(torch, &call_dispatcher_, "aoti_torch_call_dispatcher");
    Get(torch, &empty_strided_, "aoti_torch_empty_strided");
    Get(torch, &get_data_ptr_, "aoti_torch_get_data_ptr");
    Get(torch, &new_tensor_handle_, "aoti_torch_new_tensor_handle");
    Get(torch, &delete_tensor_object_, "aoti_torch_delete_tensor_object");
    Get(torch, &dtype_float32_, "aoti_torch_dtype_float32");
    Get(torch, &device_type_cpu_, "aoti_torch_device_type_cpu");
  }

  template <typename Fn>
  static void Get(void* library, Fn* slot, const char* name) {
    *slot = reinterpret_cast<Fn>(dlsym(library, name));
    ASSERT_NE(*slot, nullptr) << name;
  }

  // fill(out, value, alpha=alpha) through the dispatcher on a new 3-float tensor: what it wrote.
  std::vector<float> FillThroughTheDispatcher(int64_t value, int64_t alpha) {
    const int64_t size = 3, stride = 1;
    void* out = nullptr;
    EXPECT_EQ(empty_strided_(1, &size, &stride, dtype_float32_(), device_type_cpu_(), 0, &out), 0);
    void* passed = nullptr;  // the dispatcher takes the handles on its stack: a second one
    new_tensor_handle_(out, &passed);
    uint64_t stack[3] = {reinterpret_cast<uint64_t>(passed), static_cast<uint64_t>(value),
                         static_cast<uint64_t>(alpha)};  // ints travel as their bits
    EXPECT_EQ(call_dispatcher_("kwcall_cpp_test::fill", "", stack), 0);
    void* data = nullptr;
    get_data_ptr_(out, &data);
    std::vector<float> wrote(static_cast<float*>(data), static_cast<float*>(data) + size);
    delete_tensor_object_(out);
    return wrote;
  }

  ffi::Module kernels_ = ffi::Module::LoadFromFile(KWCALL_TEST_KERNELS_LIBRARY);
  int32_t (*call_dispatcher_)(const char*, const char*, uint64_t*) = nullptr;
  int32_t (*empty_strided_)(int64_t, const int64_t*, const int64_t*, int32_t, int32_t, int32_t,
                            void**) = nullptr;
  int32_t (*get_data_ptr_)(void*, void**) = nullptr;
  int32_t (*new_tensor_handle_)(void*, void**) = nullptr;
  int32_t (*delete_tensor_object_)(void*) = nullptr;
  int32_t (*dtype_float32_)() = nullptr;
  int32_t (*device_type_cpu_)() = nullptr;
};

TEST_F(RegisterExportedTest, RegistersTheOperatorTheLibraryExports) {
  torch::Operator op = torch::RegisterExported(kernels_, "fill");
  EXPECT_EQ(op.qualified_name(), "kwcall_cpp_test::fill");
  EXPECT_EQ(op.schema(), "fill(Tensor(a!) out, int value=10, *, int alpha=2) -> ()");
  EXPECT_EQ(FillThroughTheDispatcher(3, 5), (std::vector<float>{15, 15, 15}));
}

TEST_F(RegisterExportedTest, SaysWhatTheLibraryLacks) {
  EXPECT_EQ(ErrorOf([&] { torch::RegisterExported(kernels_, "fill_without_op"); }),
            "AttributeError: kwcall::torch::RegisterExported: the module exports no torch "
            "operator for 'fill_without_op'; export one with KWCALL_EXPORT_TORCH_OP (or "
            "kwcall.cute.export_to_c(..., torch_op=...)), or pass a schema to "
            "kwcall::torch::RegisterOp");
  EXPECT_EQ(ErrorOf([&] { torch::RegisterExported(kernels_, "bare"); }),
            "AttributeError: kwcall::LoadFunction: the module exports no signature for 'bare'; "
            "export one with KWCALL_EXPORT_SIGNATURE (or kwcall.cute.export_to_c), or pass a "
            "kwcall::Signature");
  // What RegisterOp refuses comes through: `scale` exports a schema that returns int[].
  EXPECT_EQ(ErrorOf([&] { torch::RegisterExported(kernels_, "scale"); }).rfind("ValueError: ", 0),
            0u);
}

TEST_F(RegisterExportedTest, RefusesASchemaTorchWouldReadOtherwise) {
  // fill_hostile's schema hides a quote in a comment (exported_kernels.cc): refused before
  // torch registers anything, so that no int can reach the kernel as a tensor handle.
  std::string error = ErrorOf([&] { torch::RegisterExported(kernels_, "fill_hostile"); });
  EXPECT_EQ(error.rfind("ValueError: kwcall.torch: cannot read the schema '(Tensor(a!) out, int "
                        "value # , Tensor z='\n, *, int alpha # '\n) -> ()': it has '#' (a "
                        "comment, to torch) at offset 27",
                        0),
            0u)
      << error;
}

}  // namespace
}  // namespace kwcall
