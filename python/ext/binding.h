// What one kwcall.Function keeps beside its C++ function to bind Python calls: only Python
// objects (the interned parameter names, the caller's default objects, the target). The
// rules, the names' lookup and the keyword-shape cache are the C++ function's binding plan
// (src/binding_plan.h), shared with C++ callers. Made once, when the function is bound.
#ifndef KWCALL_PYTHON_BINDING_H_
#define KWCALL_PYTHON_BINDING_H_

#include <Python.h>
#include <kwcall/signature.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "binding/binding_plan.h"

namespace kwcall {
namespace python {

class Binding {
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
  static Binding* Make(const BindingPlan* plan, PyObject* target, PyObject* signature_obj,
                       PyObject* defaults, PyObject* unpack_fn);
  /*!
   * \brief The same binding for a copy of the function (which shares its handle), with
   *        private callees of its own; nullptr with an exception set.
   */
  Binding* Copy() const;
  ~Binding();
  Binding& operator=(const Binding&) = delete;

  /*!
   * \brief Call the target with `args`/`kwnames` bound to the signature: CPython's rules,
   *        CPython's TypeError texts. In a call without keywords, a KWARGS sentinel among the
   *        positional arguments starts tvm-ffi's keyword tail, as for C++ callers.
   */
  PyObject* Call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const;
  /*!
   * \brief Call for a plan whose full-arity positional call is native: such a call goes to
   *        the target as it is; every other call as in Call.
   */
  PyObject* CallNative(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                       PyObject* kwnames) const;

  /*! \brief Visit every Python reference this binding holds (for the cycle collector). */
  int Traverse(PyObject* self, visitproc visit, void* arg) const;

  const BindingPlan& plan() const { return *plan_; }
  const Signature& signature() const { return plan_->signature(); }
  PyObject* target() const { return target_; }
  PyObject* signature_obj() const { return signature_obj_; }

 private:
  Binding() = default;
  Binding(const Binding& other);

  PyObject* CallPositional(PyObject* self, PyObject* const* args, Py_ssize_t nargs) const;
  PyObject* CallKeywords(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames) const;
  PyObject* CallBinding(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                        PyObject* kwnames) const;
  PyObject* CallWithKwargsTail(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                               Py_ssize_t sentinel_at) const;
  PyObject* Finish(PyObject* self, PyObject* const* bound) const;
  PyObject* CallTarget(PyObject* self, PyObject* const* bound, Py_ssize_t n) const;
  PyObject* Unpack(PyObject* self, PyObject* const* bound) const;
  bool OwnsCppDefaults(PyObject* self) const;
  // Makes ffi_callees_ for `handle`; false with an exception set.
  bool MakeCallees(void* handle);

  const BindingPlan* plan_ = nullptr;  // borrowed from the C++ function self's handle holds
  int32_t arity_ = 0;
  std::vector<PyObject*> names_;        // interned, owned
  std::vector<PyObject*> defaults_;     // borrowed from defaults_tuple_; nullptr where none
  PyObject* target_ = nullptr;          // owned
  PyObject* signature_obj_ = nullptr;   // owned
  PyObject* defaults_tuple_ = nullptr;  // owned
  PyObject* unpack_fn_ = nullptr;       // owned
  // Python callers reach an FFI target through private tvm_ffi.Functions that share the
  // target's handle, one per release_gil setting (index 0 keeps the GIL, 1 releases it), made
  // with the binding and never written after: a call only picks one, so callers on other
  // threads share nothing a call writes. Both nullptr when the target is a Python callable,
  // called directly.
  PyObject* ffi_callees_[2] = {nullptr, nullptr};  // owned
  // The Python defaults that the C++ signature holds as opaque objects, with those objects:
  // references the cycle collector sees only through their owner (see OwnsCppDefaults).
  std::vector<std::pair<const ffi::Object*, PyObject*>> cpp_held_defaults_;
};

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_BINDING_H_
