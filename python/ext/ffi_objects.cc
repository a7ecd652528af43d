// The tvm_ffi Python objects the extension works with.
#include "ffi_objects.h"

#include <kwcall/kwargs.h>

#include "base_layout.h"

namespace kwcall {
namespace python {
namespace {

FfiObjectsT g_objects;

}  // namespace

const FfiObjectsT& FfiObjects() { return g_objects; }

bool InitFfiObjects() {
  PyObject* core = PyImport_ImportModule("tvm_ffi.core");
  if (core == nullptr) return false;
  PyObject* function = PyObject_GetAttrString(core, "Function");
  PyObject* object = PyObject_GetAttrString(core, "Object");
  PyObject* sentinel = PyObject_GetAttrString(core, "KWARGS");
  PyObject* probe = PyObject_CallMethod(core, "_get_global_func", "si", "ffi.GetKwargsObject", 0);
  PyObject* package = PyImport_ImportModule("tvm_ffi");
  PyObject* convert = package ? PyObject_GetAttrString(package, "convert") : nullptr;
  Py_XDECREF(package);
  bool ok = function && object && sentinel && probe && convert && PyType_Check(function) &&
            PyType_Check(object) &&
            CheckBaseLayout(reinterpret_cast<PyTypeObject*>(function), probe);
  if (ok) {
    g_objects.function_type = reinterpret_cast<PyTypeObject*>(function);
    g_objects.function_call = g_objects.function_type->tp_call;
    g_objects.object_type = reinterpret_cast<PyTypeObject*>(object);
    g_objects.convert = convert;
    g_objects.sentinel_type = Py_TYPE(sentinel);
    g_objects.sentinel_handle = ChandleOf(sentinel);
    ok = g_objects.sentinel_handle == KwargsSentinel().get();
    if (!ok) {
      PyErr_SetString(PyExc_ImportError,
                      "kwcall: tvm_ffi.core.KWARGS is not the FFI object ffi.GetKwargsObject "
                      "returns; kwcall and tvm_ffi load different libtvm_ffi copies");
    }
  }
  Py_XDECREF(probe);  // only the layout check reads it
  Py_DECREF(core);
  if (ok) return true;  // the other references are kept for the life of the process
  Py_XDECREF(function);
  Py_XDECREF(object);
  Py_XDECREF(sentinel);
  Py_XDECREF(convert);
  return false;
}

PyObject* NewFfiFunction(void* handle) {
  // Cython's __cinit__ takes no arguments: tp_new gets an empty tuple.
  PyObject* empty = PyTuple_New(0);
  if (empty == nullptr) return nullptr;
  PyObject* fn = g_objects.function_type->tp_new(g_objects.function_type, empty, nullptr);
  Py_DECREF(empty);
  if (fn == nullptr) return nullptr;
  TVMFFIObjectIncRef(handle);
  ChandleOf(fn) = handle;
  return fn;
}

std::optional<Signature> SignatureOf(PyObject* obj) {
  if (PyObject_TypeCheck(obj, g_objects.object_type) && ChandleOf(obj) != nullptr) {
    auto* header = static_cast<TVMFFIObject*>(ChandleOf(obj));
    if (header->type_index == SignatureObj::RuntimeTypeIndex()) {
      return ffi::details::ObjectUnsafe::ObjectRefFromObjectPtr<Signature>(
          ffi::details::ObjectUnsafe::ObjectPtrFromUnowned<ffi::Object>(header));
    }
  }
  PyErr_Format(PyExc_TypeError, "expected a kwcall.Signature, got %s", Py_TYPE(obj)->tp_name);
  return std::nullopt;
}

}  // namespace python
}  // namespace kwcall
