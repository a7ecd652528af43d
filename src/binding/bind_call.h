// The one bind pipeline of both front ends: the C++ function object (packed TVMFFIAny values,
// keys read as NameKey text) and the Python extension (PyObject* values, keys compared as
// CPython compares them). Each step is written here once, in the order a call tries them:
//
//   1. full arity, no KWARGS sentinel: forwarded as it is (ForwardsAsIs, in each entry point);
//   2. no keywords, only trailing defaults left out: nothing to look up;
//   3. a keyword shape that bound before: one key compare per keyword (keyword_shapes.h);
//   4. the one-pass bind: each key looked up once, masks for what is filled; it binds only
//      calls that bind cleanly and gives up on anything unusual;
//   5. the full rules, CPython's (binder.h), with CPython's errors: the front end's own step,
//      because each reports errors its own way (a C++ exception, a Python exception set).
//
// A front end describes one call with a `Call` type (see BindCall) and keeps only what is its
// own: copying values, calling the target, raising errors.
#ifndef KWCALL_SRC_BINDING_BIND_CALL_H_
#define KWCALL_SRC_BINDING_BIND_CALL_H_

#include <cstdint>

#include "binding/binding_plan.h"
#include "binding/keyword_shapes.h"
#include "binding/kwargs_tail.h"
#include "compat.h"  // TVM_FFI_INLINE, from the header the tvm-ffi release has

namespace kwcall {

/*! \brief What Call::FindKey returns to end the one-pass bind: the full rules decide. */
inline constexpr int32_t kFullRules = -1;

/*! \brief Whether a call of `num_args` arguments goes to the target as it is: full arity
 *         and no KWARGS sentinel anywhere (a sentinel at any position is a tail, well formed
 *         or not, so every position is read). */
template <typename T, typename N, typename IsSentinel>
inline bool ForwardsAsIs(const T* args, N num_args, int32_t arity, IsSentinel is_sentinel) {
  // Scanned to `arity`: a constant in entries made for one, so the scan unrolls.
  return num_args == arity && FindKwargsSentinel(args, arity, is_sentinel) == arity;
}

/*! \brief Fill the parameters whose bit is set in `mask` with their defaults. */
template <typename T>
inline void FillDefaults(uint64_t mask, const T* defaults, T* bound) {
  for (uint64_t rest = mask; rest != 0; rest &= rest - 1) {
    const int i = __builtin_ctzll(rest);
    bound[i] = defaults[i];
  }
}

namespace bind_call_detail {

// Inlined into each front end's adapter, where the call's fields are locals the stores into
// `bound` cannot alias.
template <typename Call>
TVM_FFI_INLINE void CopyPositional(const Call& call, int32_t nargs, typename Call::Value* bound) {
  for (int32_t i = 0; i < nargs; ++i) Call::Copy(&bound[i], call.positional(i));
}

// Step 3: each keyword must name the parameter it named when the shape bound.
template <typename Call>
TVM_FFI_INLINE bool BindShape(const Call& call, const KeywordShapes::Shape& shape,
                              typename Call::Value* bound) {
  for (int32_t k = 0; k < shape.num_keywords; ++k) {
    const int32_t param = shape.params[k];
    if (!call.KeyIs(k, param)) return false;
    Call::Copy(&bound[param], call.keyword_value(k));
  }
  CopyPositional(call, shape.nargs, bound);
  FillDefaults(shape.defaults, call.defaults(), bound);
  return true;
}

// Step 4: false on anything but a clean bind (an error to word, a key the front end leaves
// to the full rules, a signature too wide for the masks); the full rules then decide. Out of
// line: inlined, its frame would be paid by the steps before it too.
template <typename Call>
[[gnu::noinline]] bool BindOnePass(const BindingPlan& plan, const Call& call, int32_t nargs,
                                   int32_t num_keywords, typename Call::Value* bound) {
  if (!plan.fits_masks() || nargs > plan.num_positional()) return false;
  uint64_t filled = nargs == 64 ? ~uint64_t{0} : (uint64_t{1} << nargs) - 1;
  CopyPositional(call, nargs, bound);
  KeywordShapes::Shape shape;
  shape.nargs = nargs;
  shape.num_keywords = num_keywords;
  // Keywords name the parameters after the positional arguments, usually in order.
  int32_t hint = nargs;
  const int32_t posonly_count = plan.posonly_count();
  for (int32_t k = 0; k < num_keywords; ++k) {
    const int32_t param = call.FindKey(k, &hint);
    if (param < posonly_count || ((filled >> param) & 1)) return false;  // kFullRules too
    Call::Copy(&bound[param], call.keyword_value(k));
    filled |= uint64_t{1} << param;
    if (k < KeywordShapes::kMaxKeywords) shape.params[k] = param;
  }
  if (plan.required_mask() & ~filled) return false;
  shape.defaults = plan.all_mask() & ~filled;
  FillDefaults(shape.defaults, call.defaults(), bound);
  plan.Remember(shape);
  return true;
}

}  // namespace bind_call_detail

/*!
 * \brief Bind one call that is not forwarded as it is into `bound` (arity entries).
 *
 * \tparam Call describes the call: `using Value`; `static void Copy(Value*, const Value&)`;
 *         `int32_t nargs()`, `int32_t num_keywords()`; `const Value& positional(i)`,
 *         `const Value& keyword_value(k)`; `const Value* defaults()` (one per parameter);
 *         `bool KeyIs(k, param)` (keyword k names `param`, and its value may bind);
 *         `int32_t FindKey(k, int32_t* hint)` (the parameter keyword k names, or kFullRules
 *         for a key or value the one-pass bind leaves to the full rules); and
 *         `bool BindFull(Value* bound)`, the full rules with their errors.
 * \return Whether the call bound; false only from BindFull, with its error reported.
 */
template <typename Call>
TVM_FFI_INLINE bool BindCall(const BindingPlan& plan, const Call& call,
                             typename Call::Value* bound) {
  const int32_t nargs = call.nargs();
  const int32_t num_keywords = call.num_keywords();
  if (num_keywords == 0 && plan.TakesTrailingDefaults(nargs)) {
    bind_call_detail::CopyPositional(call, nargs, bound);
    const typename Call::Value* defaults = call.defaults();
    for (int32_t i = nargs; i < plan.arity(); ++i) bound[i] = defaults[i];
    return true;
  }
  // Only keyword calls are remembered; a positional call goes straight to the one-pass bind.
  if (plan.BindKnown(nargs, num_keywords, [&](const KeywordShapes::Shape& shape) {
        return bind_call_detail::BindShape(call, shape, bound);
      })) {
    return true;
  }
  if (bind_call_detail::BindOnePass(plan, call, nargs, num_keywords, bound)) return true;
  return call.BindFull(bound);
}

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_BIND_CALL_H_
