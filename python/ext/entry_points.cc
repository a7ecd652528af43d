// kwcall.Function's late entry point. An instance bound before anyone else has it (make,
// copy) and never given a preprocess step calls its binding's entry point (bound_function.h),
// chosen once. One made unbound (new_unbound: bound and given its step later, while other threads
// may call it) calls CallLate, which reads its state on every call.
#include "entry_points.h"

#include <tvm/ffi/function.h>

#include "binding/small_array.h"
#include "bound_function.h"
#include "ffi_objects.h"
#include "function_layout.h"
#include "shared_fields.h"

namespace kwcall {
namespace python {
namespace {

// Raises the unbound instance's message: calls the handle it had before any Bind. A Bind on
// another thread publishes unbound_handle before the new handle, so a call that reads the new
// handle finds the old one there.
PyObject* CallUnbound(PyObject* self, PyObject* const*, size_t, PyObject*) {
  void* handle = LoadAcquire(&ChandleOf(self));
  if (void* before = LoadAcquire(&Fields(self).unbound_handle)) handle = before;
  PyObject* fn = NewFfiFunction(handle);
  PyObject* empty = fn ? PyTuple_New(0) : nullptr;
  PyObject* result = empty ? FfiObjects().function_call(fn, empty, nullptr) : nullptr;
  Py_XDECREF(empty);
  Py_XDECREF(fn);
  return result;
}

// With a preprocess step: (args, kwargs) go through `step` as a tuple and a dict, and what it
// returns is bound as usual.
PyObject* CallPreprocessed(PyObject* self, const BoundFunction* binding, PyObject* step,
                           PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  PyObject* pos = PyTuple_New(nargs);
  PyObject* kw = PyDict_New();
  PyObject* out = nullptr;
  if (pos != nullptr && kw != nullptr) {
    bool ok = true;
    for (Py_ssize_t i = 0; i < nargs; ++i) {
      Py_INCREF(args[i]);
      PyTuple_SET_ITEM(pos, i, args[i]);
    }
    const Py_ssize_t num_kw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; ok && k < num_kw; ++k) {
      ok = PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) == 0;
    }
    if (ok) out = PyObject_CallFunctionObjArgs(step, pos, kw, nullptr);
  }
  Py_XDECREF(pos);
  Py_XDECREF(kw);
  if (out == nullptr) return nullptr;

  PyObject* new_pos = nullptr;
  PyObject* new_kw = nullptr;
  if (PyTuple_Check(out) && PyTuple_GET_SIZE(out) == 2 && PyDict_Check(PyTuple_GET_ITEM(out, 1))) {
    new_kw = PyTuple_GET_ITEM(out, 1);
    new_pos = PySequence_Tuple(PyTuple_GET_ITEM(out, 0));
  } else {
    PyErr_SetString(PyExc_TypeError, "the preprocess step must return (args, kwargs)");
  }
  if (new_pos == nullptr) {
    Py_DECREF(out);
    return nullptr;
  }
  const Py_ssize_t n = PyTuple_GET_SIZE(new_pos);
  const Py_ssize_t m = PyDict_GET_SIZE(new_kw);
  SmallArray<PyObject*> stack(static_cast<int32_t>(n + m));
  for (Py_ssize_t i = 0; i < n; ++i) stack[i] = PyTuple_GET_ITEM(new_pos, i);
  PyObject* names = m ? PyTuple_New(m) : nullptr;
  PyObject* result = nullptr;
  if (m == 0 || names != nullptr) {
    Py_ssize_t cursor = 0, k = 0;
    PyObject *key, *value;
    bool ok = true;
    while (ok && PyDict_Next(new_kw, &cursor, &key, &value)) {
      if (!PyUnicode_Check(key)) {
        PyErr_SetString(PyExc_TypeError, "keywords must be strings");  // CPython's text
        ok = false;
        break;
      }
      Py_INCREF(key);
      PyTuple_SET_ITEM(names, k, key);
      stack[static_cast<int32_t>(n + k++)] = value;
    }
    if (ok) result = binding->Call(self, stack.data(), n, names);
  }
  Py_XDECREF(names);
  Py_DECREF(new_pos);
  Py_DECREF(out);  // owns new_kw and its values
  return result;
}

}  // namespace

// An instance bound later, while other threads may call it: its state as it is now. A call
// that sees no binding yet runs as the unbound call it is ordered before; a step replaced
// meanwhile stays alive (retired_steps).
PyObject* CallLate(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const BoundFunction* b = LoadAcquire(&Fields(self).binding);
  if (b == nullptr) return CallUnbound(self, args, nargsf, kwnames);
  if (PyObject* step = LoadAcquire(&Fields(self).preprocess)) {
    return CallPreprocessed(self, b, step, args, nargsf, kwnames);
  }
  return b->entry_point()(self, args, nargsf, kwnames);
}

}  // namespace python
}  // namespace kwcall
