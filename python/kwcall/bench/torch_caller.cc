// The C++ caller of the torch routes: a kwcall operator called through PyTorch's dispatcher
// from C++, against the kwcall function itself, on the same tensors. It needs no torch at build
// time, as a stable-ABI torch extension: the stable C shim's functions are declared here and
// resolved from the libtorch already loaded in the process (dlsym).
//
//   torch_call_n(op_name, function_name, x, y, out, alpha, n, route) -> elapsed ns
//     route 0: the kwcall function global `function_name`, f(x, y, out, alpha) (native call)
//     route 1: aoti_torch_call_dispatcher(op_name, "", stack): the operator as a libtorch
//              program without torch's C++ API calls it. The dispatcher takes ownership of the
//              tensor handles on the stack, so each call makes new ones (the shim's
//              aoti_torch_new_tensor_handle), as AOTInductor's generated code does.
#include <dlfcn.h>
#include <dlpack/dlpack.h>
#include <link.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

namespace ffi = tvm::ffi;

// torch's stable C ABI (torch/csrc/inductor/aoti_torch/c/shim.h), declared as it is there.
using AtenTensorHandle = struct AtenTensorOpaque*;
using AOTITorchError = int32_t;
using StableIValue = uint64_t;

struct Shim {
  AOTITorchError (*call_dispatcher)(const char*, const char*, StableIValue*);
  AOTITorchError (*new_tensor_handle)(AtenTensorHandle, AtenTensorHandle*);
  AOTITorchError (*delete_tensor_object)(AtenTensorHandle);
  AOTITorchError (*create_tensor_from_blob)(void*, int64_t, const int64_t*, const int64_t*, int64_t,
                                            int32_t, int32_t, int32_t, AtenTensorHandle*);
  int32_t (*dtype_float32)();
  int32_t (*device_type_cpu)();
};

// The path of the loaded libtorch_cpu (torch's Python package loads it without RTLD_GLOBAL).
int FindLibtorch(dl_phdr_info* info, size_t, void* path) {
  const char* name = info->dlpi_name;
  if (name != nullptr && std::strstr(name, "/libtorch_cpu.so") != nullptr) {
    *static_cast<std::string*>(path) = name;
    return 1;
  }
  return 0;
}

void* Resolve(const char* symbol) {
  if (void* found = dlsym(RTLD_DEFAULT, symbol)) return found;
  std::string path;
  dl_iterate_phdr(FindLibtorch, &path);
  void* library = path.empty() ? nullptr : dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  void* found = library != nullptr ? dlsym(library, symbol) : nullptr;
  TVM_FFI_CHECK(found != nullptr, RuntimeError)
      << "torch's C shim has no " << symbol << " here: import torch (2.10 or newer) first";
  return found;
}

const Shim& TheShim() {
  static const Shim shim = [] {
    Shim s;
    s.call_dispatcher =
        reinterpret_cast<decltype(s.call_dispatcher)>(Resolve("aoti_torch_call_dispatcher"));
    s.new_tensor_handle =
        reinterpret_cast<decltype(s.new_tensor_handle)>(Resolve("aoti_torch_new_tensor_handle"));
    s.delete_tensor_object = reinterpret_cast<decltype(s.delete_tensor_object)>(
        Resolve("aoti_torch_delete_tensor_object"));
    s.create_tensor_from_blob = reinterpret_cast<decltype(s.create_tensor_from_blob)>(
        Resolve("aoti_torch_create_tensor_from_blob"));
    s.dtype_float32 =
        reinterpret_cast<decltype(s.dtype_float32)>(Resolve("aoti_torch_dtype_float32"));
    s.device_type_cpu =
        reinterpret_cast<decltype(s.device_type_cpu)>(Resolve("aoti_torch_device_type_cpu"));
    return s;
  }();
  return shim;
}

void Check(AOTITorchError error, const char* what) {
  TVM_FFI_CHECK(error == 0, RuntimeError) << what << " failed (torch's error code " << error << ")";
}

// A torch tensor over the memory of a contiguous float32 CPU tensor, freed with this.
class TorchView {
 public:
  explicit TorchView(const ffi::Tensor& t) {
    TVM_FFI_CHECK(t.IsContiguous() && t.dtype() == DLDataType({kDLFloat, 32, 1}) &&
                      t.device().device_type == kDLCPU,
                  ValueError)
        << "the torch routes take contiguous float32 CPU tensors";
    const Shim& shim = TheShim();
    const int64_t stride = 1;
    const int64_t size = t.numel();
    Check(shim.create_tensor_from_blob(t.data_ptr(), 1, &size, &stride, 0, shim.dtype_float32(),
                                       shim.device_type_cpu(), 0, &handle_),
          "aoti_torch_create_tensor_from_blob");
  }
  TorchView(const TorchView&) = delete;
  TorchView& operator=(const TorchView&) = delete;
  ~TorchView() { TheShim().delete_tensor_object(handle_); }

  // A new handle of the same tensor, which the dispatcher takes.
  StableIValue Handle() const {
    AtenTensorHandle copy = nullptr;
    Check(TheShim().new_tensor_handle(handle_, &copy), "aoti_torch_new_tensor_handle");
    return reinterpret_cast<StableIValue>(copy);
  }

 private:
  AtenTensorHandle handle_ = nullptr;
};

StableIValue FromDouble(double value) {
  StableIValue bits = 0;
  std::memcpy(&bits, &value, sizeof(value));
  return bits;
}

int64_t TorchCallN(const ffi::String& op_name, const ffi::String& function_name, ffi::Tensor x,
                   ffi::Tensor y, ffi::Tensor out, double alpha, int64_t n, int64_t route) {
  using Clock = std::chrono::steady_clock;
  if (route == 0) {
    ffi::Function f = ffi::Function::GetGlobalRequired(function_name);
    Clock::time_point begin = Clock::now();
    for (int64_t i = 0; i < n; ++i) f(x, y, out, alpha);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - begin).count();
  }
  TVM_FFI_CHECK(route == 1, ValueError) << "unknown route " << route;
  const Shim& shim = TheShim();
  TorchView tx(x), ty(y), tout(out);
  const char* name = op_name.c_str();
  Clock::time_point begin = Clock::now();
  for (int64_t i = 0; i < n; ++i) {
    StableIValue stack[4] = {tx.Handle(), ty.Handle(), tout.Handle(), FromDouble(alpha)};
    Check(shim.call_dispatcher(name, "", stack), "aoti_torch_call_dispatcher");
  }
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - begin).count();
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(torch_call_n, TorchCallN);
