// One packed C++ call as the bind pipeline reads it (its CallAdapter, binding/bind_call.h): the
// positional arguments before the KWARGS sentinel, then the tail's name/value pairs, keys read
// as NameKey text and looked up in the plan's ParamNames.
#ifndef KWCALL_SRC_PACKED_CALL_H_
#define KWCALL_SRC_PACKED_CALL_H_

#include <kwcall/kwargs.h>
#include <tvm/ffi/c_api.h>

#include <cstdint>
#include <cstring>

#include "binding/binding_plan.h"
#include "binding/param_names.h"
#include "compat.h"

namespace kwcall {

/*!
 * \brief A packed call split at its sentinel. A key that is the sentinel, or any key that is
 *        not a string, is no name; a value that may be the sentinel is left to BindFull, which
 *        reads the pairs as kwargs_tail.h does and words the error.
 */
class PackedCall {
 public:
  using Value = TVMFFIAny;

  PackedCall(const BindingPlan& plan, const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs,
             int32_t num_keywords, const void* sentinel)
      : plan_(plan),
        raw_(raw),
        pairs_(pairs),
        nargs_(nargs),
        num_keywords_(num_keywords),
        sentinel_(sentinel) {}

  static void Copy(TVMFFIAny* dst, const TVMFFIAny& src) { kwargs_detail::CopyWords(dst, src); }
  int32_t nargs() const { return nargs_; }
  int32_t num_keywords() const { return num_keywords_; }
  const TVMFFIAny& positional(int32_t i) const { return raw_[i]; }
  const TVMFFIAny& keyword_value(int32_t k) const { return pairs_[2 * k + 1]; }
  const TVMFFIAny* defaults() const { return plan_.default_views(); }

  bool KeyIs(int32_t k, int32_t param) const {
    const TVMFFIAny& key = pairs_[2 * k];
    // Names as kwcall::Kw and tvm-ffi pack short ones are two word compares; any other form is
    // read as text.
    return (plan_.names().IsPackedForm(param, key) || TextIs(key, param)) &&
           !MayBeSentinel(keyword_value(k));
  }
  ParamLookup FindKey(int32_t k, int32_t* hint) const {
    NameKey name;
    if (!NameKey::Read(pairs_[2 * k], &name) || MayBeSentinel(keyword_value(k))) {
      return Lookup::kFullRules;
    }
    return plan_.names().Find(name, hint);
  }
  /*! \brief Whether `key`, read as text, is parameter `param`'s name. */
  bool TextIs(const TVMFFIAny& key, int32_t param) const {
    NameKey name;
    return NameKey::Read(key, &name) && plan_.names().Is(param, name);
  }
  /*! \brief CPython's rules in full (binder.h): binds, or throws CPython's TypeError. */
  [[gnu::noinline]] TVM_FFI_COLD_CODE bool BindFull(TVMFFIAny* bound) const;

 private:
  // One compare of the payload: a value that is not the sentinel but holds its address (an
  // integer) only takes the full rules, which bind it.
  bool MayBeSentinel(const TVMFFIAny& value) const { return value.v_obj == sentinel_; }

  const BindingPlan& plan_;
  const TVMFFIAny* raw_;
  const TVMFFIAny* pairs_;
  int32_t nargs_;
  int32_t num_keywords_;
  const void* sentinel_;
};

}  // namespace kwcall

#endif  // KWCALL_SRC_PACKED_CALL_H_
