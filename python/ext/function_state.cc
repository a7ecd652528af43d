// A kwcall.Function's state (function_state.h): made, copied, and reported to the cycle
// collector. Its calls are entry_points.cc's.
#include "function_state.h"

#include <tvm/ffi/c_api.h>

#include <memory>
#include <string>
#include <utility>

#include "base_layout.h"
#include "ffi_objects.h"
#include "function_object.h"

namespace kwcall {
namespace python {

FunctionState::FunctionState(const FunctionState& other)
    : function_(other.function_),
      params_(other.params_),
      sentinel_type_(other.sentinel_type_),
      sentinel_handle_(other.sentinel_handle_),
      target_(other.target_),
      signature_obj_(other.signature_obj_),
      defaults_tuple_(other.defaults_tuple_),
      unpack_fn_(other.unpack_fn_),
      preprocess_(Py_XNewRef(other.preprocess_)),
      cpp_held_defaults_(other.cpp_held_defaults_) {
  for (PyObject* name : params_.names) Py_INCREF(name);
  for (PyObject* obj : {target_, signature_obj_, defaults_tuple_, unpack_fn_}) Py_INCREF(obj);
}

FunctionState* FunctionState::Copy() const {
  std::unique_ptr<FunctionState> s(new FunctionState(*this));
  if (ffi_callees_[0] != nullptr && !s->MakeCallees(ChandleOf(ffi_callees_[0]))) return nullptr;
  return s.release();
}

FunctionState::~FunctionState() {
  for (PyObject* name : params_.names) Py_XDECREF(name);
  Py_XDECREF(target_);
  Py_XDECREF(signature_obj_);
  Py_XDECREF(defaults_tuple_);
  Py_XDECREF(unpack_fn_);
  Py_XDECREF(preprocess_);
  for (PyObject* callee : ffi_callees_) Py_XDECREF(callee);
}

bool FunctionState::MakeCallees(void* handle) {
  for (int release_gil : {0, 1}) {
    PyObject* callee = NewFfiFunction(handle);
    if (callee == nullptr) return false;
    ReleaseGilOf(callee) = release_gil;
    ffi_callees_[release_gil] = callee;
  }
  return true;
}

FunctionState* FunctionState::Make(ffi::Function function, PyObject* target,
                                   PyObject* signature_obj, PyObject* defaults, PyObject* unpack_fn,
                                   PyObject* preprocess) {
  const KwFunctionObj* cpp = KwFunctionOf(function.get());
  const Signature& signature = cpp->plan().signature();
  if (!PyTuple_Check(defaults) || PyTuple_GET_SIZE(defaults) != signature.num_params()) {
    PyErr_SetString(PyExc_TypeError, "defaults must be a tuple with one entry per parameter");
    return nullptr;
  }
  std::unique_ptr<FunctionState> s(new FunctionState());
  for (PyObject* obj : {target, signature_obj, defaults, unpack_fn}) Py_INCREF(obj);
  s->function_ = std::move(function);
  s->params_.binding = &cpp->binding();
  s->params_.arity = cpp->plan().arity();
  s->sentinel_type_ = FfiObjects().sentinel_type;
  s->sentinel_handle_ = FfiObjects().sentinel_handle;
  s->target_ = target;
  s->signature_obj_ = signature_obj;
  s->defaults_tuple_ = defaults;
  s->unpack_fn_ = unpack_fn;
  s->preprocess_ = Py_XNewRef(preprocess);
  for (int32_t i = 0; i < s->params_.arity; ++i) {
    const Param& param = signature.param(i);
    PyObject* name =
        PyUnicode_FromStringAndSize(param.name.data(), static_cast<Py_ssize_t>(param.name.size()));
    if (name == nullptr) return nullptr;
    PyUnicode_InternInPlace(&name);
    s->params_.names.push_back(name);
    s->params_.defaults.push_back(param.default_value ? PyTuple_GET_ITEM(defaults, i) : nullptr);
    if (param.default_value &&
        param.default_value->type_index() == ffi::TypeIndex::kTVMFFIOpaquePyObject) {
      TVMFFIObject* opaque = reinterpret_cast<const TVMFFIAny*>(&*param.default_value)->v_obj;
      s->cpp_held_defaults_.emplace_back(
          ffi::details::ObjectUnsafe::RawObjectPtrFromUnowned<ffi::Object>(opaque),
          static_cast<PyObject*>(TVMFFIOpaqueObjectGetCellPtr(opaque)->handle));
    }
  }
  if (PyObject_TypeCheck(target, FfiObjects().function_type) &&
      !s->MakeCallees(ChandleOf(target))) {
    return nullptr;
  }
  return s.release();
}

// Who owns the Python defaults that the C++ signature holds (docs/DESIGN.md, "Who owns the
// Python defaults"): that C++ signature, through its opaque objects. They are this function's
// to report to the cycle collector while everything between `self` and them is held through
// `self` alone: the C++ function is held only by this state and `self`'s handle (when the
// handle is still that function), that function's plan and the kwcall.Signature `self` holds
// are the C++ signature's only holders, `self` is that kwcall.Signature's only holder; and,
// default by default, the signature is the opaque object's only holder. Any other holder (a
// registered global, a copy, another function made from the same signature, a C++ caller) is a
// root the collector cannot see, and the references stay external.
bool FunctionState::OwnsCppDefaults(PyObject* self) const {
  using ffi::details::ObjectUnsafe;
  const ffi::Object* fn = function_.get();
  const bool handle_is_fn = ChandleOf(self) == ObjectUnsafe::GetHeader(fn);
  const ffi::Object* sig = signature().get();
  const bool wrapper_shares_sig = ChandleOf(signature_obj_) == ObjectUnsafe::GetHeader(sig);
  return fn->use_count() == 1 + (handle_is_fn ? 1 : 0) &&
         sig->use_count() == 1 + (wrapper_shares_sig ? 1 : 0) && Py_REFCNT(signature_obj_) == 1;
}

int FunctionState::Traverse(PyObject* self, visitproc visit, void* arg) const {
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

}  // namespace python
}  // namespace kwcall
