// One Python call as the bind pipeline reads it (its CallAdapter, src/binding/bind_call.h):
// keys compared as CPython compares them, by pointer against the interned parameter names
// first, exact strings by their text (FindPlainKey, py_keys.h); anything else (a str
// subclass, which may run its own __eq__) is left to the full rules, BindFull
// (py_call_keys.cc), which reads the keys through PyKeys.
#ifndef KWCALL_PYTHON_EXT_PY_CALL_KEYS_H_
#define KWCALL_PYTHON_EXT_PY_CALL_KEYS_H_

#include <Python.h>

#include <cstdint>

#include "binding/param_names.h"
#include "py_binder.h"
#include "py_keys.h"

namespace kwcall {
namespace python {

/*! \brief A Python call without a KWARGS sentinel among its values (BindAndCall checks). */
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
  // Within int32: fits_pipeline() sends larger calls straight to BindFull.
  int32_t nargs() const { return static_cast<int32_t>(nargs_); }
  int32_t num_keywords() const { return static_cast<int32_t>(num_keywords_); }
  PyObject* const& positional(int32_t i) const { return args_[i]; }
  PyObject* const& keyword_value(int32_t k) const { return args_[nargs_ + k]; }
  PyObject* const* defaults() const { return binder_.defaults_.data(); }

  bool KeyIs(int32_t k, int32_t param) const {
    return PyTuple_GET_ITEM(kwnames_, k) == binder_.names_[param];
  }
  ParamLookup FindKey(int32_t k, int32_t* hint) const {
    return FindPlainKey(PyTuple_GET_ITEM(kwnames_, k), binder_.names_, binder_.plan(), hint);
  }
  /*! \brief CPython's rules in full (binder.h); a call that binds leaves its shape in the plan. */
  [[gnu::noinline]] bool BindFull(PyObject** bound) const;
  /*! \brief Whether the pipeline's int32 counts hold the call (else only BindFull words it). */
  bool fits_pipeline() const { return nargs_ <= binder_.arity_ && num_keywords_ <= INT32_MAX; }

 private:
  const PyBinder& binder_;
  PyObject* const* args_;
  PyObject* kwnames_;
  Py_ssize_t nargs_;
  Py_ssize_t num_keywords_;
};

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_PY_CALL_KEYS_H_
