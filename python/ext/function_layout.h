// The C layout of a kwcall.Function instance, shared by its type (function_type.cc) and its
// entry points (entry_points.cc).
#ifndef KWCALL_PYTHON_EXT_FUNCTION_LAYOUT_H_
#define KWCALL_PYTHON_EXT_FUNCTION_LAYOUT_H_

#include <Python.h>

#include "base_layout.h"

namespace kwcall {
namespace python {

class BoundFunction;

// An instance: tvm_ffi.Function's fields, then kwcall's. Calls on other threads read them
// while Bind and SetPreprocess write them (shared_fields.h): so nothing a call may have loaded
// is freed before the instance is, and each field is published only once what it points to
// is complete. CPython reads the entry point with a plain load, so it is written only while
// no other thread can have the instance: made (make, copy), or unreachable (tp_clear).
struct KwFunctionLayout {
  BaseLayout base;
  vectorcallfunc vectorcall;  // the entry point (entry_points.h)
  BoundFunction* binding;     // nullptr until bound; then freed only with the instance
  PyObject* preprocess;       // owned; nullptr without a preprocess step
  PyObject* retired_steps;    // owned list of replaced preprocess steps, or nullptr
  void* unbound_handle;       // owned: the handle an instance had before Bind, or nullptr
};

inline KwFunctionLayout& Fields(PyObject* self) {
  return *reinterpret_cast<KwFunctionLayout*>(self);
}

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_FUNCTION_LAYOUT_H_
