// What one kwcall.Function keeps beside its C++ function to bind Python calls: the C++ function
// itself (whose binding plan it borrows: src/binding/binding_plan.h, shared with C++ callers),
// and Python objects (the interned parameter names, the caller's default objects, the target,
// the preprocess step). It binds through the one bind pipeline (src/binding/bind_call.h); the
// entry points that call it are entry_points.cc's. Made whole with its kwcall.Function, never
// changed after (release_gil's callee pick aside), freed with it.
#ifndef KWCALL_PYTHON_EXT_PY_BINDER_H_
#define KWCALL_PYTHON_EXT_PY_BINDER_H_

#include <Python.h>
#include <kwcall/signature.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "base_layout.h"
#include "binding/binding_plan.h"
#include "binding/kwargs_tail.h"

namespace kwcall {
namespace python {

class PyBinder {
 public:
  /*!
   * \brief The binder of a kwcall.Function, or nullptr with an exception set.
   * \param function The C++ kwcall function (the instance's handle): held here, so that the plan
   *        it owns lives as long as the binder, whatever becomes of the handle.
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
  static PyBinder* Make(ffi::Function function, PyObject* target, PyObject* signature_obj,
                        PyObject* defaults, PyObject* unpack_fn, PyObject* preprocess);
  /*!
   * \brief The same binder for a copy of the function (which shares its C++ function), with
   *        private callees of its own; nullptr with an exception set.
   */
  PyBinder* Copy() const;
  ~PyBinder();
  PyBinder& operator=(const PyBinder&) = delete;

  // -- what the entry points (entry_points.cc) call ------------------------------------------

  /*! \brief Whether a call without keywords goes to the target as it is (ForwardsAsIs). */
  bool ForwardsAsIs(PyObject* const* args, Py_ssize_t nargs) const {
    return kwcall::ForwardsAsIs(args, nargs, arity_,
                                [this](PyObject* obj) { return IsSentinel(obj); });
  }
  /*!
   * \brief Bind a call to the signature (CPython's rules, CPython's TypeError texts), unpack
   *        where the signature says so, and call the target (py_call.cc). A KWARGS sentinel
   *        among the values starts tvm-ffi's keyword tail (an error in a call with keywords),
   *        as for C++ callers.
   */
  template <bool kUnpack>
  PyObject* BindAndCall(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                        PyObject* kwnames) const;
  /*! \brief BindAndCall for this binder's call kind. */
  PyObject* Call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const;
  /*! \brief Call the target with `n` bound objects. */
  PyObject* CallTarget(PyObject* const* bound, Py_ssize_t n) const;

  /*!
   * \brief Settle which private callee calls use, for `self`'s release_gil setting: called
   *        when the binder is made and whenever release_gil is set, so that a call reads only
   *        the callee.
   */
  void SelectCallee(bool release_gil) const {
    if (ffi_callees_[0] != nullptr) {
      __atomic_store_n(&callee_, ffi_callees_[release_gil ? 1 : 0], __ATOMIC_RELAXED);
    }
  }

  /*! \brief Visit every Python reference this binder holds (for the cycle collector). */
  int Traverse(PyObject* self, visitproc visit, void* arg) const;

  const BindingPlan& plan() const { return *plan_; }
  const Signature& signature() const { return plan_->signature(); }
  /*! \brief The C++ kwcall function, which the binder holds (a new instance's handle). */
  const ffi::Function& function() const { return function_; }
  PyObject* target() const { return target_; }
  PyObject* signature_obj() const { return signature_obj_; }
  PyObject* preprocess() const { return preprocess_; }

 private:
  PyBinder() = default;
  PyBinder(const PyBinder& other);

  friend class PyCall;

  template <bool kUnpack>
  PyObject* BindKeywordsAndCall(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                PyObject* kwnames) const;
  template <bool kUnpack>
  PyObject* CallWithKwargsTail(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                               PyObject* kwnames, Py_ssize_t sentinel_at) const;
  PyObject* Unpack(PyObject* const* bound) const;
  bool IsSentinel(PyObject* obj) const {
    return Py_TYPE(obj) == sentinel_type_ && ChandleOf(obj) == sentinel_handle_;
  }
  bool OwnsCppDefaults(PyObject* self) const;
  // Makes ffi_callees_ for `handle`; false with an exception set.
  bool MakeCallees(void* handle);

  ffi::Function function_;             // the C++ kwcall function: owns plan_
  const BindingPlan* plan_ = nullptr;  // function_'s
  int32_t arity_ = 0;
  // The KWARGS sentinel (ffi_objects.h), copied here so that a call reads it beside the rest.
  PyTypeObject* sentinel_type_ = nullptr;
  void* sentinel_handle_ = nullptr;
  std::vector<PyObject*> names_;        // interned, owned
  std::vector<PyObject*> defaults_;     // borrowed from defaults_tuple_; nullptr where none
  PyObject* target_ = nullptr;          // owned
  PyObject* signature_obj_ = nullptr;   // owned
  PyObject* defaults_tuple_ = nullptr;  // owned
  PyObject* unpack_fn_ = nullptr;       // owned
  PyObject* preprocess_ = nullptr;      // owned; nullptr without a preprocess step
  // Python callers reach an FFI target through private tvm_ffi.Functions that share the
  // target's handle, one per release_gil setting (index 0 keeps the GIL, 1 releases it), made
  // with the binder and never written after; callee_ is the one self's setting picks,
  // written only by SelectCallee, so a call reads one pointer and writes nothing. All
  // nullptr when the target is a Python callable, called directly.
  PyObject* ffi_callees_[2] = {nullptr, nullptr};  // owned
  mutable PyObject* callee_ = nullptr;             // one of ffi_callees_ (relaxed atomic)
  // The Python defaults that the C++ signature holds as opaque objects, with those objects:
  // references the cycle collector sees only through their owner (see OwnsCppDefaults).
  std::vector<std::pair<const ffi::Object*, PyObject*>> cpp_held_defaults_;
};

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_PY_BINDER_H_
