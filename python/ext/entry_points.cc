// kwcall.Function's entry points and the Python call they drive. Each reads the instance's
// state (function_state.h), made with the instance and never changed; which entry an instance
// has is chosen once, by EntryPointFor. A call that is not forwarded as it is has its KWARGS
// sentinel read first, is bound by the one bind pipeline (src/binding/bind_call.h, through the
// adapter in py_call.h), unpacked where the signature says so, and the target is called with the
// bound objects (scalar_call.h for a tvm_ffi.Function). Read bottom up: the entry points at the
// end call the steps above them, which call down into the files they include, never back.
#include "entry_points.h"

#include <tvm/ffi/function.h>

#include <cstdint>
#include <string_view>

#include "binding/bind_call.h"
#include "binding/binding_errors.h"
#include "binding/kwargs_tail.h"
#include "binding/small_array.h"
#include "critical_section.h"
#include "function_state.h"
#include "py_call.h"
#include "scalar_call.h"

namespace kwcall {
namespace python {
namespace {

// The target called with `n` bound objects: an FFI target through the private callee
// release_gil picked (FunctionState::SelectCallee), a Python callable directly.
PyObject* CallTarget(const FunctionState& s, PyObject* const* bound, Py_ssize_t n) {
  PyObject* callee = s.callee();
  if (callee == nullptr) return PyObject_Vectorcall(s.target(), bound, n, nullptr);
  return CallFfiFunction(callee, bound, n);
}

// The bound objects with each parameter marked for unpacking replaced by its unpacked value,
// then the target called.
PyObject* UnpackAndCallTarget(const FunctionState& s, PyObject* const* bound) {
  const int32_t arity = s.arity();
  SmallArray<PyObject*> values(arity);
  SmallArray<PyObject*> owned(arity);
  for (int32_t i = 0; i < arity; ++i) owned[i] = nullptr;
  PyObject* result = nullptr;
  int32_t i = 0;
  for (; i < arity; ++i) {
    values[i] = bound[i];
    if (!s.signature().param(i).unpack) continue;
    owned[i] = PyObject_CallOneArg(s.unpack_fn(), bound[i]);
    if (owned[i] == nullptr) break;
    values[i] = owned[i];
  }
  if (i == arity) result = CallTarget(s, values.data(), arity);
  for (int32_t j = 0; j < arity; ++j) Py_XDECREF(owned[j]);
  return result;
}

// A call without a KWARGS sentinel among its values: bound, then the target called.
template <bool kUnpack>
PyObject* BindKeywordsAndCall(const FunctionState& s, PyObject* const* args, Py_ssize_t nargs,
                              PyObject* kwnames) {
  const PyCall call(s.params(), args, nargs, kwnames);
  SmallArray<PyObject*> bound(s.arity());
  // More than a signature can bind is an error, which only the full rules word.
  const bool ok = TVM_FFI_PREDICT_TRUE(call.fits_pipeline())
                      ? BindCall(s.binding(), call, bound.data())
                      : call.BindFull(bound.data());
  if (!ok) return nullptr;
  if constexpr (kUnpack) return UnpackAndCallTarget(s, bound.data());
  return CallTarget(s, bound.data(), s.arity());
}

// tvm-ffi's own keyword packing from Python, `f(x, KWARGS, "alpha", 2.0)`: the tail becomes
// keywords and the call is bound like any other. A sentinel in a call with keywords is read
// as a C++ caller's packed call of the same values, `[args..., KWARGS, k0, v0, ...]`, which
// never binds (its pairs then hold a sentinel, or are odd), so that the error is C++'s.
template <bool kUnpack>
PyObject* CallWithKwargsTail(const FunctionState& s, PyObject* const* args, Py_ssize_t nargs,
                             PyObject* kwnames, Py_ssize_t sentinel_at) {
  const Signature& signature = s.signature();
  const Py_ssize_t num_keywords = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  const Py_ssize_t num_args = nargs + (num_keywords ? 1 + 2 * num_keywords : 0);
  if (num_keywords && num_args > INT32_MAX) {
    SetTypeError(binding_errors::TooManyToBind(signature, nargs + num_keywords,
                                               "arguments with a KWARGS tail"));
    return nullptr;
  }
  SmallArray<PyObject*> packed(num_keywords ? static_cast<int32_t>(num_args) : 0);
  if (num_keywords) {
    for (Py_ssize_t i = 0; i < nargs; ++i) packed[static_cast<int32_t>(i)] = args[i];
    packed[static_cast<int32_t>(nargs)] = args[sentinel_at];  // a sentinel object
    for (Py_ssize_t k = 0; k < num_keywords; ++k) {
      packed[static_cast<int32_t>(nargs + 1 + 2 * k)] = PyTuple_GET_ITEM(kwnames, k);
      packed[static_cast<int32_t>(nargs + 2 + 2 * k)] = args[nargs + k];
    }
    args = packed.data();
    sentinel_at = sentinel_at < nargs ? sentinel_at : nargs;
  }
  const KwargsTail tail = SplitKwargsTail(num_args, sentinel_at);
  if (tail.odd) {
    SetTypeError(binding_errors::KwargsTailOdd(signature, tail.size));
    return nullptr;
  }
  if (tail.nargs + tail.num_keywords > INT32_MAX) {
    SetTypeError(binding_errors::TooManyToBind(signature, tail.nargs + tail.num_keywords,
                                               "arguments with a KWARGS tail"));
    return nullptr;
  }
  PyObject* const* pairs = args + sentinel_at + 1;
  int64_t at = 0;
  const TailFault fault = CheckKwargsPairs(
      pairs, tail.num_keywords, [&s](PyObject* obj) { return s.IsSentinel(obj); },
      [](PyObject* key) { return PyUnicode_Check(key) != 0; }, &at);
  if (fault != TailFault::kNone) {
    PyObject* key = pairs[2 * at];
    PyObject* text = fault == TailFault::kSentinelAsValue ? Utf8Bytes(key) : nullptr;
    SetTypeError(binding_errors::KwargsPair(
        signature, fault, at, Py_TYPE(key)->tp_name,
        text ? std::string_view(PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text)) : "?"));
    Py_XDECREF(text);
    return nullptr;
  }
  PyObject* names = PyTuple_New(tail.num_keywords);
  if (names == nullptr) return nullptr;
  SmallArray<PyObject*> stack(static_cast<int32_t>(tail.nargs + tail.num_keywords));
  for (Py_ssize_t i = 0; i < tail.nargs; ++i) stack[static_cast<int32_t>(i)] = args[i];
  for (Py_ssize_t k = 0; k < tail.num_keywords; ++k) {
    Py_INCREF(pairs[2 * k]);
    PyTuple_SET_ITEM(names, k, pairs[2 * k]);
    stack[static_cast<int32_t>(tail.nargs + k)] = pairs[2 * k + 1];
  }
  PyObject* result = BindKeywordsAndCall<kUnpack>(s, stack.data(), tail.nargs,
                                                  tail.num_keywords ? names : nullptr);
  Py_DECREF(names);
  return result;
}

// Every call that is not forwarded as it is: bound to the signature (CPython's rules, CPython's
// TypeError texts), unpacked where the signature says so, and the target called. A KWARGS
// sentinel among the values starts tvm-ffi's keyword tail (beside keywords, an error), as for
// C++ callers: the target never gets it as a value.
template <bool kUnpack>
PyObject* BindAndCall(const FunctionState& s, PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwnames) {
  // An empty kwnames is a call without keywords (PyCall reads its size).
  const Py_ssize_t num_keywords = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  const Py_ssize_t num_values = nargs + num_keywords;
  const Py_ssize_t sentinel_at =
      FindKwargsSentinel(args, num_values, [&s](PyObject* obj) { return s.IsSentinel(obj); });
  if (TVM_FFI_PREDICT_FALSE(sentinel_at < num_values)) {
    return CallWithKwargsTail<kUnpack>(s, args, nargs, kwnames, sentinel_at);
  }
  return BindKeywordsAndCall<kUnpack>(s, args, nargs, kwnames);
}

// -- the entry points --------------------------------------------------------------------------

// One per call kind (binding_plan.h), the bind pipeline inlined: the native one forwards a
// full-arity positional call without looking at anything but the arguments.
template <CallKind kKind>
PyObject* Entry(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const FunctionState& s = *Fields(self).state;
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if constexpr (kKind == CallKind::kNative) {
    if (TVM_FFI_PREDICT_TRUE(kwnames == nullptr &&
                             ForwardsAsIs(args, nargs, s.arity(),
                                          [&s](PyObject* obj) { return s.IsSentinel(obj); }))) {
      return CallTarget(s, args, nargs);
    }
  }
  return BindAndCall<kKind == CallKind::kUnpack>(s, args, nargs, kwnames);
}

// (args, kwargs) as a tuple and a dict, passed through `step`: a new reference to what it
// returned, checked to be (args, kwargs), or nullptr with an exception set.
PyObject* RunStep(PyObject* step, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* pos = PyTuple_New(nargs);
  PyObject* kw = PyDict_New();
  PyObject* out = nullptr;
  if (pos != nullptr && kw != nullptr) {
    bool ok = true;
    for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(pos, i, Py_NewRef(args[i]));
    const Py_ssize_t num_kw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; ok && k < num_kw; ++k) {
      ok = PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) == 0;
    }
    if (ok) out = PyObject_CallFunctionObjArgs(step, pos, kw, nullptr);
  }
  Py_XDECREF(pos);
  Py_XDECREF(kw);
  if (out != nullptr && !(PyTuple_Check(out) && PyTuple_GET_SIZE(out) == 2 &&
                          PyDict_Check(PyTuple_GET_ITEM(out, 1)))) {
    PyErr_SetString(PyExc_TypeError, "the preprocess step must return (args, kwargs)");
    Py_CLEAR(out);
  }
  return out;
}

// With a preprocess step: the call's (args, kwargs) go through it, and what it returns is bound
// as any call. The keywords are copied out of the step's dict under its lock, into tuples that
// hold references of their own: binding may run Python code (a str subclass's __eq__) that
// changes the dict, and another thread may change a dict the step shares, but no value the
// call binds is freed before the call returns.
PyObject* Preprocessed(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const FunctionState& s = *Fields(self).state;
  PyObject* out = RunStep(s.preprocess(), args, PyVectorcall_NARGS(nargsf), kwnames);
  if (out == nullptr) return nullptr;
  PyObject* pos = PySequence_Tuple(PyTuple_GET_ITEM(out, 0));
  PyObject* kw = PyTuple_GET_ITEM(out, 1);
  PyObject* names = nullptr;
  PyObject* values = nullptr;
  bool ok = pos != nullptr;
  if (ok) {
    KWCALL_BEGIN_CRITICAL_SECTION(kw);
    const Py_ssize_t m = PyDict_GET_SIZE(kw);
    names = PyTuple_New(m);
    values = PyTuple_New(m);
    ok = names != nullptr && values != nullptr;
    Py_ssize_t cursor = 0, k = 0;
    PyObject *key, *value;
    while (ok && PyDict_Next(kw, &cursor, &key, &value)) {
      if (!PyUnicode_Check(key)) {
        PyErr_SetString(PyExc_TypeError, "keywords must be strings");  // CPython's text
        ok = false;
        continue;
      }
      PyTuple_SET_ITEM(names, k, Py_NewRef(key));
      PyTuple_SET_ITEM(values, k++, Py_NewRef(value));
    }
    KWCALL_END_CRITICAL_SECTION();
  }
  PyObject* result = nullptr;
  if (ok) {
    const Py_ssize_t n = PyTuple_GET_SIZE(pos);
    const Py_ssize_t m = PyTuple_GET_SIZE(values);
    SmallArray<PyObject*> stack(static_cast<int32_t>(n + m));
    for (Py_ssize_t i = 0; i < n; ++i) stack[static_cast<int32_t>(i)] = PyTuple_GET_ITEM(pos, i);
    for (Py_ssize_t k = 0; k < m; ++k) {
      stack[static_cast<int32_t>(n + k)] = PyTuple_GET_ITEM(values, k);
    }
    PyObject* kwnames_out = m ? names : nullptr;
    result = s.plan().call_kind() == CallKind::kUnpack
                 ? BindAndCall<true>(s, stack.data(), n, kwnames_out)
                 : BindAndCall<false>(s, stack.data(), n, kwnames_out);
  }
  Py_XDECREF(names);
  Py_XDECREF(values);
  Py_XDECREF(pos);
  Py_DECREF(out);
  return result;
}

}  // namespace

vectorcallfunc EntryPointFor(const FunctionState& state) {
  if (state.preprocess() != nullptr) return Preprocessed;  // then bound by the call kind
  switch (state.plan().call_kind()) {
    case CallKind::kNative:
      return Entry<CallKind::kNative>;
    case CallKind::kKeywordOnly:
      return Entry<CallKind::kKeywordOnly>;
    case CallKind::kUnpack:
      return Entry<CallKind::kUnpack>;
  }
  return Entry<CallKind::kKeywordOnly>;  // every kind is listed above
}

}  // namespace python
}  // namespace kwcall
