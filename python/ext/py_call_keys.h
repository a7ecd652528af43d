// One Python call as the bind pipeline reads it (its CallAdapter, src/binding/bind_call.h):
// keys compared as CPython compares them, by pointer against the interned parameter names
// first, exact strings by their text; anything else (a str subclass, which may run its own
// __eq__) is left to the full rules, BindFull (py_call_keys.cc).
#ifndef KWCALL_PYTHON_EXT_PY_CALL_KEYS_H_
#define KWCALL_PYTHON_EXT_PY_CALL_KEYS_H_

#include <Python.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "binding/binding_plan.h"
#include "binding/param_names.h"
#include "bound_function.h"

namespace kwcall {
namespace python {

/*!
 * \brief Set TypeError to a message built by the binder (UTF-8, possibly with surrogates that
 *        came from the caller's keyword names, and possibly with NUL bytes from a display name).
 */
void SetTypeError(const std::string& message);

/*! \brief `obj` (a str) as UTF-8 bytes, lone surrogates kept, or nullptr with no error set. */
PyObject* Utf8Bytes(PyObject* obj);

/*!
 * \brief The parameter `key` names, found as CPython finds it without running any __eq__: by
 *        pointer against the interned parameter names, then, for an exact str, by its text
 *        (the one name lookup, ParamNames); FullRules for a key that is not an exact str.
 */
inline ParamLookup FindPlainKey(PyObject* key, const std::vector<PyObject*>& names,
                                const BindingPlan& plan, int32_t* hint) {
  const int32_t n = static_cast<int32_t>(names.size());
  for (int32_t i = 0; i < n; ++i) {
    if (names[i] == key) return ParamLookup::Param(i);
  }
  if (!PyUnicode_CheckExact(key)) return ParamLookup::FullRules();
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(key, &size);
  if (text == nullptr) {
    PyErr_Clear();  // not encodable (a lone surrogate): names no parameter
    return ParamLookup::NoParam();
  }
  return plan.names().Find(NameKey(std::string_view(text, size)), hint);
}

/*! \brief A Python call without a KWARGS sentinel among its values (BindAndCall checks). */
class PyCall {
 public:
  using Value = PyObject*;

  PyCall(const BoundFunction& binding, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames)
      : binding_(binding),
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
  PyObject* const* defaults() const { return binding_.defaults_.data(); }

  bool KeyIs(int32_t k, int32_t param) const {
    return PyTuple_GET_ITEM(kwnames_, k) == binding_.names_[param];
  }
  ParamLookup FindKey(int32_t k, int32_t* hint) const {
    return FindPlainKey(PyTuple_GET_ITEM(kwnames_, k), binding_.names_, binding_.plan(), hint);
  }
  /*! \brief CPython's rules in full (binder.h); a call that binds leaves its shape in the plan. */
  [[gnu::noinline]] bool BindFull(PyObject** bound) const;
  /*! \brief Whether the pipeline's int32 counts hold the call (else only BindFull words it). */
  bool fits_pipeline() const { return nargs_ <= binding_.arity_ && num_keywords_ <= INT32_MAX; }

 private:
  const BoundFunction& binding_;
  PyObject* const* args_;
  PyObject* kwnames_;
  Py_ssize_t nargs_;
  Py_ssize_t num_keywords_;
};

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_PY_CALL_KEYS_H_
