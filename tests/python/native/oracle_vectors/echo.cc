// Exports `echo`, which returns its packed arguments as an array: kwcall binds, echo shows how.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>

namespace ffi = tvm::ffi;

extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_echo(void*, const TVMFFIAny* args, int32_t num_args,
                                                 TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  ffi::Array<ffi::Any> out;
  for (int32_t i = 0; i < num_args; ++i) {
    out.push_back(ffi::Any(reinterpret_cast<const ffi::AnyView*>(args)[i]));
  }
  *reinterpret_cast<ffi::Any*>(result) = out;
  TVM_FFI_SAFE_CALL_END();
}
