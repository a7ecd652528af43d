// The boxed kernels: the dispatcher's stack of StableIValues in, the function called with
// every argument in its order, the outputs (outputs.h) out. No Python, no GIL, and no heap
// allocation of kwcall's own but for a str that holds a NUL byte.
//
// The kernel owns the stack's inputs (the shim's convention): tensors are new handles, strings
// string handles and optional values boxes, each freed when the call is over, whatever its
// outcome. Errors leave as std::runtime_error, what torch's own checks throw through the
// dispatcher (Python sees RuntimeError).
#include "torch/kernel.h"

#include "torch/kernel_support.h"
#include "torch/outputs.h"

#include <dlpack/dlpack.h>
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/string.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kwcall {
namespace torch {
namespace {

std::array<std::atomic<const OperatorState*>, kMaxOperators> slots{};
std::mutex slots_mutex;

// Frees the stack's inputs when the call is over.
class InputsOwner {
 public:
  InputsOwner(const OperatorState& op, const Shim& shim, StableIValue* stack)
      : op_(op), shim_(shim), stack_(stack) {}
  ~InputsOwner() {
    for (size_t i = 0; i < op_.kinds().size(); ++i) Free(op_.kinds()[i], stack_[i]);
  }

 private:
  void Free(const ArgKind& kind, StableIValue value) const {
    if (kind.optional) {
      auto* box = reinterpret_cast<StableIValue*>(value);
      if (box == nullptr) return;
      FreeValue(kind.type, *box);
      if (shim_.delete_stable_ivalue != nullptr)
        shim_.delete_stable_ivalue(box);
      else
        delete box;  // before 2.13 the box is a plain `new StableIValue` of libtorch's
      return;
    }
    FreeValue(kind.type, value);
  }
  void FreeValue(ArgType type, StableIValue value) const {
    if (type == ArgType::kTensor) shim_.delete_tensor_object(reinterpret_cast<TensorHandle>(value));
    if (type == ArgType::kStr) shim_.delete_string(reinterpret_cast<StringHandle>(value));
  }

  const OperatorState& op_;
  const Shim& shim_;
  StableIValue* stack_;
};

bool IsEmpty(const DLTensor& view) {
  for (int32_t d = 0; d < view.ndim; ++d) {
    if (view.shape[d] == 0) return true;
  }
  return false;
}

// A tensor's non-owning DLPack view.
void ViewTensor(const OperatorState& op, const std::string& name, const Shim& shim,
                TensorHandle tensor, DLTensor* view) {
  int32_t device_type = 0, device_index = 0, dtype = 0;
  int64_t ndim = 0;
  Check(op, shim.get_data_ptr(tensor, &view->data), "aoti_torch_get_data_ptr");
  Check(op, shim.get_dim(tensor, &ndim), "aoti_torch_get_dim");
  Check(op, shim.get_sizes(tensor, &view->shape), "aoti_torch_get_sizes");
  Check(op, shim.get_strides(tensor, &view->strides), "aoti_torch_get_strides");
  Check(op, shim.get_dtype(tensor, &dtype), "aoti_torch_get_dtype");
  Check(op, shim.get_device_type(tensor, &device_type), "aoti_torch_get_device_type");
  const Codes& codes = TorchCodes();
  if (device_type == codes.cpu) {
    view->device = {kDLCPU, 0};
  } else if (device_type == codes.cuda) {
    Check(op, shim.get_device_index(tensor, &device_index), "aoti_torch_get_device_index");
    view->device = {kDLCUDA, device_index};
  } else {
    Fail(op, "argument '" + name +
                 "' is on a device kwcall's kernel cannot pass to a "
                 "tvm-ffi function (torch device type " +
                 std::to_string(device_type) + "); CPU and CUDA tensors are passed");
  }
  view->ndim = static_cast<int32_t>(ndim);
  view->byte_offset = 0;  // the data pointer already includes the storage offset
  if (view->data == nullptr && !IsEmpty(*view)) {
    Fail(op, "argument '" + name +
                 "' has no data (a fake or meta tensor): a kwcall operator's device kernel "
                 "runs on tensors with storage; FakeTensorMode and torch.compile trace it "
                 "through its Meta kernel");
  }
  for (size_t i = 0; i < kNumDtypes; ++i) {
    if (codes.dtypes[i] == dtype) {
      view->dtype = kDtypes[i].dlpack;
      return;
    }
  }
  Fail(op, "argument '" + name +
               "' has a dtype kwcall's kernel does not pass (torch "
               "dtype code " +
               std::to_string(dtype) + ")");
}

// One argument as the function gets it; tensors are viewed into `view`, strings that hold a
// NUL byte made string objects in `strings`.
ffi::AnyView Unbox(const OperatorState& op, const ArgKind& kind, const Shim& shim,
                   StableIValue value, DLTensor* view, std::vector<ffi::String>* strings) {
  switch (kind.type) {
    case ArgType::kTensor:
      ViewTensor(op, kind.name, shim, reinterpret_cast<TensorHandle>(value), view);
      return ffi::AnyView(view);
    case ArgType::kInt:
      return ffi::AnyView(static_cast<int64_t>(value));
    case ArgType::kFloat: {
      double number;
      std::memcpy(&number, &value, sizeof(number));
      return ffi::AnyView(number);
    }
    case ArgType::kBool:
      return ffi::AnyView((value & 0xff) != 0);
    case ArgType::kStr: {
      const auto handle = reinterpret_cast<StringHandle>(value);
      const char* text = nullptr;
      size_t length = 0;
      Check(op, shim.string_c_str(handle, &text), "torch_string_c_str");
      Check(op, shim.string_length(handle, &length), "torch_string_length");
      // torch's own C string, unless a NUL byte in it would cut it short: then a copy that
      // keeps every byte (the only allocation, for such strings only).
      if (std::memchr(text, '\0', length) == nullptr) return ffi::AnyView(text);
      strings->emplace_back(text, length);
      return ffi::AnyView(strings->back());
    }
  }
  return ffi::AnyView();
}

void CallFunction(const OperatorState& op, const ffi::AnyView* args, int32_t num_args) {
  ffi::Any result;
  try {
    op.function().CallPacked(args, num_args, &result);
  } catch (const ffi::Error& error) {
    Fail(op, error.kind() + ": " + error.message());
  }
}

// The new tensors a call returns, owned until they are handed to the stack.
class NewOutputs {
 public:
  explicit NewOutputs(const Shim& shim) : shim_(shim) {}
  ~NewOutputs() {
    for (size_t i = 0; i < count; ++i) shim_.delete_tensor_object(handles[i]);
  }
  NewOutputs(const NewOutputs&) = delete;
  NewOutputs& operator=(const NewOutputs&) = delete;
  void HandTo(StableIValue* stack) {
    for (size_t i = 0; i < count; ++i) stack[i] = reinterpret_cast<StableIValue>(handles[i]);
    count = 0;
  }

  std::array<TensorHandle, kMaxOperatorArgs> handles;
  size_t count = 0;

 private:
  const Shim& shim_;
};

// Calls op's function with the stack's inputs and the new outputs, in the function's order.
void CallWithStack(const OperatorState& op, const Shim& shim, StableIValue* stack,
                   const NewOutputs& outputs) {
  const std::vector<ArgKind>& kinds = op.kinds();
  const std::vector<int32_t>& sources = op.plan().sources;
  ArgumentSlots args;
  std::array<DLTensor, kMaxOperatorArgs> views;
  std::vector<ffi::String> strings;  // empty, unallocated, unless a str holds a NUL byte
  int32_t cuda_device = -1;
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i] < 0) {
      const OutputPlan& out = op.plan().outputs[~sources[i]];
      ViewTensor(op, out.name, shim, outputs.handles[~sources[i]], &views[i]);
      args.items[i] = ffi::AnyView(&views[i]);
      continue;
    }
    const ArgKind& kind = kinds[sources[i]];
    StableIValue value = stack[sources[i]];
    if (kind.optional) {
      auto* box = reinterpret_cast<StableIValue*>(value);
      if (box == nullptr) {
        args.items[i] = ffi::AnyView(nullptr);
        continue;
      }
      value = *box;
    }
    args.items[i] = Unbox(op, kind, shim, value, &views[i], &strings);
    if (kind.type == ArgType::kTensor && cuda_device < 0 &&
        views[i].device.device_type == kDLCUDA) {
      cuda_device = views[i].device.device_id;
    }
  }
  int32_t count = static_cast<int32_t>(sources.size());
  if (cuda_device < 0) return CallFunction(op, args.items, count);
  CudaContext context(op, shim, cuda_device);
  CallFunction(op, args.items, count);
}

void RunKernel(const OperatorState& op, StableIValue* stack, uint64_t num_args,
               uint64_t num_outputs, bool meta) {
  const std::vector<ArgKind>& kinds = op.kinds();
  const std::vector<OutputPlan>& planned = op.plan().outputs;
  if (num_args != kinds.size() || num_outputs != planned.size()) {
    // before taking the stack: its values' kinds are unknown
    Fail(op, "the dispatcher passed " + std::to_string(num_args) + " arguments for " +
                 std::to_string(num_outputs) + " results to a kernel registered for " +
                 std::to_string(kinds.size()) + " and " + std::to_string(planned.size()));
  }
  const Shim& shim = RequireShim();
  NewOutputs outputs(shim);
  {
    InputsOwner owner(op, shim, stack);
    for (const OutputPlan& out : planned) {
      auto like = reinterpret_cast<TensorHandle>(stack[out.like]);
      outputs.handles[outputs.count++] = NewOutput(op, shim, out, like, meta);
    }
    // The Meta kernel does no work: the outputs are the mutated inputs and the new tensors.
    if (!meta) CallWithStack(op, shim, stack, outputs);
  }
  outputs.HandTo(stack);  // after the inputs are freed: the results take their places
}

template <int Slot, bool Meta>
void Trampoline(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  const OperatorState* op = slots[Slot].load(std::memory_order_acquire);
  if (op == nullptr) throw std::runtime_error("kwcall.torch: the operator was unregistered");
  RunKernel(*op, stack, num_args, num_outputs, Meta);
}

template <bool Meta, int... Slot>
constexpr std::array<BoxedKernel, kMaxOperators> MakeTable(std::integer_sequence<int, Slot...>) {
  return {&Trampoline<Slot, Meta>...};
}

constexpr auto kDeviceKernels = MakeTable<false>(std::make_integer_sequence<int, kMaxOperators>());
constexpr auto kMetaKernels = MakeTable<true>(std::make_integer_sequence<int, kMaxOperators>());

}  // namespace

void AcquireSlot(OperatorState* op) {
  std::lock_guard<std::mutex> lock(slots_mutex);
  for (int i = 0; i < kMaxOperators; ++i) {
    if (slots[i].load(std::memory_order_relaxed) == nullptr) {
      slots[i].store(op, std::memory_order_release);
      op->slot = i;
      return;
    }
  }
  TVM_FFI_THROW(RuntimeError) << "kwcall.torch: " << kMaxOperators
                              << " operators are registered already (the most at once)";
}

void ReleaseSlot(OperatorState* op) {
  if (op->slot < 0) return;
  std::lock_guard<std::mutex> lock(slots_mutex);
  slots[op->slot].store(nullptr, std::memory_order_release);
  op->slot = -1;
}

BoxedKernel DeviceKernel(const OperatorState& op) { return kDeviceKernels[op.slot]; }
BoxedKernel MetaKernel(const OperatorState& op) { return kMetaKernels[op.slot]; }

}  // namespace torch
}  // namespace kwcall
