// The full rules for a Python call (py_call_keys.h): BindSlots (binder.h) over its keys
// (PyKeys, py_keys.h), and the TypeError set when it does not bind.
#include "py_call_keys.h"

#include <string>

#include "binding/binder.h"
#include "binding/binding_errors.h"
#include "binding/small_array.h"
#include "py_keys.h"

namespace kwcall {
namespace python {

bool PyCall::BindFull(PyObject** bound) const {
  const BindingPlan& plan = binder_.plan();
  if (num_keywords_ > INT32_MAX) {
    SetTypeError(
        binding_errors::TooManyToBind(plan.signature(), num_keywords_, "keyword arguments"));
    return false;
  }
  const int32_t arity = plan.arity();
  SmallArray<Slot> slots(arity);
  std::string error;
  if (!BindSlots(plan.signature(), nargs_, PyKeys(kwnames_, binder_.names_, plan), slots.data(),
                 &error)) {
    if (!PyErr_Occurred()) SetTypeError(error);
    return false;
  }
  const int32_t n = static_cast<int32_t>(nargs_);  // bound: at most the signature's size
  plan.RememberSlots(slots.data(), n, static_cast<int32_t>(num_keywords_));
  FillBound(slots.data(), arity, n, args_, args_ + nargs_, 1, defaults(), bound);
  return true;
}

}  // namespace python
}  // namespace kwcall
