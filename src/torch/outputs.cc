// An operator's outputs made at each call (outputs.h).
#include "torch/outputs.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "torch/kernel_support.h"

namespace kwcall {
namespace torch {
namespace {

// out's dimensions of a `like` of `ndim` dimensions, as indices of like's (0 <= index < ndim),
// into `picked`; how many. Fails naming the rule when `like` has too few dimensions.
int64_t PickDims(const OperatorState& op, const OutputPlan& out, int64_t ndim, int64_t* picked) {
  if (out.dims.empty()) {
    if (ndim > kMaxOutputDims) {
      Fail(op, "output '" + out.name + "' would have " + std::to_string(ndim) +
                   " dimensions, more than " + std::to_string(kMaxOutputDims));
    }
    for (int64_t i = 0; i < ndim; ++i) picked[i] = i;
    return ndim;
  }
  for (size_t i = 0; i < out.dims.size(); ++i) {
    int64_t dim = out.dims[i] < 0 ? out.dims[i] + ndim : out.dims[i];
    if (dim < 0 || dim >= ndim) {
      Fail(op, "output '" + out.name + "' takes the dimension " + std::to_string(out.dims[i]) +
                   " of argument '" + op.kinds()[out.like].name + "', which has " +
                   std::to_string(ndim) + " dimension(s)");
    }
    picked[i] = dim;
  }
  return static_cast<int64_t>(out.dims.size());
}

// Calls torch's operator `name.overload` on `stack` (its arguments; tensors are handles the
// call takes over) and returns its result, a new tensor handle.
TensorHandle Dispatch(const OperatorState& op, const Shim& shim, const char* name,
                      const char* overload, StableIValue* stack) {
  CheckShim(shim.call_dispatcher(name, overload, stack, kExtensionVersion),
            (op.qualified_name() + ": " + name + " for an output's shape").c_str());
  return reinterpret_cast<TensorHandle>(stack[0]);
}

StableIValue Value(TensorHandle tensor) { return reinterpret_cast<StableIValue>(tensor); }
StableIValue Value(int64_t number) { return static_cast<StableIValue>(number); }
StableIValue Code(int32_t code) { return static_cast<StableIValue>(static_cast<uint32_t>(code)); }

TensorHandle NewMetaOutput(const OperatorState& op, const Shim& shim, const OutputPlan& out,
                           TensorHandle like) {
  int64_t ndim = 0;
  int32_t dtype = 0;
  Check(op, shim.get_dim(like, &ndim), "aoti_torch_get_dim");
  Check(op, shim.get_dtype(like, &dtype), "aoti_torch_get_dtype");
  if (out.dtype >= 0) dtype = TorchCodes().dtypes[out.dtype];
  int64_t picked[kMaxOutputDims];
  const int64_t count = PickDims(op, out, ndim, picked);
  TensorHandle t = nullptr;
  Check(op, shim.new_tensor_handle(like, &t), "aoti_torch_new_tensor_handle");
  // Reduce away the dimensions not picked (the last first: the others keep their indices);
  // any.dim works on every dtype and on empty dimensions.
  int64_t kept[kMaxOutputDims];
  int64_t num_kept = 0;
  for (int64_t d = ndim - 1; d >= 0; --d) {
    if (std::find(picked, picked + count, d) != picked + count) {
      kept[num_kept++] = d;
      continue;
    }
    StableIValue stack[3] = {Value(t), Value(d), 0};
    t = Dispatch(op, shim, "aten::any", "dim", stack);
  }
  std::reverse(kept, kept + num_kept);  // the kept dimensions, in like's order
  // Then move each picked dimension to its place.
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = std::find(kept, kept + count, picked[i]) - kept;
    if (at == i) continue;
    StableIValue stack[3] = {Value(t), Value(at), Value(i)};
    t = Dispatch(op, shim, "aten::movedim", "int", stack);
    std::rotate(kept + i, kept + at, kept + at + 1);
  }
  // A new tensor of the dtype (copy=True), made contiguous.
  StableIValue to[5] = {Value(t), Code(dtype), 0, 1, 0};
  t = Dispatch(op, shim, "aten::to", "dtype", to);
  StableIValue contiguous[2] = {Value(t), Code(shim.memory_format_contiguous())};
  return Dispatch(op, shim, "aten::contiguous", "", contiguous);
}

}  // namespace

void ShapeOutput(const OperatorState& op, const OutputPlan& out, int64_t ndim, const int64_t* sizes,
                 OutputShape* shape) {
  int64_t picked[kMaxOutputDims];
  shape->ndim = PickDims(op, out, ndim, picked);
  int64_t stride = 1;
  for (int64_t i = shape->ndim - 1; i >= 0; --i) {
    shape->sizes[i] = sizes[picked[i]];
    shape->strides[i] = stride;
    stride *= std::max<int64_t>(shape->sizes[i], 1);
  }
}

TensorHandle NewOutput(const OperatorState& op, const Shim& shim, const OutputPlan& out,
                       TensorHandle like, bool meta) {
  if (meta) return NewMetaOutput(op, shim, out, like);
  int64_t ndim = 0;
  int64_t* sizes = nullptr;
  int32_t dtype = 0, device_type = 0, device_index = 0;
  Check(op, shim.get_dim(like, &ndim), "aoti_torch_get_dim");
  Check(op, shim.get_sizes(like, &sizes), "aoti_torch_get_sizes");
  Check(op, shim.get_dtype(like, &dtype), "aoti_torch_get_dtype");
  Check(op, shim.get_device_type(like, &device_type), "aoti_torch_get_device_type");
  Check(op, shim.get_device_index(like, &device_index), "aoti_torch_get_device_index");
  OutputShape shape;
  ShapeOutput(op, out, ndim, sizes, &shape);
  if (out.dtype >= 0) dtype = TorchCodes().dtypes[out.dtype];
  TensorHandle tensor = nullptr;
  CheckShim(shim.empty_strided(shape.ndim, shape.sizes, shape.strides, dtype, device_type,
                               device_index, &tensor),
            (op.qualified_name() + ": allocating output '" + out.name + "'").c_str());
  return tensor;
}

}  // namespace torch
}  // namespace kwcall
