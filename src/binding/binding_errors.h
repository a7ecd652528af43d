// Every TypeError text a call can fail with, from C++ and Python callers alike: CPython's
// binding errors word for word (Python/ceval.c: too_many_positional, missing_arguments,
// positional_only_passed_as_keyword, initialize_locals) and kwcall's own for malformed
// KWARGS tails and counts no signature can bind. Built only on failure.
#ifndef KWCALL_SRC_BINDING_BINDING_ERRORS_H_
#define KWCALL_SRC_BINDING_BINDING_ERRORS_H_

#include <kwcall/signature.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "binding/kwargs_tail.h"
#include "binding/lookup_and_slot.h"

namespace kwcall {

namespace binding_errors {

// CPython's texts. `slots` are BindSlots' (binder.h).
std::string TooManyPositional(const Signature& sig, int64_t given, const Slot* slots);
std::string Missing(const Signature& sig, const Slot* slots, bool keyword_only);
/*! \brief `shown`: the key as CPython prints it (str(key)), not the parameter. */
std::string MultipleValues(const Signature& sig, std::string_view shown);
/*!
 * \brief `shown`: the key as CPython prints it (str(key)); `text`: its own text, which the
 *        "Did you mean" suggestion is made from (the two differ only for a Python str
 *        subclass with a __str__ of its own).
 */
std::string UnexpectedKeyword(const Signature& sig, std::string_view shown, std::string_view text);
/*! \brief `keys`: the keywords that name positional-only parameters, in CPython's order. */
std::string PositionalOnlyAsKeyword(const Signature& sig, const std::vector<std::string>& keys);
/*! \brief A keyword name that is not a string (Python C API callers). */
std::string KeywordNotString(const Signature& sig);

// A malformed KWARGS tail (kwargs_tail.h), from C++ or Python callers.
std::string KwargsTailOdd(const Signature& sig, int64_t tail);
/*!
 * \brief The text for pair `k`'s fault; `key_type` names the key's type (kKeyNotString),
 *        `key` is its text (kSentinelAsValue).
 */
std::string KwargsPair(const Signature& sig, TailFault fault, int64_t k, std::string_view key_type,
                       std::string_view key);

// Counts that no signature can bind (packed calls count in int32).
std::string InvalidArgumentCount(const Signature& sig, int64_t num_args);
std::string TooManyToBind(const Signature& sig, int64_t count, const char* what);

}  // namespace binding_errors
}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_BINDING_ERRORS_H_
