// kwcall::CallSite (call_site.h): a keyword call shape bound once, by the same binder and with
// the same errors as a KWARGS call of that shape.
#include <kwcall/call_site.h>
#include <kwcall/function.h>
#include <tvm/ffi/error.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "binding/binder.h"
#include "binding/binding_plan.h"
#include "binding/param_names.h"
#include "function_object.h"

namespace kwcall {
namespace {

// The target of `f`, which must be a kwcall function.
ffi::Function TargetOf(const ffi::Function& f) {
  if (f == nullptr) TVM_FFI_THROW(TypeError) << "kwcall::CallSite: the function is null";
  ffi::Optional<ffi::Function> target = GetTarget(f);
  if (!target.has_value()) {
    TVM_FFI_THROW(TypeError)
        << "kwcall::CallSite: the function is not a kwcall function, so it has no signature to "
           "bind keywords to (make one with kwcall::MakeFunction or kwcall::LoadFunction, or "
           "call a plain tvm-ffi function positionally)";
  }
  return *target;
}

}  // namespace

CallSite::CallSite(ffi::Function f, int32_t num_positional, std::vector<std::string> keywords)
    : target_(TargetOf(f)),
      signature_(*GetSignature(f)),
      num_in_order_(-1),
      num_values_(0),
      arity_(signature_.num_params()),
      num_positional_(num_positional),
      keywords_(std::move(keywords)) {
  const BindingPlan& plan = KwFunctionOf(f.get())->plan();
  if (num_positional < 0) {
    TVM_FFI_THROW(ValueError) << "kwcall::CallSite for " << signature_.name()
                              << "(): the number of positional values must be 0 or more, got "
                              << num_positional;
  }
  // A KWARGS tail holds at most this many pairs; the binder counts keywords in int32.
  if (keywords_.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max() / 2)) {
    TVM_FFI_THROW(ValueError) << "kwcall::CallSite for " << signature_.name()
                              << "(): " << keywords_.size()
                              << " keywords are more than a call can pass";
  }
  const auto num_keywords = static_cast<int32_t>(keywords_.size());
  std::vector<NameKey> names;
  names.reserve(keywords_.size());
  for (const std::string& keyword : keywords_) names.emplace_back(keyword);
  std::vector<Slot> slots(arity_, SlotMark::kUnbound);
  std::string error;
  if (!BindSlots(signature_, num_positional, KeywordNames(plan.names(), names.data(), num_keywords),
                 slots.data(), &error)) {
    TVM_FFI_THROW(TypeError) << error;
  }
  // Bound: every value fills one parameter, so there are at most arity_ of them.
  num_values_ = num_positional + num_keywords;
  param_of_value_.resize(num_values_);
  bool in_order = arity_ <= kInlineArity;
  for (int32_t i = 0; i < arity_; ++i) {
    if (slots[i].is(SlotMark::kDefault)) {
      defaults_.push_back(Default{i, plan.default_views()[i]});
    } else {
      param_of_value_[slots[i].index()] = i;
      in_order = in_order && slots[i].index() == i;
    }
  }
  // Value v fills parameter v for every value: the call writes them as a direct call would.
  if (in_order) num_in_order_ = num_values_;
}

void CallSite::ThrowValueCount(int32_t given) const {
  std::ostringstream shape;
  shape << num_positional_ << " positional";
  if (!keywords_.empty()) {
    shape << ", then";
    for (size_t k = 0; k < keywords_.size(); ++k) {
      shape << (k ? ", '" : " '") << keywords_[k] << "'";
    }
  }
  TVM_FFI_THROW(TypeError) << "kwcall::CallSite for " << signature_.name() << "() takes "
                           << num_values_ << (num_values_ == 1 ? " value" : " values") << " ("
                           << shape.str() << "), but " << given << (given == 1 ? " was" : " were")
                           << " given";
}

}  // namespace kwcall
