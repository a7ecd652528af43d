/*!
 * \file kwcall/export.h
 * \brief Ship a function's signature inside the shared library that exports the function.
 *
 * A C++ tvm-ffi library that exports `add` adds one line beside it:
 *
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, Add);
 *   KWCALL_EXPORT_SIGNATURE(add, R"({"version": 1, "name": "add", "params": [...]})");
 *
 * The JSON is what kwcall.Signature.to_json() and kwcall::Signature::ToJson() write. It is
 * exported as the tvm-ffi function `__kwcall_signature_add` (symbol
 * `__tvm_ffi___kwcall_signature_add`), which kwcall::LoadFunction and kwcall.load_function read.
 * The exporting library needs only tvm-ffi's C API, not libkwcall; the JSON is checked when it
 * is loaded.
 */
#ifndef KWCALL_EXPORT_H_
#define KWCALL_EXPORT_H_

#include <tvm/ffi/c_api.h>

/*!
 * \brief The prefix of the function that carries the signature of an exported function.
 *
 * The one place it is written: kwcall's Python extension compiles it in
 * (`kwcall._kwcall.SIGNATURE_FUNCTION_PREFIX`, so loading needs no header at run time), and the
 * symbol below (`__tvm_ffi_` + prefix + name) is checked against it by
 * tests/python/test_export_header.py.
 */
#define KWCALL_SIGNATURE_FUNCTION_PREFIX "__kwcall_signature_"

#ifdef __cplusplus
#define KWCALL_EXPORT_EXTERN_C extern "C"
#else
#define KWCALL_EXPORT_EXTERN_C
#endif

/*!
 * \brief Export `SignatureJson` (a string literal) as the signature of the exported function
 *        `ExportName`.
 *
 * Valid C and C++ with C linkage either way: kwcall.cute.export_to_c compiles it as C.
 */
#define KWCALL_EXPORT_SIGNATURE(ExportName, SignatureJson)                                 \
  KWCALL_EXPORT_EXTERN_C TVM_FFI_DLL_EXPORT int __tvm_ffi___kwcall_signature_##ExportName( \
      void* kwcall_self, const TVMFFIAny* kwcall_args, int32_t kwcall_num_args,            \
      TVMFFIAny* kwcall_result) {                                                          \
    static const char kJson[] = SignatureJson;                                             \
    TVMFFIByteArray bytes = {kJson, sizeof(kJson) - 1};                                    \
    (void)kwcall_self;                                                                     \
    (void)kwcall_args;                                                                     \
    (void)kwcall_num_args;                                                                 \
    return TVMFFIStringFromByteArray(&bytes, kwcall_result);                               \
  }

#endif  // KWCALL_EXPORT_H_
