// One Python call as the bind pipeline reads it: PyCall, its CallAdapter
// (src/binding/bind_call.h). Keys are compared as CPython compares them (initialize_locals): by
// pointer against the interned parameter names first, exact strings by their text
// (FindPlainKey, which runs no __eq__); anything else (a str subclass, which may run its own
// __eq__) is left to the full rules, PyCall::BindFull, which read the keys through PyKeys, the
// Keys of BindSlots (src/binding/binder.h), and set the TypeError. A call binds against
// PyParams, which each function's state keeps (function_state.h); nothing here reads the state.
#ifndef KWCALL_PYTHON_EXT_PY_CALL_H_
#define KWCALL_PYTHON_EXT_PY_CALL_H_

#include <Python.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "binding/binding_plan.h"
#include "binding/function_binding.h"
#include "binding/param_names.h"

namespace kwcall {
namespace python {

/*!
 * \brief Set TypeError to a message built by the binder (UTF-8, possibly with surrogates that
 *        came from the caller's keyword names, and possibly with NUL bytes from a display name).
 */
void SetTypeError(const std::string& message);

/*!
 * \brief Ask the running interpreter, once at import, whether its binder keeps the error a
 *        keyword's failing str() raises in an error message (PyKeys::Shown follows it); false
 *        with an exception set if the probe could not run.
 */
bool ProbeStrErrorKept();

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
    if (names[i] == key) return ParamLookup::Index(i);
  }
  if (!PyUnicode_CheckExact(key)) return Lookup::kFullRules;
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(key, &size);
  if (text == nullptr) {
    PyErr_Clear();  // not encodable (a lone surrogate): names no parameter
    return Lookup::kNoParam;
  }
  return plan.names().Find(NameKey(std::string_view(text, size)), hint);
}

// The keyword names of one Python call, for BindSlots: by pointer against the interned
// parameter names first; then exact strings by their text, and str subclasses with ==, which
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
  ParamLookup Find(int32_t k) const;
  // CPython's test for a positional-only parameter passed by keyword: the name == the key.
  int Names(int32_t k, int32_t param) const {
    PyObject* key = PyTuple_GET_ITEM(kwnames_, k);
    if (key == names_[param]) return 1;
    return PyObject_RichCompareBool(names_[param], key, Py_EQ);
  }
  // The key's own text (a str subclass's too, whatever its __str__ says): what CPython joins
  // into "positional-only arguments passed as keyword arguments" and suggests from.
  std::string_view Text(int32_t k) const { return Keep(Utf8Bytes(PyTuple_GET_ITEM(kwnames_, k))); }
  // The key as CPython's "%S" prints it: str(key), which may raise (the error stays set).
  bool Shown(int32_t k, std::string_view* text) const;

 private:
  // Views `bytes`, held until the keys go ("?" when it could not be made).
  std::string_view Keep(PyObject* bytes) const {
    if (bytes == nullptr) return "?";
    temps_.push_back(bytes);
    return std::string_view(PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
  }

  PyObject* kwnames_;
  const std::vector<PyObject*>& names_;
  const BindingPlan& plan_;
  int32_t count_;
  mutable int32_t hint_ = 0;
  mutable std::vector<PyObject*> temps_;
};

/*!
 * \brief What a Python call of one function binds against, kept by the function's state
 *        (function_state.h): its C++ function's binding (the plan and the keyword shapes) and
 *        its parameters as Python objects.
 */
struct PyParams {
  const FunctionBinding* binding = nullptr;
  int32_t arity = 0;                // the plan's, beside the rest: a call reads it first
  std::vector<PyObject*> names;     // interned, one per parameter
  std::vector<PyObject*> defaults;  // one per parameter: its default object, nullptr if none

  const BindingPlan& plan() const { return binding->plan; }
};

/*! \brief A Python call without a KWARGS sentinel among its values (the entry points check). */
class PyCall {
 public:
  using Value = PyObject*;

  PyCall(const PyParams& params, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames)
      : params_(params),
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
  PyObject* const* defaults() const { return params_.defaults.data(); }

  bool KeyIs(int32_t k, int32_t param) const {
    return PyTuple_GET_ITEM(kwnames_, k) == params_.names[param];
  }
  ParamLookup FindKey(int32_t k, int32_t* hint) const {
    return FindPlainKey(PyTuple_GET_ITEM(kwnames_, k), params_.names, params_.plan(), hint);
  }
  /*!
   * \brief CPython's rules in full (binder.h), which set CPython's TypeError when the call does
   *        not bind; a call that binds leaves its shape in the shapes.
   */
  [[gnu::noinline]] bool BindFull(PyObject** bound) const;
  /*! \brief Whether the pipeline's int32 counts hold the call (else only BindFull words it). */
  bool fits_pipeline() const { return nargs_ <= params_.arity && num_keywords_ <= INT32_MAX; }

 private:
  const PyParams& params_;
  PyObject* const* args_;
  PyObject* kwnames_;
  Py_ssize_t nargs_;
  Py_ssize_t num_keywords_;
};

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_PY_CALL_H_
