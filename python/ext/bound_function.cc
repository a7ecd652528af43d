// A kwcall.Function's binding (bound_function.h): made (its vectorcall entry chosen), copied,
// and reported to the cycle collector. Its calls are py_call.cc's.
#include "bound_function.h"

#include <tvm/ffi/c_api.h>

#include <memory>

#include "base_layout.h"
#include "ffi_objects.h"
#include "function_layout.h"

namespace kwcall {
namespace python {

BoundFunction::BoundFunction(const BoundFunction& other)
    : plan_(other.plan_),
      arity_(other.arity_),
      entry_point_(other.entry_point_),
      sentinel_type_(other.sentinel_type_),
      sentinel_handle_(other.sentinel_handle_),
      names_(other.names_),
      defaults_(other.defaults_),
      target_(other.target_),
      signature_obj_(other.signature_obj_),
      defaults_tuple_(other.defaults_tuple_),
      unpack_fn_(other.unpack_fn_),
      cpp_held_defaults_(other.cpp_held_defaults_) {
  for (PyObject* name : names_) Py_INCREF(name);
  for (PyObject* obj : {target_, signature_obj_, defaults_tuple_, unpack_fn_}) Py_INCREF(obj);
}

BoundFunction* BoundFunction::Copy() const {
  std::unique_ptr<BoundFunction> b(new BoundFunction(*this));
  if (ffi_callees_[0] != nullptr && !b->MakeCallees(ChandleOf(ffi_callees_[0]))) return nullptr;
  return b.release();
}

BoundFunction::~BoundFunction() {
  for (PyObject* name : names_) Py_XDECREF(name);
  Py_XDECREF(target_);
  Py_XDECREF(signature_obj_);
  Py_XDECREF(defaults_tuple_);
  Py_XDECREF(unpack_fn_);
  for (PyObject* callee : ffi_callees_) Py_XDECREF(callee);
}

bool BoundFunction::MakeCallees(void* handle) {
  for (int release_gil : {0, 1}) {
    PyObject* callee = NewFfiFunction(handle);
    if (callee == nullptr) return false;
    ReleaseGilOf(callee) = release_gil;
    ffi_callees_[release_gil] = callee;
  }
  return true;
}

BoundFunction* BoundFunction::Make(const BindingPlan* plan, PyObject* target,
                                   PyObject* signature_obj, PyObject* defaults,
                                   PyObject* unpack_fn) {
  const Signature& signature = plan->signature();
  if (!PyTuple_Check(defaults) || PyTuple_GET_SIZE(defaults) != signature.num_params()) {
    PyErr_SetString(PyExc_TypeError, "defaults must be a tuple with one entry per parameter");
    return nullptr;
  }
  std::unique_ptr<BoundFunction> b(new BoundFunction());
  for (PyObject* obj : {target, signature_obj, defaults, unpack_fn}) Py_INCREF(obj);
  b->plan_ = plan;
  b->arity_ = plan->arity();
  switch (plan->call_kind()) {
    case CallKind::kNative:
      b->entry_point_ = Entry<CallKind::kNative>;
      break;
    case CallKind::kBind:
      b->entry_point_ = Entry<CallKind::kBind>;
      break;
    case CallKind::kUnpack:
      b->entry_point_ = Entry<CallKind::kUnpack>;
      break;
  }
  b->sentinel_type_ = ffi_objects_detail::g_sentinel_type;
  b->sentinel_handle_ = ffi_objects_detail::g_sentinel_handle;
  b->target_ = target;
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

// Who owns the Python defaults that the C++ signature holds (docs/DESIGN.md, "Who owns the
// Python defaults"): that C++ signature, through its opaque objects. They are this function's
// to report to the cycle collector while everything between `self` and them is held through
// `self` alone: `self`'s handle is the C++ function's only holder, that function's plan and the
// kwcall.Signature `self` holds are the C++ signature's only holders, `self` is that
// kwcall.Signature's only holder; and, default by default, the signature is the opaque
// object's only holder. Any
// other holder (a registered global, a copy, another function made from the same signature, a
// C++ caller) is a root the collector cannot see, and the references stay external.
bool BoundFunction::OwnsCppDefaults(PyObject* self) const {
  using ffi::details::ObjectUnsafe;
  const auto* fn = ObjectUnsafe::RawObjectPtrFromUnowned<ffi::Object>(
      static_cast<TVMFFIObject*>(ChandleOf(self)));
  const ffi::Object* sig = signature().get();
  const bool wrapper_shares_sig = ChandleOf(signature_obj_) == ObjectUnsafe::GetHeader(sig);
  if (fn->use_count() != 1 || sig->use_count() != 1 + (wrapper_shares_sig ? 1 : 0) ||
      Py_REFCNT(signature_obj_) != 1) {
    return false;
  }
  return true;
}

int BoundFunction::Traverse(PyObject* self, visitproc visit, void* arg) const {
  Py_VISIT(target_);
  Py_VISIT(signature_obj_);
  Py_VISIT(defaults_tuple_);
  Py_VISIT(unpack_fn_);
  if (cpp_held_defaults_.empty() || !OwnsCppDefaults(self)) return 0;
  for (const auto& [opaque, value] : cpp_held_defaults_) {
    if (opaque->use_count() == 1) Py_VISIT(value);
  }
  return 0;
}

}  // namespace python
}  // namespace kwcall
