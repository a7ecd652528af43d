// The binding plan of one kwcall function (binding_plan.h).
#include "binding/binding_plan.h"

#include "binding/index_or.h"

namespace kwcall {

BindingPlan::BindingPlan(Signature signature)
    : signature_(std::move(signature)),
      arity_(signature_.num_params()),
      num_positional_(signature_.num_positional()),
      posonly_count_(signature_.posonly_count()),
      defaults_from_(arity_),
      call_kind_(signature_.has_unpack()        ? CallKind::kUnpack
                 : signature_.num_kwonly() != 0 ? CallKind::kBind
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

void BindingPlan::RememberSlots(const Slot* slots, int32_t nargs, int32_t num_keywords) const {
  if (!Remembers(num_keywords)) return;
  KeywordShapes::Shape shape;
  shape.nargs = nargs;
  shape.num_keywords = num_keywords;
  for (int32_t i = 0; i < arity_; ++i) {
    if (slots[i].is(SlotMark::kDefault)) {
      shape.defaults |= uint64_t{1} << i;
    } else if (slots[i].index() >= nargs) {
      shape.params[slots[i].index() - nargs] = i;
    }
  }
  shapes_.Remember(shape);
}

}  // namespace kwcall
