// What each step of a kwcall torch kernel's CUDA call costs, timed alone in a loop on a CUDA
// tensor (bench/torch_launch_breakdown.py builds and runs it): the stable C shim's calls the
// kernel makes per call and per tensor (src/torch/kernel.cc), and tvm-ffi's environment stream.
//
//   shim_costs(tensor, n) -> [ns per call of each step, in kStepNames' order]
#include <dlfcn.h>
#include <dlpack/dlpack.h>
#include <link.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace ffi = tvm::ffi;
using Handle = void*;
using Error = int32_t;

// Every loaded torch library, searched for `symbol` (torch loads them without RTLD_GLOBAL).
int Collect(dl_phdr_info* info, size_t, void* out) {
  const char* name = info->dlpi_name;
  if (name != nullptr && std::strstr(name, "/libtorch") != nullptr) {
    static_cast<std::vector<std::string>*>(out)->push_back(name);
  }
  return 0;
}

void* Resolve(const char* symbol) {
  if (void* found = dlsym(RTLD_DEFAULT, symbol)) return found;
  std::vector<std::string> paths;
  dl_iterate_phdr(Collect, &paths);
  for (const std::string& path : paths) {
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (void* found = library ? dlsym(library, symbol) : nullptr) return found;
  }
  TVM_FFI_THROW(RuntimeError) << "no " << symbol << " in the loaded torch";
}

template <typename F>
F Get(const char* symbol) {
  return reinterpret_cast<F>(Resolve(symbol));
}

template <typename Body>
int64_t NsPerCall(int64_t n, Body body) {
  using Clock = std::chrono::steady_clock;
  const auto begin = Clock::now();
  for (int64_t i = 0; i < n; ++i) body();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - begin).count() / n;
}

ffi::Array<int64_t> ShimCosts(ffi::Tensor tensor, int64_t n) {
  TVM_FFI_CHECK(tensor.device().device_type == kDLCUDA, ValueError) << "a CUDA tensor, please";
  const int32_t device = tensor.device().device_id;
  auto create_from_blob =
      Get<Error (*)(void*, int64_t, const int64_t*, const int64_t*, int64_t, int32_t, int32_t,
                    int32_t, Handle*)>("aoti_torch_create_tensor_from_blob");
  auto delete_tensor = Get<Error (*)(Handle)>("aoti_torch_delete_tensor_object");
  auto current_device = Get<Error (*)(int32_t*)>("aoti_torch_get_current_device_index");
  auto current_stream = Get<Error (*)(int32_t, void**)>("aoti_torch_get_current_cuda_stream");
  auto create_guard = Get<Error (*)(int32_t, Handle*)>("aoti_torch_create_device_guard");
  auto delete_guard = Get<Error (*)(Handle)>("aoti_torch_delete_device_guard");
  auto data_ptr = Get<Error (*)(Handle, void**)>("aoti_torch_get_data_ptr");
  auto dim = Get<Error (*)(Handle, int64_t*)>("aoti_torch_get_dim");
  auto sizes = Get<Error (*)(Handle, int64_t**)>("aoti_torch_get_sizes");
  auto strides = Get<Error (*)(Handle, int64_t**)>("aoti_torch_get_strides");
  auto dtype = Get<Error (*)(Handle, int32_t*)>("aoti_torch_get_dtype");
  auto device_type = Get<Error (*)(Handle, int32_t*)>("aoti_torch_get_device_type");
  auto device_index = Get<Error (*)(Handle, int32_t*)>("aoti_torch_get_device_index");
  const int64_t size = tensor.numel(), stride = 1;
  Handle t = nullptr;
  TVM_FFI_ICHECK_EQ(
      create_from_blob(tensor.data_ptr(), 1, &size, &stride, 0,
                       Get<int32_t (*)()>("aoti_torch_dtype_float16")(),
                       Get<int32_t (*)()>("aoti_torch_device_type_cuda")(), device, &t),
      0);
  ffi::Array<int64_t> out;
  int32_t index = 0;
  void* stream = nullptr;
  out.push_back(NsPerCall(n, [&] { current_device(&index); }));
  out.push_back(NsPerCall(n, [&] { current_stream(device, &stream); }));
  out.push_back(NsPerCall(n, [&] {
    TVMFFIStreamHandle previous = nullptr;
    TVMFFIEnvSetStream(kDLCUDA, device, stream, &previous);
    TVMFFIEnvSetStream(kDLCUDA, device, previous, nullptr);
  }));
  out.push_back(NsPerCall(n, [&] {
    void* data;
    int64_t ndim;
    int64_t *shape, *step;
    int32_t code, type, id;
    data_ptr(t, &data), dim(t, &ndim), sizes(t, &shape), strides(t, &step);
    dtype(t, &code), device_type(t, &type), device_index(t, &id);
  }));
  out.push_back(NsPerCall(n, [&] {
    Handle guard = nullptr;
    create_guard(device, &guard);
    delete_guard(guard);
  }));
  delete_tensor(t);
  return out;
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(shim_costs, ShimCosts);
