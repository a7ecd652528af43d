/*
 * kwcall: a signature-bound tvm-ffi function.
 *
 * MakeFunction(target, sig) returns a real ffi::Function. Called with exactly
 * sig.num_params() arguments and no KWARGS sentinel (the native C++ convention: every
 * parameter in declaration order, keyword-only ones included), it forwards the packed
 * arguments to the target untouched. Every other call is bound with CPython's rules
 * (binder.h) and defaults, then the target is called with every parameter in order.
 */
#ifndef KWCALL_FUNCTION_H_
#define KWCALL_FUNCTION_H_

#include <kwcall/signature.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>

#include <optional>

namespace kwcall {

/*! \brief Bind `target` to `signature`. */
ffi::Function MakeFunction(ffi::Function target, Signature signature);

/*! \brief The signature of a kwcall function; empty for any other function. */
std::optional<Signature> GetSignature(const ffi::Function& f);

/*! \brief The target of a kwcall function; empty for any other function. */
ffi::Optional<ffi::Function> GetTarget(const ffi::Function& f);

}  // namespace kwcall

#endif  // KWCALL_FUNCTION_H_
