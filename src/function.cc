// The kwcall function object: a native forward for full-arity calls, CPython binding for the
// rest.
#include <kwcall/function.h>
#include <kwcall/kwargs.h>
#include <tvm/ffi/error.h>

#include <string>
#include <vector>

#include "binder.h"
#include "keyword_shapes.h"
#include "kwargs_sentinel.h"
#include "param_names.h"
#include "small_array.h"

namespace kwcall {
namespace {

// The keyword names of one call, for BindSlots.
class PackedKeys {
 public:
  PackedKeys(const ParamNames& params, const NameKey* names, int32_t count)
      : params_(params), names_(names), count_(count) {}
  int32_t size() const { return count_; }
  int32_t Find(int32_t k) const { return params_.Find(names_[k], &hint_); }
  std::string_view Text(int32_t k) const { return names_[k].view(); }

 private:
  const ParamNames& params_;
  const NameKey* names_;
  int32_t count_;
  mutable int32_t hint_ = 0;
};

using FCall = ffi::FunctionObj::FCall;

class KwFunctionObj : public ffi::FunctionObj {
 public:
  KwFunctionObj(ffi::Function target, Signature signature)
      : target_(std::move(target)),
        signature_(std::move(signature)),
        target_obj_(target_.get()),
        target_call_(target_obj_->cpp_call ? reinterpret_cast<FCall>(target_obj_->cpp_call)
                                           : CallThroughSafeCall),
        sentinel_(KwargsSentinel().get()),
        arity_(signature_.num_params()),
        num_positional_(signature_.num_positional()),
        posonly_count_(signature_.posonly_count()),
        param_names_(signature_) {
    this->safe_call = SafeCall;
    this->cpp_call = reinterpret_cast<void*>(CppCall);
    default_views_.resize(arity_);
    defaults_from_ = arity_;
    while (defaults_from_ > 0 && signature_.has_default(defaults_from_ - 1)) --defaults_from_;
    for (int32_t i = 0; i < arity_; ++i) {
      // Views into signature_, which this object keeps alive.
      if (signature_.has_default(i)) {
        default_views_[i] = *reinterpret_cast<const TVMFFIAny*>(&signature_.default_value(i));
      }
      if (i < kMaxFastArity) {
        all_mask_ |= uint64_t{1} << i;
        if (!signature_.has_default(i)) required_mask_ |= uint64_t{1} << i;
      }
    }
  }

  /*! \brief `f` as a kwcall function, or nullptr. */
  static const KwFunctionObj* Cast(const ffi::FunctionObj* f) {
    return f != nullptr && f->cpp_call == reinterpret_cast<void*>(CppCall)
               ? static_cast<const KwFunctionObj*>(f)
               : nullptr;
  }

  const ffi::Function& target() const { return target_; }
  const Signature& signature() const { return signature_; }

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

  static constexpr int32_t kMaxFastArity = 64;  // bits in the FastBind masks
  static constexpr int32_t kInlineArity = 16;   // bound values on the stack up to this many

  ffi::Function target_;
  Signature signature_;
  const ffi::FunctionObj* target_obj_;
  FCall target_call_;  // what target_obj_->CallPacked would call, chosen once
  const void* sentinel_;
  int32_t arity_;
  int32_t num_positional_;  // copies of the signature's counts: one load less per call
  int32_t posonly_count_;
  ParamNames param_names_;
  std::vector<TVMFFIAny> default_views_;  // borrowed from signature_'s defaults
  // For FastBind (signatures of at most 64 parameters): bit i is parameter i.
  uint64_t required_mask_ = 0;  // parameters without a default
  uint64_t all_mask_ = 0;
  int32_t defaults_from_;         // parameters from this index on all have defaults
  mutable KeywordShapes shapes_;  // keyword calls that bound, for repeats of their shape
};

void KwFunctionObj::BindAndCall(const TVMFFIAny* raw, int32_t num_args, ffi::Any* result) const {
  if (TVM_FFI_PREDICT_FALSE(num_args < 0)) ThrowBadCount(num_args);
  const int32_t nargs = FindKwargsSentinel(raw, num_args, sentinel_);
  const int32_t tail = nargs < num_args ? num_args - nargs - 1 : 0;
  if (TVM_FFI_PREDICT_FALSE(tail % 2 != 0)) ThrowOddTail(tail);
  // No pointer arithmetic past a call without a tail: the array may be null when empty.
  const TVMFFIAny* pairs = tail ? raw + nargs + 1 : nullptr;
  if (TVM_FFI_PREDICT_FALSE(arity_ > kInlineArity)) {
    CallWide(raw, nargs, pairs, tail / 2, result);
    return;
  }
  TVMFFIAny bound[kInlineArity];
  if (tail == 0 && nargs >= defaults_from_ && nargs <= num_positional_) {
    // Trailing defaults left out: nothing to look up.
    for (int32_t i = 0; i < nargs; ++i) CopyAny(&bound[i], &raw[i]);
    for (int32_t i = nargs; i < arity_; ++i) bound[i] = default_views_[i];
    target_call_(target_obj_, reinterpret_cast<const ffi::AnyView*>(bound), arity_, result);
    return;
  }
  const int32_t num_keywords = tail / 2;
  // Only keyword calls are remembered; a positional call goes straight to FastBind.
  const bool known = num_keywords > 0 &&
                     shapes_.BindKnown(nargs, num_keywords, [&](const KeywordShapes::Shape& shape) {
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
    if (!NameKey::Read(pairs[2 * k], &name) || !param_names_.Is(param, name) ||
        IsKwargsSentinel(pairs[2 * k + 1], sentinel_)) {
      return false;
    }
    CopyAny(&bound[param], &pairs[2 * k + 1]);
  }
  for (int32_t i = 0; i < shape.nargs; ++i) CopyAny(&bound[i], &raw[i]);
  for (uint64_t rest = shape.defaults; rest != 0; rest &= rest - 1) {
    const int i = __builtin_ctzll(rest);
    bound[i] = default_views_[i];
  }
  return true;
}

// Signatures with more parameters than fit on the stack: bound values on the heap.
void KwFunctionObj::CallWide(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs,
                             int32_t num_keywords, ffi::Any* result) const {
  SmallArray<TVMFFIAny, kMaxFastArity> bound(arity_);
  if (!FastBind(raw, nargs, pairs, num_keywords, bound.data())) {
    BindOrThrow(raw, nargs, pairs, num_keywords, bound.data());
  }
  target_call_(target_obj_, reinterpret_cast<const ffi::AnyView*>(bound.data()), arity_, result);
}

void KwFunctionObj::ThrowBadCount(int32_t num_args) const {
  TVM_FFI_THROW(ValueError) << signature_.name() << "(): invalid argument count " << num_args;
}

void KwFunctionObj::ThrowOddTail(int32_t tail) const {
  TVM_FFI_THROW(TypeError) << binder_detail::KwargsTailOdd(signature_, tail);
}

// One pass with a bitmask for calls that bind cleanly; false on anything else (an error, or
// a signature too wide for the mask), which BindOrThrow then handles by the full rules.
bool KwFunctionObj::FastBind(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs,
                             int32_t num_keywords, TVMFFIAny* bound) const {
  if (arity_ > kMaxFastArity || nargs > num_positional_) return false;
  uint64_t filled = nargs == 64 ? ~uint64_t{0} : (uint64_t{1} << nargs) - 1;
  for (int32_t i = 0; i < nargs; ++i) CopyAny(&bound[i], &raw[i]);
  KeywordShapes::Shape shape;
  shape.nargs = nargs;
  shape.num_keywords = num_keywords;
  // Keywords name the parameters after the positional arguments, usually in order.
  int32_t hint = nargs;
  for (int32_t k = 0; k < num_keywords; ++k) {
    NameKey name;
    if (!NameKey::Read(pairs[2 * k], &name) || IsKwargsSentinel(pairs[2 * k + 1], sentinel_)) {
      return false;
    }
    const int32_t param = param_names_.Find(name, &hint);
    if (param < posonly_count_ || ((filled >> param) & 1)) return false;
    CopyAny(&bound[param], &pairs[2 * k + 1]);
    filled |= uint64_t{1} << param;
    if (k < KeywordShapes::kMaxKeywords) shape.params[k] = param;
  }
  if (required_mask_ & ~filled) return false;
  shape.defaults = all_mask_ & ~filled;
  for (uint64_t rest = shape.defaults; rest != 0; rest &= rest - 1) {
    const int i = __builtin_ctzll(rest);
    bound[i] = default_views_[i];
  }
  if (num_keywords > 0 && num_keywords <= KeywordShapes::kMaxKeywords && arity_ <= kInlineArity) {
    shapes_.Remember(shape);
  }
  return true;
}

// CPython's rules in full (binder.h): binds or throws CPython's TypeError.
void KwFunctionObj::BindOrThrow(const TVMFFIAny* raw, int32_t nargs, const TVMFFIAny* pairs,
                                int32_t num_keywords, TVMFFIAny* bound) const {
  SmallArray<NameKey> names(num_keywords);
  for (int32_t k = 0; k < num_keywords; ++k) {
    const TVMFFIAny& key = pairs[2 * k];
    if (TVM_FFI_PREDICT_FALSE(!NameKey::Read(key, &names[k]))) {
      if (IsKwargsSentinel(key, sentinel_)) {
        TVM_FFI_THROW(TypeError) << binder_detail::KwargsSentinelTwice(signature_);
      }
      TVM_FFI_THROW(TypeError) << binder_detail::KwargsKeyNotString(
          signature_, k, reinterpret_cast<const ffi::AnyView&>(key).GetTypeKey());
    }
    if (TVM_FFI_PREDICT_FALSE(IsKwargsSentinel(pairs[2 * k + 1], sentinel_))) {
      TVM_FFI_THROW(TypeError) << binder_detail::KwargsSentinelAsValue(signature_, names[k].view());
    }
  }
  SmallArray<int32_t> slots(arity_);
  std::string error;
  if (!BindSlots(signature_, nargs, PackedKeys(param_names_, names.data(), num_keywords),
                 slots.data(), &error)) {
    TVM_FFI_THROW(TypeError) << error;
  }
  FillBound(slots.data(), arity_, nargs, raw, pairs != nullptr ? pairs + 1 : nullptr, 2,
            default_views_.data(), bound);
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
  if (const KwFunctionObj* obj = KwFunctionObj::Cast(f.get())) return obj->signature();
  return std::nullopt;
}

ffi::Optional<ffi::Function> GetTarget(const ffi::Function& f) {
  if (const KwFunctionObj* obj = KwFunctionObj::Cast(f.get())) return obj->target();
  return std::nullopt;
}

}  // namespace kwcall
