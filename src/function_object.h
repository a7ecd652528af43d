// The kwcall function object: a tvm-ffi function that owns a target and what binds its calls
// (binding/function_binding.h: the plan, and the keyword shapes its calls have bound).
// Its C++ entry point is chosen when it is made, from the plan's arity (EntryFor): a
// full-arity call without KWARGS is forwarded untouched; every other call goes through the
// bind pipeline (binding/bind_call.h, through the adapter in packed_call.h).
#ifndef KWCALL_SRC_FUNCTION_OBJECT_H_
#define KWCALL_SRC_FUNCTION_OBJECT_H_

#include <kwcall/signature.h>
#include <kwcall/visibility.h>
#include <tvm/ffi/function.h>

#include <array>
#include <cstdint>
#include <utility>

#include "binding/function_binding.h"

namespace kwcall {

class KwFunctionObj : public ffi::FunctionObj {
 public:
  using FCall = ffi::FunctionObj::FCall;

  KwFunctionObj(ffi::Function target, Signature signature);

  /*! \brief `f` as a kwcall function, or nullptr. */
  static const KwFunctionObj* Cast(const ffi::FunctionObj* f) {
    return f != nullptr && f->safe_call == SafeCall ? static_cast<const KwFunctionObj*>(f)
                                                    : nullptr;
  }

  const ffi::Function& target() const { return target_; }
  const BindingPlan& plan() const { return binding_.plan; }
  /*! \brief The plan and the keyword shapes (both languages' calls learn them). */
  const FunctionBinding& binding() const { return binding_; }

 private:
  static constexpr int32_t kAnyArity = -1;  // Entry reads the arity from the object
  // The C++ entry point (cpp_call): kArity, when not kAnyArity, is the signature's arity, so
  // the forward's scan is unrolled; kWide binds onto the heap.
  template <int32_t kArity, bool kWide>
  static void Entry(const ffi::FunctionObj* func, const ffi::AnyView* args, int32_t num_args,
                    ffi::Any* result);
  static void CallThroughSafeCall(const ffi::FunctionObj* func, const ffi::AnyView* args,
                                  int32_t num_args, ffi::Any* result);
  static int SafeCall(void* func, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result);
  static FCall EntryFor(const BindingPlan& plan);
  // Arities whose forward is unrolled (their scan is as many compares, with no loop).
  static constexpr int32_t kMaxUnrolledArity = 8;
  template <int32_t... kArities>
  static constexpr std::array<FCall, sizeof...(kArities)> UnrolledEntries(
      std::integer_sequence<int32_t, kArities...>);

  template <bool kWide>
  void BindAndCall(const TVMFFIAny* raw, int32_t num_args, ffi::Any* result) const;
  [[noreturn]] void ThrowBadCount(int32_t num_args) const;
  [[noreturn]] void ThrowOddTail(int32_t tail) const;

  ffi::Function target_;
  const ffi::FunctionObj* target_obj_;
  FCall target_call_;  // what target_obj_->CallPacked would call, chosen once
  const void* sentinel_;
  int32_t arity_;  // the forward's count, beside the other fields it reads
  FunctionBinding binding_;
};

/*!
 * \brief `f` as a kwcall function object, else nullptr.
 *
 * The one internal function libkwcall exports: the Python extension binds through the binding
 * (the plan and the shapes) of the C++ function it wraps, and only libkwcall can tell its own
 * function objects apart. No installed header declares it.
 */
KWCALL_API const KwFunctionObj* KwFunctionOf(const ffi::FunctionObj* f);

}  // namespace kwcall

#endif  // KWCALL_SRC_FUNCTION_OBJECT_H_
