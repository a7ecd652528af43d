// What the boxed kernels (kernel.cc), the output rules (outputs.cc) and the eager call
// (eager.cc) share: torch's codes of devices and dtypes, errors named after the operator, and
// the CUDA device and stream a call runs with.
#ifndef KWCALL_SRC_TORCH_KERNEL_SUPPORT_H_
#define KWCALL_SRC_TORCH_KERNEL_SUPPORT_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <array>
#include <string>

#include "torch/operator_state.h"
#include "torch/shim.h"

namespace kwcall {
namespace torch {

// torch's codes of the device types and of kDtypes' dtypes, asked of torch once; a dtype the
// loaded torch has no function for gets a code no tensor has (torch's codes are >= 0).
struct Codes {
  int32_t cpu, cuda, meta;
  std::array<int32_t, kNumDtypes> dtypes;
};
inline constexpr int32_t kNoDtype = -1;
const Codes& TorchCodes();

// The function's arguments, left uninitialized: each call writes the ones it passes (an
// std::array of AnyView would clear all kMaxOperatorArgs of them on every call).
union ArgumentSlots {
  ArgumentSlots() {}
  ~ArgumentSlots() {}
  ffi::AnyView items[kMaxOperatorArgs];
};

// Throws std::runtime_error (what torch's own checks throw through the dispatcher) starting
// with the operator's name.
[[noreturn]] void Fail(const OperatorState& op, const std::string& what);
void Check(const OperatorState& op, TorchError error, const char* what);

// While alive: `device` is the current CUDA device and its current torch stream is tvm-ffi's
// environment stream; both are put back afterwards.
class CudaContext {
 public:
  CudaContext(const OperatorState& op, const Shim& shim, int32_t device);
  ~CudaContext();
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

 private:
  void Release();
  const Shim& shim_;
  int32_t device_;
  DeviceGuardHandle guard_ = nullptr;
  TVMFFIStreamHandle previous_ = nullptr;
};

}  // namespace torch
}  // namespace kwcall

#endif  // KWCALL_SRC_TORCH_KERNEL_SUPPORT_H_
