// What one kwcall.Function needs to bind a Python call and call its target: made once, when
// the function is bound, and read-only after (but for the call-shape cache).
#ifndef KWCALL_PYTHON_BINDING_H_
#define KWCALL_PYTHON_BINDING_H_

#include <Python.h>
#include <kwcall/signature.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "param_names.h"

namespace kwcall {
namespace python {

class Binding {
 public:
  /*!
   * \brief A binding for a kwcall.Function whose handle is the C++ kwcall function made from
   *        `signature`, or nullptr with an exception set.
   * \param target What `.target` returns; when it is not a tvm_ffi.Function (a Python
   *        callable), Python calls pass it the bound objects themselves.
   * \param ffi_target The tvm_ffi.Function the C++ function calls (`target` itself, or its
   *        conversion).
   * \param signature_obj The kwcall.Signature Python object (`.signature`).
   * \param defaults One entry per parameter: the Python default object, used where the
   *        signature says the parameter has one (Python callers get these objects
   *        themselves, not FFI copies).
   * \param unpack_fn Called on the values of parameters marked for unpacking.
   */
  static Binding* Make(const Signature& signature, PyObject* target, PyObject* ffi_target,
                       PyObject* signature_obj, PyObject* defaults, PyObject* unpack_fn);
  ~Binding();
  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;

  /*!
   * \brief Call the target with `args`/`kwnames` bound to the signature: CPython's rules,
   *        CPython's TypeError texts. In a call without keywords, a KWARGS sentinel among the
   *        positional arguments starts tvm-ffi's keyword tail, as for C++ callers.
   */
  PyObject* Call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const;

  /*! \brief Visit every Python reference this binding holds (for the cycle collector). */
  int Traverse(PyObject* self, visitproc visit, void* arg) const;

  const Signature& signature() const { return signature_; }
  PyObject* target() const { return target_; }
  PyObject* signature_obj() const { return signature_obj_; }
  PyObject* ffi_target() const { return ffi_target_; }
  PyObject* defaults_tuple() const { return defaults_tuple_; }
  PyObject* unpack_fn() const { return unpack_fn_; }

 private:
  explicit Binding(Signature signature);

  PyObject* CallBound(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwnames) const;
  PyObject* CallWithKwargsTail(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                               Py_ssize_t sentinel_at) const;
  const int32_t* SlotsFor(Py_ssize_t nargs, PyObject* kwnames, int32_t* fresh) const;
  PyObject* CallTarget(PyObject* self, PyObject* const* bound, Py_ssize_t n) const;
  PyObject* Unpack(PyObject* self, PyObject* const* bound) const;

  Signature signature_;
  int32_t arity_ = 0;
  ParamNames param_names_;
  std::vector<PyObject*> names_;     // interned, owned
  std::vector<PyObject*> defaults_;  // borrowed from defaults_tuple_; nullptr where none
  std::vector<uint8_t> unpack_;      // per parameter
  // A full-arity positional call needs no binding: no keyword-only parameters to fill and no
  // values to unpack.
  bool positional_is_native_ = false;
  PyObject* target_ = nullptr;          // owned
  PyObject* ffi_target_ = nullptr;      // owned
  PyObject* signature_obj_ = nullptr;   // owned
  PyObject* defaults_tuple_ = nullptr;  // owned
  PyObject* unpack_fn_ = nullptr;       // owned
  // Python callers reach an FFI target through this private tvm_ffi.Function, which shares
  // the target's handle and takes the caller's release_gil setting for each call; nullptr
  // when the target is a Python callable, called directly.
  PyObject* ffi_callee_ = nullptr;  // owned
  // Python defaults that the C++ signature holds as opaque objects, with those objects:
  // references the cycle collector cannot see (see Traverse).
  std::vector<std::pair<const ffi::Object*, PyObject*>> cpp_held_defaults_;
  // The last call shape that bound, and its slots. A call site passes the same kwnames tuple
  // (a constant of its code object) every time, so a repeated keyword call skips binding.
  // Only touched with the GIL held.
  mutable PyObject* last_kwnames_ = nullptr;  // owned
  mutable Py_ssize_t last_nargs_ = -1;
  mutable std::vector<int32_t> last_slots_;
};

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_BINDING_H_
