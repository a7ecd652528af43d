// Output rules: resolved at registration, applied at each call (outputs.h).
#include "torch/outputs.h"

#include <kwcall/function.h>
#include <kwcall/signature.h>
#include <tvm/ffi/error.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <string>

#include "torch/kernel_support.h"
#include "torch/operator_state.h"

namespace kwcall {
namespace torch {
namespace {

// kDtypes names each dtype by its shim function, "aoti_torch_dtype_" and torch's name.
constexpr size_t kPrefixLength = sizeof("aoti_torch_dtype_") - 1;

// kDtypes' index of a dtype named as torch names it ("float32"), or -1.
int DtypeIndex(const std::string& name) {
  for (size_t i = 0; i < kNumDtypes; ++i) {
    if (name == kDtypes[i].code_function + kPrefixLength) return static_cast<int>(i);
  }
  return -1;
}

std::string DtypeNames() {
  std::string names;
  for (const TorchDtype& dtype : kDtypes) {
    names += (names.empty() ? "" : ", ") + std::string(dtype.code_function + kPrefixLength);
  }
  return names;
}

OutputPlan PlanOutput(const std::string& qualified_name, const std::vector<ArgKind>& kinds,
                      const Output& rule) {
  auto like = std::find_if(kinds.begin(), kinds.end(),
                           [&](const ArgKind& kind) { return kind.name == rule.like; });
  if (like == kinds.end() || like->type != ArgType::kTensor || like->optional) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: " << qualified_name << "'s output '" << rule.name
                              << "' is like '" << rule.like << "', which is "
                              << (like == kinds.end() ? "not an argument of the operator"
                                                      : "not a Tensor that is always given")
                              << ": name a Tensor argument";
  }
  std::set<int64_t> seen;
  for (int64_t dim : rule.dims) {
    if (dim >= kMaxOutputDims || dim < -kMaxOutputDims || !seen.insert(dim).second) {
      TVM_FFI_THROW(ValueError) << "kwcall.torch: " << qualified_name << "'s output '" << rule.name
                                << "' names the dimension " << dim << " of '" << rule.like
                                << "' twice or out of every tensor's range";
    }
  }
  if (rule.dims.size() > static_cast<size_t>(kMaxOutputDims)) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: " << qualified_name << "'s output '" << rule.name
                              << "' has more than " << kMaxOutputDims << " dimensions";
  }
  int dtype = rule.dtype.empty() ? -1 : DtypeIndex(rule.dtype);
  if (!rule.dtype.empty() && dtype < 0) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: " << qualified_name << "'s output '" << rule.name
                              << "' has the dtype '" << rule.dtype << "', not one of "
                              << DtypeNames();
  }
  return {rule.name, static_cast<size_t>(like - kinds.begin()), rule.dims, dtype};
}

}  // namespace

CallPlan PlanCall(const ffi::Function& function, const std::string& qualified_name,
                  const std::vector<ArgKind>& kinds, const std::vector<Output>& outputs) {
  CallPlan plan;
  if (outputs.empty()) {
    for (size_t i = 0; i < kinds.size(); ++i) plan.sources.push_back(static_cast<int32_t>(i));
    return plan;
  }
  for (const Output& rule : outputs)
    plan.outputs.push_back(PlanOutput(qualified_name, kinds, rule));
  std::optional<Signature> signature = GetSignature(function);
  if (!signature.has_value()) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: " << qualified_name << " has outputs, which "
                              << "name the function's parameters: register a kwcall function "
                              << "(one with a kwcall::Signature, kwcall::MakeFunction)";
  }
  // The signature's parameters, outputs taken out, must be the schema's arguments in order.
  size_t next_input = 0;
  std::set<std::string> placed;
  for (const Param& param : signature.value()->params()) {
    const std::string& name = param.name;
    auto output = std::find_if(plan.outputs.begin(), plan.outputs.end(),
                               [&](const OutputPlan& o) { return o.name == name; });
    if (output != plan.outputs.end()) {
      if (!placed.insert(name).second) break;
      plan.sources.push_back(~static_cast<int32_t>(output - plan.outputs.begin()));
    } else if (next_input < kinds.size() && kinds[next_input].name == name) {
      plan.sources.push_back(static_cast<int32_t>(next_input++));
    } else {
      TVM_FFI_THROW(ValueError) << "kwcall.torch: " << qualified_name << ": the function's "
                                << "parameter '" << name << "' is neither the schema's next "
                                << "argument nor an output: the schema's arguments must be the "
                                << "function's parameters, in order, less the outputs";
    }
  }
  for (const OutputPlan& output : plan.outputs) {
    if (!placed.count(output.name)) {
      TVM_FFI_THROW(ValueError) << "kwcall.torch: " << qualified_name << "'s output '"
                                << output.name << "' is not a parameter of the function, or is "
                                << "named twice";
    }
  }
  if (next_input != kinds.size()) {
    TVM_FFI_THROW(ValueError) << "kwcall.torch: " << qualified_name << ": the schema's argument '"
                              << kinds[next_input].name << "' is not a parameter of the function";
  }
  return plan;
}

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

std::vector<Output> OutputsFromMaps(const OutputMaps& maps) {
  std::vector<Output> outputs;
  if (!maps.has_value()) return outputs;
  for (const ffi::Map<ffi::String, ffi::Any>& map : *maps) {
    Output output;
    for (const auto& [key, value] : map) {
      if (key == "name") {
        output.name = std::string(value.cast<ffi::String>());
      } else if (key == "like") {
        output.like = std::string(value.cast<ffi::String>());
      } else if (key == "dims") {
        for (const ffi::Any& dim : value.cast<ffi::Array<ffi::Any>>()) {
          output.dims.push_back(dim.cast<int64_t>());
        }
      } else if (key == "dtype") {
        output.dtype = std::string(value.cast<ffi::String>());
      } else {
        TVM_FFI_THROW(ValueError) << "kwcall.torch.RegisterOp: an output rule has the key '" << key
                                  << "'; its keys are name, like, dims and dtype";
      }
    }
    outputs.push_back(std::move(output));
  }
  return outputs;
}

}  // namespace torch
}  // namespace kwcall
