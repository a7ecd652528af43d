// What one kwcall.Function keeps beside its C++ function to bind Python calls: only Python
// objects (the interned parameter names, the caller's default objects, the target). The
// rules, the names' lookup and the keyword-shape cache are the C++ function's binding plan
// (src/binding/binding_plan.h), shared with C++ callers, and it binds through the one bind
// pipeline (src/binding/bind_call.h). Made once, when the function is bound.
#ifndef KWCALL_PYTHON_EXT_BOUND_FUNCTION_H_
#define KWCALL_PYTHON_EXT_BOUND_FUNCTION_H_

#include <Python.h>
#include <kwcall/signature.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "base_layout.h"
#include "binding/binding_plan.h"

namespace kwcall {
namespace python {

class BoundFunction {
 public:
  /*!
   * \brief A binding for a kwcall.Function whose handle is the C++ kwcall function with
   *        `plan`, or nullptr with an exception set.
   * \param plan The C++ function's plan; that function (the instance's handle) keeps it alive.
   * \param target What `.target` returns; when it is not a tvm_ffi.Function (a Python
   *        callable), Python calls pass it the bound objects themselves.
   * \param signature_obj The kwcall.Signature Python object (`.signature`).
   * \param defaults One entry per parameter: the Python default object, used where the
   *        signature says the parameter has one (Python callers get these objects
   *        themselves, not FFI copies).
   * \param unpack_fn Called on the values of parameters marked for unpacking.
   */
  static BoundFunction* Make(const BindingPlan* plan, PyObject* target, PyObject* signature_obj,
                             PyObject* defaults, PyObject* unpack_fn);
  /*!
   * \brief The same binding for a copy of the function (which shares its handle), with
   *        private callees of its own; nullptr with an exception set.
   */
  BoundFunction* Copy() const;
  ~BoundFunction();
  BoundFunction& operator=(const BoundFunction&) = delete;

  /*!
   * \brief The vectorcall entry point of an instance bound to this binding, chosen from the
   *        plan's call kind when the binding is made: a full-arity positional call of a native
   *        kind goes to the target as it is; every other call is bound to the signature
   *        (CPython's rules, CPython's TypeError texts), and, where the signature says so,
   *        unpacked. A KWARGS sentinel among the values starts tvm-ffi's keyword tail (an
   *        error in a call with keywords), as for C++ callers (py_call.cc).
   */
  vectorcallfunc entry_point() const { return entry_point_; }
  /*! \brief What entry_point() does, for a caller that has the binding already. */
  PyObject* Call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const;

  /*!
   * \brief Settle which private callee calls use, for `self`'s release_gil setting: called
   *        when the binding is published and whenever release_gil is set, so that a call
   *        reads only the callee.
   */
  void SelectCallee(bool release_gil) const {
    if (ffi_callees_[0] != nullptr) {
      __atomic_store_n(&callee_, ffi_callees_[release_gil ? 1 : 0], __ATOMIC_RELAXED);
    }
  }

  /*! \brief Visit every Python reference this binding holds (for the cycle collector). */
  int Traverse(PyObject* self, visitproc visit, void* arg) const;

  const BindingPlan& plan() const { return *plan_; }
  const Signature& signature() const { return plan_->signature(); }
  PyObject* target() const { return target_; }
  PyObject* signature_obj() const { return signature_obj_; }

 private:
  BoundFunction() = default;
  BoundFunction(const BoundFunction& other);

  friend class PyCall;

  template <CallKind kKind>
  static PyObject* Entry(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames);
  template <bool kUnpack>
  PyObject* BindAndCall(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                        PyObject* kwnames) const;
  template <bool kUnpack>
  PyObject* BindKeywordsAndCall(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                PyObject* kwnames) const;
  template <bool kUnpack>
  PyObject* CallWithKwargsTail(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                               PyObject* kwnames, Py_ssize_t sentinel_at) const;
  PyObject* CallTarget(PyObject* const* bound, Py_ssize_t n) const;
  PyObject* Unpack(PyObject* const* bound) const;
  bool IsSentinel(PyObject* obj) const {
    return Py_TYPE(obj) == sentinel_type_ && ChandleOf(obj) == sentinel_handle_;
  }
  bool OwnsCppDefaults(PyObject* self) const;
  // Makes ffi_callees_ for `handle`; false with an exception set.
  bool MakeCallees(void* handle);

  const BindingPlan* plan_ = nullptr;  // borrowed from the C++ function self's handle holds
  int32_t arity_ = 0;
  vectorcallfunc entry_point_ = nullptr;
  // The KWARGS sentinel (ffi_objects.h), copied here so that a call reads it beside the rest.
  PyTypeObject* sentinel_type_ = nullptr;
  void* sentinel_handle_ = nullptr;
  std::vector<PyObject*> names_;        // interned, owned
  std::vector<PyObject*> defaults_;     // borrowed from defaults_tuple_; nullptr where none
  PyObject* target_ = nullptr;          // owned
  PyObject* signature_obj_ = nullptr;   // owned
  PyObject* defaults_tuple_ = nullptr;  // owned
  PyObject* unpack_fn_ = nullptr;       // owned
  // Python callers reach an FFI target through private tvm_ffi.Functions that share the
  // target's handle, one per release_gil setting (index 0 keeps the GIL, 1 releases it), made
  // with the binding and never written after; callee_ is the one self's setting picks,
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

#endif  // KWCALL_PYTHON_EXT_BOUND_FUNCTION_H_
