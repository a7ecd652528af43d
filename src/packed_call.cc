// The full rules for a packed C++ call (packed_call.h): off the bind pipeline's fast steps,
// and where every packed call's TypeError is thrown from.
#include "packed_call.h"

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>

#include <string>

#include "binding/binder.h"
#include "binding/binding_errors.h"
#include "binding/kwargs_tail.h"
#include "binding/small_array.h"

namespace kwcall {

bool PackedCall::BindFull(TVMFFIAny* bound) const {
  const Signature& sig = plan_.signature();
  SmallArray<NameKey> names(num_keywords_);
  int64_t at = 0;
  const TailFault fault = CheckKwargsPairs(
      pairs_, num_keywords_, [&](const TVMFFIAny& a) { return IsKwargsSentinel(a, sentinel_); },
      // Keys are read as they are checked (`at` is the pair being checked).
      [&](const TVMFFIAny& a) { return NameKey::Read(a, &names[at]); }, &at);
  if (TVM_FFI_PREDICT_FALSE(fault != TailFault::kNone)) {
    const TVMFFIAny& key = pairs_[2 * at];
    TVM_FFI_THROW(TypeError) << binding_errors::KwargsPair(
        sig, fault, at, reinterpret_cast<const ffi::AnyView&>(key).GetTypeKey(),
        fault == TailFault::kSentinelAsValue ? names[at].view() : std::string_view());
  }
  const int32_t arity = plan_.arity();
  SmallArray<Slot> slots(arity);
  std::string error;
  if (!BindSlots(sig, nargs_, KeywordNames(plan_.names(), names.data(), num_keywords_),
                 slots.data(), &error)) {
    TVM_FFI_THROW(TypeError) << error;
  }
  FillBound(slots.data(), arity, nargs_, raw_, pairs_ != nullptr ? pairs_ + 1 : nullptr, 2,
            plan_.default_views(), bound);
  return true;
}

}  // namespace kwcall
