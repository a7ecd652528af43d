/*!
 * \file kwcall/function.h
 * \brief A signature-bound tvm-ffi function.
 *
 * MakeFunction(target, sig) returns a real ffi::Function. Called with exactly
 * sig.num_params() arguments and no KWARGS sentinel (the native C++ convention: every
 * parameter in declaration order, keyword-only ones included), it forwards the packed
 * arguments to the target untouched. Every other call (fewer arguments, or a KWARGS tail) is
 * bound with CPython's rules and the signature's defaults, then the target is called with
 * every parameter in declaration order. A call that does not bind throws ffi::Error of kind
 * TypeError with CPython's text, e.g. "f() missing 1 required positional argument: 'a'".
 */
#ifndef KWCALL_FUNCTION_H_
#define KWCALL_FUNCTION_H_

#include <kwcall/signature.h>
#include <kwcall/visibility.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>

#include <optional>

namespace kwcall {

/*!
 * \brief Bind `target` to `signature`.
 * \throws ffi::Error of kind TypeError when `target` is null.
 */
KWCALL_API ffi::Function MakeFunction(ffi::Function target, Signature signature);

/*! \brief The signature of a kwcall function; empty for any other function. */
KWCALL_API std::optional<Signature> GetSignature(const ffi::Function& f);

/*! \brief The target of a kwcall function; empty for any other function. */
KWCALL_API ffi::Optional<ffi::Function> GetTarget(const ffi::Function& f);

/*!
 * \brief Whether an unknown keyword's TypeError ends with CPython 3.13's suggestion,
 *        ". Did you mean 'alpha'?" (chosen by CPython's own rule).
 *
 * On by default, so that C++ programs get the wording of the newest CPython kwcall follows.
 * The Python extension sets it on import to match the running interpreter (off before
 * 3.13); the setting is process-wide and applies to every caller.
 */
KWCALL_API void SetKeywordSuggestions(bool enabled);

/*! \brief Whether unknown-keyword errors end with the suggestion (see SetKeywordSuggestions). */
KWCALL_API bool KeywordSuggestions();

}  // namespace kwcall

#endif  // KWCALL_FUNCTION_H_
