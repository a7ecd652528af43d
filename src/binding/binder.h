// CPython's argument-binding rules, shared by the C++ function object and the Python
// extension.
//
// BindSlots decides, for every parameter in declaration order, where its value comes from:
// the i-th positional argument, the k-th keyword value, or the default. It never touches the
// values themselves, so each caller keeps them in its own currency (TVMFFIAny in C++,
// PyObject* in Python) and gathers them with FillBound. The algorithm follows CPython's
// `initialize_locals` (Python/ceval.c) step for step, with its texts (binding_errors.h), so a
// call fails with exactly the TypeError the equivalent `def` would raise.
#ifndef KWCALL_SRC_BINDING_BINDER_H_
#define KWCALL_SRC_BINDING_BINDER_H_

#include <kwcall/function.h>
#include <kwcall/signature.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "binding/binding_errors.h"
#include "compat.h"

namespace kwcall {

/*! \brief Slot value of a parameter that takes its default. */
inline constexpr int32_t kUseDefault = -2;
/*! \brief Slot value of a parameter that has no value yet. */
inline constexpr int32_t kUnbound = -1;

/*! \brief What Keys::Find returns when the lookup itself failed (a Python key's __eq__
 *         raised, or a key is not a string); the Keys object has set the error. */
inline constexpr int32_t kKeyFailed = -3;

namespace binder_detail {
// A keyword that names no parameter it may bind: CPython first reports every keyword that
// names a positional-only parameter (for each such parameter in order, each keyword naming
// it), and only then the unknown name. False when a key compare failed (error set by Keys).
template <typename Keys>
TVM_FFI_COLD_CODE bool UnknownKeyword(const Signature& sig, const Keys& keys, int32_t key,
                                      std::string* error) {
  std::vector<std::string> posonly_keys;
  for (int32_t p = 0; p < sig.posonly_count(); ++p) {
    for (int32_t k = 0; k < keys.size(); ++k) {
      const int match = keys.Names(k, p);
      if (match < 0) return false;
      if (match > 0) posonly_keys.emplace_back(keys.Text(k));
    }
  }
  *error = posonly_keys.empty() ? binding_errors::UnexpectedKeyword(sig, keys.Text(key))
                                : binding_errors::PositionalOnlyAsKeyword(sig, posonly_keys);
  return true;
}
}  // namespace binder_detail

/*!
 * \brief Bind `nargs` positional arguments and the keywords in `keys` to `sig`.
 *
 * \tparam Keys provides `int32_t size()`, `int32_t Find(k)` (index of the parameter keyword k
 *         names, -1 for none, kKeyFailed with its error set), `int Names(k, p)` (whether
 *         keyword k names parameter p: 1, 0, or -1 with its error set) and
 *         `std::string_view Text(k)` (the keyword as errors show it).
 * \param slots Output, sig.num_params() entries: `j < nargs` is positional argument j,
 *        `nargs + k` is keyword value k, kUseDefault is the parameter's default.
 * \param error Set to CPython's TypeError text when binding fails (left empty when Keys
 *        reported its own error).
 * \return Whether binding succeeded.
 */
template <typename Keys>
bool BindSlots(const Signature& sig, int64_t nargs, const Keys& keys, int32_t* slots,
               std::string* error) {
  const int32_t num_params = sig.num_params();
  const int32_t num_positional = sig.num_positional();
  // Past num_positional the call fails; the count only appears in the message, so slots
  // (int32) never hold an index beyond the signature's own size.
  const int32_t num_filled = static_cast<int32_t>(std::min<int64_t>(nargs, num_positional));
  for (int32_t i = 0; i < num_filled; ++i) slots[i] = i;
  for (int32_t i = num_filled; i < num_params; ++i) slots[i] = kUnbound;

  for (int32_t k = 0; k < keys.size(); ++k) {
    const int32_t param = keys.Find(k);
    if (TVM_FFI_PREDICT_FALSE(param == kKeyFailed)) return false;
    if (TVM_FFI_PREDICT_FALSE(param < sig.posonly_count())) {
      binder_detail::UnknownKeyword(sig, keys, k, error);
      return false;
    }
    if (TVM_FFI_PREDICT_FALSE(slots[param] != kUnbound)) {
      *error = binding_errors::MultipleValues(sig, keys.Text(k));
      return false;
    }
    slots[param] = num_filled + k;
  }
  if (TVM_FFI_PREDICT_FALSE(nargs > num_positional)) {
    *error = binding_errors::TooManyPositional(sig, nargs, slots);
    return false;
  }

  const int32_t first_default = num_positional - sig.num_positional_defaults();
  bool missing = false;
  for (int32_t i = num_filled; i < num_positional; ++i) {
    if (slots[i] != kUnbound) continue;
    if (i < first_default) {
      missing = true;
    } else {
      slots[i] = kUseDefault;
    }
  }
  if (TVM_FFI_PREDICT_FALSE(missing)) {
    *error = binding_errors::Missing(sig, slots, /*keyword_only=*/false);
    return false;
  }
  for (int32_t i = num_positional; i < num_params; ++i) {
    if (slots[i] != kUnbound) continue;
    if (sig.has_default(i)) {
      slots[i] = kUseDefault;
    } else {
      missing = true;
    }
  }
  if (TVM_FFI_PREDICT_FALSE(missing)) {
    *error = binding_errors::Missing(sig, slots, /*keyword_only=*/true);
    return false;
  }
  return true;
}

/*!
 * \brief Gather the values of bound slots, in declaration order, into `bound`.
 * \param positional The positional arguments (slot j < nargs is positional[j]).
 * \param keyword_values Keyword value k is keyword_values[k * keyword_stride].
 * \param defaults One entry per parameter: its default.
 */
template <typename T>
void FillBound(const int32_t* slots, int32_t num_params, int32_t nargs, const T* positional,
               const T* keyword_values, int32_t keyword_stride, const T* defaults, T* bound) {
  for (int32_t i = 0; i < num_params; ++i) {
    const int32_t slot = slots[i];
    if (slot == kUseDefault) {
      bound[i] = defaults[i];
    } else if (slot < nargs) {
      bound[i] = positional[slot];
    } else {
      bound[i] = keyword_values[static_cast<int64_t>(slot - nargs) * keyword_stride];
    }
  }
}

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_BINDER_H_
