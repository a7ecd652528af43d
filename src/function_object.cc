// The kwcall function object (function_object.h): its entry points, which split a packed
// call at its KWARGS tail and hand it to the bind pipeline (binding/bind_call.h, through
// packed_call.h), and the public functions that make and inspect it.
#include "function_object.h"

#include <kwcall/function.h>
#include <kwcall/kwargs.h>
#include <tvm/ffi/error.h>

#include <array>
#include <utility>

#include "binding/bind_call.h"
#include "binding/binding_errors.h"
#include "binding/binding_plan.h"
#include "binding/kwargs_tail.h"
#include "binding/small_array.h"
#include "packed_call.h"

namespace kwcall {

KwFunctionObj::KwFunctionObj(ffi::Function target, Signature signature)
    : target_(std::move(target)),
      target_obj_(target_.get()),
      target_call_(target_obj_->cpp_call ? reinterpret_cast<FCall>(target_obj_->cpp_call)
                                         : CallThroughSafeCall),
      sentinel_(KwargsSentinel().get()),
      arity_(signature.num_params()),
      binding_(std::move(signature)) {
  this->safe_call = SafeCall;
  this->cpp_call = reinterpret_cast<void*>(EntryFor(binding_.plan));
}

// The forwards unrolled for the arities 0 to kMaxUnrolledArity, by arity.
template <int32_t... kArities>
constexpr std::array<KwFunctionObj::FCall, sizeof...(kArities)> KwFunctionObj::UnrolledEntries(
    std::integer_sequence<int32_t, kArities...>) {
  return {Entry<kArities, false>...};
}

// The entry point, fixed by the signature: a forward unrolled for the arity when it is small,
// and bound values in a stack array of kStackArity or (wider) of kMaxMaskArity values.
KwFunctionObj::FCall KwFunctionObj::EntryFor(const BindingPlan& plan) {
  if (plan.wide()) return Entry<kAnyArity, true>;
  if (plan.arity() > kMaxUnrolledArity) return Entry<kAnyArity, false>;
  return UnrolledEntries(
      std::make_integer_sequence<int32_t, kMaxUnrolledArity + 1>())[plan.arity()];
}

// The hot path: a full-arity call without KWARGS is forwarded untouched, as a leaf that
// tail-calls the target; everything else binds out of line.
template <int32_t kArity, bool kWide>
void KwFunctionObj::Entry(const ffi::FunctionObj* func, const ffi::AnyView* args, int32_t num_args,
                          ffi::Any* result) {
  const auto* self = static_cast<const KwFunctionObj*>(func);
  const auto* raw = reinterpret_cast<const TVMFFIAny*>(args);
  const void* sentinel = self->sentinel_;
  const int32_t arity = kArity == kAnyArity ? self->arity_ : kArity;
  if (TVM_FFI_PREDICT_TRUE(ForwardsAsIs(raw, num_args, arity, [sentinel](const TVMFFIAny& a) {
        return IsKwargsSentinel(a, sentinel);
      }))) {
    self->target_call_(self->target_obj_, args, num_args, result);
    return;
  }
  self->BindAndCall<kWide>(raw, num_args, result);
}

// How FunctionObj::CallPacked calls a target that has no C++ entry point (a C-ABI
// function, such as CuTeDSL's): through safe_call, rethrowing its error.
void KwFunctionObj::CallThroughSafeCall(const ffi::FunctionObj* func, const ffi::AnyView* args,
                                        int32_t num_args, ffi::Any* result) {
  TVM_FFI_CHECK_SAFE_CALL(func->safe_call(const_cast<ffi::FunctionObj*>(func),
                                          reinterpret_cast<const TVMFFIAny*>(args), num_args,
                                          reinterpret_cast<TVMFFIAny*>(result)));
}

int KwFunctionObj::SafeCall(void* func, const TVMFFIAny* args, int32_t num_args,
                            TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  const auto* self = static_cast<const KwFunctionObj*>(func);
  reinterpret_cast<FCall>(self->cpp_call)(self, reinterpret_cast<const ffi::AnyView*>(args),
                                          num_args, reinterpret_cast<ffi::Any*>(result));
  TVM_FFI_SAFE_CALL_END();
}

// Every call that is not forwarded: split at the KWARGS tail, bound by the pipeline.
template <bool kWide>
[[gnu::noinline]] void KwFunctionObj::BindAndCall(const TVMFFIAny* raw, int32_t num_args,
                                                  ffi::Any* result) const {
  if (TVM_FFI_PREDICT_FALSE(num_args < 0)) ThrowBadCount(num_args);
  const KwargsTail tail = SplitKwargsTail(num_args, FindKwargsSentinel(raw, num_args, sentinel_));
  if (TVM_FFI_PREDICT_FALSE(tail.odd)) ThrowOddTail(static_cast<int32_t>(tail.size));
  const auto nargs = static_cast<int32_t>(tail.nargs);  // within num_args
  const auto num_keywords = static_cast<int32_t>(tail.num_keywords);
  // No pointer arithmetic past a call without a tail: the array may be null when empty.
  const TVMFFIAny* pairs = num_keywords ? raw + nargs + 1 : nullptr;
  const PackedCall call(binding_.plan, raw, nargs, pairs, num_keywords, sentinel_);
  if constexpr (kWide) {
    SmallArray<TVMFFIAny, BindingPlan::kMaxMaskArity> bound(arity_);
    BindCall(binding_, call, bound.data());
    target_call_(target_obj_, reinterpret_cast<const ffi::AnyView*>(bound.data()), arity_, result);
  } else {
    TVMFFIAny bound[BindingPlan::kStackArity];
    BindCall(binding_, call, bound);
    target_call_(target_obj_, reinterpret_cast<const ffi::AnyView*>(bound), arity_, result);
  }
}

void KwFunctionObj::ThrowBadCount(int32_t num_args) const {
  TVM_FFI_THROW(ValueError) << binding_errors::InvalidArgumentCount(binding_.plan.signature(),
                                                                    num_args);
}

void KwFunctionObj::ThrowOddTail(int32_t tail) const {
  TVM_FFI_THROW(TypeError) << binding_errors::KwargsTailOdd(binding_.plan.signature(), tail);
}

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

const KwFunctionObj* KwFunctionOf(const ffi::FunctionObj* f) { return KwFunctionObj::Cast(f); }

}  // namespace kwcall
