/*
 * kwcall: CPython's argument-binding rules, shared by the C++ function object and the
 * Python extension.
 *
 * BindSlots decides, for every parameter in declaration order, where its value comes
 * from: the i-th positional argument, the k-th keyword value, or the default. It never
 * touches the values themselves, so each caller gathers them in its own currency
 * (ffi::AnyView in C++, PyObject* in Python). The algorithm and the error texts follow
 * CPython's `initialize_locals` (Python/ceval.c) step for step, so that a call fails
 * with exactly the TypeError that the equivalent `def` would raise.
 */
#ifndef KWCALL_BINDER_H_
#define KWCALL_BINDER_H_

#include <kwcall/compat.h>
#include <kwcall/signature.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kwcall {

/*! \brief Slot value of a parameter that takes its default. */
inline constexpr int32_t kUseDefault = -2;
/*! \brief Slot value of a parameter that has no value yet. */
inline constexpr int32_t kUnbound = -1;

namespace binder_detail {
// Error texts, built only on failure; the wording is CPython's.
std::string TooManyPositional(const Signature& sig, int32_t given, const int32_t* slots);
std::string Missing(const Signature& sig, const int32_t* slots, bool keyword_only);
std::string MultipleValues(const Signature& sig, int32_t param);
std::string UnexpectedKeyword(const Signature& sig, std::string_view key);
std::string PositionalOnlyAsKeyword(const Signature& sig, const std::vector<int32_t>& params);

// A keyword that names no parameter it may bind: CPython first reports every
// positional-only parameter passed by keyword, and only then the unknown name.
template <typename Keys>
TVM_FFI_COLD_CODE std::string UnknownKeyword(const Signature& sig, const Keys& keys, int32_t key) {
  std::vector<int32_t> posonly_hits;
  for (int32_t param = 0; param < sig.posonly_count(); ++param) {
    for (int32_t k = 0; k < keys.size(); ++k) {
      if (keys.Find(k) == param) posonly_hits.push_back(param);
    }
  }
  if (!posonly_hits.empty()) return PositionalOnlyAsKeyword(sig, posonly_hits);
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
bool BindSlots(const Signature& sig, int32_t nargs, const Keys& keys, int32_t* slots,
               std::string* error) {
  const int32_t num_params = sig.num_params();
  const int32_t num_positional = sig.num_positional();
  const int32_t num_filled = std::min(nargs, num_positional);
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
    slots[param] = nargs + k;
  }
  if (TVM_FFI_PREDICT_FALSE(nargs > num_positional)) {
    *error = binder_detail::TooManyPositional(sig, nargs, slots);
    return false;
  }

  const int32_t first_default = num_positional - sig.num_positional_defaults();
  bool missing = false;
  for (int32_t i = nargs; i < num_positional; ++i) {
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

}  // namespace kwcall

#endif  // KWCALL_BINDER_H_
