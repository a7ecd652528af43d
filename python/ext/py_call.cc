// The full rules for a Python call (py_call.h): BindSlots (binder.h) over its keys, PyKeys, and
// the TypeError set when it does not bind; and how the running interpreter shows a key whose
// str() fails, asked once at import.
#include "py_call.h"

#include <string>

#include "binding/binder.h"
#include "binding/binding_errors.h"
#include "binding/small_array.h"

namespace kwcall {
namespace python {
namespace {

// Whether CPython's binder keeps the error that a keyword's failing str() raised inside its
// "%S" message, or replaces it with a bare TypeError: 3.10 and early 3.11 patch releases
// (3.11.2) replace it, later ones keep it. Asked of the running interpreter once, at import.
bool g_str_error_kept = true;

constexpr char kStrErrorProbe[] =
    "class Key(str):\n"
    "    def __str__(self):\n"
    "        raise LookupError\n"
    "def f():\n"
    "    pass\n"
    "try:\n"
    "    f(**{Key('k'): 0})\n"
    "except LookupError:\n"
    "    kept = True\n"
    "except TypeError:\n"
    "    kept = False\n";

}  // namespace

bool ProbeStrErrorKept() {
  PyObject* globals = PyDict_New();
  if (globals == nullptr) return false;
  bool ok = PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins()) == 0;
  PyObject* result = ok ? PyRun_String(kStrErrorProbe, Py_file_input, globals, globals) : nullptr;
  Py_XDECREF(result);
  PyObject* kept = result ? PyDict_GetItemString(globals, "kept") : nullptr;  // borrowed
  ok = kept != nullptr && PyBool_Check(kept);
  if (ok) g_str_error_kept = kept == Py_True;
  if (result != nullptr && !ok) {
    PyErr_SetString(PyExc_ImportError, "kwcall: the keyword-display probe gave no answer");
  }
  Py_DECREF(globals);
  return ok;
}

void SetTypeError(const std::string& message) {
  PyObject* text = PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()),
                                        "surrogatepass");
  if (text == nullptr) return;  // the decode error stays set
  PyErr_SetObject(PyExc_TypeError, text);
  Py_DECREF(text);
}

PyObject* Utf8Bytes(PyObject* obj) {
  PyObject* bytes = PyUnicode_AsEncodedString(obj, "utf-8", "surrogatepass");
  if (bytes == nullptr) PyErr_Clear();
  return bytes;
}

ParamLookup PyKeys::Find(int32_t k) const {
  PyObject* key = PyTuple_GET_ITEM(kwnames_, k);
  const ParamLookup found = FindPlainKey(key, names_, plan_, &hint_);
  if (!found.is(Lookup::kFullRules)) return found;
  if (!PyUnicode_Check(key)) {
    SetTypeError(binding_errors::KeywordNotString(plan_.signature()));
    return Lookup::kFailed;
  }
  // CPython compares a key that is not an exact str with the parameters a keyword may name.
  const int32_t n = static_cast<int32_t>(names_.size());
  for (int32_t i = plan_.posonly_count(); i < n; ++i) {
    const int equal = PyObject_RichCompareBool(key, names_[i], Py_EQ);
    if (equal != 0) return equal > 0 ? ParamLookup::Index(i) : Lookup::kFailed;
  }
  return Lookup::kNoParam;
}

bool PyKeys::Shown(int32_t k, std::string_view* text) const {
  PyObject* key = PyTuple_GET_ITEM(kwnames_, k);
  if (PyUnicode_CheckExact(key)) {
    *text = Text(k);
    return true;
  }
  PyObject* shown = PyObject_Str(key);
  if (shown == nullptr) {
    if (!g_str_error_kept) PyErr_SetNone(PyExc_TypeError);  // as this interpreter does
    return false;
  }
  *text = Keep(Utf8Bytes(shown));
  Py_DECREF(shown);
  return true;
}

bool PyCall::BindFull(PyObject** bound) const {
  const BindingPlan& plan = params_.plan();
  if (num_keywords_ > INT32_MAX) {
    SetTypeError(
        binding_errors::TooManyToBind(plan.signature(), num_keywords_, "keyword arguments"));
    return false;
  }
  const int32_t arity = plan.arity();
  SmallArray<Slot> slots(arity);
  std::string error;
  if (!BindSlots(plan.signature(), nargs_, PyKeys(kwnames_, params_.names, plan), slots.data(),
                 &error)) {
    if (!PyErr_Occurred()) SetTypeError(error);
    return false;
  }
  const int32_t n = static_cast<int32_t>(nargs_);  // bound: at most the signature's size
  params_.binding->shapes.RememberSlots(slots.data(), arity, n,
                                        static_cast<int32_t>(num_keywords_));
  FillBound(slots.data(), arity, n, args_, args_ + nargs_, 1, defaults(), bound);
  return true;
}

}  // namespace python
}  // namespace kwcall
