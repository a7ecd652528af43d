// Reading a companion's result for loaders of modules tvm-ffi does not load (CuTeDSL's, in
// Python): the checks and texts of kwcall::LoadFunction, behind the kwcall.* FFI global.
#ifndef KWCALL_SRC_EXPORTED_SIGNATURE_H_
#define KWCALL_SRC_EXPORTED_SIGNATURE_H_

#include <kwcall/signature.h>
#include <tvm/ffi/any.h>

#include <string>

namespace kwcall {

/*!
 * \brief The signature in `result`, what the companion of the exported function `name`
 *        (`__kwcall_signature_<name>`) returned.
 * \throws ffi::Error of kind TypeError naming the companion when `result` is no string, and
 *         kwcall's ValueError/TypeError naming it when the text is not a valid signature.
 */
Signature ExportedSignatureFromResult(const ffi::Any& result, const std::string& name);

}  // namespace kwcall

#endif  // KWCALL_SRC_EXPORTED_SIGNATURE_H_
