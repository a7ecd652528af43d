// CPython's argument-binding rules, shared by the C++ function object and the Python
// extension.
//
// BindSlots decides, for every parameter in declaration order, where its value comes from:
// the i-th positional argument, the k-th keyword value, or the default. It never touches the
// values themselves, so each caller keeps them in its own currency (TVMFFIAny in C++,
// PyObject* in Python) and gathers them with FillBound. The algorithm and the error texts
// follow CPython's `initialize_locals` (Python/ceval.c) step for step, so a call fails with
// exactly the TypeError the equivalent `def` would raise.
#ifndef KWCALL_SRC_BINDER_H_
#define KWCALL_SRC_BINDER_H_

#include <kwcall/function.h>
#include <kwcall/signature.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compat.h"

namespace kwcall {

/*! \brief Slot value of a parameter that takes its default. */
inline constexpr int32_t kUseDefault = -2;
/*! \brief Slot value of a parameter that has no value yet. */
inline constexpr int32_t kUnbound = -1;

namespace binder_detail {
// Error texts, built only on failure; the wording is CPython's.
std::string TooManyPositional(const Signature& sig, int64_t given, const int32_t* slots);
std::string Missing(const Signature& sig, const int32_t* slots, bool keyword_only);
std::string MultipleValues(const Signature& sig, int32_t param);
std::string UnexpectedKeyword(const Signature& sig, std::string_view key);
std::string PositionalOnlyAsKeyword(const Signature& sig, std::vector<int32_t> params);
// A malformed KWARGS tail (tvm-ffi's keyword convention), from C++ or Python callers.
std::string KwargsTailOdd(const Signature& sig, int64_t tail);
std::string KwargsKeyNotString(const Signature& sig, int64_t k, std::string_view type_name);
std::string KwargsSentinelTwice(const Signature& sig);
std::string KwargsSentinelAsValue(const Signature& sig, std::string_view key);

// A keyword that names no parameter it may bind: CPython first reports every positional-only
// parameter passed by keyword, and only then the unknown name. One lookup per keyword.
template <typename Keys>
TVM_FFI_COLD_CODE std::string UnknownKeyword(const Signature& sig, const Keys& keys, int32_t key) {
  std::vector<int32_t> posonly_hits;
  for (int32_t k = 0; k < keys.size(); ++k) {
    const int32_t param = keys.Find(k);
    if (param >= 0 && param < sig.posonly_count()) posonly_hits.push_back(param);
  }
  if (!posonly_hits.empty()) return PositionalOnlyAsKeyword(sig, std::move(posonly_hits));
  return UnexpectedKeyword(sig, keys.Text(key));
}
}  // namespace binder_detail

/*!
 * \brief Bind `nargs` positional arguments and the keywords in `keys` to `sig`.
 *
 * \tparam Keys provides `int32_t size()`, `int32_t Find(k)` (index of the parameter named
 *         like keyword k, or -1) and `std::string_view Text(k)` (used for errors only).
 * \param slots Output, sig.num_params() entries: `j < nargs` is positional argument j,
 *        `nargs + k` is keyword value k, kUseDefault is the parameter's default.
 * \param error Set to CPython's TypeError text when binding fails.
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
    int32_t param = keys.Find(k);
    if (TVM_FFI_PREDICT_FALSE(param < sig.posonly_count())) {
      *error = binder_detail::UnknownKeyword(sig, keys, k);
      return false;
    }
    if (TVM_FFI_PREDICT_FALSE(slots[param] != kUnbound)) {
      *error = binder_detail::MultipleValues(sig, param);
      return false;
    }
    slots[param] = num_filled + k;
  }
  if (TVM_FFI_PREDICT_FALSE(nargs > num_positional)) {
    *error = binder_detail::TooManyPositional(sig, nargs, slots);
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
    *error = binder_detail::Missing(sig, slots, /*keyword_only=*/false);
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
    *error = binder_detail::Missing(sig, slots, /*keyword_only=*/true);
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

/*! \brief See kwcall::SetKeywordSuggestions (function.h). */
bool KeywordSuggestions();

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDER_H_
