// The import-time check of tvm_ffi.Function's layout.
#include "base_layout.h"

#include <string>

namespace kwcall {
namespace python {
namespace {

bool Fail(const std::string& what) {
  PyObject* version = nullptr;
  if (PyObject* module = PyImport_ImportModule("tvm_ffi")) {
    version = PyObject_GetAttrString(module, "__version__");
    Py_DECREF(module);
  }
  PyErr_Clear();
  const char* found = version ? PyUnicode_AsUTF8(version) : nullptr;
  PyErr_Clear();
  PyErr_Format(PyExc_ImportError,
               "kwcall does not support the installed apache-tvm-ffi (%s): tvm_ffi.Function %s. "
               "kwcall supports %s; install one of those versions.",
               found ? found : "unknown version", what.c_str(), KWCALL_TVM_FFI_RANGE);
  Py_XDECREF(version);
  return false;
}

}  // namespace

bool CheckBaseLayout(PyTypeObject* function_type, PyObject* probe) {
  if (function_type->tp_basicsize != kBaseBasicSize) {
    return Fail("has basicsize " + std::to_string(function_type->tp_basicsize) + ", expected " +
                std::to_string(kBaseBasicSize));
  }
  if (function_type->tp_dictoffset != kBaseDictOffset) {
    return Fail("has dict offset " + std::to_string(function_type->tp_dictoffset) + ", expected " +
                std::to_string(kBaseDictOffset));
  }
  if (function_type->tp_weaklistoffset != 0 ||
      PyType_HasFeature(function_type, Py_TPFLAGS_HAVE_VECTORCALL) ||
      !PyType_HasFeature(function_type, Py_TPFLAGS_BASETYPE) ||
      !PyType_HasFeature(function_type, Py_TPFLAGS_HAVE_GC)) {
    return Fail("has unexpected type flags or slots");
  }
  if (!PyObject_TypeCheck(probe, function_type)) return Fail("probe is not a Function");
  PyObject* chandle = PyObject_CallMethod(probe, "__chandle__", nullptr);
  if (chandle == nullptr) {
    PyErr_Clear();
    return Fail("has no __chandle__()");
  }
  void* expected = PyLong_AsVoidPtr(chandle);
  Py_DECREF(chandle);
  if (PyErr_Occurred() || expected == nullptr || expected != ChandleOf(probe)) {
    PyErr_Clear();
    return Fail("does not keep its handle at offset " +
                std::to_string(offsetof(ObjectLayout, chandle)));
  }
  // c_release_gil follows chandle: toggle it through Python and watch the memory.
  PyObject* original = PyObject_GetAttrString(probe, "release_gil");
  bool follows = original != nullptr;
  for (int value : {0, 1}) {
    if (!follows) break;
    follows = PyObject_SetAttrString(probe, "release_gil", value ? Py_True : Py_False) == 0 &&
              ReleaseGilOf(probe) == value;
  }
  if (original != nullptr) PyObject_SetAttrString(probe, "release_gil", original);
  Py_XDECREF(original);
  if (!follows) {
    PyErr_Clear();
    return Fail("does not keep release_gil at offset " +
                std::to_string(offsetof(BaseLayout, c_release_gil)));
  }
  return true;
}

}  // namespace python
}  // namespace kwcall
