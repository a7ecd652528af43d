// Binding a Python call: the plan's rules (binder.h) over kwnames, its keyword-shape cache,
// and the call of the target with the bound objects.
#include "py_binder.h"

#include <tvm/ffi/c_api.h>

#include <memory>
#include <string>
#include <utility>

#include "base_layout.h"
#include "binding/bind_call.h"
#include "binding/binder.h"
#include "binding/binding_errors.h"
#include "binding/kwargs_tail.h"
#include "binding/small_array.h"
#include "ffi_objects.h"
#include "function_object.h"

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

// `obj` as UTF-8 bytes (lone surrogates kept), or nullptr with no error set.
PyObject* Utf8Bytes(PyObject* obj) {
  PyObject* bytes = PyUnicode_AsEncodedString(obj, "utf-8", "surrogatepass");
  if (bytes == nullptr) PyErr_Clear();
  return bytes;
}

// What FindPlainKey returns for a key that is not an exact str.
constexpr int32_t kNotPlain = -4;

// The parameter `key` names, found as CPython finds it without running any __eq__: by pointer
// against the interned parameter names, then, for an exact str, by its text (the one name
// lookup, ParamNames); -1 when it names none, kNotPlain when it is not an exact str.
int32_t FindPlainKey(PyObject* key, const std::vector<PyObject*>& names, const BindingPlan& plan,
                     int32_t* hint) {
  const int32_t n = static_cast<int32_t>(names.size());
  for (int32_t i = 0; i < n; ++i) {
    if (names[i] == key) return i;
  }
  if (!PyUnicode_CheckExact(key)) return kNotPlain;
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(key, &size);
  if (text == nullptr) {
    PyErr_Clear();  // not encodable (a lone surrogate): names no parameter
    return -1;
  }
  return plan.names().Find(NameKey(std::string_view(text, size)), hint);
}

// The keyword names of one Python call, for BindSlots, compared as CPython compares them
// (initialize_locals): by pointer against the interned parameter names first; then exact
// strings by their text (the one name lookup, ParamNames), and str subclasses with ==, which
// runs their own __eq__. A key that is not a str is CPython's "keywords must be strings".
class PyKeys {
 public:
  PyKeys(PyObject* kwnames, const std::vector<PyObject*>& names, const BindingPlan& plan)
      : kwnames_(kwnames),
        names_(names),
        plan_(plan),
        count_(kwnames ? static_cast<int32_t>(PyTuple_GET_SIZE(kwnames)) : 0) {}
  ~PyKeys() {
    for (PyObject* temp : temps_) Py_DECREF(temp);
  }
  int32_t size() const { return count_; }
  int32_t Find(int32_t k) const {
    PyObject* key = PyTuple_GET_ITEM(kwnames_, k);
    const int32_t param = FindPlainKey(key, names_, plan_, &hint_);
    if (param != kNotPlain) return param;
    if (!PyUnicode_Check(key)) {
      SetTypeError(binding_errors::KeywordNotString(plan_.signature()));
      return kKeyFailed;
    }
    // CPython compares a key that is not an exact str with the parameters a keyword may name.
    const int32_t n = static_cast<int32_t>(names_.size());
    for (int32_t i = plan_.posonly_count(); i < n; ++i) {
      const int equal = PyObject_RichCompareBool(key, names_[i], Py_EQ);
      if (equal != 0) return equal > 0 ? i : kKeyFailed;
    }
    return -1;
  }
  // CPython's test for a positional-only parameter passed by keyword: the name == the key.
  int Names(int32_t k, int32_t param) const {
    PyObject* key = PyTuple_GET_ITEM(kwnames_, k);
    if (key == names_[param]) return 1;
    return PyObject_RichCompareBool(names_[param], key, Py_EQ);
  }
  // For messages only: the key as CPython prints it (its str(), lone surrogates kept).
  std::string_view Text(int32_t k) const {
    PyObject* key = PyTuple_GET_ITEM(kwnames_, k);
    PyObject* shown = PyUnicode_CheckExact(key) ? (Py_INCREF(key), key) : PyObject_Str(key);
    PyObject* bytes = nullptr;
    if (shown != nullptr) {
      bytes = Utf8Bytes(shown);
      Py_DECREF(shown);
    } else {
      PyErr_Clear();
    }
    if (bytes == nullptr) return "?";
    temps_.push_back(bytes);
    return std::string_view(PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
  }

 private:
  PyObject* kwnames_;
  const std::vector<PyObject*>& names_;
  const BindingPlan& plan_;
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

PyBinder::PyBinder(const PyBinder& other)
    : function_(other.function_),
      plan_(other.plan_),
      arity_(other.arity_),
      sentinel_type_(other.sentinel_type_),
      sentinel_handle_(other.sentinel_handle_),
      names_(other.names_),
      defaults_(other.defaults_),
      target_(other.target_),
      signature_obj_(other.signature_obj_),
      defaults_tuple_(other.defaults_tuple_),
      unpack_fn_(other.unpack_fn_),
      preprocess_(Py_XNewRef(other.preprocess_)),
      cpp_held_defaults_(other.cpp_held_defaults_) {
  for (PyObject* name : names_) Py_INCREF(name);
  for (PyObject* obj : {target_, signature_obj_, defaults_tuple_, unpack_fn_}) Py_INCREF(obj);
}

PyBinder* PyBinder::Copy() const {
  std::unique_ptr<PyBinder> b(new PyBinder(*this));
  if (ffi_callees_[0] != nullptr && !b->MakeCallees(ChandleOf(ffi_callees_[0]))) return nullptr;
  return b.release();
}

PyBinder::~PyBinder() {
  for (PyObject* name : names_) Py_XDECREF(name);
  Py_XDECREF(target_);
  Py_XDECREF(signature_obj_);
  Py_XDECREF(defaults_tuple_);
  Py_XDECREF(unpack_fn_);
  Py_XDECREF(preprocess_);
  for (PyObject* callee : ffi_callees_) Py_XDECREF(callee);
}

bool PyBinder::MakeCallees(void* handle) {
  for (int release_gil : {0, 1}) {
    PyObject* callee = NewFfiFunction(handle);
    if (callee == nullptr) return false;
    ReleaseGilOf(callee) = release_gil;
    ffi_callees_[release_gil] = callee;
  }
  return true;
}

PyBinder* PyBinder::Make(ffi::Function function, PyObject* target, PyObject* signature_obj,
                         PyObject* defaults, PyObject* unpack_fn, PyObject* preprocess) {
  const BindingPlan* plan = PlanOf(function.get());
  const Signature& signature = plan->signature();
  if (!PyTuple_Check(defaults) || PyTuple_GET_SIZE(defaults) != signature.num_params()) {
    PyErr_SetString(PyExc_TypeError, "defaults must be a tuple with one entry per parameter");
    return nullptr;
  }
  std::unique_ptr<PyBinder> b(new PyBinder());
  for (PyObject* obj : {target, signature_obj, defaults, unpack_fn}) Py_INCREF(obj);
  b->function_ = std::move(function);
  b->plan_ = plan;
  b->arity_ = plan->arity();
  b->sentinel_type_ = FfiObjects().sentinel_type;
  b->sentinel_handle_ = FfiObjects().sentinel_handle;
  b->target_ = target;
  b->signature_obj_ = signature_obj;
  b->defaults_tuple_ = defaults;
  b->unpack_fn_ = unpack_fn;
  b->preprocess_ = Py_XNewRef(preprocess);
  for (int32_t i = 0; i < b->arity_; ++i) {
    const Param& param = signature.param(i);
    PyObject* name =
        PyUnicode_FromStringAndSize(param.name.data(), static_cast<Py_ssize_t>(param.name.size()));
    if (name == nullptr) return nullptr;
    PyUnicode_InternInPlace(&name);
    b->names_.push_back(name);
    b->defaults_.push_back(param.default_value ? PyTuple_GET_ITEM(defaults, i) : nullptr);
    if (param.default_value &&
        param.default_value->type_index() == ffi::TypeIndex::kTVMFFIOpaquePyObject) {
      TVMFFIObject* opaque = reinterpret_cast<const TVMFFIAny*>(&*param.default_value)->v_obj;
      b->cpp_held_defaults_.emplace_back(
          ffi::details::ObjectUnsafe::RawObjectPtrFromUnowned<ffi::Object>(opaque),
          static_cast<PyObject*>(TVMFFIOpaqueObjectGetCellPtr(opaque)->handle));
    }
  }
  if (PyObject_TypeCheck(target, FfiObjects().function_type) &&
      !b->MakeCallees(ChandleOf(target))) {
    return nullptr;
  }
  return b.release();
}

// -- calls -----------------------------------------------------------------------------------

PyObject* PyBinder::Call(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames) const {
  return plan_->call_kind() == CallKind::kUnpack ? BindAndCall<true>(self, args, nargs, kwnames)
                                                 : BindAndCall<false>(self, args, nargs, kwnames);
}

// One Python call for the bind pipeline (src/binding/bind_call.h): keys compared as CPython
// compares them, by pointer first, exact strings by text; anything else (a str subclass,
// which may run its own __eq__) is left to the full rules, PyKeys.
class PyCall {
 public:
  using Value = PyObject*;

  PyCall(const PyBinder& binder, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames)
      : binder_(binder),
        args_(args),
        kwnames_(kwnames),
        nargs_(nargs),
        num_keywords_(kwnames ? PyTuple_GET_SIZE(kwnames) : 0) {}

  static void Copy(PyObject** dst, PyObject* const& src) { *dst = src; }
  // Within int32: BindAndCall sends larger calls straight to BindFull.
  int32_t nargs() const { return static_cast<int32_t>(nargs_); }
  int32_t num_keywords() const { return static_cast<int32_t>(num_keywords_); }
  PyObject* const& positional(int32_t i) const { return args_[i]; }
  PyObject* const& keyword_value(int32_t k) const { return args_[nargs_ + k]; }
  PyObject* const* defaults() const { return binder_.defaults_.data(); }

  bool KeyIs(int32_t k, int32_t param) const {
    return PyTuple_GET_ITEM(kwnames_, k) == binder_.names_[param];
  }
  int32_t FindKey(int32_t k, int32_t* hint) const {
    const int32_t param =
        FindPlainKey(PyTuple_GET_ITEM(kwnames_, k), binder_.names_, binder_.plan(), hint);
    return param >= 0 ? param : kFullRules;
  }
  // CPython's rules in full (binder.h); a call that binds leaves its shape in the plan.
  bool BindFull(PyObject** bound) const {
    const BindingPlan& plan = binder_.plan();
    if (num_keywords_ > INT32_MAX) {
      SetTypeError(
          binding_errors::TooManyToBind(plan.signature(), num_keywords_, "keyword arguments"));
      return false;
    }
    const int32_t arity = plan.arity();
    SmallArray<int32_t> slots(arity);
    std::string error;
    if (!BindSlots(plan.signature(), nargs_, PyKeys(kwnames_, binder_.names_, plan), slots.data(),
                   &error)) {
      if (!PyErr_Occurred()) SetTypeError(error);
      return false;
    }
    const int32_t n = static_cast<int32_t>(nargs_);  // bound: at most the signature's size
    plan.RememberSlots(slots.data(), n, static_cast<int32_t>(num_keywords_));
    FillBound(slots.data(), arity, n, args_, args_ + nargs_, 1, defaults(), bound);
    return true;
  }
  bool fits_pipeline() const { return nargs_ <= binder_.arity_ && num_keywords_ <= INT32_MAX; }

 private:
  const PyBinder& binder_;
  PyObject* const* args_;
  PyObject* kwnames_;
  Py_ssize_t nargs_;
  Py_ssize_t num_keywords_;
};

template <bool kUnpack>
PyObject* PyBinder::BindAndCall(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                PyObject* kwnames) const {
  // tvm-ffi's packers write a KWARGS tail instead of keywords, never beside them.
  if (kwnames == nullptr) {
    const Py_ssize_t sentinel_at =
        FindKwargsSentinel(args, nargs, [this](PyObject* obj) { return IsSentinel(obj); });
    if (TVM_FFI_PREDICT_FALSE(sentinel_at < nargs)) {
      return CallWithKwargsTail<kUnpack>(self, args, nargs, sentinel_at);
    }
  }
  return BindKeywordsAndCall<kUnpack>(self, args, nargs, kwnames);
}

template <bool kUnpack>
PyObject* PyBinder::BindKeywordsAndCall(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                        PyObject* kwnames) const {
  const PyCall call(*this, args, nargs, kwnames);
  SmallArray<PyObject*> bound(arity_);
  // More than a signature can bind is an error, which only the full rules word.
  const bool ok = TVM_FFI_PREDICT_TRUE(call.fits_pipeline()) ? BindCall(*plan_, call, bound.data())
                                                             : call.BindFull(bound.data());
  if (!ok) return nullptr;
  if constexpr (kUnpack) return Unpack(bound.data());
  return CallTarget(bound.data(), arity_);
}

// tvm-ffi's own keyword packing from Python, `f(x, KWARGS, "alpha", 2.0)`: the tail becomes
// keywords and the call is bound like any other.
template <bool kUnpack>
PyObject* PyBinder::CallWithKwargsTail(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                       Py_ssize_t sentinel_at) const {
  const KwargsTail tail = SplitKwargsTail(nargs, sentinel_at);
  if (tail.odd) {
    SetTypeError(binding_errors::KwargsTailOdd(signature(), tail.size));
    return nullptr;
  }
  if (tail.nargs + tail.num_keywords > INT32_MAX) {
    SetTypeError(binding_errors::TooManyToBind(signature(), tail.nargs + tail.num_keywords,
                                               "arguments with a KWARGS tail"));
    return nullptr;
  }
  PyObject* const* pairs = args + sentinel_at + 1;
  int64_t at = 0;
  const TailFault fault = CheckKwargsPairs(
      pairs, tail.num_keywords, [this](PyObject* obj) { return IsSentinel(obj); },
      [](PyObject* key) { return PyUnicode_Check(key) != 0; }, &at);
  if (fault != TailFault::kNone) {
    PyObject* key = pairs[2 * at];
    PyObject* text = fault == TailFault::kSentinelAsValue ? Utf8Bytes(key) : nullptr;
    SetTypeError(binding_errors::KwargsPair(
        signature(), fault, at, Py_TYPE(key)->tp_name,
        text ? std::string_view(PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text)) : "?"));
    Py_XDECREF(text);
    return nullptr;
  }
  PyObject* names = PyTuple_New(tail.num_keywords);
  if (names == nullptr) return nullptr;
  SmallArray<PyObject*> stack(static_cast<int32_t>(tail.nargs + tail.num_keywords));
  for (Py_ssize_t i = 0; i < tail.nargs; ++i) stack[static_cast<int32_t>(i)] = args[i];
  for (Py_ssize_t k = 0; k < tail.num_keywords; ++k) {
    Py_INCREF(pairs[2 * k]);
    PyTuple_SET_ITEM(names, k, pairs[2 * k]);
    stack[static_cast<int32_t>(tail.nargs + k)] = pairs[2 * k + 1];
  }
  PyObject* result = BindKeywordsAndCall<kUnpack>(self, stack.data(), tail.nargs, names);
  Py_DECREF(names);
  return result;
}

PyObject* PyBinder::Unpack(PyObject* const* bound) const {
  SmallArray<PyObject*> values(arity_);
  SmallArray<PyObject*> owned(arity_);
  for (int32_t i = 0; i < arity_; ++i) owned[i] = nullptr;
  PyObject* result = nullptr;
  int32_t i = 0;
  for (; i < arity_; ++i) {
    values[i] = bound[i];
    if (!signature().param(i).unpack) continue;
    owned[i] = PyObject_CallOneArg(unpack_fn_, bound[i]);
    if (owned[i] == nullptr) break;
    values[i] = owned[i];
  }
  if (i == arity_) result = CallTarget(values.data(), arity_);
  for (int32_t j = 0; j < arity_; ++j) Py_XDECREF(owned[j]);
  return result;
}

PyObject* PyBinder::CallTarget(PyObject* const* bound, Py_ssize_t n) const {
  // The private callee release_gil picked (SelectCallee); none for a Python callable.
  PyObject* callee = __atomic_load_n(&callee_, __ATOMIC_RELAXED);
  if (callee == nullptr) return PyObject_Vectorcall(target_, bound, n, nullptr);
  return CallFfiFunction(callee, bound, n);
}

// Who owns the Python defaults that the C++ signature holds (docs/DESIGN.md, "Who owns the
// Python defaults"): that C++ signature, through its opaque objects. They are this function's
// to report to the cycle collector while everything between `self` and them is held through
// `self` alone: the C++ function is held only by this binder and `self`'s handle (when the
// handle is still that function), that function's plan and the kwcall.Signature `self` holds
// are the C++ signature's only holders, `self` is that kwcall.Signature's only holder; and,
// default by default, the signature is the opaque object's only holder. Any other holder (a
// registered global, a copy, another function made from the same signature, a C++ caller) is a
// root the collector cannot see, and the references stay external.
bool PyBinder::OwnsCppDefaults(PyObject* self) const {
  using ffi::details::ObjectUnsafe;
  const ffi::Object* fn = function_.get();
  const bool handle_is_fn = ChandleOf(self) == ObjectUnsafe::GetHeader(fn);
  const ffi::Object* sig = signature().get();
  const bool wrapper_shares_sig = ChandleOf(signature_obj_) == ObjectUnsafe::GetHeader(sig);
  return fn->use_count() == 1 + (handle_is_fn ? 1 : 0) &&
         sig->use_count() == 1 + (wrapper_shares_sig ? 1 : 0) && Py_REFCNT(signature_obj_) == 1;
}

int PyBinder::Traverse(PyObject* self, visitproc visit, void* arg) const {
  Py_VISIT(target_);
  Py_VISIT(signature_obj_);
  Py_VISIT(defaults_tuple_);
  Py_VISIT(unpack_fn_);
  Py_VISIT(preprocess_);
  if (cpp_held_defaults_.empty() || !OwnsCppDefaults(self)) return 0;
  for (const auto& [opaque, value] : cpp_held_defaults_) {
    if (opaque->use_count() == 1) Py_VISIT(value);
  }
  return 0;
}

// The entry points (entry_points.cc) call these.
template PyObject* PyBinder::BindAndCall<false>(PyObject*, PyObject* const*, Py_ssize_t,
                                                PyObject*) const;
template PyObject* PyBinder::BindAndCall<true>(PyObject*, PyObject* const*, Py_ssize_t,
                                               PyObject*) const;

}  // namespace python
}  // namespace kwcall
