// The kwcall._kwcall extension module: checks tvm_ffi.Function's layout and creates
// kwcall.Function.
#include <Python.h>
#include <kwcall/export.h>
#include <kwcall/function.h>

#include "dispatch/blocking_wait.h"
#include "eager_call.h"
#include "ffi_objects.h"
#include "function_type.h"
#include "py_call.h"
#include "scalar_call.h"

namespace kwcall {
namespace python {
namespace {

// _kwcall.derive_type(qualified_name, extra_bases)
PyObject* PyDeriveType(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "derive_type(qualified_name: str, extra_bases: tuple)");
    return nullptr;
  }
  const char* name = PyUnicode_AsUTF8(args[0]);
  return name ? CreateDerivedType(name, args[1]) : nullptr;
}

// _kwcall.error_function(message)
PyObject* PyErrorFunction(PyObject*, PyObject* message) {
  const char* text = PyUnicode_Check(message) ? PyUnicode_AsUTF8(message) : nullptr;
  if (text == nullptr) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "error_function(message: str)");
    return nullptr;
  }
  return NewErrorFunction(text);
}

// _kwcall.make(cls, target, signature, defaults, name, preprocess=None)
PyObject* PyMake(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 5 || nargs > 6 || !PyType_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError,
                    "make(cls: type[kwcall.Function], target, signature: kwcall.Signature, "
                    "defaults: tuple, name: str, preprocess=None)");
    return nullptr;
  }
  return Make(reinterpret_cast<PyTypeObject*>(args[0]), args[1], args[2], args[3], args[4],
              nargs == 6 ? args[5] : nullptr);
}

// A dispatch table's miss waits for another thread's compile, whose compile function is Python:
// a waiting thread attached to the interpreter (holding the GIL, or on a free-threaded build
// attached, where the collector's stop-the-world would wait for it) detaches while it waits.
void WaitDetached(void (*wait)(void*), void* context) {
#if PY_VERSION_HEX >= 0x030D0000
  PyThreadState* attached = PyThreadState_GetUnchecked();
#elif PY_VERSION_HEX >= 0x030C0000
  PyThreadState* attached = _PyThreadState_UncheckedGet();  // this thread's, from 3.12
#else
  // Before 3.12 the unchecked current thread state is the GIL holder's, whichever thread that
  // is: a plain C++ thread would have released another thread's GIL. Ask for this thread's.
  PyThreadState* attached = PyGILState_Check() ? PyGILState_GetThisThreadState() : nullptr;
#endif
  if (attached == nullptr) {
    wait(context);
    return;
  }
  PyThreadState* state = PyEval_SaveThread();
  wait(context);
  PyEval_RestoreThread(state);
}

// _kwcall.eager_call(direct, fallback, tensor_type, mode_checks, grad_enabled, requires_grad,
// tuple_result)
PyObject* PyEagerCall(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return NewEagerCall(args, nargs);
}

template <typename F>
PyCFunction Fast(F f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(f));
}

PyMethodDef kMethods[] = {
    {"derive_type", Fast(PyDeriveType), METH_FASTCALL,
     "Create a type derived from kwcall.Function that keeps its vectorcall."},
    {"make", Fast(PyMake), METH_FASTCALL,
     "Create an instance of a kwcall.Function type, whole: its target, signature, default "
     "objects, name and preprocess step."},
    {"eager_call", Fast(PyEagerCall), METH_FASTCALL,
     "A torch operator's eager call: its direct function in plain eager mode, else the "
     "operator (kwcall.torch.register)."},
    {"error_function", PyErrorFunction, METH_O,
     "A tvm_ffi.Function that raises RuntimeError(message), from Python and C++ callers."},
    {nullptr, nullptr, 0, nullptr}};

// Runs when the module is imported: the process-wide objects on the first import (CPython
// serialises imports), then the module's attributes.
int ExecModule(PyObject* module) {
  if (FunctionType() == nullptr) {
    if (!InitFfiObjects() || !InitScalarCall() || !ProbeStrErrorKept() ||
        CreateFunctionType() == nullptr || CreateEagerCallType() == nullptr) {
      return -1;
    }
    // Binding errors read as the running interpreter's: 3.13 added "Did you mean".
    SetKeywordSuggestions(PY_VERSION_HEX >= 0x030D0000);
    SetBlockingRegion(WaitDetached);
  }
  PyObject* type = reinterpret_cast<PyObject*>(FunctionType());
  Py_INCREF(type);
  if (PyModule_AddObject(module, "Function", type) < 0) {
    Py_DECREF(type);
    return -1;
  }
  if (PyModule_AddStringConstant(module, "__version__", KWCALL_VERSION) < 0) return -1;
  // Compiled in, so that loading exported code needs none of kwcall's headers at run time.
  return PyModule_AddStringConstant(module, "SIGNATURE_FUNCTION_PREFIX",
                                    KWCALL_SIGNATURE_FUNCTION_PREFIX);
}

PyModuleDef_Slot kSlots[] = {
    {Py_mod_exec, reinterpret_cast<void*>(ExecModule)},
#ifdef Py_mod_multiple_interpreters
    // kwcall.Function and the tvm_ffi objects are process-wide, made by the first import.
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
#ifdef Py_mod_gil
    // Free-threaded CPython keeps the GIL off for this module: callers share nothing a call
    // writes, and a function is never changed after it is made (docs/DESIGN.md, "Free-threaded
    // CPython").
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, nullptr}};

PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT, "_kwcall", "kwcall's CPython extension.", 0, kMethods, kSlots};

}  // namespace
}  // namespace python
}  // namespace kwcall

PyMODINIT_FUNC PyInit__kwcall() { return PyModuleDef_Init(&kwcall::python::kModule); }
