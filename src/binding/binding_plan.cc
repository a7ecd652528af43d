// The binding plan of one kwcall function (binding_plan.h).
#include "binding/binding_plan.h"

namespace kwcall {

BindingPlan::BindingPlan(Signature signature)
    : signature_(std::move(signature)),
      arity_(signature_.num_params()),
      num_positional_(signature_.num_positional()),
      posonly_count_(signature_.posonly_count()),
      defaults_from_(arity_),
      call_kind_(signature_.has_unpack()        ? CallKind::kUnpack
                 : signature_.num_kwonly() != 0 ? CallKind::kKeywordOnly
                                                : CallKind::kNative),
      names_(signature_),
      default_views_(arity_) {
  while (defaults_from_ > 0 && signature_.has_default(defaults_from_ - 1)) --defaults_from_;
  for (int32_t i = 0; i < arity_; ++i) {
    // Views into signature_, which this plan keeps alive.
    if (signature_.has_default(i)) {
      default_views_[i] = *reinterpret_cast<const TVMFFIAny*>(&signature_.default_value(i));
    }
    if (i < kMaxMaskArity) {
      all_mask_ |= uint64_t{1} << i;
      if (!signature_.has_default(i)) required_mask_ |= uint64_t{1} << i;
    }
  }
}

}  // namespace kwcall
