// Output rules resolved at registration (output_plan.h).
#include "torch/output_plan.h"

#include <kwcall/function.h>
#include <kwcall/signature.h>
#include <tvm/ffi/error.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "torch/shim.h"

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
