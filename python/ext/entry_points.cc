// kwcall.Function's entry points. Each reads the instance's binder, made with the instance and
// never changed, and calls it; which one an instance has is chosen once, by EntryPointFor.
#include "entry_points.h"

#include <tvm/ffi/function.h>

#include "binding/small_array.h"
#include "critical_section.h"
#include "function_layout.h"

namespace kwcall {
namespace python {
namespace {

// One per call kind (binding_plan.h), the bind pipeline inlined: the native one forwards a
// full-arity positional call without looking at anything but the arguments.
template <CallKind kKind>
PyObject* Entry(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const PyBinder& b = *Fields(self).binder;
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if constexpr (kKind == CallKind::kNative) {
    if (TVM_FFI_PREDICT_TRUE(kwnames == nullptr && b.ForwardsAsIs(args, nargs))) {
      return b.CallTarget(args, nargs);
    }
  }
  return b.BindAndCall<kKind == CallKind::kUnpack>(self, args, nargs, kwnames);
}

// (args, kwargs) as a tuple and a dict, passed through `step`: a new reference to what it
// returned, checked to be (args, kwargs), or nullptr with an exception set.
PyObject* RunStep(PyObject* step, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* pos = PyTuple_New(nargs);
  PyObject* kw = PyDict_New();
  PyObject* out = nullptr;
  if (pos != nullptr && kw != nullptr) {
    bool ok = true;
    for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(pos, i, Py_NewRef(args[i]));
    const Py_ssize_t num_kw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; ok && k < num_kw; ++k) {
      ok = PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) == 0;
    }
    if (ok) out = PyObject_CallFunctionObjArgs(step, pos, kw, nullptr);
  }
  Py_XDECREF(pos);
  Py_XDECREF(kw);
  if (out != nullptr && !(PyTuple_Check(out) && PyTuple_GET_SIZE(out) == 2 &&
                          PyDict_Check(PyTuple_GET_ITEM(out, 1)))) {
    PyErr_SetString(PyExc_TypeError, "the preprocess step must return (args, kwargs)");
    Py_CLEAR(out);
  }
  return out;
}

// With a preprocess step: the call's (args, kwargs) go through it, and what it returns is bound
// as any call. The keywords are copied out of the step's dict under its lock, into tuples that
// hold references of their own: binding may run Python code (a str subclass's __eq__) that
// changes the dict, and another thread may change a dict the step shares, but no value the
// call binds is freed before the call returns.
PyObject* Preprocessed(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const PyBinder& b = *Fields(self).binder;
  PyObject* out = RunStep(b.preprocess(), args, PyVectorcall_NARGS(nargsf), kwnames);
  if (out == nullptr) return nullptr;
  PyObject* pos = PySequence_Tuple(PyTuple_GET_ITEM(out, 0));
  PyObject* kw = PyTuple_GET_ITEM(out, 1);
  PyObject* names = nullptr;
  PyObject* values = nullptr;
  bool ok = pos != nullptr;
  if (ok) {
    KWCALL_BEGIN_CRITICAL_SECTION(kw);
    const Py_ssize_t m = PyDict_GET_SIZE(kw);
    names = PyTuple_New(m);
    values = PyTuple_New(m);
    ok = names != nullptr && values != nullptr;
    Py_ssize_t cursor = 0, k = 0;
    PyObject *key, *value;
    while (ok && PyDict_Next(kw, &cursor, &key, &value)) {
      if (!PyUnicode_Check(key)) {
        PyErr_SetString(PyExc_TypeError, "keywords must be strings");  // CPython's text
        ok = false;
        continue;
      }
      PyTuple_SET_ITEM(names, k, Py_NewRef(key));
      PyTuple_SET_ITEM(values, k++, Py_NewRef(value));
    }
    KWCALL_END_CRITICAL_SECTION();
  }
  PyObject* result = nullptr;
  if (ok) {
    const Py_ssize_t n = PyTuple_GET_SIZE(pos);
    const Py_ssize_t m = PyTuple_GET_SIZE(values);
    SmallArray<PyObject*> stack(static_cast<int32_t>(n + m));
    for (Py_ssize_t i = 0; i < n; ++i) stack[static_cast<int32_t>(i)] = PyTuple_GET_ITEM(pos, i);
    for (Py_ssize_t k = 0; k < m; ++k) {
      stack[static_cast<int32_t>(n + k)] = PyTuple_GET_ITEM(values, k);
    }
    result = b.Call(self, stack.data(), n, m ? names : nullptr);
  }
  Py_XDECREF(names);
  Py_XDECREF(values);
  Py_XDECREF(pos);
  Py_DECREF(out);
  return result;
}

}  // namespace

vectorcallfunc EntryPointFor(const PyBinder& binder) {
  if (binder.preprocess() != nullptr) return Preprocessed;  // then bound by the call kind
  switch (binder.plan().call_kind()) {
    case CallKind::kNative:
      return Entry<CallKind::kNative>;
    case CallKind::kBind:
      return Entry<CallKind::kBind>;
    case CallKind::kUnpack:
      return Entry<CallKind::kUnpack>;
  }
  return Entry<CallKind::kBind>;  // every kind is listed above
}

}  // namespace python
}  // namespace kwcall
