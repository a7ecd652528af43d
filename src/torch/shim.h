// kwcall's own declarations of the torch stable C shim functions it calls, resolved from the
// libtorch loaded in the process (never from torch's headers: building kwcall needs no torch).
// The types and signatures follow torch/csrc/inductor/aoti_torch/c/shim.h and
// torch/csrc/stable/c/shim.h of torch 2.10-2.13, a C ABI torch keeps additive and stable.
#ifndef KWCALL_SRC_TORCH_SHIM_H_
#define KWCALL_SRC_TORCH_SHIM_H_

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace kwcall {
namespace torch {

// The shim's C types: every handle is an opaque pointer, every call returns an error code.
using TorchError = int32_t;
inline constexpr TorchError kTorchSuccess = 0;
using StableIValue = uint64_t;
using TensorHandle = void*;   // AtenTensorHandle
using LibraryHandle = void*;  // TorchLibraryHandle
using StringHandle = void*;   // StringHandle (2.10)
using DeviceGuardHandle = void*;
using BoxedKernel = void (*)(StableIValue* stack, uint64_t num_args, uint64_t num_outputs);

// The extension ABI version kwcall's kernels follow, as torch encodes it (major << 56 |
// minor << 48): 2.10's, the release that added torch_library_impl and string values. torch
// converts the stack for a kernel by the version it was registered with.
inline constexpr uint64_t kExtensionVersion = (uint64_t{2} << 56) | (uint64_t{10} << 48);
inline constexpr const char* kMinimumTorch = "2.10";

// The dtypes kwcall's kernel passes: the shim function that gives torch's code for each, and
// the DLPack type a tensor of it is viewed as, the one torch's own DLPack export gives it
// (at::toDLPack; tests/python/test_torch_eager.py compares the two). Every dtype both can say;
// one whose function the loaded torch lacks is refused at the call, naming its code.
struct TorchDtype {
  const char* code_function;
  DLDataType dlpack;
};
inline constexpr TorchDtype kDtypes[] = {
    {"aoti_torch_dtype_float32", {kDLFloat, 32, 1}},
    {"aoti_torch_dtype_float16", {kDLFloat, 16, 1}},
    {"aoti_torch_dtype_bfloat16", {kDLBfloat, 16, 1}},
    {"aoti_torch_dtype_float64", {kDLFloat, 64, 1}},
    {"aoti_torch_dtype_int32", {kDLInt, 32, 1}},
    {"aoti_torch_dtype_int64", {kDLInt, 64, 1}},
    {"aoti_torch_dtype_int16", {kDLInt, 16, 1}},
    {"aoti_torch_dtype_int8", {kDLInt, 8, 1}},
    {"aoti_torch_dtype_uint8", {kDLUInt, 8, 1}},
    {"aoti_torch_dtype_uint16", {kDLUInt, 16, 1}},
    {"aoti_torch_dtype_uint32", {kDLUInt, 32, 1}},
    {"aoti_torch_dtype_uint64", {kDLUInt, 64, 1}},
    {"aoti_torch_dtype_bool", {kDLBool, 8, 1}},
    {"aoti_torch_dtype_complex32", {kDLComplex, 32, 1}},
    {"aoti_torch_dtype_complex64", {kDLComplex, 64, 1}},
    {"aoti_torch_dtype_complex128", {kDLComplex, 128, 1}},
    {"aoti_torch_dtype_float8_e4m3fn", {kDLFloat8_e4m3fn, 8, 1}},
    {"aoti_torch_dtype_float8_e5m2", {kDLFloat8_e5m2, 8, 1}},
    {"aoti_torch_dtype_float8_e4m3fnuz", {kDLFloat8_e4m3fnuz, 8, 1}},
    {"aoti_torch_dtype_float8_e5m2fnuz", {kDLFloat8_e5m2fnuz, 8, 1}},
    {"aoti_torch_dtype_float8_e8m0fnu", {kDLFloat8_e8m0fnu, 8, 1}},
    {"aoti_torch_dtype_float4_e2m1fn_x2", {kDLFloat4_e2m1fn, 4, 2}},  // two values a byte
};
inline constexpr size_t kNumDtypes = sizeof(kDtypes) / sizeof(kDtypes[0]);

// The shim functions every operator needs, resolved once, all at the first registration.
struct Shim {
  TorchError (*library_init_def)(const char* ns, const char* file, uint32_t line,
                                 LibraryHandle* ret);
  TorchError (*library_init_fragment)(const char* ns, const char* file, uint32_t line,
                                      LibraryHandle* ret);
  TorchError (*library_init_impl)(const char* ns, const char* dispatch_key, const char* file,
                                  uint32_t line, LibraryHandle* ret);
  TorchError (*library_def)(LibraryHandle self, const char* schema);
  TorchError (*library_impl)(LibraryHandle self, const char* name, BoxedKernel fn,
                             uint64_t extension_build_version);
  TorchError (*delete_library_object)(LibraryHandle self);

  TorchError (*delete_tensor_object)(TensorHandle tensor);
  TorchError (*get_data_ptr)(TensorHandle tensor, void** ret);
  TorchError (*get_dim)(TensorHandle tensor, int64_t* ret);
  TorchError (*get_sizes)(TensorHandle tensor, int64_t** ret);
  TorchError (*get_strides)(TensorHandle tensor, int64_t** ret);
  TorchError (*get_dtype)(TensorHandle tensor, int32_t* ret);
  TorchError (*get_device_type)(TensorHandle tensor, int32_t* ret);
  TorchError (*get_device_index)(TensorHandle tensor, int32_t* ret);
  // The new tensors an operator returns (src/torch/outputs.cc).
  TorchError (*empty_strided)(int64_t ndim, const int64_t* sizes, const int64_t* strides,
                              int32_t dtype, int32_t device_type, int32_t device_index,
                              TensorHandle* ret);
  TorchError (*new_tensor_handle)(TensorHandle tensor, TensorHandle* ret);
  TorchError (*call_dispatcher)(const char* op, const char* overload, StableIValue* stack,
                                uint64_t extension_build_version);
  int32_t (*memory_format_contiguous)();

  TorchError (*string_length)(StringHandle handle, size_t* ret);
  TorchError (*string_c_str)(StringHandle handle, const char** ret);
  TorchError (*delete_string)(StringHandle handle);

  TorchError (*create_device_guard)(int32_t device_index, DeviceGuardHandle* ret);
  TorchError (*delete_device_guard)(DeviceGuardHandle guard);
  TorchError (*get_current_device_index)(int32_t* ret);

  // Codes of torch's device types and of kDtypes' dtypes (in that order), asked of torch once;
  // a dtype function the loaded torch lacks is null (that dtype is not passed).
  int32_t (*device_type_cpu)();
  int32_t (*device_type_cuda)();
  int32_t (*device_type_meta)();
  int32_t (*dtype_code[kNumDtypes])();

  // Optional: 2.13 frees optional values' boxes itself and says why a call failed; kwcall
  // uses `delete` and a message of its own without them.
  TorchError (*delete_stable_ivalue)(StableIValue* value);
  const char* (*exception_what)();
};

// The resolved shim. Throws ffi::Error (RuntimeError) naming each missing function and the
// torch release that has them when torch is not loaded or too old.
const Shim& RequireShim();

// aoti_torch_get_current_cuda_stream, resolved at the first CUDA call (it lives in
// libtorch_cuda, which a CPU-only torch lacks). Throws ffi::Error when torch has no CUDA.
using CurrentCudaStream = TorchError (*)(int32_t device_index, void** ret_stream);
CurrentCudaStream RequireCudaStreamFunction();

// Throws std::runtime_error (what torch's own checks throw across the dispatcher) naming
// `what` when a shim call failed, with torch's reason when it says one.
void CheckShim(TorchError error, const char* what);

}  // namespace torch
}  // namespace kwcall

#endif  // KWCALL_SRC_TORCH_SHIM_H_
