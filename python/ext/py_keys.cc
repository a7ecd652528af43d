// A Python call's keyword names (py_keys.h).
#include "py_keys.h"

#include "binding/binding_errors.h"

namespace kwcall {
namespace python {

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
#if PY_VERSION_HEX < 0x030B0000
    // CPython 3.10's PyErr_Format replaces the error a failed "%S" left with a bare TypeError.
    PyErr_SetNone(PyExc_TypeError);
#endif
    return false;
  }
  *text = Keep(Utf8Bytes(shown));
  Py_DECREF(shown);
  return true;
}

}  // namespace python
}  // namespace kwcall
