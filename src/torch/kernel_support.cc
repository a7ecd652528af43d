// Torch's codes, the operator's errors and the CUDA context of a call (kernel_support.h).
#include "torch/kernel_support.h"

#include <stdexcept>

namespace kwcall {
namespace torch {

const Codes& TorchCodes() {
  static const Codes codes = [] {
    const Shim& s = RequireShim();
    Codes c{s.device_type_cpu(), s.device_type_cuda(), s.device_type_meta(), {}};
    for (size_t i = 0; i < kNumDtypes; ++i) {
      c.dtypes[i] = s.dtype_code[i] != nullptr ? s.dtype_code[i]() : kNoDtype;
    }
    return c;
  }();
  return codes;
}

void Fail(const OperatorState& op, const std::string& what) {
  throw std::runtime_error(op.qualified_name() + ": " + what);
}

void Check(const OperatorState& op, TorchError error, const char* what) {
  if (error != kTorchSuccess) Fail(op, std::string(what) + " failed");
}

CudaContext::CudaContext(const OperatorState& op, const Shim& shim, int32_t device)
    : shim_(shim), device_(device) {
  int32_t current = -1;
  Check(op, shim.get_current_device_index(&current), "aoti_torch_get_current_device_index");
  if (current != device) {
    Check(op, shim.create_device_guard(device, &guard_), "aoti_torch_create_device_guard");
  }
  void* stream = nullptr;
  TorchError error = RequireCudaStreamFunction()(device, &stream);
  if (error != kTorchSuccess) {
    Release();
    Fail(op, "aoti_torch_get_current_cuda_stream failed");
  }
  TVMFFIEnvSetStream(kDLCUDA, device, stream, &previous_);
}

CudaContext::~CudaContext() {
  TVMFFIEnvSetStream(kDLCUDA, device_, previous_, nullptr);
  Release();
}

void CudaContext::Release() {
  if (guard_ != nullptr) shim_.delete_device_guard(guard_);
  guard_ = nullptr;
}

}  // namespace torch
}  // namespace kwcall
