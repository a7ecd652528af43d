// An operator's outputs at each call: a new tensor's sizes from its `like` argument and its
// allocation through torch's stable C shim, after the plan made at registration
// (output_plan.h).
#ifndef KWCALL_SRC_TORCH_OUTPUTS_H_
#define KWCALL_SRC_TORCH_OUTPUTS_H_

#include <cstdint>

#include "torch/operator_state.h"
#include "torch/output_plan.h"
#include "torch/shim.h"

namespace kwcall {
namespace torch {

// An output's sizes and contiguous strides.
struct OutputShape {
  int64_t ndim;
  int64_t sizes[kMaxOutputDims];
  int64_t strides[kMaxOutputDims];
};

// `out`'s shape when its `like` argument has `ndim` dimensions of `sizes`. Throws
// std::runtime_error, naming the operator, the output and the argument, when `like` has too
// few dimensions for the rule.
void ShapeOutput(const OperatorState& op, const OutputPlan& out, int64_t ndim, const int64_t* sizes,
                 OutputShape* shape);

// A new tensor for `out`, shaped after `like` (a tensor handle of the stack), on like's device
// or, for the Meta kernel, on the meta device. The Meta kernel gets its shape from torch's own
// operators on `like` (any.dim, movedim, to, contiguous), which keep symbolic sizes symbolic:
// FakeTensorMode with dynamic shapes has no concrete sizes to read. Throws
// std::runtime_error.
TensorHandle NewOutput(const OperatorState& op, const Shim& shim, const OutputPlan& out,
                       TensorHandle like, bool meta);

}  // namespace torch
}  // namespace kwcall

#endif  // KWCALL_SRC_TORCH_OUTPUTS_H_
