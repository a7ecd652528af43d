// kwcall.Function: its construction, binding, lifetime and GC (entry points: entry_points.cc).
#include "function_type.h"

#include <kwcall/function.h>
#include <structmember.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <cstddef>
#include <optional>
#include <string>

#include "base_layout.h"
#include "bound_function.h"
#include "entry_points.h"
#include "ffi_objects.h"
#include "function_layout.h"
#include "function_object.h"
#include "shared_fields.h"

namespace kwcall {
namespace python {
namespace {

PyTypeObject* g_function_type = nullptr;  // kwcall.Function, made once by CreateFunctionType

constexpr const char* kNotBound = "this kwcall.Function is not bound to a target";

// An owned handle of a function that raises RuntimeError(message): what an unbound instance
// calls, so that Python and C++ callers (and tvm-ffi's own Function.__call__) get an error,
// never a null handle.
void* ErrorHandle(std::string message) {
  ffi::Function fn = ffi::Function::FromPacked(
      [message](ffi::PackedArgs, ffi::Any*) { TVM_FFI_THROW(RuntimeError) << message; });
  TVMFFIObject* handle = ffi::details::ObjectUnsafe::GetHeader(fn.get());
  TVMFFIObjectIncRef(handle);
  return handle;
}

// Replaces self's handle with `handle` (whose reference self takes over).
void ResetHandle(PyObject* self, void* handle) {
  void* old = ChandleOf(self);
  ChandleOf(self) = handle;
  if (old != nullptr) TVMFFIObjectDecRef(old);
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

// Only where no call can be in the instance: its dealloc, or tp_clear, which the collector runs
// on unreachable objects only (a caller's reference would make it reachable).
void DestroyBinding(PyObject* self) {
  KwFunctionLayout& fields = Fields(self);
  BoundFunction* binding = fields.binding;
  PyObject* preprocess = fields.preprocess;
  PyObject* retired = fields.retired_steps;
  fields.binding = nullptr;
  fields.preprocess = nullptr;
  fields.retired_steps = nullptr;
  fields.vectorcall = CallLate;  // unreachable, or dying: no other thread reads it
  delete binding;
  Py_XDECREF(preprocess);
  Py_XDECREF(retired);
}

// The collector calls this with every other thread stopped (free-threaded CPython) or under
// the GIL: plain reads, and no lock (a critical section here could wait on a stopped thread).
int Traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (const BoundFunction* b = Fields(self).binding) {
    if (int err = b->Traverse(self, visit, arg)) return err;
  }
  Py_VISIT(Fields(self).preprocess);
  Py_VISIT(Fields(self).retired_steps);
  return FfiObjects().function_type->tp_traverse(self, visit, arg);
}

int Clear(PyObject* self) {
  DestroyBinding(self);
  return FfiObjects().function_type->tp_clear(self);
}

void Dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  DestroyBinding(self);
  void* unbound_handle = Fields(self).unbound_handle;
  FfiObjects().function_type->tp_dealloc(self);
  if (unbound_handle != nullptr) TVMFFIObjectDecRef(unbound_handle);
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
  const BoundFunction* b = LoadAcquire(&Fields(self).binding);
  if (b == nullptr) return PyUnicode_FromFormat("<%s (unbound)>", Py_TYPE(self)->tp_name);
  const std::string& name = b->signature().name();
  PyObject* shown =
      PyUnicode_DecodeUTF8(name.data(), static_cast<Py_ssize_t>(name.size()), "replace");
  if (shown == nullptr) return nullptr;
  PyObject* repr =
      PyUnicode_FromFormat("<%s %U%S>", Py_TYPE(self)->tp_name, shown, b->signature_obj());
  Py_DECREF(shown);
  return repr;
}

PyObject* GetSignatureAttr(PyObject* self, void*) {
  const BoundFunction* b = LoadAcquire(&Fields(self).binding);
  PyObject* value = b ? b->signature_obj() : Py_None;
  Py_INCREF(value);
  return value;
}

PyObject* GetTargetAttr(PyObject* self, void*) {
  const BoundFunction* b = LoadAcquire(&Fields(self).binding);
  PyObject* value = b ? b->target() : Py_None;
  Py_INCREF(value);
  return value;
}

// inspect.signature(f): the signature's inspect form, made when asked for.
PyObject* GetInspectSignature(PyObject* self, void*) {
  const BoundFunction* b = LoadAcquire(&Fields(self).binding);
  if (b == nullptr) Py_RETURN_NONE;
  return PyObject_CallMethod(b->signature_obj(), "to_inspect", nullptr);
}

// tvm_ffi.convert() turns callables into new Python callbacks but hands an
// ObjectConvertible's asobject() through: this keeps the native handle.
PyObject* AsObject(PyObject* self, PyObject*) {
  Py_INCREF(self);
  return self;
}

// copy.copy and copy.deepcopy: a new object of the same type with the same handle, binding
// and preprocess step, and a shallow copy of the attributes. The function itself is
// immutable; its handle is shared, as C++ callers share it.
PyObject* Copy(PyObject* self, PyObject*) {
  PyObject* copy = NewUnbound(Py_TYPE(self), nullptr);
  if (copy == nullptr) return nullptr;
  // One consistent view of self's state, in case another thread binds it or sets its step.
  const BoundFunction* b = nullptr;
  void* handle = nullptr;
  PyObject* step = nullptr;
  KWCALL_BEGIN_CRITICAL_SECTION(self);
  b = Fields(self).binding;
  if (b != nullptr) {
    handle = ChandleOf(self);
    TVMFFIObjectIncRef(handle);
    step = Py_XNewRef(Fields(self).preprocess);
  }
  KWCALL_END_CRITICAL_SECTION();
  if (b != nullptr) {
    BoundFunction* copied = b->Copy();  // binding, its objects and the copy's own private callees
    if (copied == nullptr) {
      TVMFFIObjectDecRef(handle);
      Py_XDECREF(step);
      Py_DECREF(copy);
      return nullptr;
    }
    // The copy is this thread's alone until returned: plain stores. It calls as self does:
    // chosen once, or CallLate when self may still get a step.
    ResetHandle(copy, handle);
    Fields(copy).binding = copied;
    Fields(copy).preprocess = step;
    if (Fields(self).vectorcall != CallLate) Fields(copy).vectorcall = copied->entry_point();
  }
  ReleaseGilOf(copy) = ReleasesGil(self);
  if (b != nullptr) Fields(copy).binding->SelectCallee(ReleasesGil(copy));
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
               "(kwcall.Signature.to_json) and bind it again with kwcall.wrap",
               Py_TYPE(self)->tp_name);
  return nullptr;
}

// release_gil is tvm_ffi.Function's property, wrapped so that setting it also settles the
// private callee calls use (BoundFunction::SelectCallee): a call then reads neither the setting
// nor anything else about it.
PyObject* g_base_release_gil = nullptr;  // tvm_ffi.Function.release_gil, its descriptor

PyObject* GetReleaseGil(PyObject* self, void*) {
  return Py_TYPE(g_base_release_gil)
      ->tp_descr_get(g_base_release_gil, self, reinterpret_cast<PyObject*>(Py_TYPE(self)));
}

int SetReleaseGil(PyObject* self, PyObject* value, void*) {
  if (Py_TYPE(g_base_release_gil)->tp_descr_set(g_base_release_gil, self, value) < 0) return -1;
  // Under the lock Bind publishes with: the callee follows the setting last written.
  KWCALL_BEGIN_CRITICAL_SECTION(self);
  if (const BoundFunction* b = Fields(self).binding) b->SelectCallee(ReleasesGil(self));
  KWCALL_END_CRITICAL_SECTION();
  return 0;
}

PyMethodDef kMethods[] = {
    {"asobject", AsObject, METH_NOARGS, "This function itself (for tvm_ffi.convert)."},
    {"__copy__", Copy, METH_NOARGS, "A copy sharing the native function."},
    {"__deepcopy__", DeepCopy, METH_O, "A copy sharing the native function."},
    {"__reduce__", Reduce, METH_NOARGS, "Functions cannot be pickled."},
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
// every call writes the object's reference count: instances made one after another (96 bytes
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

PyObject* NewUnbound(PyTypeObject* cls, const char* message) {
  if (!PyType_IsSubtype(cls, g_function_type)) {
    PyErr_SetString(PyExc_TypeError, "cls must be kwcall.Function or derived from it");
    return nullptr;
  }
  void* handle = nullptr;
  try {
    handle = ErrorHandle(message ? message : kNotBound);
  } catch (const std::exception& err) {
    PyErr_SetString(PyExc_RuntimeError, err.what());
    return nullptr;
  }
  // Cython's __cinit__ takes no arguments: the base tp_new gets an empty tuple.
  PyObject* empty = PyTuple_New(0);
  PyObject* self = empty ? FfiObjects().function_type->tp_new(cls, empty, nullptr) : nullptr;
  Py_XDECREF(empty);
  if (self == nullptr) {
    TVMFFIObjectDecRef(handle);
    return nullptr;
  }
  ResetHandle(self, handle);
  Fields(self).vectorcall = CallLate;  // no other thread has the instance yet
  return self;
}

constexpr const char* kAlreadyBound = "this kwcall.Function is already bound";

// Publishes what Bind built, as one unit: the old handle into unbound_handle (CallUnbound's),
// the new handle, then the binding, so that a caller that sees one sees those before it. The
// old handle stays alive until the instance dies: a call that read it may still be in it.
// False when another thread bound the instance first.
bool PublishBinding(PyObject* self, void* handle, BoundFunction* binding) {
  bool published = false;
  KWCALL_BEGIN_CRITICAL_SECTION(self);
  KwFunctionLayout& fields = Fields(self);
  if (fields.binding == nullptr) {
    binding->SelectCallee(ReleasesGil(self));  // SetReleaseGil selects later ones
    Publish(&fields.unbound_handle, ChandleOf(self));
    Publish(&ChandleOf(self), handle);
    Publish(&fields.binding, binding);
    published = true;
  }
  KWCALL_END_CRITICAL_SECTION();
  return published;
}

int Bind(PyObject* self, PyObject* target, PyObject* signature) {
  if (!PyObject_TypeCheck(self, g_function_type)) {
    PyErr_SetString(PyExc_TypeError, "bind() needs a kwcall.Function");
    return -1;
  }
  if (LoadAcquire(&Fields(self).binding) != nullptr) {
    PyErr_SetString(PyExc_RuntimeError, kAlreadyBound);
    return -1;
  }
  std::optional<Signature> sig = SignatureOf(signature);
  if (!sig.has_value()) return -1;
  PyObject* ffi_target = FfiTargetOf(target);
  if (ffi_target == nullptr) return -1;
  PyObject* defaults = PyObject_CallMethod(signature, "param_defaults", nullptr);
  PyObject* unpack_fn = sig->has_unpack() ? UnpackFunction() : (Py_INCREF(Py_None), Py_None);
  PyObject* name = PyObject_GetAttrString(signature, "name");
  void* handle = nullptr;
  BoundFunction* binding = nullptr;
  if (defaults != nullptr && unpack_fn != nullptr && name != nullptr) {
    try {
      ffi::Function fn = ffi::details::ObjectUnsafe::ObjectRefFromObjectPtr<ffi::Function>(
          ffi::details::ObjectUnsafe::ObjectPtrFromUnowned<ffi::Object>(
              static_cast<TVMFFIObject*>(ChandleOf(ffi_target))));
      ffi::Function bound = MakeFunction(std::move(fn), *sig);
      handle = ffi::details::ObjectUnsafe::GetHeader(bound.get());
      TVMFFIObjectIncRef(handle);
    } catch (const std::exception& err) {
      PyErr_SetString(PyExc_RuntimeError, err.what());
    }
  }
  if (handle != nullptr) {
    binding =
        BoundFunction::Make(PlanOf(static_cast<const ffi::FunctionObj*>(
                                ffi::details::ObjectUnsafe::RawObjectPtrFromUnowned<ffi::Object>(
                                    static_cast<TVMFFIObject*>(handle)))),
                            target, signature, defaults, unpack_fn);
  }
  if (binding != nullptr) {
    if (PublishBinding(self, handle, binding)) {
      handle = nullptr;
    } else {
      delete binding;
      binding = nullptr;
      PyErr_SetString(PyExc_RuntimeError, kAlreadyBound);
    }
  }
  if (handle != nullptr) TVMFFIObjectDecRef(handle);
  const bool ok = binding != nullptr && PyObject_SetAttrString(self, "__name__", name) == 0 &&
                  PyObject_SetAttrString(self, "__qualname__", name) == 0;
  Py_DECREF(ffi_target);
  Py_XDECREF(defaults);
  Py_XDECREF(unpack_fn);
  Py_XDECREF(name);
  return ok ? 0 : -1;
}

PyObject* Make(PyTypeObject* cls, PyObject* target, PyObject* signature) {
  PyObject* self = NewUnbound(cls, nullptr);
  if (self != nullptr && Bind(self, target, signature) < 0) Py_CLEAR(self);
  // Bound before anyone else has it: the entry point for its binding, chosen once.
  if (self != nullptr) Fields(self).vectorcall = Fields(self).binding->entry_point();
  return self;
}

int SetPreprocess(PyObject* self, PyObject* preprocess) {
  if (!PyObject_TypeCheck(self, g_function_type) || LoadAcquire(&Fields(self).binding) == nullptr) {
    PyErr_SetString(PyExc_TypeError, "set_preprocess() needs a bound kwcall.Function");
    return -1;
  }
  if (Fields(self).vectorcall != CallLate) {
    PyErr_SetString(PyExc_TypeError,
                    "set_preprocess() needs a kwcall.Function made by new_unbound and bound with "
                    "bind(); one made by make() or wrap() calls its binding directly");
    return -1;
  }
  if (preprocess != Py_None && !PyCallable_Check(preprocess)) {
    PyErr_SetString(PyExc_TypeError, "preprocess must be callable or None");
    return -1;
  }
  PyObject* step = preprocess == Py_None ? nullptr : preprocess;
  int status = 0;
  KWCALL_BEGIN_CRITICAL_SECTION(self);
  KwFunctionLayout& fields = Fields(self);
  // A call on another thread may be running the step this one replaces: it is kept (retired)
  // until the instance dies instead of released now.
  PyObject* old = fields.preprocess;
  if (old != nullptr && fields.retired_steps == nullptr) fields.retired_steps = PyList_New(0);
  if (old != nullptr &&
      (fields.retired_steps == nullptr || PyList_Append(fields.retired_steps, old) < 0)) {
    status = -1;
  } else {
    Publish(&fields.preprocess, Py_XNewRef(step));
    Py_XDECREF(old);  // retired_steps holds it now
  }
  KWCALL_END_CRITICAL_SECTION();
  return status;
}

}  // namespace python
}  // namespace kwcall
