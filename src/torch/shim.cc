// Resolving torch's stable C shim from the libtorch loaded in the process.
//
// Python's torch loads libtorch_cpu (and libtorch_cuda) as dependencies of torch._C, opened
// RTLD_LOCAL, so their symbols are not in the global scope: after dlsym(RTLD_DEFAULT) (a
// libtorch program linked against libtorch), the loaded objects are searched by file name and
// reopened with RTLD_NOLOAD, which finds the copy already mapped and never loads another.
#include "torch/shim.h"

#include <dlfcn.h>
#include <link.h>
#include <tvm/ffi/error.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace kwcall {
namespace torch {
namespace {

// The libtorch objects that hold shim functions, by the start of their file names.
constexpr const char* kTorchLibraries[] = {"libtorch_cpu.so", "libtorch_cuda.so", "libtorch.so"};

std::vector<void*> LoadedTorchLibraries() {
  std::vector<std::string> paths;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const char* path = info->dlpi_name;
        if (path == nullptr || *path == '\0') return 0;
        const char* slash = std::strrchr(path, '/');
        const char* file = slash ? slash + 1 : path;
        for (const char* name : kTorchLibraries) {
          if (std::strncmp(file, name, std::strlen(name)) == 0) {
            static_cast<std::vector<std::string>*>(data)->push_back(path);
          }
        }
        return 0;
      },
      &paths);
  std::vector<void*> handles;
  for (const std::string& path : paths) {
    // Kept open for the life of the process: the operators point into these objects.
    if (void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD)) handles.push_back(handle);
  }
  return handles;
}

void* Lookup(const char* symbol, const std::vector<void*>& libraries) {
  if (void* address = dlsym(RTLD_DEFAULT, symbol)) return address;
  for (void* library : libraries) {
    if (void* address = dlsym(library, symbol)) return address;
  }
  return nullptr;
}

template <typename Fn>
void Resolve(Fn* slot, const char* symbol, const std::vector<void*>& libraries,
             std::vector<std::string>* missing) {
  *slot = reinterpret_cast<Fn>(Lookup(symbol, libraries));
  if (*slot == nullptr && missing != nullptr) missing->push_back(symbol);
}

Shim ResolveShim() {
  std::vector<void*> libraries = LoadedTorchLibraries();
  Shim shim{};
  std::vector<std::string> missing;
#define KWCALL_REQUIRE(field, symbol) Resolve(&shim.field, symbol, libraries, &missing)
  KWCALL_REQUIRE(library_init_def, "aoti_torch_library_init_def");
  KWCALL_REQUIRE(library_init_fragment, "aoti_torch_library_init_fragment");
  KWCALL_REQUIRE(library_init_impl, "aoti_torch_library_init_impl");
  KWCALL_REQUIRE(library_def, "aoti_torch_library_def");
  KWCALL_REQUIRE(library_impl, "torch_library_impl");
  KWCALL_REQUIRE(delete_library_object, "aoti_torch_delete_library_object");
  KWCALL_REQUIRE(delete_tensor_object, "aoti_torch_delete_tensor_object");
  KWCALL_REQUIRE(get_data_ptr, "aoti_torch_get_data_ptr");
  KWCALL_REQUIRE(get_dim, "aoti_torch_get_dim");
  KWCALL_REQUIRE(get_sizes, "aoti_torch_get_sizes");
  KWCALL_REQUIRE(get_strides, "aoti_torch_get_strides");
  KWCALL_REQUIRE(get_dtype, "aoti_torch_get_dtype");
  KWCALL_REQUIRE(get_device_type, "aoti_torch_get_device_type");
  KWCALL_REQUIRE(get_device_index, "aoti_torch_get_device_index");
  KWCALL_REQUIRE(empty_strided, "aoti_torch_empty_strided");
  KWCALL_REQUIRE(new_tensor_handle, "aoti_torch_new_tensor_handle");
  KWCALL_REQUIRE(call_dispatcher, "torch_call_dispatcher");
  KWCALL_REQUIRE(memory_format_contiguous, "aoti_torch_memory_format_contiguous_format");
  KWCALL_REQUIRE(string_length, "torch_string_length");
  KWCALL_REQUIRE(string_c_str, "torch_string_c_str");
  KWCALL_REQUIRE(delete_string, "torch_delete_string");
  KWCALL_REQUIRE(create_device_guard, "aoti_torch_create_device_guard");
  KWCALL_REQUIRE(delete_device_guard, "aoti_torch_delete_device_guard");
  KWCALL_REQUIRE(get_current_device_index, "aoti_torch_get_current_device_index");
  KWCALL_REQUIRE(device_type_cpu, "aoti_torch_device_type_cpu");
  KWCALL_REQUIRE(device_type_cuda, "aoti_torch_device_type_cuda");
  KWCALL_REQUIRE(device_type_meta, "aoti_torch_device_type_meta");
#undef KWCALL_REQUIRE
  for (size_t i = 0; i < kNumDtypes; ++i) {
    Resolve(&shim.dtype_code[i], kDtypes[i].code_function, libraries, nullptr);
  }
  Resolve(&shim.delete_stable_ivalue, "torch_delete_stable_ivalue", libraries, nullptr);
  Resolve(&shim.exception_what, "torch_exception_get_what_without_backtrace", libraries, nullptr);
  if (missing.empty()) return shim;
  if (libraries.empty() && missing.size() > 1) {
    TVM_FFI_THROW(RuntimeError)
        << "kwcall.torch: torch is not loaded in this process (no libtorch_cpu.so is mapped); "
        << "import torch, or link or dlopen libtorch, before registering an operator";
  }
  std::string names;
  for (const std::string& name : missing) names += (names.empty() ? "" : ", ") + name;
  TVM_FFI_THROW(RuntimeError) << "kwcall.torch: the loaded torch lacks the stable C shim "
                              << "function(s) " << names << ": torch " << kMinimumTorch
                              << " or newer has them";
}

}  // namespace

const Shim& RequireShim() {
  // Every kernel call asks: once resolved, an atomic load. A failed resolution is retried at
  // the next registration (torch may be loaded by then).
  static std::atomic<const Shim*> resolved{nullptr};
  if (const Shim* shim = resolved.load(std::memory_order_acquire)) return *shim;
  static std::mutex mutex;
  static Shim shim;
  std::lock_guard<std::mutex> lock(mutex);
  if (resolved.load(std::memory_order_relaxed) == nullptr) {
    shim = ResolveShim();
    resolved.store(&shim, std::memory_order_release);
  }
  return shim;
}

CurrentCudaStream RequireCudaStreamFunction() {
  static CurrentCudaStream function = [] {
    CurrentCudaStream fn = nullptr;
    Resolve(&fn, "aoti_torch_get_current_cuda_stream", LoadedTorchLibraries(), nullptr);
    return fn;
  }();
  if (function == nullptr) {
    throw std::runtime_error(
        "kwcall.torch: a CUDA tensor reached the operator but the loaded torch has no "
        "aoti_torch_get_current_cuda_stream (libtorch_cuda is not loaded)");
  }
  return function;
}

void CheckShim(TorchError error, const char* what) {
  if (error == kTorchSuccess) return;
  std::string message = std::string("kwcall.torch: ") + what + " failed";
  const Shim& shim = RequireShim();
  if (shim.exception_what != nullptr) {
    const char* reason = shim.exception_what();
    if (reason != nullptr && *reason != '\0') message += std::string(": ") + reason;
  }
  throw std::runtime_error(message);
}

}  // namespace torch
}  // namespace kwcall
