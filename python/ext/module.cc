// The kwcall._kwcall extension module: checks tvm_ffi.Function's layout and creates
// kwcall.Function.
#include <Python.h>

#include "base_layout.h"
#include "function_type.h"

namespace kwcall {
namespace python {
namespace {

PyObject* g_function_type = nullptr;

// _kwcall.new_function(cls, handle, target, signature, defaults, unpack_fn)
PyObject* PyNewFunction(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 6 || !PyType_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError,
                    "new_function(cls, handle, target, signature, defaults, unpack_fn)");
    return nullptr;
  }
  return NewFunction(reinterpret_cast<PyTypeObject*>(args[0]), args[1], args[2], args[3], args[4],
                     args[5]);
}

// _kwcall.derive_type(qualified_name, extra_bases)
PyObject* PyDeriveType(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "derive_type(qualified_name: str, extra_bases: tuple)");
    return nullptr;
  }
  return CreateDerivedType(PyUnicode_AsUTF8(args[0]), args[1]);
}

// _kwcall.new_unbound(cls)
PyObject* PyNewUnbound(PyObject*, PyObject* cls) {
  if (!PyType_Check(cls)) {
    PyErr_SetString(PyExc_TypeError, "new_unbound(cls: type)");
    return nullptr;
  }
  return NewUnbound(reinterpret_cast<PyTypeObject*>(cls));
}

// _kwcall.bind(fn, handle, target, signature, defaults, unpack_fn)
PyObject* PyBind(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 6) {
    PyErr_SetString(PyExc_TypeError, "bind(fn, handle, target, signature, defaults, unpack_fn)");
    return nullptr;
  }
  if (Bind(args[0], args[1], args[2], args[3], args[4], args[5]) < 0) return nullptr;
  Py_RETURN_NONE;
}

// _kwcall.set_preprocess(fn, preprocess)
PyObject* PySetPreprocess(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "set_preprocess(fn, preprocess)");
    return nullptr;
  }
  if (SetPreprocess(args[0], args[1]) < 0) return nullptr;
  Py_RETURN_NONE;
}

PyMethodDef kMethods[] = {
    {"set_preprocess", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(PySetPreprocess)),
     METH_FASTCALL, "Pass each call's (args, kwargs) through a Python step before binding."},
    {"new_unbound", PyNewUnbound, METH_O,
     "Create an instance of a kwcall.Function type with no target yet."},
    {"bind", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(PyBind)), METH_FASTCALL,
     "Bind an instance made by new_unbound to a C++ kwcall function handle."},
    {"new_function", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(PyNewFunction)),
     METH_FASTCALL, "Create a kwcall.Function around a C++ kwcall function handle."},
    {"derive_type", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(PyDeriveType)),
     METH_FASTCALL, "Create a type derived from kwcall.Function that keeps its vectorcall."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "_kwcall", "kwcall's CPython extension.", -1,
                       kMethods};

// Creates the type once, after checking the layout it depends on.
PyObject* InitFunctionType() {
  PyObject* core = PyImport_ImportModule("tvm_ffi.core");
  if (core == nullptr) return nullptr;
  PyObject* base = PyObject_GetAttrString(core, "Function");
  PyObject* sentinel = PyObject_GetAttrString(core, "KWARGS");
  PyObject* probe = PyObject_CallMethod(core, "_get_global_func", "si", "ffi.GetKwargsObject", 0);
  PyObject* convertible = PyObject_GetAttrString(core, "ObjectConvertible");
  if (convertible == nullptr) PyErr_Clear();  // optional: older tvm-ffi
  PyObject* type = nullptr;
  if (base && sentinel && probe && PyType_Check(base)) {
    auto* base_type = reinterpret_cast<PyTypeObject*>(base);
    if (CheckBaseLayout(base_type, probe)) {
      type = CreateFunctionType(base_type, sentinel, convertible);
    }
  }
  Py_XDECREF(convertible);
  Py_XDECREF(probe);
  Py_XDECREF(sentinel);
  Py_XDECREF(base);
  Py_DECREF(core);
  return type;
}

}  // namespace
}  // namespace python
}  // namespace kwcall

PyMODINIT_FUNC PyInit__kwcall() {
  using kwcall::python::g_function_type;
  if (g_function_type == nullptr) {
    g_function_type = kwcall::python::InitFunctionType();
    if (g_function_type == nullptr) return nullptr;
  }
  PyObject* module = PyModule_Create(&kwcall::python::kModule);
  if (module == nullptr) return nullptr;
  Py_INCREF(g_function_type);
  if (PyModule_AddObject(module, "Function", g_function_type) < 0) {
    Py_DECREF(g_function_type);
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
