// Operators that return new tensors: the output rules (kwcall::torch::Output) resolved against
// the schema and the function's signature once, at registration, into the plan an operator's
// state holds (outputs.h makes the outputs at each call).
#ifndef KWCALL_SRC_TORCH_OUTPUT_PLAN_H_
#define KWCALL_SRC_TORCH_OUTPUT_PLAN_H_

#include <kwcall/torch.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>
#include <vector>

#include "torch/op_schema.h"

namespace kwcall {
namespace torch {

// One output as the kernels make it.
struct OutputPlan {
  std::string name;
  size_t like;                // the index of the schema argument it takes after
  std::vector<int64_t> dims;  // like's dimensions, in order; empty: all
  int dtype;                  // an index into kDtypes, or -1: like's dtype
};

// How the function is called: its arguments in its own order, each a schema argument's index
// (>= 0) or an output's (~index, < 0); without outputs, the schema's arguments in order.
struct CallPlan {
  std::vector<OutputPlan> outputs;
  std::vector<int32_t> sources;
};

// Resolves `outputs` for an operator of the argument `kinds`; throws ffi::Error (ValueError)
// naming a rule that names an unknown or non-tensor parameter, a bad dtype or repeated dims,
// or a function whose signature does not hold the schema's arguments and the outputs.
CallPlan PlanCall(const ffi::Function& function, const std::string& qualified_name,
                  const std::vector<ArgKind>& kinds, const std::vector<Output>& outputs);

// The most dimensions an output may have (the kernels' stack arrays hold that many).
inline constexpr int64_t kMaxOutputDims = 64;

// The rules the FFI global kwcall.torch.RegisterOp takes: a list of maps with the keys "name",
// "like", and optionally "dims" (a list of ints) and "dtype" (a str).
using OutputMaps = ffi::Optional<ffi::Array<ffi::Map<ffi::String, ffi::Any>>>;
std::vector<Output> OutputsFromMaps(const OutputMaps& maps);

}  // namespace torch
}  // namespace kwcall

#endif  // KWCALL_SRC_TORCH_OUTPUT_PLAN_H_
