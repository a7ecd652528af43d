// A Python call of a kwcall.Function once its entry point (entry_points.cc) has not forwarded
// it as it is: the KWARGS sentinel read first, the bind pipeline (src/binding/bind_call.h,
// through the adapter in py_call_keys.h), then the call of the target with the bound objects.
// Read top down: each function calls those after it here, or down into the files it includes,
// never back.
#include <Python.h>

#include <cstdint>

#include "binding/bind_call.h"
#include "binding/binding_errors.h"
#include "binding/kwargs_tail.h"
#include "binding/small_array.h"
#include "ffi_objects.h"
#include "py_binder.h"
#include "py_call_keys.h"
#include "py_keys.h"
#include "scalar_call.h"

namespace kwcall {
namespace python {
namespace {

// tvm_ffi.Function.__call__(fn, *items).
PyObject* CallFfiFunction(PyObject* fn, PyObject* const* items, Py_ssize_t n) {
  PyObject* tuple = PyTuple_New(n);
  if (tuple == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_INCREF(items[i]);
    PyTuple_SET_ITEM(tuple, i, items[i]);
  }
  PyObject* result = FfiObjects().function_call(fn, tuple, nullptr);
  Py_DECREF(tuple);
  return result;
}

}  // namespace

PyObject* PyBinder::Call(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames) const {
  return plan_->call_kind() == CallKind::kUnpack ? BindAndCall<true>(self, args, nargs, kwnames)
                                                 : BindAndCall<false>(self, args, nargs, kwnames);
}

template <bool kUnpack>
PyObject* PyBinder::BindAndCall(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                PyObject* kwnames) const {
  // An empty kwnames is a call without keywords (PyCall reads its size).
  const Py_ssize_t num_keywords = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  // A KWARGS sentinel among the values starts tvm-ffi's keyword tail (beside keywords, an
  // error), as for C++ callers: the target never gets it as a value.
  const Py_ssize_t num_values = nargs + num_keywords;
  const Py_ssize_t sentinel_at =
      FindKwargsSentinel(args, num_values, [this](PyObject* obj) { return IsSentinel(obj); });
  if (TVM_FFI_PREDICT_FALSE(sentinel_at < num_values)) {
    return CallWithKwargsTail<kUnpack>(self, args, nargs, kwnames, sentinel_at);
  }
  return BindKeywordsAndCall<kUnpack>(self, args, nargs, kwnames);
}

// tvm-ffi's own keyword packing from Python, `f(x, KWARGS, "alpha", 2.0)`: the tail becomes
// keywords and the call is bound like any other. A sentinel in a call with keywords is read
// as a C++ caller's packed call of the same values, `[args..., KWARGS, k0, v0, ...]`, which
// never binds (its pairs then hold a sentinel, or are odd), so that the error is C++'s.
template <bool kUnpack>
PyObject* PyBinder::CallWithKwargsTail(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                       PyObject* kwnames, Py_ssize_t sentinel_at) const {
  const Py_ssize_t num_keywords = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  const Py_ssize_t num_args = nargs + (num_keywords ? 1 + 2 * num_keywords : 0);
  if (num_keywords && num_args > INT32_MAX) {
    SetTypeError(binding_errors::TooManyToBind(signature(), nargs + num_keywords,
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
    SetTypeError(binding_errors::KwargsTailOdd(signature(), tail.size));
    return nullptr;
  }
  if (tail.nargs + tail.num_keywords > INT32_MAX) {
    SetTypeError(binding_errors::TooManyToBind(signature(), tail.nargs + tail.num_keywords,
                                               "arguments with a KWARGS tail"));
    return nullptr;
  }
  PyObject* const* pairs = args + sentinel_at + 1;
  int64_t at = 0;
  const TailFault fault = CheckKwargsPairs(
      pairs, tail.num_keywords, [this](PyObject* obj) { return IsSentinel(obj); },
      [](PyObject* key) { return PyUnicode_Check(key) != 0; }, &at);
  if (fault != TailFault::kNone) {
    PyObject* key = pairs[2 * at];
    PyObject* text = fault == TailFault::kSentinelAsValue ? Utf8Bytes(key) : nullptr;
    SetTypeError(binding_errors::KwargsPair(
        signature(), fault, at, Py_TYPE(key)->tp_name,
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
  PyObject* result = BindKeywordsAndCall<kUnpack>(self, stack.data(), tail.nargs,
                                                  tail.num_keywords ? names : nullptr);
  Py_DECREF(names);
  return result;
}

template <bool kUnpack>
PyObject* PyBinder::BindKeywordsAndCall(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                        PyObject* kwnames) const {
  const PyCall call(*this, args, nargs, kwnames);
  SmallArray<PyObject*> bound(arity_);
  // More than a signature can bind is an error, which only the full rules word.
  const bool ok = TVM_FFI_PREDICT_TRUE(call.fits_pipeline()) ? BindCall(*plan_, call, bound.data())
                                                             : call.BindFull(bound.data());
  if (!ok) return nullptr;
  if constexpr (kUnpack) return Unpack(bound.data());
  return CallTarget(bound.data(), arity_);
}

PyObject* PyBinder::Unpack(PyObject* const* bound) const {
  SmallArray<PyObject*> values(arity_);
  SmallArray<PyObject*> owned(arity_);
  for (int32_t i = 0; i < arity_; ++i) owned[i] = nullptr;
  PyObject* result = nullptr;
  int32_t i = 0;
  for (; i < arity_; ++i) {
    values[i] = bound[i];
    if (!signature().param(i).unpack) continue;
    owned[i] = PyObject_CallOneArg(unpack_fn_, bound[i]);
    if (owned[i] == nullptr) break;
    values[i] = owned[i];
  }
  if (i == arity_) result = CallTarget(values.data(), arity_);
  for (int32_t j = 0; j < arity_; ++j) Py_XDECREF(owned[j]);
  return result;
}

PyObject* PyBinder::CallTarget(PyObject* const* bound, Py_ssize_t n) const {
  // The private callee release_gil picked (SelectCallee); none for a Python callable.
  PyObject* callee = __atomic_load_n(&callee_, __ATOMIC_RELAXED);
  if (callee == nullptr) return PyObject_Vectorcall(target_, bound, n, nullptr);
  PyObject* result;
  if (CallWithScalars(ChandleOf(callee), ReleasesGil(callee), bound, n, &result)) return result;
  return CallFfiFunction(callee, bound, n);
}

// The two bind pipelines the entry points (entry_points.cc) call.
template PyObject* PyBinder::BindAndCall<false>(PyObject*, PyObject* const*, Py_ssize_t,
                                                PyObject*) const;
template PyObject* PyBinder::BindAndCall<true>(PyObject*, PyObject* const*, Py_ssize_t,
                                               PyObject*) const;

}  // namespace python
}  // namespace kwcall
