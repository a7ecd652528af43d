// The CUDA driver's compute capability query, through dlopen (cuda_arch.h).
#include "dispatch/cuda_arch.h"

#include <dlfcn.h>
#include <tvm/ffi/error.h>

#include <mutex>

namespace kwcall {

std::atomic<int32_t> cached_cuda_arch[kCachedCudaDevices] = {};

namespace {

// The driver API's own values (cuda.h): CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR.
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;

struct Driver {
  int (*init)(unsigned int) = nullptr;
  int (*device_get)(int*, int) = nullptr;
  int (*get_attribute)(int*, int, int) = nullptr;
  std::string error;  // why there is none
};

const Driver& LoadDriver() {
  static const Driver driver = [] {
    Driver d;
    void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      d.error = std::string("the CUDA driver (libcuda.so.1) cannot be loaded: ") +
                (why != nullptr ? why : "unknown reason");
      return d;
    }
    d.init = reinterpret_cast<int (*)(unsigned int)>(dlsym(handle, "cuInit"));
    d.device_get = reinterpret_cast<int (*)(int*, int)>(dlsym(handle, "cuDeviceGet"));
    d.get_attribute =
        reinterpret_cast<int (*)(int*, int, int)>(dlsym(handle, "cuDeviceGetAttribute"));
    if (d.init == nullptr || d.device_get == nullptr || d.get_attribute == nullptr) {
      d.error = "the CUDA driver (libcuda.so.1) lacks cuInit, cuDeviceGet or cuDeviceGetAttribute";
    } else if (int status = d.init(0); status != 0) {
      d.error = "the CUDA driver's cuInit failed with status " + std::to_string(status);
    }
    return d;
  }();
  return driver;
}

}  // namespace

int32_t AskCudaArch(int32_t device_id, const KeyTerm& term, const std::string& table) {
  const Driver& driver = LoadDriver();
  auto fail = [&](const std::string& why) {
    TVM_FFI_THROW(RuntimeError) << "kwcall.DispatchTable '" << table << "': key term "
                                << term.ToString()
                                << " reads the compute capability of cuda:" << device_id << ", but "
                                << why;
  };
  if (!driver.error.empty()) fail(driver.error);
  int device = 0, major = 0, minor = 0;
  if (int status = driver.device_get(&device, device_id); status != 0) {
    fail("cuDeviceGet failed with status " + std::to_string(status));
  }
  if (driver.get_attribute(&major, kComputeCapabilityMajor, device) != 0 ||
      driver.get_attribute(&minor, kComputeCapabilityMinor, device) != 0) {
    fail("cuDeviceGetAttribute failed");
  }
  const int32_t arch = major * 10 + minor;
  if (device_id >= 0 && device_id < kCachedCudaDevices) {
    cached_cuda_arch[device_id].store(arch + 1, std::memory_order_relaxed);
  }
  return arch;
}

}  // namespace kwcall
