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
#include <type_traits>
#include <utility>
#include <vector>

#include "binding/binding_errors.h"
#include "binding/lookup_and_slot.h"
#include "binding/param_names.h"
#include "compat.h"

namespace kwcall {

namespace binder_detail {

// The Keys contract of BindSlots, checked where it is instantiated.
template <typename Keys>
constexpr bool CheckKeys() {
  static_assert(std::is_same_v<decltype(std::declval<const Keys&>().size()), int32_t>,
                "Keys::size() returns the number of keywords (int32_t)");
  static_assert(std::is_same_v<decltype(std::declval<const Keys&>().Find(int32_t{})), ParamLookup>,
                "Keys::Find(k) returns the ParamLookup of keyword k (Failed with its error set)");
  static_assert(
      std::is_same_v<decltype(std::declval<const Keys&>().Names(int32_t{}, int32_t{})), int>,
      "Keys::Names(k, p) returns whether keyword k names parameter p: 1, 0, or -1 "
      "with its error set");
  static_assert(
      std::is_same_v<decltype(std::declval<const Keys&>().Text(int32_t{})), std::string_view>,
      "Keys::Text(k) returns keyword k's own text (UTF-8)");
  static_assert(std::is_same_v<decltype(std::declval<const Keys&>().Shown(
                                   int32_t{}, std::declval<std::string_view*>())),
                               bool>,
                "Keys::Shown(k, &text) gives keyword k as messages show it (false with its "
                "error set)");
  return true;
}

// A keyword that names no parameter it may bind: CPython first reports every keyword that
// names a positional-only parameter (for each such parameter in order, each keyword naming
// it, by its own text), and only then the unknown name (shown as str() shows it, the
// suggestion made from its text). Left empty when Keys reported its own error.
template <typename Keys>
TVM_FFI_COLD_CODE void UnknownKeyword(const Signature& sig, const Keys& keys, int32_t key,
                                      std::string* error) {
  std::vector<std::string> posonly_keys;
  for (int32_t p = 0; p < sig.posonly_count(); ++p) {
    for (int32_t k = 0; k < keys.size(); ++k) {
      const int match = keys.Names(k, p);
      if (match < 0) return;
      if (match > 0) posonly_keys.emplace_back(keys.Text(k));
    }
  }
  if (!posonly_keys.empty()) {
    *error = binding_errors::PositionalOnlyAsKeyword(sig, posonly_keys);
    return;
  }
  std::string_view shown;
  if (keys.Shown(key, &shown))
    *error = binding_errors::UnexpectedKeyword(sig, shown, keys.Text(key));
}
}  // namespace binder_detail

/*!
 * \brief Bind `nargs` positional arguments and the keywords in `keys` to `sig`.
 *
 * \tparam Keys provides `int32_t size()`, `ParamLookup Find(k)` (the parameter keyword k
 *         names, NoParam, or Failed with its error set), `int Names(k, p)` (whether keyword
 *         k names parameter p: 1, 0, or -1 with its error set), `std::string_view Text(k)`
 *         (the keyword's own text) and `bool Shown(k, std::string_view*)` (the keyword as
 *         messages show it; false with its error set): CheckKeys.
 * \param slots Output, sig.num_params() entries (see Slot).
 * \param error Set to CPython's TypeError text when binding fails (left empty when Keys
 *        reported its own error).
 * \return Whether binding succeeded.
 */
template <typename Keys>
bool BindSlots(const Signature& sig, int64_t nargs, const Keys& keys, Slot* slots,
               std::string* error) {
  static_assert(binder_detail::CheckKeys<Keys>());
  const int32_t num_params = sig.num_params();
  const int32_t num_positional = sig.num_positional();
  // Past num_positional the call fails; the count only appears in the message, so slots
  // (int32) never hold an index beyond the signature's own size.
  const int32_t num_filled = static_cast<int32_t>(std::min<int64_t>(nargs, num_positional));
  for (int32_t i = 0; i < num_filled; ++i) slots[i] = Slot::Index(i);
  for (int32_t i = num_filled; i < num_params; ++i) slots[i] = SlotMark::kUnbound;

  for (int32_t k = 0; k < keys.size(); ++k) {
    const ParamLookup found = keys.Find(k);
    if (TVM_FFI_PREDICT_FALSE(found.is(Lookup::kFailed))) return false;
    if (TVM_FFI_PREDICT_FALSE(!found.is_index() || found.index() < sig.posonly_count())) {
      binder_detail::UnknownKeyword(sig, keys, k, error);
      return false;
    }
    const int32_t param = found.index();
    if (TVM_FFI_PREDICT_FALSE(!slots[param].is(SlotMark::kUnbound))) {
      std::string_view shown;
      if (keys.Shown(k, &shown)) *error = binding_errors::MultipleValues(sig, shown);
      return false;
    }
    slots[param] = Slot::Index(num_filled + k);
  }
  if (TVM_FFI_PREDICT_FALSE(nargs > num_positional)) {
    *error = binding_errors::TooManyPositional(sig, nargs, slots);
    return false;
  }

  const int32_t first_default = num_positional - sig.num_positional_defaults();
  bool missing = false;
  for (int32_t i = num_filled; i < num_positional; ++i) {
    if (!slots[i].is(SlotMark::kUnbound)) continue;
    if (i < first_default) {
      missing = true;
    } else {
      slots[i] = SlotMark::kDefault;
    }
  }
  if (TVM_FFI_PREDICT_FALSE(missing)) {
    *error = binding_errors::Missing(sig, slots, /*keyword_only=*/false);
    return false;
  }
  for (int32_t i = num_positional; i < num_params; ++i) {
    if (!slots[i].is(SlotMark::kUnbound)) continue;
    if (sig.has_default(i)) {
      slots[i] = SlotMark::kDefault;
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
void FillBound(const Slot* slots, int32_t num_params, int32_t nargs, const T* positional,
               const T* keyword_values, int32_t keyword_stride, const T* defaults, T* bound) {
  for (int32_t i = 0; i < num_params; ++i) {
    if (slots[i].is(SlotMark::kDefault)) {
      bound[i] = defaults[i];
      continue;
    }
    const int32_t value = slots[i].index();
    if (value < nargs) {
      bound[i] = positional[value];
    } else {
      bound[i] = keyword_values[static_cast<int64_t>(value - nargs) * keyword_stride];
    }
  }
}

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_BINDER_H_
