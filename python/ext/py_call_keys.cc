// The full rules for a Python call (py_call_keys.h): its keys as BindSlots (binder.h) reads
// them, compared as CPython compares them (initialize_locals), and the TypeError texts set.
#include "py_call_keys.h"

#include <string>
#include <string_view>
#include <vector>

#include "binding/binder.h"
#include "binding/binding_errors.h"
#include "binding/small_array.h"

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

namespace {

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
  ParamLookup Find(int32_t k) const {
    PyObject* key = PyTuple_GET_ITEM(kwnames_, k);
    const ParamLookup found = FindPlainKey(key, names_, plan_, &hint_);
    if (!found.full_rules()) return found;
    if (!PyUnicode_Check(key)) {
      SetTypeError(binding_errors::KeywordNotString(plan_.signature()));
      return ParamLookup::Failed();
    }
    // CPython compares a key that is not an exact str with the parameters a keyword may name.
    const int32_t n = static_cast<int32_t>(names_.size());
    for (int32_t i = plan_.posonly_count(); i < n; ++i) {
      const int equal = PyObject_RichCompareBool(key, names_[i], Py_EQ);
      if (equal != 0) return equal > 0 ? ParamLookup::Param(i) : ParamLookup::Failed();
    }
    return ParamLookup::NoParam();
  }
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
  bool Shown(int32_t k, std::string_view* text) const {
    PyObject* key = PyTuple_GET_ITEM(kwnames_, k);
    if (PyUnicode_CheckExact(key)) {
      *text = Text(k);
      return true;
    }
    PyObject* shown = PyObject_Str(key);
    if (shown == nullptr) return false;
    *text = Keep(Utf8Bytes(shown));
    Py_DECREF(shown);
    return true;
  }

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

}  // namespace

bool PyCall::BindFull(PyObject** bound) const {
  const BindingPlan& plan = binding_.plan();
  if (num_keywords_ > INT32_MAX) {
    SetTypeError(
        binding_errors::TooManyToBind(plan.signature(), num_keywords_, "keyword arguments"));
    return false;
  }
  const int32_t arity = plan.arity();
  SmallArray<Slot> slots(arity);
  std::string error;
  if (!BindSlots(plan.signature(), nargs_, PyKeys(kwnames_, binding_.names_, plan), slots.data(),
                 &error)) {
    if (!PyErr_Occurred()) SetTypeError(error);
    return false;
  }
  const int32_t n = static_cast<int32_t>(nargs_);  // bound: at most the signature's size
  plan.RememberSlots(slots.data(), n, static_cast<int32_t>(num_keywords_));
  FillBound(slots.data(), arity, n, args_, args_ + nargs_, 1, defaults(), bound);
  return true;
}

}  // namespace python
}  // namespace kwcall
