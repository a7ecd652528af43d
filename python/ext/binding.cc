// Binding a Python call: CPython's rules (binder.h) over kwnames, the call-shape cache, and
// the call of the target with the bound objects.
#include "binding.h"

#include <kwcall/kwargs.h>
#include <tvm/ffi/c_api.h>

#include <memory>
#include <string>

#include "base_layout.h"
#include "binder.h"
#include "ffi_objects.h"
#include "small_array.h"

namespace kwcall {
namespace python {
namespace {

// Sets TypeError to a message built by the binder (UTF-8, possibly with surrogates that came
// from the caller's keyword names, and possibly with NUL bytes from a display name).
void SetTypeError(const std::string& message) {
  PyObject* text = PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()),
                                        "surrogatepass");
  if (text == nullptr) return;  // the decode error stays set
  PyErr_SetObject(PyExc_TypeError, text);
  Py_DECREF(text);
}

// The keyword names of one Python call, for BindSlots: pointer compares against the interned
// parameter names first, then the one name lookup (ParamNames) for keys that are not.
class PyKeys {
 public:
  PyKeys(PyObject* kwnames, const std::vector<PyObject*>& names, const ParamNames& lookup)
      : kwnames_(kwnames),
        names_(names),
        lookup_(lookup),
        count_(kwnames ? static_cast<int32_t>(PyTuple_GET_SIZE(kwnames)) : 0) {}
  ~PyKeys() {
    for (PyObject* temp : temps_) Py_DECREF(temp);
  }
  int32_t size() const { return count_; }
  int32_t Find(int32_t k) const {
    PyObject* key = PyTuple_GET_ITEM(kwnames_, k);
    const int32_t n = static_cast<int32_t>(names_.size());
    for (int32_t i = 0; i < n; ++i) {
      if (names_[i] == key) return i;
    }
    Py_ssize_t size = 0;
    const char* text = PyUnicode_Check(key) ? PyUnicode_AsUTF8AndSize(key, &size) : nullptr;
    if (text == nullptr) {
      PyErr_Clear();  // not a str, or not encodable: names no parameter
      return -1;
    }
    return lookup_.Find(NameKey(std::string_view(text, size)), &hint_);
  }
  // For messages only: the key as CPython prints it (lone surrogates kept).
  std::string_view Text(int32_t k) const {
    PyObject* key = PyTuple_GET_ITEM(kwnames_, k);
    PyObject* bytes = PyUnicode_Check(key)
                          ? PyUnicode_AsEncodedString(key, "utf-8", "surrogatepass")
                          : PyObject_Repr(key);
    if (bytes != nullptr && PyUnicode_Check(bytes)) {
      PyObject* encoded = PyUnicode_AsEncodedString(bytes, "utf-8", "surrogatepass");
      Py_DECREF(bytes);
      bytes = encoded;
    }
    if (bytes == nullptr) {
      PyErr_Clear();
      return "?";
    }
    temps_.push_back(bytes);
    return std::string_view(PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
  }

 private:
  PyObject* kwnames_;
  const std::vector<PyObject*>& names_;
  const ParamNames& lookup_;
  int32_t count_;
  mutable int32_t hint_ = 0;
  mutable std::vector<PyObject*> temps_;
};

// tvm_ffi.Function.__call__(fn, *items).
PyObject* CallFfiFunction(PyObject* fn, PyObject* const* items, Py_ssize_t n) {
  PyObject* tuple = PyTuple_New(n);
  if (tuple == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_INCREF(items[i]);
    PyTuple_SET_ITEM(tuple, i, items[i]);
  }
  PyObject* result = FfiObjects().function_call(fn, tuple, nullptr);
  Py_DECREF(tuple);
  return result;
}

}  // namespace

Binding::Binding(Signature signature)
    : signature_(std::move(signature)), arity_(signature_.num_params()), param_names_(signature_) {}

Binding::~Binding() {
  for (PyObject* name : names_) Py_XDECREF(name);
  Py_XDECREF(target_);
  Py_XDECREF(ffi_target_);
  Py_XDECREF(signature_obj_);
  Py_XDECREF(defaults_tuple_);
  Py_XDECREF(unpack_fn_);
  Py_XDECREF(ffi_callee_);
  Py_XDECREF(last_kwnames_);
}

Binding* Binding::Make(const Signature& signature, PyObject* target, PyObject* ffi_target,
                       PyObject* signature_obj, PyObject* defaults, PyObject* unpack_fn) {
  if (!PyTuple_Check(defaults) || PyTuple_GET_SIZE(defaults) != signature.num_params()) {
    PyErr_SetString(PyExc_TypeError, "defaults must be a tuple with one entry per parameter");
    return nullptr;
  }
  std::unique_ptr<Binding> b(new Binding(signature));
  for (PyObject* obj : {target, ffi_target, signature_obj, defaults, unpack_fn}) Py_INCREF(obj);
  b->target_ = target;
  b->ffi_target_ = ffi_target;
  b->signature_obj_ = signature_obj;
  b->defaults_tuple_ = defaults;
  b->unpack_fn_ = unpack_fn;
  for (int32_t i = 0; i < b->arity_; ++i) {
    const Param& param = signature.param(i);
    PyObject* name =
        PyUnicode_FromStringAndSize(param.name.data(), static_cast<Py_ssize_t>(param.name.size()));
    if (name == nullptr) return nullptr;
    PyUnicode_InternInPlace(&name);
    b->names_.push_back(name);
    b->defaults_.push_back(param.default_value ? PyTuple_GET_ITEM(defaults, i) : nullptr);
    b->unpack_.push_back(param.unpack);
    if (param.default_value &&
        param.default_value->type_index() == ffi::TypeIndex::kTVMFFIOpaquePyObject) {
      TVMFFIObject* opaque = reinterpret_cast<const TVMFFIAny*>(&*param.default_value)->v_obj;
      b->cpp_held_defaults_.emplace_back(
          ffi::details::ObjectUnsafe::RawObjectPtrFromUnowned<ffi::Object>(opaque),
          static_cast<PyObject*>(TVMFFIOpaqueObjectGetCellPtr(opaque)->handle));
    }
  }
  b->positional_is_native_ = signature.num_kwonly() == 0 && !signature.has_unpack();
  if (PyObject_TypeCheck(target, FfiObjects().function_type)) {
    b->ffi_callee_ = NewFfiFunction(ChandleOf(target));
    if (b->ffi_callee_ == nullptr) return nullptr;
  }
  return b.release();
}

PyObject* Binding::Call(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                        PyObject* kwnames) const {
  // tvm-ffi's packers write a KWARGS tail instead of keywords, never beside them.
  if (kwnames == nullptr) {
    for (Py_ssize_t i = 0; i < nargs; ++i) {
      if (TVM_FFI_PREDICT_FALSE(IsKwargsSentinelObject(args[i]))) {
        return CallWithKwargsTail(self, args, nargs, i);
      }
    }
  }
  return CallBound(self, args, nargs, kwnames);
}

PyObject* Binding::CallBound(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                             PyObject* kwnames) const {
  if (kwnames == nullptr && nargs == arity_ && positional_is_native_) {
    return CallTarget(self, args, nargs);
  }
  SmallArray<int32_t> fresh(arity_);
  const int32_t* slots = SlotsFor(nargs, kwnames, fresh.data());
  if (slots == nullptr) return nullptr;
  SmallArray<PyObject*> bound(arity_);
  FillBound(slots, arity_, static_cast<int32_t>(nargs), args, args + nargs, 1, defaults_.data(),
            bound.data());
  if (signature_.has_unpack()) return Unpack(self, bound.data());
  return CallTarget(self, bound.data(), arity_);
}

// tvm-ffi's own keyword packing from Python, `f(x, KWARGS, "alpha", 2.0)`: the tail becomes
// keywords and the call is bound like any other.
PyObject* Binding::CallWithKwargsTail(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                      Py_ssize_t sentinel_at) const {
  const Py_ssize_t tail = nargs - sentinel_at - 1;
  if (tail % 2 != 0) {
    SetTypeError(binder_detail::KwargsTailOdd(signature_, tail));
    return nullptr;
  }
  const Py_ssize_t num_tail = tail / 2;
  if (sentinel_at + num_tail > INT32_MAX) {
    PyErr_Format(PyExc_TypeError,
                 "%s() got %zd arguments with a KWARGS tail; at most %d can be bound",
                 signature_.name().c_str(), sentinel_at + num_tail, INT32_MAX);
    return nullptr;
  }
  PyObject* names = PyTuple_New(num_tail);
  if (names == nullptr) return nullptr;
  SmallArray<PyObject*> stack(static_cast<int32_t>(sentinel_at + num_tail));
  for (Py_ssize_t i = 0; i < sentinel_at; ++i) stack[i] = args[i];
  const PyObject* const* pairs = args + sentinel_at + 1;
  for (Py_ssize_t k = 0; k < num_tail; ++k) {
    PyObject* key = const_cast<PyObject*>(pairs[2 * k]);
    PyObject* value = const_cast<PyObject*>(pairs[2 * k + 1]);
    std::string error;
    if (IsKwargsSentinelObject(key)) {
      error = binder_detail::KwargsSentinelTwice(signature_);
    } else if (!PyUnicode_Check(key)) {
      error = binder_detail::KwargsKeyNotString(signature_, k, Py_TYPE(key)->tp_name);
    } else if (IsKwargsSentinelObject(value)) {
      Py_ssize_t size = 0;
      const char* text = PyUnicode_AsUTF8AndSize(key, &size);
      if (text == nullptr) PyErr_Clear();
      error = binder_detail::KwargsSentinelAsValue(
          signature_, text ? std::string_view(text, size) : std::string_view("?"));
    }
    if (!error.empty()) {
      Py_DECREF(names);
      SetTypeError(error);
      return nullptr;
    }
    Py_INCREF(key);
    PyTuple_SET_ITEM(names, k, key);
    stack[static_cast<int32_t>(sentinel_at + k)] = value;
  }
  PyObject* result = CallBound(self, stack.data(), sentinel_at, names);
  Py_DECREF(names);
  return result;
}

// The slots for a call shape: the last shape's when it repeats, else freshly bound.
const int32_t* Binding::SlotsFor(Py_ssize_t nargs, PyObject* kwnames, int32_t* fresh) const {
  if (nargs == last_nargs_ && kwnames == last_kwnames_) return last_slots_.data();
  if (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) > INT32_MAX) {
    PyErr_Format(PyExc_TypeError, "%s() got %zd keyword arguments; at most %d can be bound",
                 signature_.name().c_str(), PyTuple_GET_SIZE(kwnames), INT32_MAX);
    return nullptr;
  }
  std::string error;
  if (!BindSlots(signature_, nargs, PyKeys(kwnames, names_, param_names_), fresh, &error)) {
    if (!PyErr_Occurred()) SetTypeError(error);
    return nullptr;
  }
  // Store the new shape before releasing the old one: releasing it can run code (a key's
  // __del__) that calls this function again.
  PyObject* old = last_kwnames_;
  Py_XINCREF(kwnames);
  last_kwnames_ = kwnames;
  last_nargs_ = nargs;
  last_slots_.assign(fresh, fresh + arity_);
  Py_XDECREF(old);
  return fresh;
}

PyObject* Binding::Unpack(PyObject* self, PyObject* const* bound) const {
  SmallArray<PyObject*> values(arity_);
  SmallArray<PyObject*> owned(arity_);
  for (int32_t i = 0; i < arity_; ++i) owned[i] = nullptr;
  PyObject* result = nullptr;
  int32_t i = 0;
  for (; i < arity_; ++i) {
    values[i] = bound[i];
    if (!unpack_[i]) continue;
    owned[i] = PyObject_CallOneArg(unpack_fn_, bound[i]);
    if (owned[i] == nullptr) break;
    values[i] = owned[i];
  }
  if (i == arity_) result = CallTarget(self, values.data(), arity_);
  for (int32_t j = 0; j < arity_; ++j) Py_XDECREF(owned[j]);
  return result;
}

PyObject* Binding::CallTarget(PyObject* self, PyObject* const* bound, Py_ssize_t n) const {
  if (ffi_callee_ == nullptr) return PyObject_Vectorcall(target_, bound, n, nullptr);
  // The target itself when it releases the GIL as this function does (the usual case), else
  // the private twin, given this function's setting.
  if (ReleaseGilOf(target_) == ReleaseGilOf(self)) return CallFfiFunction(target_, bound, n);
  ReleaseGilOf(ffi_callee_) = ReleaseGilOf(self);
  return CallFfiFunction(ffi_callee_, bound, n);
}

// The C++ signature keeps opaque Python defaults alive from C++. While `self` is the only
// owner of its C++ function, of that function's signature and of those opaque objects, those
// references are `self`'s own, and reporting them lets the cycle collector free a cycle that
// runs through a default back to `self`. Anyone else holding any of them (a registered
// global, another function made from the same kwcall.Signature) makes them external again.
int Binding::Traverse(PyObject* self, visitproc visit, void* arg) const {
  Py_VISIT(target_);
  Py_VISIT(ffi_target_);
  Py_VISIT(signature_obj_);
  Py_VISIT(defaults_tuple_);
  Py_VISIT(unpack_fn_);
  if (cpp_held_defaults_.empty()) return 0;
  // Holders of the signature: this binding, the C++ function, and the kwcall.Signature.
  const auto* fn = ffi::details::ObjectUnsafe::RawObjectPtrFromUnowned<ffi::Object>(
      static_cast<TVMFFIObject*>(ChandleOf(self)));
  if (fn->use_count() != 1 || signature_.use_count() != 3 || Py_REFCNT(signature_obj_) != 1) {
    return 0;
  }
  for (const auto& [opaque, value] : cpp_held_defaults_) {
    if (opaque->use_count() == 1) Py_VISIT(value);
  }
  return 0;
}

}  // namespace python
}  // namespace kwcall
