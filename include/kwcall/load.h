/*!
 * \file kwcall/load.h
 * \brief kwcall functions from exported code: shared libraries loaded as tvm-ffi modules, and
 *        statically linked `__tvm_ffi_<name>` symbols (CuTeDSL's export_to_c, say).
 *
 *   ffi::Module mod = ffi::Module::LoadFromFile("libkernels.so");
 *   ffi::Function add = kwcall::LoadFunction(mod, "add");   // signature exported beside it
 *   add(x, y, 1.0);                                        // native: as fast as the symbol
 *   kwcall::Call(add, x, y, kwcall::Kw("alpha", 2.0));      // keywords, bound in C++
 */
#ifndef KWCALL_LOAD_H_
#define KWCALL_LOAD_H_

#include <kwcall/signature.h>
#include <kwcall/visibility.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include <optional>
#include <string>

namespace kwcall {

/*!
 * \brief The signature `mod` exports for its function `name` (KWCALL_EXPORT_SIGNATURE, or
 *        kwcall.cute.export_to_c), or none.
 * \throws ffi::Error when the exported signature is not a valid signature.
 */
KWCALL_API std::optional<Signature> ExportedSignature(const ffi::Module& mod,
                                                      const ffi::String& name);

/*!
 * \brief `mod`'s function `name` bound to the signature the module exports beside it.
 * \throws ffi::Error of kind AttributeError naming the function when the module has no such
 *         function or exports no signature for it.
 */
KWCALL_API ffi::Function LoadFunction(const ffi::Module& mod, const ffi::String& name);

/*! \brief `mod`'s function `name` bound to `signature` (for modules that export none). */
KWCALL_API ffi::Function LoadFunction(const ffi::Module& mod, const ffi::String& name,
                                      Signature signature);

/*!
 * \brief A statically linked exported symbol (`__tvm_ffi_<name>`, as TVM_FFI_DLL_EXPORT_TYPED_FUNC
 *        and CuTeDSL's export_to_c write it) bound to `signature`.
 */
KWCALL_API ffi::Function FromExternC(TVMFFISafeCallType symbol, Signature signature);

/*!
 * \brief A statically linked exported symbol bound to the signature exported beside it,
 *        `__tvm_ffi___kwcall_signature_<name>` (KWCALL_EXPORT_SIGNATURE or
 *        kwcall.cute.export_to_c put it in the same object):
 *
 *   extern "C" int __tvm_ffi_add(void*, const TVMFFIAny*, int32_t, TVMFFIAny*);
 *   extern "C" int __tvm_ffi___kwcall_signature_add(void*, const TVMFFIAny*, int32_t, TVMFFIAny*);
 *   ffi::Function add = kwcall::FromExternC(__tvm_ffi_add, __tvm_ffi___kwcall_signature_add);
 */
KWCALL_API ffi::Function FromExternC(TVMFFISafeCallType symbol,
                                     TVMFFISafeCallType signature_symbol);

/*!
 * \brief The torch operator an exported function is meant to become: the pieces of the full
 *        schema `"ns::name(Tensor x, Tensor(a!) out, *, float alpha=1.0) -> ()"`.
 */
struct TorchOpSchema {
  std::string qualified_name;  //!< "ns::name"
  std::string schema;          //!< "(Tensor x, Tensor(a!) out, *, float alpha=1.0) -> ()"
};

/*!
 * \brief The torch operator `mod` exports for its function `name` (KWCALL_EXPORT_TORCH_OP, or
 *        kwcall.cute.export_to_c(..., torch_op=...)), or none. kwcall::torch::RegisterExported
 *        registers the function with it.
 * \throws ffi::Error of kind TypeError when the companion returns no string, ValueError when
 *         its text is not `"ns::name(arguments) -> returns"`; both name the companion.
 */
KWCALL_API std::optional<TorchOpSchema> ExportedTorchOp(const ffi::Module& mod,
                                                        const ffi::String& name);

/*!
 * \brief The torch operator a statically linked companion carries
 *        (`__tvm_ffi___kwcall_torch_op_<name>`), as ExportedTorchOp reads it from a module.
 */
KWCALL_API TorchOpSchema ExportedTorchOp(TVMFFISafeCallType torch_op_symbol);

}  // namespace kwcall

#endif  // KWCALL_LOAD_H_
