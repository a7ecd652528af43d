// kwcall.Function: its construction, lifetime and GC, attributes and methods (its entry
// points: entry_points.cc).
#include "function_type.h"

#include <kwcall/function.h>
#include <structmember.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <cstddef>
#include <optional>
#include <string>

#include "base_layout.h"
#include "critical_section.h"
#include "entry_points.h"
#include "ffi_objects.h"
#include "function_state.h"

namespace kwcall {
namespace python {
namespace {

PyTypeObject* g_function_type = nullptr;  // kwcall.Function, made once by CreateFunctionType

// An owned handle of a function that raises RuntimeError(message), for Python and C++ callers
// (and tvm-ffi's own Function.__call__) alike.
void* ErrorHandle(std::string message) {
  ffi::Function fn = ffi::Function::FromPacked(
      [message](ffi::PackedArgs, ffi::Any*) { TVM_FFI_THROW(RuntimeError) << message; });
  TVMFFIObject* handle = ffi::details::ObjectUnsafe::GetHeader(fn.get());
  TVMFFIObjectIncRef(handle);
  return handle;
}

// What the C++ function calls for `target`: a tvm_ffi.Function itself, or tvm-ffi's
// conversion of a Python callable. A new reference, or nullptr with TypeError set.
PyObject* FfiTargetOf(PyObject* target) {
  if (PyObject_TypeCheck(target, FfiObjects().function_type)) {
    if (ChandleOf(target) == nullptr) {
      PyErr_SetString(PyExc_TypeError,
                      "target is a tvm_ffi.Function without a native function (null handle)");
      return nullptr;
    }
    Py_INCREF(target);
    return target;
  }
  if (!PyCallable_Check(target)) {
    PyErr_Format(PyExc_TypeError, "target must be a tvm_ffi.Function or callable, got %s",
                 Py_TYPE(target)->tp_name);
    return nullptr;
  }
  PyObject* converted = PyObject_CallOneArg(FfiObjects().convert, target);
  if (converted != nullptr && (!PyObject_TypeCheck(converted, FfiObjects().function_type) ||
                               ChandleOf(converted) == nullptr)) {
    Py_DECREF(converted);
    PyErr_SetString(PyExc_TypeError, "tvm_ffi.convert(target) did not give a tvm_ffi.Function");
    return nullptr;
  }
  return converted;
}

// tvm-ffi's unpack_dataclass_to_tuple (apache-tvm-ffi 0.1.12 on), looked up when a signature
// first needs it. A new reference, or nullptr with the import error set.
PyObject* UnpackFunction() {
  PyObject* module = PyImport_ImportModule("tvm_ffi.utils.unpack_dataclass");
  if (module == nullptr) return nullptr;
  PyObject* fn = PyObject_GetAttrString(module, "unpack_dataclass_to_tuple");
  Py_DECREF(module);
  return fn;
}

// -- lifetime --------------------------------------------------------------------------------

// A new instance of `cls` that takes over `state` (nullptr with an exception set, the state
// freed): its handle that state's C++ function, its entry point EntryPointFor's. The one place
// an instance's fields are written, before any other thread can have it.
PyObject* NewInstance(PyTypeObject* cls, FunctionState* state) {
  // Cython's __cinit__ takes no arguments: the base tp_new gets an empty tuple.
  PyObject* empty = PyTuple_New(0);
  PyObject* self = empty ? FfiObjects().function_type->tp_new(cls, empty, nullptr) : nullptr;
  Py_XDECREF(empty);
  if (self == nullptr) {
    delete state;
    return nullptr;
  }
  void* handle = ffi::details::ObjectUnsafe::GetHeader(state->function().get());
  TVMFFIObjectIncRef(handle);
  ChandleOf(self) = handle;  // null until now: tp_new made no handle
  Fields(self).state = state;
  Fields(self).vectorcall = EntryPointFor(*state);
  state->SelectCallee(ReleasesGil(self));
#if defined(Py_GIL_DISABLED) && PY_VERSION_HEX >= 0x030E0000
  // A module-level function is shared by every thread that calls it, and each call would write
  // its reference count: deferred, the count is left alone, and the collector frees it.
  PyUnstable_Object_EnableDeferredRefcount(self);
#endif
  return self;
}

// The collector calls this with every other thread stopped (free-threaded CPython) or under
// the GIL: plain reads, and no lock (a critical section here could wait on a stopped thread).
int Traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (const FunctionState* state = Fields(self).state) {
    if (int err = state->Traverse(self, visit, arg)) return err;
  }
  return FfiObjects().function_type->tp_traverse(self, visit, arg);
}

// Clears the instance's __dict__ only. The state's references are set when the instance is
// made and never change, so none of them can close a cycle through the instance unless an
// object made before it was changed to refer to it (a list, a dict, an instance): clearing
// that object breaks the cycle, as for a tuple, which has no tp_clear. A cleared instance
// stays whole: whatever may still call it during the collection (a finalizer) binds as ever.
int Clear(PyObject* self) { return FfiObjects().function_type->tp_clear(self); }

void Dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  if (Fields(self).weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  delete Fields(self).state;  // with it, the reference to the C++ function it binds with
  FfiObjects().function_type->tp_dealloc(self);
  Py_DECREF(type);
}

PyObject* New(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError,
                  "kwcall.Function cannot be created directly; use kwcall.wrap() or "
                  "kwcall.make_kwargs_wrapper()");
  return nullptr;
}

// -- attributes and methods ------------------------------------------------------------------

PyObject* Repr(PyObject* self) {
  const FunctionState* state = Fields(self).state;
  const std::string& name = state->signature().name();
  PyObject* shown =
      PyUnicode_DecodeUTF8(name.data(), static_cast<Py_ssize_t>(name.size()), "replace");
  if (shown == nullptr) return nullptr;
  PyObject* repr =
      PyUnicode_FromFormat("<%s %U%S>", Py_TYPE(self)->tp_name, shown, state->signature_obj());
  Py_DECREF(shown);
  return repr;
}

PyObject* GetSignatureAttr(PyObject* self, void*) {
  return Py_NewRef(Fields(self).state->signature_obj());
}

PyObject* GetTargetAttr(PyObject* self, void*) { return Py_NewRef(Fields(self).state->target()); }

// inspect.signature(f): the signature's inspect form, which the kwcall.Signature makes when
// asked for (a cold property: the one place the extension asks the Python package anything).
PyObject* GetInspectSignature(PyObject* self, void*) {
  return PyObject_CallMethod(Fields(self).state->signature_obj(), "to_inspect", nullptr);
}

// tvm_ffi.convert() turns callables into new Python callbacks but hands an
// ObjectConvertible's asobject() through: this keeps the native handle.
PyObject* AsObject(PyObject* self, PyObject*) {
  Py_INCREF(self);
  return self;
}

// copy.copy and copy.deepcopy: a new object of the same type with the same C++ function,
// target, signature and preprocess step, the same release_gil, and a shallow copy of the
// attributes. The function itself is immutable; its C++ function is shared, as C++ callers
// share it.
PyObject* Copy(PyObject* self, PyObject*) {
  FunctionState* state = Fields(self).state->Copy();  // with the copy's own private callees
  PyObject* copy = state ? NewInstance(Py_TYPE(self), state) : nullptr;
  if (copy == nullptr) return nullptr;
  ReleaseGilOf(copy) = ReleasesGil(self);
  state->SelectCallee(ReleasesGil(copy));
  if (PyObject* dict = reinterpret_cast<BaseLayout*>(self)->dict) {
    PyObject* copied = PyDict_Copy(dict);
    if (copied == nullptr) {
      Py_DECREF(copy);
      return nullptr;
    }
    Py_XSETREF(reinterpret_cast<BaseLayout*>(copy)->dict, copied);
  }
  return copy;
}

PyObject* DeepCopy(PyObject* self, PyObject*) { return Copy(self, nullptr); }

PyObject* Reduce(PyObject* self, PyObject*) {
  PyErr_Format(PyExc_TypeError,
               "cannot pickle '%s' object: it holds a native function; pickle its signature "
               "(kwcall.Signature.to_json) and make the function again with kwcall.wrap",
               Py_TYPE(self)->tp_name);
  return nullptr;
}

// tvm-ffi's methods that give an object another handle (or none) are refused: an instance keeps
// the C++ function it was made with (its state holds that function whatever the handle is, so
// a call through tvm_ffi.core.CObject's own methods stays safe too).
PyObject* RefuseNewHandle(PyObject* self, const char* method) {
  PyErr_Format(PyExc_TypeError,
               "'%s' object keeps the native function it was made with: %s() cannot give it "
               "another handle; make a new function with kwcall.wrap(target, signature), or "
               "share this one with copy.copy",
               Py_TYPE(self)->tp_name, method);
  return nullptr;
}

PyObject* MoveHandleFrom(PyObject* self, PyObject*) {
  return RefuseNewHandle(self, "__move_handle_from__");
}

PyObject* InitHandleByConstructor(PyObject* self, PyObject*) {
  return RefuseNewHandle(self, "__init_handle_by_constructor__");
}

PyObject* SetState(PyObject* self, PyObject*) {
  PyErr_Format(
      PyExc_TypeError,
      "cannot unpickle into '%s' object: it keeps the native function it was made "
      "with; pickle its signature (kwcall.Signature.to_json) and make the function again with "
      "kwcall.wrap",
      Py_TYPE(self)->tp_name);
  return nullptr;
}

// release_gil is tvm_ffi.Function's property, wrapped so that setting it also settles the
// private callee calls use (FunctionState::SelectCallee): a call then reads neither the setting
// nor anything else about it.
PyObject* g_base_release_gil = nullptr;  // tvm_ffi.Function.release_gil, its descriptor

PyObject* GetReleaseGil(PyObject* self, void*) {
  return Py_TYPE(g_base_release_gil)
      ->tp_descr_get(g_base_release_gil, self, reinterpret_cast<PyObject*>(Py_TYPE(self)));
}

int SetReleaseGil(PyObject* self, PyObject* value, void*) {
  if (Py_TYPE(g_base_release_gil)->tp_descr_set(g_base_release_gil, self, value) < 0) return -1;
  // Each setter picks inside the section, reading the setting then: the last to pick reads the
  // setting last written, so the callee follows it.
  KWCALL_BEGIN_CRITICAL_SECTION(self);
  Fields(self).state->SelectCallee(ReleasesGil(self));
  KWCALL_END_CRITICAL_SECTION();
  return 0;
}

PyMethodDef kMethods[] = {
    {"asobject", AsObject, METH_NOARGS, "This function itself (for tvm_ffi.convert)."},
    {"__copy__", Copy, METH_NOARGS, "A copy sharing the native function."},
    {"__deepcopy__", DeepCopy, METH_O, "A copy sharing the native function."},
    {"__reduce__", Reduce, METH_NOARGS, "Functions cannot be pickled."},
    {"__setstate__", SetState, METH_VARARGS, "Refused: a function keeps its native function."},
    {"__move_handle_from__", MoveHandleFrom, METH_VARARGS,
     "Refused: a function keeps its native function."},
    {"__init_handle_by_constructor__", InitHandleByConstructor, METH_VARARGS,
     "Refused: a function keeps its native function."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef kGetSet[] = {
    {"signature", GetSignatureAttr, nullptr, "The kwcall.Signature this function binds.", nullptr},
    {"target", GetTargetAttr, nullptr, "The function called with the bound arguments.", nullptr},
    {"__signature__", GetInspectSignature, nullptr, "The signature as inspect shows it.", nullptr},
    {"release_gil", GetReleaseGil, SetReleaseGil, "Whether a call releases the GIL.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMemberDef kMembers[] = {
    {"__vectorcalloffset__", T_PYSSIZET,
     static_cast<Py_ssize_t>(offsetof(KwFunctionLayout, vectorcall)), READONLY, nullptr},
    // Weak references, as to the object stock CuTeDSL and make_kwargs_wrapper return (caches
    // keyed by them).
    {"__weaklistoffset__", T_PYSSIZET,
     static_cast<Py_ssize_t>(offsetof(KwFunctionLayout, weakrefs)), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot kSlots[] = {
    {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
    {Py_tp_new, reinterpret_cast<void*>(New)},
    {Py_tp_dealloc, reinterpret_cast<void*>(Dealloc)},
    {Py_tp_traverse, reinterpret_cast<void*>(Traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(Clear)},
    {Py_tp_repr, reinterpret_cast<void*>(Repr)},
    {Py_tp_getset, kGetSet},
    {Py_tp_methods, kMethods},
    {Py_tp_members, kMembers},
    {Py_tp_doc, const_cast<char*>("A tvm_ffi.Function that binds keyword arguments in C++.")},
    {0, nullptr}};

constexpr unsigned int kTypeFlags =
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;

// An instance's size. Free-threaded CPython lets threads call their own functions at once, and
// every call writes the object's reference count: instances made one after another (72 bytes
// apart) would share cache lines, so each thread's count would evict its neighbour's fields.
// Rounded up to whole cache lines, an instance gets lines of its own (the allocator aligns
// 128-byte blocks to 128). Under the GIL no two threads run Python at once: no padding.
#ifdef Py_GIL_DISABLED
constexpr size_t kCacheLine = 64;
constexpr size_t kInstanceSize =
    (sizeof(KwFunctionLayout) + kCacheLine - 1) / kCacheLine * kCacheLine;
#else
constexpr size_t kInstanceSize = sizeof(KwFunctionLayout);
#endif

PyObject* MakeType(const char* name, PyObject* bases) {
  // Derived types add no C fields; their __dict__ is the base's.
  PyType_Spec spec = {name, static_cast<int>(kInstanceSize), 0, kTypeFlags, kSlots};
  return PyType_FromSpecWithBases(&spec, bases);
}

}  // namespace

PyTypeObject* FunctionType() { return g_function_type; }

PyObject* CreateFunctionType() {
  PyObject* base = reinterpret_cast<PyObject*>(FfiObjects().function_type);
  g_base_release_gil = PyObject_GetAttrString(base, "release_gil");  // kept for the process
  if (g_base_release_gil == nullptr) return nullptr;
  if (Py_TYPE(g_base_release_gil)->tp_descr_get == nullptr ||
      Py_TYPE(g_base_release_gil)->tp_descr_set == nullptr) {
    PyErr_SetString(PyExc_ImportError, "tvm_ffi.Function.release_gil is not a settable property");
    return nullptr;
  }
  PyObject* core = PyImport_ImportModule("tvm_ffi.core");
  if (core == nullptr) return nullptr;
  PyObject* convertible = PyObject_GetAttrString(core, "ObjectConvertible");
  Py_DECREF(core);
  if (convertible == nullptr) PyErr_Clear();  // older tvm-ffi: convert() is not used then
  PyObject* bases = convertible ? PyTuple_Pack(2, base, convertible) : PyTuple_Pack(1, base);
  Py_XDECREF(convertible);
  if (bases == nullptr) return nullptr;
  PyObject* type = MakeType("kwcall.Function", bases);
  Py_DECREF(bases);
  g_function_type = reinterpret_cast<PyTypeObject*>(type);  // the reference the process keeps
  return type;
}

PyObject* CreateDerivedType(const char* qualified_name, PyObject* extra_bases) {
  const Py_ssize_t n = PyTuple_GET_SIZE(extra_bases);
  PyObject* bases = PyTuple_New(n + 1);
  if (bases == nullptr) return nullptr;
  Py_INCREF(g_function_type);
  PyTuple_SET_ITEM(bases, 0, reinterpret_cast<PyObject*>(g_function_type));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* base = PyTuple_GET_ITEM(extra_bases, i);
    Py_INCREF(base);
    PyTuple_SET_ITEM(bases, i + 1, base);
  }
  PyObject* type = MakeType(qualified_name, bases);
  Py_DECREF(bases);
  return type;
}

PyObject* NewErrorFunction(const char* message) {
  void* handle = nullptr;
  try {
    handle = ErrorHandle(message);
  } catch (const std::exception& err) {
    PyErr_SetString(PyExc_RuntimeError, err.what());
    return nullptr;
  }
  PyObject* fn = NewFfiFunction(handle);
  TVMFFIObjectDecRef(handle);  // fn holds its own reference
  return fn;
}

PyObject* Make(PyTypeObject* cls, PyObject* target, PyObject* signature, PyObject* defaults,
               PyObject* name, PyObject* preprocess) {
  if (!PyType_IsSubtype(cls, g_function_type)) {
    PyErr_SetString(PyExc_TypeError, "cls must be kwcall.Function or derived from it");
    return nullptr;
  }
  if (!PyUnicode_Check(name)) {
    PyErr_Format(PyExc_TypeError, "name must be a str, got %s", Py_TYPE(name)->tp_name);
    return nullptr;
  }
  if (preprocess == Py_None) preprocess = nullptr;
  if (preprocess != nullptr && !PyCallable_Check(preprocess)) {
    PyErr_SetString(PyExc_TypeError, "preprocess must be callable or None");
    return nullptr;
  }
  std::optional<Signature> sig = SignatureOf(signature);
  if (!sig.has_value()) return nullptr;
  PyObject* ffi_target = FfiTargetOf(target);
  if (ffi_target == nullptr) return nullptr;
  PyObject* unpack_fn = sig->has_unpack() ? UnpackFunction() : Py_NewRef(Py_None);
  FunctionState* state = nullptr;
  if (unpack_fn != nullptr) {
    std::optional<ffi::Function> function;
    try {
      function = MakeFunction(ffi::details::ObjectUnsafe::ObjectRefFromObjectPtr<ffi::Function>(
                                  ffi::details::ObjectUnsafe::ObjectPtrFromUnowned<ffi::Object>(
                                      static_cast<TVMFFIObject*>(ChandleOf(ffi_target)))),
                              *sig);
    } catch (const std::exception& err) {
      PyErr_SetString(PyExc_RuntimeError, err.what());
    }
    if (function.has_value()) {
      state = FunctionState::Make(*std::move(function), target, signature, defaults, unpack_fn,
                                  preprocess);
    }
  }
  PyObject* self = state ? NewInstance(cls, state) : nullptr;
  if (self != nullptr && (PyObject_SetAttrString(self, "__name__", name) < 0 ||
                          PyObject_SetAttrString(self, "__qualname__", name) < 0)) {
    Py_CLEAR(self);
  }
  Py_DECREF(ffi_target);
  Py_XDECREF(unpack_fn);
  return self;
}

}  // namespace python
}  // namespace kwcall
