// The boxed kernels: the dispatcher's stack of StableIValues in, the function called with
// every argument in schema order, nothing out. No Python, no GIL, and no allocation but for a
// str that holds a NUL byte.
//
// The kernel owns the stack's inputs (the shim's convention): tensors are new handles, strings
// string handles and optional values boxes, each freed when the call is over, whatever its
// outcome. Errors leave as std::runtime_error, what torch's own checks throw through the
// dispatcher (Python sees RuntimeError).
#include "torch/kernel.h"

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

// torch's codes of the device types and of kDtypes' dtypes, asked of torch once; a dtype the
// loaded torch has no function for gets a code no tensor has (torch's codes are >= 0).
struct Codes {
  int32_t cpu, cuda;
  std::array<int32_t, kNumDtypes> dtypes;
};
constexpr int32_t kNoDtype = -1;

const Codes& TorchCodes() {
  static const Codes codes = [] {
    const Shim& s = RequireShim();
    Codes c{s.device_type_cpu(), s.device_type_cuda(), {}};
    for (size_t i = 0; i < kNumDtypes; ++i) {
      c.dtypes[i] = s.dtype_code[i] != nullptr ? s.dtype_code[i]() : kNoDtype;
    }
    return c;
  }();
  return codes;
}

[[noreturn]] void Fail(const OperatorState& op, const std::string& what) {
  throw std::runtime_error(op.qualified_name() + ": " + what);
}

void Check(const OperatorState& op, TorchError error, const char* what) {
  if (error != kTorchSuccess) Fail(op, std::string(what) + " failed");
}

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
void ViewTensor(const OperatorState& op, const ArgKind& kind, const Shim& shim, TensorHandle tensor,
                DLTensor* view) {
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
    Fail(op, "argument '" + kind.name +
                 "' is on a device kwcall's kernel cannot pass to a "
                 "tvm-ffi function (torch device type " +
                 std::to_string(device_type) + "); CPU and CUDA tensors are passed");
  }
  view->ndim = static_cast<int32_t>(ndim);
  view->byte_offset = 0;  // the data pointer already includes the storage offset
  if (view->data == nullptr && !IsEmpty(*view)) {
    Fail(op, "argument '" + kind.name +
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
  Fail(op, "argument '" + kind.name +
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
      ViewTensor(op, kind, shim, reinterpret_cast<TensorHandle>(value), view);
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

// While alive: `device` is the current CUDA device and its current torch stream is tvm-ffi's
// environment stream; both are put back afterwards.
class CudaContext {
 public:
  CudaContext(const OperatorState& op, const Shim& shim, int32_t device)
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
  ~CudaContext() {
    TVMFFIEnvSetStream(kDLCUDA, device_, previous_, nullptr);
    Release();
  }
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

 private:
  void Release() {
    if (guard_ != nullptr) shim_.delete_device_guard(guard_);
    guard_ = nullptr;
  }
  const Shim& shim_;
  int32_t device_;
  DeviceGuardHandle guard_ = nullptr;
  TVMFFIStreamHandle previous_ = nullptr;
};

// The function's arguments, left uninitialized: each call writes the ones it passes (an
// std::array of AnyView would clear all kMaxOperatorArgs of them on every call).
union ArgumentSlots {
  ArgumentSlots() {}
  ~ArgumentSlots() {}
  ffi::AnyView items[kMaxOperatorArgs];
};

void CallFunction(const OperatorState& op, const ffi::AnyView* args, int32_t num_args) {
  ffi::Any result;
  try {
    op.function().CallPacked(args, num_args, &result);
  } catch (const ffi::Error& error) {
    Fail(op, error.kind() + ": " + error.message());
  }
}

void RunKernel(const OperatorState& op, StableIValue* stack, uint64_t num_args, bool meta) {
  const std::vector<ArgKind>& kinds = op.kinds();
  if (num_args != kinds.size()) {  // before taking the stack: its values' kinds are unknown
    Fail(op, "the dispatcher passed " + std::to_string(num_args) +
                 " arguments to a kernel registered for " + std::to_string(kinds.size()));
  }
  const Shim& shim = RequireShim();
  InputsOwner owner(op, shim, stack);
  if (meta) return;  // no work: the outputs are the mutated inputs, as given
  ArgumentSlots args;
  std::array<DLTensor, kMaxOperatorArgs> views;
  std::vector<ffi::String> strings;  // empty, unallocated, unless a str holds a NUL byte
  int32_t cuda_device = -1;
  for (size_t i = 0; i < kinds.size(); ++i) {
    StableIValue value = stack[i];
    if (kinds[i].optional) {
      auto* box = reinterpret_cast<StableIValue*>(value);
      if (box == nullptr) {
        args.items[i] = ffi::AnyView(nullptr);
        continue;
      }
      value = *box;
    }
    args.items[i] = Unbox(op, kinds[i], shim, value, &views[i], &strings);
    if (kinds[i].type == ArgType::kTensor && cuda_device < 0 &&
        views[i].device.device_type == kDLCUDA) {
      cuda_device = views[i].device.device_id;
    }
  }
  int32_t count = static_cast<int32_t>(kinds.size());
  if (cuda_device < 0) return CallFunction(op, args.items, count);
  CudaContext context(op, shim, cuda_device);
  CallFunction(op, args.items, count);
}

template <int Slot, bool Meta>
void Trampoline(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  const OperatorState* op = slots[Slot].load(std::memory_order_acquire);
  if (op == nullptr) throw std::runtime_error("kwcall.torch: the operator was unregistered");
  RunKernel(*op, stack, num_args, Meta);
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
