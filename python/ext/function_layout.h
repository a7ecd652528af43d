// The C layout of a kwcall.Function instance, shared by its type (function_type.cc) and its
// entry points (entry_points.cc).
#ifndef KWCALL_PYTHON_EXT_FUNCTION_LAYOUT_H_
#define KWCALL_PYTHON_EXT_FUNCTION_LAYOUT_H_

#include <Python.h>

#include "base_layout.h"

namespace kwcall {
namespace python {

class PyBinder;

// An instance: tvm_ffi.Function's fields, then kwcall's. Both are written once, when the
// instance is made (function_type.cc: Make, Copy), before any other thread can have it, and
// never after: calls read them with plain loads, and nothing needs publishing.
struct KwFunctionLayout {
  BaseLayout base;
  vectorcallfunc vectorcall;  // the entry point (entry_points.h, EntryPointFor)
  PyBinder* binder;           // owned; freed with the instance
  PyObject* weakrefs;         // the weak references' list (tvm_ffi.Function has no slot)
};

inline KwFunctionLayout& Fields(PyObject* self) {
  return *reinterpret_cast<KwFunctionLayout*>(self);
}

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_FUNCTION_LAYOUT_H_
