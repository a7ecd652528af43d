// What the bind pipeline binds one function's calls with: its plan, made with the function and
// never changed after (binding_plan.h), and the keyword shapes its calls have bound, which
// change as calls run (keyword_shapes.h). The C++ function object owns one
// (function_object.h); a kwcall.Function reaches it through the C++ function it wraps, so both
// languages bind with the same plan and learn the same shapes.
#ifndef KWCALL_SRC_BINDING_FUNCTION_BINDING_H_
#define KWCALL_SRC_BINDING_FUNCTION_BINDING_H_

#include <kwcall/signature.h>

#include <utility>

#include "binding/binding_plan.h"
#include "binding/keyword_shapes.h"

namespace kwcall {

struct FunctionBinding {
  explicit FunctionBinding(Signature signature)
      : plan(std::move(signature)), shapes(plan.fits_masks()) {}
  FunctionBinding(const FunctionBinding&) = delete;
  FunctionBinding& operator=(const FunctionBinding&) = delete;

  const BindingPlan plan;
  mutable KeywordShapes shapes;  // read lock-free; see keyword_shapes.h
};

}  // namespace kwcall

#endif  // KWCALL_SRC_BINDING_FUNCTION_BINDING_H_
