// kwcall.Function: vectorcall, binding against the C++ signature, GC and lifetime.
#include "function_type.h"

#include <kwcall/binder.h>
#include <kwcall/function.h>
#include <structmember.h>
#include <tvm/ffi/function.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "base_layout.h"
#include "small_array.h"

namespace kwcall {
namespace python {
namespace {

// What one kwcall.Function needs to bind a Python call; built once, read-only after.
struct Binding {
  Signature signature;
  int32_t arity = 0;
  std::vector<PyObject*> names;     // interned, owned
  std::vector<PyObject*> defaults;  // owned; nullptr where the parameter has none
  std::vector<uint8_t> unpack;      // per parameter
  bool has_unpack = false;
  // A full-arity positional call needs no binding: no keyword-only parameters to fill
  // and no values to unpack.
  bool positional_is_native = false;
  PyObject* target = nullptr;
  PyObject* direct_target = nullptr;  // target when it is a tvm_ffi.Function (borrowed)
  PyObject* signature_obj = nullptr;
  PyObject* unpack_fn = nullptr;
  // Called as preprocess(args, kwargs) -> (args, kwargs) before binding, or nullptr
  // (CuTeDSL's pointer-argument conversion).
  PyObject* preprocess = nullptr;
  // Python defaults that the C++ signature holds as opaque objects, with those objects:
  // references the cycle collector cannot see (see VisitCppHeldDefaults).
  std::vector<std::pair<const ffi::Object*, PyObject*>> cpp_held_defaults;
  // The last call shape that bound successfully and its slots. A call site passes the same
  // kwnames tuple (a constant of its code object) every time, so a repeated keyword call
  // skips binding. Only touched with the GIL held.
  mutable PyObject* last_kwnames = nullptr;  // owned
  mutable Py_ssize_t last_nargs = -1;
  mutable std::vector<int32_t> last_slots;
};

// The C fields that follow tvm_ffi.Function's.
struct Fields {
  vectorcallfunc vectorcall;
  Binding* binding;
};

PyTypeObject* g_base_type = nullptr;      // tvm_ffi.Function
PyTypeObject* g_function_type = nullptr;  // kwcall.Function
PyObject* g_kwargs_sentinel = nullptr;    // tvm_ffi.core.KWARGS
ternaryfunc g_base_call = nullptr;        // tvm_ffi.Function.__call__

constexpr Py_ssize_t kFieldsOffset =
    (BaseLayout::kBasicSize + alignof(Fields) - 1) / alignof(Fields) * alignof(Fields);

Fields& FieldsOf(PyObject* self) {
  return *reinterpret_cast<Fields*>(reinterpret_cast<char*>(self) + kFieldsOffset);
}

// The keyword names of one Python call, for BindSlots: pointer compares against the
// interned parameter names first, string compares only for keys that are not interned.
class PyKeys {
 public:
  PyKeys(PyObject* kwnames, const Binding& binding)
      : kwnames_(kwnames),
        binding_(binding),
        count_(kwnames ? static_cast<int32_t>(PyTuple_GET_SIZE(kwnames)) : 0) {}
  int32_t size() const { return count_; }
  int32_t Find(int32_t k) const {
    PyObject* key = PyTuple_GET_ITEM(kwnames_, k);
    const int32_t n = binding_.arity;
    for (int32_t i = 0; i < n; ++i) {
      if (binding_.names[i] == key) return i;
    }
    for (int32_t i = 0; i < n; ++i) {
      if (PyUnicode_Compare(key, binding_.names[i]) == 0) return i;
    }
    return -1;
  }
  std::string_view Text(int32_t k) const {
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(kwnames_, k), &size);
    if (text == nullptr) {
      PyErr_Clear();
      return "?";
    }
    return std::string_view(text, size);
  }

 private:
  PyObject* kwnames_;
  const Binding& binding_;
  int32_t count_;
};

// tvm_ffi.Function.__call__(fn, *items).
PyObject* CallFunction(PyObject* fn, PyObject* const* items, Py_ssize_t n) {
  PyObject* tuple = PyTuple_New(n);
  if (tuple == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_INCREF(items[i]);
    PyTuple_SET_ITEM(tuple, i, items[i]);
  }
  PyObject* result = g_base_call(fn, tuple, nullptr);
  Py_DECREF(tuple);
  return result;
}

// Calls tvm_ffi.Function.__call__ with every parameter in order: on the target itself when
// it is a tvm_ffi.Function with the same release_gil setting (one hop less), else on self,
// whose handle is the C++ kwcall function that forwards straight to the target.
PyObject* CallBase(PyObject* self, const Binding& b, PyObject* const* items, Py_ssize_t n) {
  PyObject* callee =
      b.direct_target != nullptr && ReleaseGilOf(b.direct_target) == ReleaseGilOf(self)
          ? b.direct_target
          : self;
  return CallFunction(callee, items, n);
}

// tvm_ffi.core.KWARGS itself, or another Python wrapper of the same FFI object (one that
// came back from C++, say, when a callback forwards its arguments).
bool HasSentinel(PyObject* const* args, Py_ssize_t nargs) {
  PyTypeObject* sentinel_type = Py_TYPE(g_kwargs_sentinel);
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (args[i] == g_kwargs_sentinel ||
        (Py_TYPE(args[i]) == sentinel_type && ChandleOf(args[i]) == ChandleOf(g_kwargs_sentinel))) {
      return true;
    }
  }
  return false;
}

// Replaces the values of unpacked parameters with unpack_fn(value); `owned` keeps them.
bool ApplyUnpack(const Binding& b, PyObject** bound, PyObject** owned) {
  for (int32_t i = 0; i < b.arity; ++i) {
    if (!b.unpack[i]) continue;
    owned[i] = PyObject_CallOneArg(b.unpack_fn, bound[i]);
    if (owned[i] == nullptr) return false;
    bound[i] = owned[i];
  }
  return true;
}

// Binds a call shape (nargs, kwnames) into slots, or takes them from the last call.
const int32_t* SlotsFor(const Binding& b, Py_ssize_t nargs, PyObject* kwnames,
                        SmallArray<int32_t>* fresh) {
  if (nargs == b.last_nargs && kwnames == b.last_kwnames) return b.last_slots.data();
  std::string error;
  if (!BindSlots(b.signature, static_cast<int32_t>(nargs), PyKeys(kwnames, b), fresh->data(),
                 &error)) {
    PyErr_SetString(PyExc_TypeError, error.c_str());
    return nullptr;
  }
  Py_XINCREF(kwnames);
  Py_XDECREF(b.last_kwnames);
  b.last_kwnames = kwnames;
  b.last_nargs = nargs;
  b.last_slots.assign(fresh->data(), fresh->data() + b.arity);
  return fresh->data();
}

PyObject* BindAndCall(PyObject* self, const Binding& b, PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwnames) {
  SmallArray<int32_t> fresh(b.arity);
  const int32_t* slots = SlotsFor(b, nargs, kwnames, &fresh);
  if (slots == nullptr) return nullptr;
  SmallArray<PyObject*> bound(b.arity);
  for (int32_t i = 0; i < b.arity; ++i) {
    bound[i] = slots[i] == kUseDefault ? b.defaults[i] : args[slots[i]];
  }
  if (!b.has_unpack) return CallBase(self, b, bound.data(), b.arity);

  SmallArray<PyObject*> owned(b.arity);
  for (int32_t i = 0; i < b.arity; ++i) owned[i] = nullptr;
  PyObject* result = nullptr;
  if (ApplyUnpack(b, bound.data(), owned.data())) result = CallBase(self, b, bound.data(), b.arity);
  for (int32_t i = 0; i < b.arity; ++i) Py_XDECREF(owned[i]);
  return result;
}

PyObject* Dispatch(PyObject* self, const Binding& b, PyObject* const* args, Py_ssize_t nargs,
                   PyObject* kwnames) {
  if (kwnames == nullptr) {
    // tvm-ffi's own KWARGS packing: the C++ binder reads it.
    if (HasSentinel(args, nargs)) return CallFunction(self, args, nargs);
    if (nargs == b.arity && b.positional_is_native) return CallBase(self, b, args, nargs);
  }
  return BindAndCall(self, b, args, nargs, kwnames);
}

// The slow path of functions with a preprocess step: (args, kwargs) go through it as
// Python objects, then back to the vectorcall form for Dispatch.
PyObject* CallPreprocessed(PyObject* self, const Binding& b, PyObject* const* args,
                           Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* pos = PyTuple_New(nargs);
  PyObject* kw = PyDict_New();
  PyObject* out = nullptr;
  if (pos != nullptr && kw != nullptr) {
    for (Py_ssize_t i = 0; i < nargs; ++i) {
      Py_INCREF(args[i]);
      PyTuple_SET_ITEM(pos, i, args[i]);
    }
    bool ok = true;
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw && ok; ++k) {
      ok = PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) == 0;
    }
    if (ok) out = PyObject_CallFunctionObjArgs(b.preprocess, pos, kw, nullptr);
  }
  Py_XDECREF(pos);
  Py_XDECREF(kw);
  if (out == nullptr) return nullptr;
  PyObject* new_kw = nullptr;
  PyObject* new_pos = nullptr;
  if (PyTuple_Check(out) && PyTuple_GET_SIZE(out) == 2 && PyDict_Check(PyTuple_GET_ITEM(out, 1))) {
    new_kw = PyTuple_GET_ITEM(out, 1);
    new_pos = PySequence_Tuple(PyTuple_GET_ITEM(out, 0));
  } else {
    PyErr_SetString(PyExc_TypeError, "preprocess must return (args, kwargs)");
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
    while (PyDict_Next(new_kw, &cursor, &key, &value)) {
      Py_INCREF(key);
      PyTuple_SET_ITEM(names, k, key);
      stack[n + k++] = value;
    }
    result = Dispatch(self, b, stack.data(), n, names);
  }
  Py_XDECREF(names);
  Py_DECREF(new_pos);
  Py_DECREF(out);  // owns new_kw and its values
  return result;
}

PyObject* Vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const Binding* b = FieldsOf(self).binding;
  if (b == nullptr) {
    PyErr_SetString(PyExc_RuntimeError,
                    "this kwcall.Function has no target (a CuTeDSL function compiled for another "
                    "architecture has none)");
    return nullptr;
  }
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (TVM_FFI_PREDICT_FALSE(b->preprocess != nullptr)) {
    return CallPreprocessed(self, *b, args, nargs, kwnames);
  }
  return Dispatch(self, *b, args, nargs, kwnames);
}

void DestroyBindingData(Binding* b) {
  for (PyObject* name : b->names) Py_XDECREF(name);
  for (PyObject* value : b->defaults) Py_XDECREF(value);
  Py_XDECREF(b->target);
  Py_XDECREF(b->signature_obj);
  Py_XDECREF(b->unpack_fn);
  Py_XDECREF(b->preprocess);
  Py_XDECREF(b->last_kwnames);
  delete b;
}

void DestroyBinding(PyObject* self) {
  Binding* b = FieldsOf(self).binding;
  if (b == nullptr) return;
  FieldsOf(self).binding = nullptr;
  DestroyBindingData(b);
}

// The C++ signature keeps opaque Python defaults alive from C++. While this object is the
// only owner of its C++ function, that function's signature and those opaque objects,
// those references are this object's own, and reporting them lets the cycle collector
// free a cycle that runs through a default back to this object. Anyone else holding any
// of them (a registered global, a signature copy) makes them external again.
int VisitCppHeldDefaults(PyObject* self, const Binding& b, visitproc visit, void* arg) {
  if (b.cpp_held_defaults.empty() || b.signature.use_count() != 2) return 0;  // b's + C++'s
  const auto* fn = ffi::details::ObjectUnsafe::RawObjectPtrFromUnowned<ffi::Object>(
      static_cast<TVMFFIObject*>(ChandleOf(self)));
  if (fn->use_count() != 1) return 0;
  for (const auto& [opaque, value] : b.cpp_held_defaults) {
    if (opaque->use_count() == 1) Py_VISIT(value);
  }
  return 0;
}

int Traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (const Binding* b = FieldsOf(self).binding) {
    for (PyObject* value : b->defaults) Py_VISIT(value);
    Py_VISIT(b->target);
    Py_VISIT(b->signature_obj);
    Py_VISIT(b->unpack_fn);
    Py_VISIT(b->preprocess);
    if (int err = VisitCppHeldDefaults(self, *b, visit, arg)) return err;
  }
  return g_base_type->tp_traverse(self, visit, arg);
}

int Clear(PyObject* self) {
  DestroyBinding(self);
  return g_base_type->tp_clear(self);
}

void Dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  DestroyBinding(self);
  g_base_type->tp_dealloc(self);
  Py_DECREF(type);
}

PyObject* New(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError,
                  "kwcall.Function cannot be created directly; use kwcall.wrap() or "
                  "kwcall.make_kwargs_wrapper()");
  return nullptr;
}

PyObject* Repr(PyObject* self) {
  const Binding* b = FieldsOf(self).binding;
  if (b == nullptr) return PyUnicode_FromFormat("<%s (unbound)>", Py_TYPE(self)->tp_name);
  return PyUnicode_FromFormat("<%s %s%S>", Py_TYPE(self)->tp_name, b->signature.name().c_str(),
                              b->signature_obj);
}

PyObject* GetSignatureAttr(PyObject* self, void*) {
  const Binding* b = FieldsOf(self).binding;
  PyObject* value = b ? b->signature_obj : Py_None;
  Py_INCREF(value);
  return value;
}

PyObject* GetTargetAttr(PyObject* self, void*) {
  const Binding* b = FieldsOf(self).binding;
  PyObject* value = b ? b->target : Py_None;
  Py_INCREF(value);
  return value;
}

// tvm_ffi.convert() turns callables into new Python callbacks but hands an
// ObjectConvertible's asobject() through: this keeps the native handle.
PyObject* AsObject(PyObject* self, PyObject*) {
  Py_INCREF(self);
  return self;
}

PyMethodDef kMethods[] = {
    {"asobject", AsObject, METH_NOARGS, "This function itself (for tvm_ffi.convert)."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef kGetSet[] = {
    {"signature", GetSignatureAttr, nullptr, "The kwcall.Signature this function binds.", nullptr},
    {"target", GetTargetAttr, nullptr, "The function called with the bound arguments.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMemberDef kMembers[] = {
    {"__vectorcalloffset__", T_PYSSIZET,
     kFieldsOffset + static_cast<Py_ssize_t>(offsetof(Fields, vectorcall)), READONLY, nullptr},
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

PyObject* MakeType(const char* name, PyObject* bases) {
  // Derived types add no C fields; their __dict__ is the base's.
  PyType_Spec spec = {name, static_cast<int>(kFieldsOffset + sizeof(Fields)), 0, kTypeFlags,
                      kSlots};
  return PyType_FromSpecWithBases(&spec, bases);
}

Binding* MakeBinding(PyObject* handle, PyObject* target, PyObject* signature, PyObject* defaults,
                     PyObject* unpack_fn) {
  void* chandle = ChandleOf(handle);
  ffi::Function fn = ffi::details::ObjectUnsafe::ObjectRefFromObjectPtr<ffi::Function>(
      ffi::details::ObjectUnsafe::ObjectPtrFromUnowned<ffi::Object>(
          static_cast<TVMFFIObject*>(chandle)));
  std::optional<Signature> sig = GetSignature(fn);
  if (!sig.has_value()) {
    PyErr_SetString(PyExc_TypeError, "the handle is not a kwcall function");
    return nullptr;
  }
  if (!PyTuple_Check(defaults) || PyTuple_GET_SIZE(defaults) != sig->num_params()) {
    PyErr_SetString(PyExc_TypeError, "defaults must be a tuple with one entry per parameter");
    return nullptr;
  }
  auto* b = new Binding{*sig};
  b->arity = sig->num_params();
  const auto& unpack = sig->unpack();
  for (int32_t i = 0; i < b->arity; ++i) {
    const std::string& name = sig->param_name(i);
    PyObject* interned = PyUnicode_InternFromString(name.c_str());
    b->names.push_back(interned);
    PyObject* value = sig->has_default(i) ? PyTuple_GET_ITEM(defaults, i) : nullptr;
    Py_XINCREF(value);
    b->defaults.push_back(value);
    b->unpack.push_back(std::find(unpack.begin(), unpack.end(), name) != unpack.end());
    if (interned == nullptr) {
      DestroyBindingData(b);
      return nullptr;
    }
  }
  for (int32_t i = 0; i < b->arity; ++i) {
    const ffi::Any& value = sig->default_value(i);
    if (sig->has_default(i) && value.type_index() == ffi::TypeIndex::kTVMFFIOpaquePyObject) {
      const auto* raw = reinterpret_cast<const TVMFFIAny*>(&value);
      const auto* cell = reinterpret_cast<const TVMFFIOpaqueObjectCell*>(
          reinterpret_cast<const char*>(raw->v_obj) + sizeof(TVMFFIObject));
      b->cpp_held_defaults.emplace_back(
          ffi::details::ObjectUnsafe::RawObjectPtrFromUnowned<ffi::Object>(raw->v_obj),
          static_cast<PyObject*>(cell->handle));
    }
  }
  b->has_unpack = !unpack.empty();
  b->positional_is_native = sig->num_kwonly() == 0 && !b->has_unpack;
  Py_INCREF(target);
  b->target = target;
  if (PyObject_TypeCheck(target, g_base_type) && ChandleOf(target) != nullptr) {
    b->direct_target = target;
  }
  Py_INCREF(signature);
  b->signature_obj = signature;
  Py_INCREF(unpack_fn);
  b->unpack_fn = unpack_fn;
  return b;
}

}  // namespace

PyObject* CreateFunctionType(PyTypeObject* base, PyObject* kwargs_sentinel,
                             PyObject* object_convertible) {
  g_base_type = base;
  g_base_call = base->tp_call;
  Py_INCREF(kwargs_sentinel);
  g_kwargs_sentinel = kwargs_sentinel;
  PyObject* bases = object_convertible
                        ? PyTuple_Pack(2, reinterpret_cast<PyObject*>(base), object_convertible)
                        : PyTuple_Pack(1, reinterpret_cast<PyObject*>(base));
  if (bases == nullptr) return nullptr;
  PyObject* type = MakeType("kwcall.Function", bases);
  Py_DECREF(bases);
  g_function_type = reinterpret_cast<PyTypeObject*>(type);
  return type;
}

PyObject* CreateDerivedType(const char* qualified_name, PyObject* extra_bases) {
  Py_ssize_t n = PyTuple_GET_SIZE(extra_bases);
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

PyObject* NewUnbound(PyTypeObject* cls) {
  if (!PyType_IsSubtype(cls, g_function_type)) {
    PyErr_SetString(PyExc_TypeError, "cls must be kwcall.Function or derived from it");
    return nullptr;
  }
  // Cython's __cinit__ takes no arguments: the base tp_new gets an empty tuple.
  PyObject* empty = PyTuple_New(0);
  if (empty == nullptr) return nullptr;
  PyObject* self = g_base_type->tp_new(cls, empty, nullptr);
  Py_DECREF(empty);
  if (self != nullptr) FieldsOf(self).vectorcall = Vectorcall;
  return self;
}

int Bind(PyObject* self, PyObject* handle, PyObject* target, PyObject* signature,
         PyObject* defaults, PyObject* unpack_fn) {
  if (!PyObject_TypeCheck(self, g_function_type)) {
    PyErr_SetString(PyExc_TypeError, "bind() needs a kwcall.Function");
    return -1;
  }
  if (FieldsOf(self).binding != nullptr || ChandleOf(self) != nullptr) {
    PyErr_SetString(PyExc_RuntimeError, "this kwcall.Function is already bound");
    return -1;
  }
  if (!PyObject_TypeCheck(handle, g_base_type) || ChandleOf(handle) == nullptr) {
    PyErr_SetString(PyExc_TypeError, "handle must be a tvm_ffi.Function");
    return -1;
  }
  Binding* binding = MakeBinding(handle, target, signature, defaults, unpack_fn);
  if (binding == nullptr) return -1;
  ChandleOf(self) = ChandleOf(handle);
  TVMFFIObjectIncRef(ChandleOf(self));
  FieldsOf(self).binding = binding;
  return 0;
}

int SetPreprocess(PyObject* self, PyObject* preprocess) {
  Binding* b = PyObject_TypeCheck(self, g_function_type) ? FieldsOf(self).binding : nullptr;
  if (b == nullptr) {
    PyErr_SetString(PyExc_TypeError, "set_preprocess() needs a bound kwcall.Function");
    return -1;
  }
  if (preprocess != Py_None && !PyCallable_Check(preprocess)) {
    PyErr_SetString(PyExc_TypeError, "preprocess must be callable or None");
    return -1;
  }
  PyObject* old = b->preprocess;
  Py_XINCREF(preprocess == Py_None ? nullptr : preprocess);
  b->preprocess = preprocess == Py_None ? nullptr : preprocess;
  Py_XDECREF(old);
  return 0;
}

PyObject* NewFunction(PyTypeObject* cls, PyObject* handle, PyObject* target, PyObject* signature,
                      PyObject* defaults, PyObject* unpack_fn) {
  PyObject* self = NewUnbound(cls);
  if (self == nullptr) return nullptr;
  if (Bind(self, handle, target, signature, defaults, unpack_fn) < 0) {
    Py_DECREF(self);
    return nullptr;
  }
  return self;
}

}  // namespace python
}  // namespace kwcall
