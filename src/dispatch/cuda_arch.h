// arch(p): the compute capability of a CUDA device (major * 10 + minor: 90 for an H100), asked of
// the CUDA driver once per device and cached. The driver is opened with dlopen, so kwcall links no
// CUDA and a process without one fails only when a CUDA tensor's arch is asked for.
#ifndef KWCALL_SRC_DISPATCH_CUDA_ARCH_H_
#define KWCALL_SRC_DISPATCH_CUDA_ARCH_H_

#include <kwcall/dispatch.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace kwcall {

/*! \brief Devices whose arch is cached; a higher ordinal asks the driver each time. */
inline constexpr int32_t kCachedCudaDevices = 64;

/*! \brief The cache: each device's arch + 1, 0 until it is known. */
extern std::atomic<int32_t> cached_cuda_arch[kCachedCudaDevices];

/*!
 * \brief Asks the driver (and fills the cache).
 * \throws ffi::Error of kind RuntimeError naming the term and the table when the driver cannot be
 *         loaded or refuses the device.
 */
int32_t AskCudaArch(int32_t device_id, const KeyTerm& term, const std::string& table);

/*! \brief The compute capability of CUDA device `device_id` when it is cached, else -1. */
inline int32_t CachedCudaArch(int32_t device_id) {
  if (device_id < 0 || device_id >= kCachedCudaDevices) return -1;
  return cached_cuda_arch[device_id].load(std::memory_order_relaxed) - 1;
}

/*! \brief The compute capability of CUDA device `device_id`. */
inline int32_t CudaArch(int32_t device_id, const KeyTerm& term, const std::string& table) {
  const int32_t known = CachedCudaArch(device_id);
  return known >= 0 ? known : AskCudaArch(device_id, term, table);
}

}  // namespace kwcall

#endif  // KWCALL_SRC_DISPATCH_CUDA_ARCH_H_
