// The one bind pipeline of both front ends: the C++ function object (packed TVMFFIAny values,
// keys read as NameKey text; its adapter, packed_call.h) and the Python extension (PyObject*
// values, keys compared as CPython compares them; python/ext/py_call.h). Each step is
// written here once, in the order a call tries them:
//
//   1. full arity, no KWARGS sentinel: forwarded as it is (ForwardsAsIs, kwargs_tail.h, in
//      each entry point);
//   2. no keywords, only trailing defaults left out: nothing to look up;
//   3. a keyword shape that bound before: one key compare per keyword (keyword_shapes.h, the
//      shapes the function has learnt beside its plan);
//   4. the one-pass bind: each key looked up once, masks for what is filled; it binds only
//      calls that bind cleanly and gives up on anything unusual;
//   5. the full rules, CPython's (binder.h), with CPython's errors: the front end's own step,
//      because each reports errors its own way (a C++ exception, a Python exception set).
//
// A front end describes one call with a call adapter (the CallAdapter contract below, checked
// when BindCall is instantiated) and keeps only what is its own: reading keys, copying
// values, calling the target, raising errors. The pipeline calls down into the adapter and
// into the plan and the shapes; nothing here calls back up into a front end's driver.
#ifndef KWCALL_SRC_BINDING_BIND_CALL_H_
#define KWCALL_SRC_BINDING_BIND_CALL_H_

#include <cstdint>
#include <type_traits>
#include <utility>

#include "binding/binding_plan.h"
#include "binding/function_binding.h"
#include "binding/keyword_shapes.h"
#include "binding/param_names.h"
#include "compat.h"  // TVM_FFI_INLINE, from the header the tvm-ffi release has

namespace kwcall {

/*!
 * \brief The CallAdapter contract: what BindCall needs of the type that describes one call.
 *
 *   using Value;                                   the values' type (TVMFFIAny, PyObject*)
 *   static void Copy(Value* dst, const Value& src);
 *   int32_t nargs(), num_keywords();               positional values, then keyword values
 *   const Value& positional(int32_t i), keyword_value(int32_t k);
 *   const Value* defaults();                       one per parameter (read where it has one)
 *   bool KeyIs(int32_t k, int32_t param);          keyword k names `param`, without a lookup
 *   ParamLookup FindKey(int32_t k, int32_t* hint); the parameter keyword k names; anything
 *                                                  else leaves the call to BindFull
 *   bool BindFull(Value* bound);                   the full rules, with their errors
 *
 * The front end has split the call at its KWARGS sentinel (kwargs_tail.h); a key or value
 * that may be another sentinel is the adapter's to leave to BindFull (KeyIs false, FindKey
 * kFullRules). Each member is checked here, with its own message.
 */
template <typename Call>
constexpr bool CheckCallAdapter() {
  using Value = typename Call::Value;
  static_assert(
      std::is_same_v<decltype(Call::Copy(std::declval<Value*>(), std::declval<const Value&>())),
                     void>,
      "CallAdapter: static void Copy(Value* dst, const Value& src)");
  static_assert(std::is_same_v<decltype(std::declval<const Call&>().nargs()), int32_t> &&
                    std::is_same_v<decltype(std::declval<const Call&>().num_keywords()), int32_t>,
                "CallAdapter: int32_t nargs() and num_keywords()");
  static_assert(
      std::is_convertible_v<decltype(std::declval<const Call&>().positional(int32_t{})),
                            const Value&> &&
          std::is_convertible_v<decltype(std::declval<const Call&>().keyword_value(int32_t{})),
                                const Value&>,
      "CallAdapter: const Value& positional(i) and keyword_value(k)");
  static_assert(std::is_same_v<decltype(std::declval<const Call&>().defaults()), const Value*>,
                "CallAdapter: const Value* defaults(), one per parameter");
  static_assert(
      std::is_same_v<decltype(std::declval<const Call&>().KeyIs(int32_t{}, int32_t{})), bool>,
      "CallAdapter: bool KeyIs(k, param)");
  static_assert(std::is_same_v<decltype(std::declval<const Call&>().FindKey(
                                   int32_t{}, std::declval<int32_t*>())),
                               ParamLookup>,
                "CallAdapter: ParamLookup FindKey(k, int32_t* hint)");
  static_assert(
      std::is_same_v<decltype(std::declval<const Call&>().BindFull(std::declval<Value*>())), bool>,
      "CallAdapter: bool BindFull(Value* bound)");
  return true;
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

// Step 3 for one shape: each keyword must name the parameter it named when the shape bound.
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

// Step 3: a known shape of this many positional values and keywords that binds, tried in the
// cache's search order (keyword_shapes.h). Only keyword calls are remembered.
template <typename Call>
TVM_FFI_INLINE bool BindKnownShape(const BindingPlan& plan, const KeywordShapes& shapes,
                                   const Call& call, int32_t nargs, int32_t num_keywords,
                                   typename Call::Value* bound) {
  // Shapes that bound have at most num_positional positional arguments.
  if (!shapes.Remembers(num_keywords) || nargs > plan.num_positional()) return false;
  const int32_t last = shapes.last();
  for (int32_t n = 0; n < KeywordShapes::kMaxShapes; ++n) {
    const int32_t i = KeywordShapes::InSearchOrder(n, last);
    const KeywordShapes::Shape* shape = shapes.Get(i);
    if (shape == nullptr) return false;
    if (shape->nargs == nargs && shape->num_keywords == num_keywords &&
        BindShape(call, *shape, bound)) {
      if (n != 0) shapes.MakeLast(i);
      return true;
    }
  }
  return false;
}

// Step 4: false on anything but a clean bind (an error to word, a key the front end leaves
// to the full rules, a signature too wide for the masks); the full rules then decide. Out of
// line: inlined, its frame would be paid by the steps before it too.
template <typename Call>
[[gnu::noinline]] bool BindOnePass(const BindingPlan& plan, KeywordShapes& shapes, const Call& call,
                                   int32_t nargs, int32_t num_keywords,
                                   typename Call::Value* bound) {
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
    const ParamLookup found = call.FindKey(k, &hint);
    if (!found.is_index()) return false;
    const int32_t param = found.index();
    if (param < posonly_count || ((filled >> param) & 1)) return false;
    Call::Copy(&bound[param], call.keyword_value(k));
    filled |= uint64_t{1} << param;
    if (k < KeywordShapes::kMaxKeywords) shape.params[k] = param;
  }
  if (plan.required_mask() & ~filled) return false;
  shape.defaults = plan.all_mask() & ~filled;
  FillDefaults(shape.defaults, call.defaults(), bound);
  shapes.Remember(shape);
  return true;
}

}  // namespace bind_call_detail

/*!
 * \brief Bind one call that is not forwarded as it is into `bound` (arity entries).
 * \param binding The function's plan, fixed when it was made, and the keyword shapes it has
 *        learnt: read, and added to when a new shape binds.
 * \tparam Call a CallAdapter (see CheckCallAdapter).
 * \return Whether the call bound; false only from BindFull, with its error reported.
 */
template <typename Call>
TVM_FFI_INLINE bool BindCall(const FunctionBinding& binding, const Call& call,
                             typename Call::Value* bound) {
  const BindingPlan& plan = binding.plan;
  KeywordShapes& shapes = binding.shapes;
  static_assert(CheckCallAdapter<Call>());
  const int32_t nargs = call.nargs();
  const int32_t num_keywords = call.num_keywords();
  if (num_keywords == 0 && plan.TakesTrailingDefaults(nargs)) {
    bind_call_detail::CopyPositional(call, nargs, bound);
    const typename Call::Value* defaults = call.defaults();
    for (int32_t i = nargs; i < plan.arity(); ++i) bound[i] = defaults[i];
    return true;
  }
  if (bind_call_detail::BindKnownShape(plan, shapes, call, nargs, num_keywords, bound)) {
    return true;
  }
  if (bind_call_detail::BindOnePass(plan, shapes, call, nargs, num_keywords, bound)) return true;
  return call.BindFull(bound);
}

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_BIND_CALL_H_
