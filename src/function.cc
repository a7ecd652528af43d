// The kwcall function object: a native forward for full-arity calls, CPython binding for the
// rest.
#include <kwcall/function.h>
#include <kwcall/kwargs.h>
#include <tvm/ffi/error.h>

#include <cstring>
#include <string>

#include "binding/binder.h"
#include "binding/binding_errors.h"
#include "binding/binding_plan.h"
#include "binding/kwargs_tail.h"
#include "binding/small_array.h"

namespace kwcall {
namespace {

/*!
 * \brief Copy one packed argument. Callers write packed arguments as two 8-byte stores (type,
 *        then value); copying them as two 8-byte words lets the CPU forward those stores, where
 *        one 16-byte load across them would stall for the length of a call.
 */
inline void CopyAny(TVMFFIAny* dst, const TVMFFIAny* src) {
  uint64_t words[2];
  std::memcpy(words, src, sizeof(words));
  asm("" : "+r"(words[0]), "+r"(words[1]));  // two scalar loads, not one vector load
  std::memcpy(dst, words, sizeof(words));
}

using FCall = ffi::FunctionObj::FCall;

class KwFunctionObj : public ffi::FunctionObj {
 public:
  KwFunctionObj(ffi::Function target, Signature signature)
      : target_(std::move(target)),
        target_obj_(target_.get()),
        target_call_(target_obj_->cpp_call ? reinterpret_cast<FCall>(target_obj_->cpp_call)
                                           : CallThroughSafeCall),
        sentinel_(KwargsSentinel().get()),
        arity_(signature.num_params()),
        plan_(std::move(signature)) {
    this->safe_call = SafeCall;
    this->cpp_call = reinterpret_cast<void*>(CppCall);
  }

  /*! \brief `f` as a kwcall function, or nullptr. */
  static const KwFunctionObj* Cast(const ffi::FunctionObj* f) {
    return f != nullptr && f->cpp_call == reinterpret_cast<void*>(CppCall)
               ? static_cast<const KwFunctionObj*>(f)
               : nullptr;
  }

  const ffi::Function& target() const { return target_; }
  const BindingPlan& plan() const { return plan_; }

 private:
  // The hot path: a full-arity call without KWARGS is forwarded untouched.
  static void CppCall(const ffi::FunctionObj* func, const ffi::AnyView* args, int32_t num_args,
                      ffi::Any* result) {
    const auto* self = static_cast<const KwFunctionObj*>(func);
    const auto* raw = reinterpret_cast<const TVMFFIAny*>(args);
    if (TVM_FFI_PREDICT_TRUE(num_args == self->arity_) &&
        FindKwargsSentinel(raw, num_args, self->sentinel_) == num_args) {
      self->target_call_(self->target_obj_, args, num_args, result);
      return;
    }
    self->BindAndCall(raw, num_args, result);
  }

  // How FunctionObj::CallPacked calls a target that has no C++ entry point (a C-ABI
  // function, such as CuTeDSL's): through safe_call, rethrowing its error.
  static void CallThroughSafeCall(const ffi::FunctionObj* func, const ffi::AnyView* args,
                                  int32_t num_args, ffi::Any* result) {
    TVM_FFI_CHECK_SAFE_CALL(func->safe_call(const_cast<ffi::FunctionObj*>(func),
                                            reinterpret_cast<const TVMFFIAny*>(args), num_args,
                                            reinterpret_cast<TVMFFIAny*>(result)));
  }

  static int SafeCall(void* func, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
    TVM_FFI_SAFE_CALL_BEGIN();
    CppCall(static_cast<const ffi::FunctionObj*>(func), reinterpret_cast<const ffi::AnyView*>(args),
            num_args, reinterpret_cast<ffi::Any*>(result));
    TVM_FFI_SAFE_CALL_END();
  }

  // Out of line, so that the forward above stays a leaf that tail-calls the target.
  [[gnu::noinline]] void BindAndCall(const TVMFFIAny* raw, int32_t num_args,
                                     ffi::Any* result) const;
  TVM_FFI_COLD_CODE void CallWide(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs,
                                  int32_t num_keywords, ffi::Any* result) const;
  bool BindShape(const KeywordShapes::Shape& shape, const TVMFFIAny* raw, const TVMFFIAny* pairs,
                 TVMFFIAny* bound) const;
  bool FastBind(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs, int32_t num_keywords,
                TVMFFIAny* bound) const;
  [[gnu::noinline]] TVM_FFI_COLD_CODE void BindOrThrow(const TVMFFIAny* raw, int32_t nargs,
                                                       const TVMFFIAny* pairs, int32_t num_keywords,
                                                       TVMFFIAny* bound) const;
  [[noreturn, gnu::noinline]] TVM_FFI_COLD_CODE void ThrowBadCount(int32_t num_args) const;
  [[noreturn, gnu::noinline]] TVM_FFI_COLD_CODE void ThrowOddTail(int32_t tail) const;

  static constexpr int32_t kInlineArity = 16;  // bound values on the stack up to this many

  ffi::Function target_;
  const ffi::FunctionObj* target_obj_;
  FCall target_call_;  // what target_obj_->CallPacked would call, chosen once
  const void* sentinel_;
  int32_t arity_;  // the forward's count, beside the other fields it reads
  BindingPlan plan_;
};

void KwFunctionObj::BindAndCall(const TVMFFIAny* raw, int32_t num_args, ffi::Any* result) const {
  if (TVM_FFI_PREDICT_FALSE(num_args < 0)) ThrowBadCount(num_args);
  const KwargsTail tail = SplitKwargsTail(num_args, FindKwargsSentinel(raw, num_args, sentinel_));
  if (TVM_FFI_PREDICT_FALSE(tail.odd)) ThrowOddTail(static_cast<int32_t>(tail.size));
  const auto nargs = static_cast<int32_t>(tail.nargs);  // within num_args
  const auto num_keywords = static_cast<int32_t>(tail.num_keywords);
  // No pointer arithmetic past a call without a tail: the array may be null when empty.
  const TVMFFIAny* pairs = num_keywords ? raw + nargs + 1 : nullptr;
  if (TVM_FFI_PREDICT_FALSE(arity_ > kInlineArity)) {
    CallWide(raw, nargs, pairs, num_keywords, result);
    return;
  }
  TVMFFIAny bound[kInlineArity];
  if (tail.size == 0 && plan_.TakesTrailingDefaults(nargs)) {
    // Trailing defaults left out: nothing to look up.
    const TVMFFIAny* defaults = plan_.default_views();
    for (int32_t i = 0; i < nargs; ++i) CopyAny(&bound[i], &raw[i]);
    for (int32_t i = nargs; i < arity_; ++i) bound[i] = defaults[i];
    target_call_(target_obj_, reinterpret_cast<const ffi::AnyView*>(bound), arity_, result);
    return;
  }
  // Only keyword calls are remembered; a positional call goes straight to FastBind.
  const bool known = plan_.BindKnown(nargs, num_keywords, [&](const KeywordShapes::Shape& shape) {
    return BindShape(shape, raw, pairs, bound);
  });
  if (!known && !FastBind(raw, nargs, pairs, num_keywords, bound)) {
    BindOrThrow(raw, nargs, pairs, num_keywords, bound);
  }
  target_call_(target_obj_, reinterpret_cast<const ffi::AnyView*>(bound), arity_, result);
}

// A call shaped like one that bound before: each keyword must name the parameter it named
// then (one compare), and no value may be the sentinel.
bool KwFunctionObj::BindShape(const KeywordShapes::Shape& shape, const TVMFFIAny* raw,
                              const TVMFFIAny* pairs, TVMFFIAny* bound) const {
  for (int32_t k = 0; k < shape.num_keywords; ++k) {
    NameKey name;
    const int32_t param = shape.params[k];
    if (!NameKey::Read(pairs[2 * k], &name) || !plan_.names().Is(param, name) ||
        IsKwargsSentinel(pairs[2 * k + 1], sentinel_)) {
      return false;
    }
    CopyAny(&bound[param], &pairs[2 * k + 1]);
  }
  for (int32_t i = 0; i < shape.nargs; ++i) CopyAny(&bound[i], &raw[i]);
  const TVMFFIAny* defaults = plan_.default_views();
  for (uint64_t rest = shape.defaults; rest != 0; rest &= rest - 1) {
    const int i = __builtin_ctzll(rest);
    bound[i] = defaults[i];
  }
  return true;
}

// Signatures with more parameters than fit on the stack: bound values on the heap.
void KwFunctionObj::CallWide(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs,
                             int32_t num_keywords, ffi::Any* result) const {
  SmallArray<TVMFFIAny, BindingPlan::kMaxMaskArity> bound(arity_);
  const bool known = plan_.BindKnown(nargs, num_keywords, [&](const KeywordShapes::Shape& shape) {
    return BindShape(shape, raw, pairs, bound.data());
  });
  if (!known && !FastBind(raw, nargs, pairs, num_keywords, bound.data())) {
    BindOrThrow(raw, nargs, pairs, num_keywords, bound.data());
  }
  target_call_(target_obj_, reinterpret_cast<const ffi::AnyView*>(bound.data()), arity_, result);
}

void KwFunctionObj::ThrowBadCount(int32_t num_args) const {
  TVM_FFI_THROW(ValueError) << binding_errors::InvalidArgumentCount(plan_.signature(), num_args);
}

void KwFunctionObj::ThrowOddTail(int32_t tail) const {
  TVM_FFI_THROW(TypeError) << binding_errors::KwargsTailOdd(plan_.signature(), tail);
}

// One pass with a bitmask for calls that bind cleanly; false on anything else (an error, or
// a signature too wide for the mask), which BindOrThrow then handles by the full rules.
bool KwFunctionObj::FastBind(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs,
                             int32_t num_keywords, TVMFFIAny* bound) const {
  if (!plan_.fits_masks() || nargs > plan_.num_positional()) return false;
  uint64_t filled = nargs == 64 ? ~uint64_t{0} : (uint64_t{1} << nargs) - 1;
  for (int32_t i = 0; i < nargs; ++i) CopyAny(&bound[i], &raw[i]);
  KeywordShapes::Shape shape;
  shape.nargs = nargs;
  shape.num_keywords = num_keywords;
  // Keywords name the parameters after the positional arguments, usually in order.
  int32_t hint = nargs;
  const int32_t posonly_count = plan_.posonly_count();
  for (int32_t k = 0; k < num_keywords; ++k) {
    NameKey name;
    if (!NameKey::Read(pairs[2 * k], &name) || IsKwargsSentinel(pairs[2 * k + 1], sentinel_)) {
      return false;
    }
    const int32_t param = plan_.names().Find(name, &hint);
    if (param < posonly_count || ((filled >> param) & 1)) return false;
    CopyAny(&bound[param], &pairs[2 * k + 1]);
    filled |= uint64_t{1} << param;
    if (k < KeywordShapes::kMaxKeywords) shape.params[k] = param;
  }
  if (plan_.required_mask() & ~filled) return false;
  shape.defaults = plan_.all_mask() & ~filled;
  const TVMFFIAny* defaults = plan_.default_views();
  for (uint64_t rest = shape.defaults; rest != 0; rest &= rest - 1) {
    const int i = __builtin_ctzll(rest);
    bound[i] = defaults[i];
  }
  plan_.Remember(shape);
  return true;
}

// CPython's rules in full (binder.h): binds or throws CPython's TypeError.
void KwFunctionObj::BindOrThrow(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs,
                                int32_t num_keywords, TVMFFIAny* bound) const {
  const Signature& sig = plan_.signature();
  SmallArray<NameKey> names(num_keywords);
  int64_t at = 0;
  const TailFault fault = CheckKwargsPairs(
      pairs, num_keywords, [&](const TVMFFIAny& a) { return IsKwargsSentinel(a, sentinel_); },
      // Keys are read as they are checked (`at` is the pair being checked).
      [&](const TVMFFIAny& a) { return NameKey::Read(a, &names[at]); }, &at);
  if (TVM_FFI_PREDICT_FALSE(fault != TailFault::kNone)) {
    const TVMFFIAny& key = pairs[2 * at];
    TVM_FFI_THROW(TypeError) << binding_errors::KwargsPair(
        sig, fault, at, reinterpret_cast<const ffi::AnyView&>(key).GetTypeKey(),
        fault == TailFault::kSentinelAsValue ? names[at].view() : std::string_view());
  }
  SmallArray<int32_t> slots(arity_);
  std::string error;
  if (!BindSlots(sig, nargs, KeywordNames(plan_.names(), names.data(), num_keywords), slots.data(),
                 &error)) {
    TVM_FFI_THROW(TypeError) << error;
  }
  FillBound(slots.data(), arity_, nargs, raw, pairs != nullptr ? pairs + 1 : nullptr, 2,
            plan_.default_views(), bound);
}

}  // namespace

ffi::Function MakeFunction(ffi::Function target, Signature signature) {
  if (target == nullptr) {
    TVM_FFI_THROW(TypeError) << "kwcall::MakeFunction: the target function is null";
  }
  return ffi::Function(ffi::ObjectPtr<ffi::FunctionObj>(
      ffi::make_object<KwFunctionObj>(std::move(target), std::move(signature))));
}

std::optional<Signature> GetSignature(const ffi::Function& f) {
  if (const KwFunctionObj* obj = KwFunctionObj::Cast(f.get())) return obj->plan().signature();
  return std::nullopt;
}

ffi::Optional<ffi::Function> GetTarget(const ffi::Function& f) {
  if (const KwFunctionObj* obj = KwFunctionObj::Cast(f.get())) return obj->target();
  return std::nullopt;
}

const BindingPlan* PlanOf(const ffi::FunctionObj* f) {
  const KwFunctionObj* obj = KwFunctionObj::Cast(f);
  return obj != nullptr ? &obj->plan() : nullptr;
}

}  // namespace kwcall
