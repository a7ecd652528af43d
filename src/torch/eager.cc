// The eager call's target: what kwcall.torch's eager call object (python/kwcall/torch/_eager.py)
// calls from Python in plain eager mode instead of going through torch's dispatcher. It does
// what the operator's kernel does (kernel.cc), from tvm-ffi values instead of a dispatcher
// stack: each output shaped by the same rules (outputs.cc), the function called with the
// inputs and outputs in its order, under the same CUDA device and stream (CudaContext). The
// outputs come from tvm-ffi's environment allocator, which tvm-ffi's Python call sets to
// torch's own (the DLPack exchange API of the torch tensors passed), so they are torch tensors.
#include <dlpack/dlpack.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "torch/kernel.h"
#include "torch/kernel_support.h"
#include "torch/operator_state.h"
#include "torch/outputs.h"

namespace kwcall {
namespace torch {
namespace {

ffi::Tensor AllocateOutput(const OperatorState& op, const OutputPlan& out, const DLTensor& like) {
  OutputShape shape;
  ShapeOutput(op, out, like.ndim, like.shape, &shape);
  DLDataType dtype = out.dtype >= 0 ? kDtypes[out.dtype].dlpack : like.dtype;
  return ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc,
                                   ffi::ShapeView(shape.sizes, static_cast<size_t>(shape.ndim)),
                                   dtype, like.device);
}

// The device types an eager function serves: the operator's kernels of its function.
struct Served {
  bool cpu = false, cuda = false;
};

// The device torch would dispatch the call to (CUDA when a tensor is on CUDA, else CPU), and
// the first CUDA tensor's device index (or -1).
int32_t CudaDevice(const OperatorState& op, ffi::PackedArgs args) {
  for (size_t i = 0; i < op.kinds().size(); ++i) {
    if (op.kinds()[i].type != ArgType::kTensor) continue;
    if (auto tensor = args[i].try_cast<DLTensor*>()) {
      if ((*tensor)->device.device_type == kDLCUDA) return (*tensor)->device.device_id;
    }
  }
  return -1;
}

void CallEager(const OperatorState& op, Served served, ffi::PackedArgs args, ffi::Any* result) {
  const std::vector<ArgKind>& kinds = op.kinds();
  const CallPlan& plan = op.plan();
  if (static_cast<size_t>(args.size()) != kinds.size()) {
    TVM_FFI_THROW(TypeError) << op.qualified_name() << "'s eager call takes " << kinds.size()
                             << " arguments, got " << args.size();
  }
  const int32_t cuda_device = CudaDevice(op, args);
  if (!(cuda_device < 0 ? served.cpu : served.cuda)) {
    // Another function's kernel, or none: the caller goes through torch's dispatcher.
    TVM_FFI_THROW(RuntimeError) << op.qualified_name() << ": this function serves no "
                                << (cuda_device < 0 ? "CPU" : "CUDA") << " call";
  }
  std::vector<ffi::Tensor> outputs;
  outputs.reserve(plan.outputs.size());
  for (const OutputPlan& out : plan.outputs) {
    outputs.push_back(AllocateOutput(op, out, *args[out.like].cast<DLTensor*>()));
  }
  ArgumentSlots call_args;
  for (size_t i = 0; i < plan.sources.size(); ++i) {
    int32_t source = plan.sources[i];
    call_args.items[i] = source < 0 ? ffi::AnyView(outputs[~source]) : args[source];
  }
  ffi::Any ignored;
  const int32_t count = static_cast<int32_t>(plan.sources.size());
  if (cuda_device < 0) {
    op.function().CallPacked(call_args.items, count, &ignored);
  } else {
    CudaContext context(op, RequireShim(), cuda_device);
    op.function().CallPacked(call_args.items, count, &ignored);
  }
  if (outputs.size() == 1) {
    *result = std::move(outputs[0]);
  } else if (!outputs.empty()) {
    *result = ffi::Array<ffi::Tensor>(outputs.begin(), outputs.end());
  }
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  // kwcall.torch.EagerFunction(function, "ns::name", schema, outputs or None, device_types
  // or None): the eager call's target for the operator RegisterOp makes of the same values;
  // its parameters are the schema's arguments, in order.
  refl::GlobalDef().def(
      "kwcall.torch.EagerFunction",
      [](ffi::Function function, ffi::String qualified_name, ffi::String schema, OutputMaps outputs,
         ffi::Optional<ffi::Array<ffi::String>> device_types) {
        std::unique_ptr<OperatorState> op =
            MakeOperatorState(std::move(function), std::string(qualified_name), std::string(schema),
                              OutputsFromMaps(outputs));
        Served served;
        std::vector<std::string> keys = DefaultDeviceTypes();
        if (device_types.has_value()) {
          keys.clear();
          for (const ffi::String& key : *device_types) keys.emplace_back(key);
        }
        for (const std::string& key : keys) {
          served.cpu = served.cpu || key == "CPU";
          served.cuda = served.cuda || key == "CUDA";
        }
        return ffi::Function::FromPacked(
            [op = std::move(op), served](ffi::PackedArgs args, ffi::Any* result) {
              CallEager(*op, served, args, result);
            });
      });
}

}  // namespace torch
}  // namespace kwcall
