// What one kwcall.Function instance holds: its C layout (tvm_ffi.Function's fields, then
// kwcall's) and its FunctionState, what its entry points (entry_points.cc) bind Python calls
// with: the C++ function (whose plan and keyword shapes it borrows, shared with C++ callers:
// src/function_object.h) and Python objects (the interned parameter names, the caller's default
// objects, the target, the preprocess step). Made whole with its instance, never changed after
// (release_gil's callee pick aside), freed with it.
#ifndef KWCALL_PYTHON_EXT_FUNCTION_STATE_H_
#define KWCALL_PYTHON_EXT_FUNCTION_STATE_H_

#include <Python.h>
#include <kwcall/signature.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "base_layout.h"
#include "binding/binding_plan.h"
#include "binding/function_binding.h"
#include "py_call.h"

namespace kwcall {
namespace python {

class FunctionState {
 public:
  /*!
   * \brief The state of a new kwcall.Function, or nullptr with an exception set.
   * \param function The C++ kwcall function (the instance's handle): held here, so that the plan
   *        and shapes it owns live as long as the state, whatever becomes of the handle.
   * \param target What `.target` returns; when it is not a tvm_ffi.Function (a Python
   *        callable), Python calls pass it the bound objects themselves.
   * \param signature_obj The kwcall.Signature Python object (`.signature`).
   * \param defaults One entry per parameter: the Python default object, used where the
   *        signature says the parameter has one (Python callers get these objects
   *        themselves, not FFI copies).
   * \param unpack_fn Called on the values of parameters marked for unpacking.
   * \param preprocess nullptr, or `preprocess(args, kwargs) -> (args, kwargs)`, which each
   *        Python call passes through before it is bound.
   */
  static FunctionState* Make(ffi::Function function, PyObject* target, PyObject* signature_obj,
                             PyObject* defaults, PyObject* unpack_fn, PyObject* preprocess);
  /*!
   * \brief The same state for a copy of the function (which shares its C++ function), with
   *        private callees of its own; nullptr with an exception set.
   */
  FunctionState* Copy() const;
  ~FunctionState();
  FunctionState& operator=(const FunctionState&) = delete;

  /*!
   * \brief Settle which private callee calls use, for `self`'s release_gil setting: called
   *        when the state is made and whenever release_gil is set, so that a call reads only
   *        the callee.
   */
  void SelectCallee(bool release_gil) const {
    if (ffi_callees_[0] != nullptr) {
      __atomic_store_n(&callee_, ffi_callees_[release_gil ? 1 : 0], __ATOMIC_RELAXED);
    }
  }
  /*!
   * \brief The private tvm_ffi.Function a call reaches an FFI target through (the one
   *        release_gil picked), or nullptr when the target is a Python callable.
   */
  PyObject* callee() const { return __atomic_load_n(&callee_, __ATOMIC_RELAXED); }

  /*! \brief Visit every Python reference this state holds (for the cycle collector). */
  int Traverse(PyObject* self, visitproc visit, void* arg) const;

  /*! \brief Whether `obj` is tvm-ffi's KWARGS sentinel (a wrapper of its FFI object too). */
  bool IsSentinel(PyObject* obj) const {
    return Py_TYPE(obj) == sentinel_type_ && ChandleOf(obj) == sentinel_handle_;
  }

  /*! \brief What a Python call binds against (py_call.h). */
  const PyParams& params() const { return params_; }
  const BindingPlan& plan() const { return params_.plan(); }
  const FunctionBinding& binding() const { return *params_.binding; }
  const Signature& signature() const { return params_.plan().signature(); }
  int32_t arity() const { return params_.arity; }
  /*! \brief The C++ kwcall function, which the state holds (a new instance's handle). */
  const ffi::Function& function() const { return function_; }
  PyObject* target() const { return target_; }
  PyObject* signature_obj() const { return signature_obj_; }
  PyObject* unpack_fn() const { return unpack_fn_; }
  PyObject* preprocess() const { return preprocess_; }

 private:
  FunctionState() = default;
  FunctionState(const FunctionState& other);

  bool OwnsCppDefaults(PyObject* self) const;
  // Makes ffi_callees_ for `handle`; false with an exception set.
  bool MakeCallees(void* handle);

  ffi::Function function_;  // the C++ kwcall function: owns the plan and the shapes
  PyParams params_;         // function_'s binding; the names owned, the defaults borrowed
                            // from defaults_tuple_
  // The KWARGS sentinel (ffi_objects.h), copied here so that a call reads it beside the rest.
  PyTypeObject* sentinel_type_ = nullptr;
  void* sentinel_handle_ = nullptr;
  PyObject* target_ = nullptr;          // owned
  PyObject* signature_obj_ = nullptr;   // owned
  PyObject* defaults_tuple_ = nullptr;  // owned
  PyObject* unpack_fn_ = nullptr;       // owned
  PyObject* preprocess_ = nullptr;      // owned; nullptr without a preprocess step
  // Python callers reach an FFI target through private tvm_ffi.Functions that share the
  // target's handle, one per release_gil setting (index 0 keeps the GIL, 1 releases it), made
  // with the state and never written after; callee_ is the one self's setting picks, written
  // only by SelectCallee, so a call reads one pointer and writes nothing. All nullptr when the
  // target is a Python callable, called directly.
  PyObject* ffi_callees_[2] = {nullptr, nullptr};  // owned
  mutable PyObject* callee_ = nullptr;             // one of ffi_callees_ (relaxed atomic)
  // The Python defaults that the C++ signature holds as opaque objects, with those objects:
  // references the cycle collector sees only through their owner (see OwnsCppDefaults).
  std::vector<std::pair<const ffi::Object*, PyObject*>> cpp_held_defaults_;
};

// An instance: tvm_ffi.Function's fields, then kwcall's. Both are written once, when the
// instance is made (function_type.cc: Make, Copy), before any other thread can have it, and
// never after: calls read them with plain loads, and nothing needs publishing.
struct KwFunctionLayout {
  BaseLayout base;
  vectorcallfunc vectorcall;  // the entry point (entry_points.h, EntryPointFor)
  FunctionState* state;       // owned; freed with the instance
  PyObject* weakrefs;         // the weak references' list (tvm_ffi.Function has no slot)
};

inline KwFunctionLayout& Fields(PyObject* self) {
  return *reinterpret_cast<KwFunctionLayout*>(self);
}

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_FUNCTION_STATE_H_
