// The boxed kernels torch calls. The shim's kernel takes no user data, so each operator gets
// a slot in a fixed table of stateless trampolines (a device kernel and a Meta kernel per
// slot) that find the operator's state by their slot number.
#ifndef KWCALL_SRC_TORCH_KERNEL_H_
#define KWCALL_SRC_TORCH_KERNEL_H_

#include "torch/operator_state.h"
#include "torch/shim.h"

namespace kwcall {
namespace torch {

// How many kwcall operators may be registered at once in a process.
inline constexpr int kMaxOperators = 256;

// Takes a free slot for `op` (setting op->slot); throws ffi::Error when none is left.
void AcquireSlot(OperatorState* op);
// Frees op's slot; its kernels must not be running or called again.
void ReleaseSlot(OperatorState* op);

// The kernel that calls op's function (for CPU, CUDA, ...), and the one that only takes the
// stack's values (for Meta), of the slot op holds.
BoxedKernel DeviceKernel(const OperatorState& op);
BoxedKernel MetaKernel(const OperatorState& op);

}  // namespace torch
}  // namespace kwcall

#endif  // KWCALL_SRC_TORCH_KERNEL_H_
