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
 *
 * A function meant to become a torch operator carries its schema too, in torch's own syntax:
 *
 *   KWCALL_EXPORT_TORCH_OP(axpy_out,
 *       "mylib::axpy_out(Tensor x, Tensor y, Tensor(a!) out, *, float alpha=1.0) -> ()");
 *
 * exported as `__kwcall_torch_op_axpy_out`, which kwcall::ExportedTorchOp reads and
 * kwcall::torch::RegisterExported registers with.
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

/*!
 * \brief The prefix of the function that carries the torch operator schema of an exported
 *        function (KWCALL_EXPORT_TORCH_OP below; kwcall::ExportedTorchOp looks it up).
 */
#define KWCALL_TORCH_OP_FUNCTION_PREFIX "__kwcall_torch_op_"

/*!
 * \brief The prefix of the function that describes an exported dispatch table
 *        (KWCALL_EXPORT_DISPATCH_TABLE below; kwcall::LoadDispatchTable looks it up).
 */
#define KWCALL_DISPATCH_TABLE_FUNCTION_PREFIX "__kwcall_dispatch_table_"

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
#define KWCALL_EXPORT_SIGNATURE(ExportName, SignatureJson) \
  KWCALL_EXPORT_TEXT_FUNCTION(__kwcall_signature_##ExportName, SignatureJson)

/*!
 * \brief Export `Schema` (a string literal: torch's full schema, `"ns::name(arguments) ->
 *        returns"`) as the torch operator of the exported function `ExportName`.
 *
 * The schema's arguments are the function's parameters in declaration order (torch calls the
 * kernel with every one of them); kwcall.torch.schema_of(f) writes the part after the name.
 */
#define KWCALL_EXPORT_TORCH_OP(ExportName, Schema) \
  KWCALL_EXPORT_TEXT_FUNCTION(__kwcall_torch_op_##ExportName, Schema)

/*!
 * \brief Export `Description` (a string literal, JSON) as the dispatch table `TableName`: its
 *        signature, its key terms and, for each key, the exported function that is its entry.
 *
 *   KWCALL_EXPORT_DISPATCH_TABLE(scale, R"json({"version": 1, "name": "scale",
 *       "signature": {"version": 1, "name": "scale", "params": [...]},
 *       "key": ["dtype(x)"],
 *       "entries": [{"key": ["float32"], "function": "scale_f32"},
 *                   {"key": ["float64"], "function": "scale_f64"}]})json");
 *
 * kwcall::LoadDispatchTable(mod, "scale") and kwcall.load_dispatch_table read it (docs/dispatch.md
 * has the format; the raw string's delimiter, `json`, lets the terms' parentheses stand before a
 * quote); Python's DispatchTable.save writes it.
 */
#define KWCALL_EXPORT_DISPATCH_TABLE(TableName, Description) \
  KWCALL_EXPORT_TEXT_FUNCTION(__kwcall_dispatch_table_##TableName, Description)

/*!
 * \brief A tvm-ffi function `FunctionName` (symbol `__tvm_ffi_` + FunctionName) that takes no
 *        arguments and returns the string literal `Text`: what the companions above are.
 */
#define KWCALL_EXPORT_TEXT_FUNCTION(FunctionName, Text)                         \
  KWCALL_EXPORT_EXTERN_C TVM_FFI_DLL_EXPORT int __tvm_ffi_##FunctionName(       \
      void* kwcall_self, const TVMFFIAny* kwcall_args, int32_t kwcall_num_args, \
      TVMFFIAny* kwcall_result) {                                               \
    static const char kText[] = Text;                                           \
    TVMFFIByteArray bytes = {kText, sizeof(kText) - 1};                         \
    (void)kwcall_self;                                                          \
    (void)kwcall_args;                                                          \
    (void)kwcall_num_args;                                                      \
    return TVMFFIStringFromByteArray(&bytes, kwcall_result);                    \
  }

#endif  // KWCALL_EXPORT_H_
