// A Python call of a tvm_ffi.Function with bound objects (scalar_call.h): plain scalars packed
// and called here, anything else through tvm_ffi.Function.__call__. The packing mirrors tvm-ffi's
// argument setters for these types (python/tvm_ffi/cython/tvm_ffi_python_helpers.h, the same in
// every supported apache-tvm-ffi release): None, bool, int (exactly `int`; one that does not fit
// int64 is left to tvm-ffi, which converts or refuses it) and float (exactly `float`). The
// result conversion mirrors `make_ret` for the same four types.
#include "scalar_call.h"

#include <tvm/ffi/c_api.h>

#include <cstdint>
#include <cstring>
#include <string_view>

#include "base_layout.h"
#include "ffi_objects.h"

namespace kwcall {
namespace python {
namespace {

// What a call on this thread left for tvm-ffi's Python layer to convert: the return code, the
// error to raise (owned) or the result (owned when it holds an object).
struct HandOver {
  int rc = 0;
  TVMFFIObjectHandle error = nullptr;
  TVMFFIAny result{};
};
thread_local HandOver t_hand_over;

// Calls with more arguments than this take tvm-ffi's own path.
constexpr Py_ssize_t kMaxScalarArgs = 16;

PyObject* g_hand_back = nullptr;  // a tvm_ffi.Function whose call runs HandBack; never freed
PyObject* g_no_args = nullptr;    // ()
// tvm_ffi.Function.__call__ (ffi_objects.h), copied here so that a call reads it beside the rest.
ternaryfunc g_function_call = nullptr;

// g_hand_back's C function: gives back what this thread handed over, so that
// tvm_ffi.Function.__call__ converts it as if the function it stands for had returned it.
int HandBack(void*, const TVMFFIAny*, int32_t, TVMFFIAny* result) {
  HandOver& h = t_hand_over;
  const int rc = h.rc;
  h.rc = 0;
  if (rc != 0) {
    if (h.error != nullptr) {
      TVMFFIErrorSetRaised(h.error);  // takes a reference of its own
      TVMFFIObjectDecRef(h.error);
      h.error = nullptr;
    }
    return rc;
  }
  *result = h.result;
  h.result = TVMFFIAny{};
  return 0;
}

PyObject* ThroughTvmFfi() { return g_function_call(g_hand_back, g_no_args, nullptr); }

// The thread's hand-over, emptied first of what a hand-over that never reached HandBack (its
// call failed before it ran) left behind.
HandOver& EmptyHandOver() {
  HandOver& h = t_hand_over;
  if (h.error != nullptr) TVMFFIObjectDecRef(h.error);
  if (h.result.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(h.result.v_obj);
  h = HandOver{};
  return h;
}

// One argument packed as tvm-ffi packs it; false for anything but the four plain scalars.
bool Pack(PyObject* obj, TVMFFIAny* out) {
  PyTypeObject* type = Py_TYPE(obj);
  out->zero_padding = 0;
  if (type == &PyFloat_Type) {
    out->type_index = kTVMFFIFloat;
    out->v_float64 = PyFloat_AS_DOUBLE(obj);
    return true;
  }
  if (type == &PyLong_Type) {
    int overflow = 0;
    out->type_index = kTVMFFIInt;
    out->v_int64 = PyLong_AsLongLongAndOverflow(obj, &overflow);  // cannot fail on an int
    return overflow == 0;
  }
  if (obj == Py_None) {
    out->type_index = kTVMFFINone;
    out->v_int64 = 0;
    return true;
  }
  if (type == &PyBool_Type) {
    out->type_index = kTVMFFIBool;
    out->v_int64 = obj == Py_True;
    return true;
  }
  return false;
}

// The Python value of a successful call's result, taking it over.
PyObject* ResultObject(const TVMFFIAny& result) {
  switch (result.type_index) {
    case kTVMFFINone:
      Py_RETURN_NONE;
    case kTVMFFIBool:
      return PyBool_FromLong(result.v_int64 != 0);
    case kTVMFFIInt:
      return PyLong_FromLongLong(result.v_int64);
    case kTVMFFIFloat:
      return PyFloat_FromDouble(result.v_float64);
    default:
      EmptyHandOver().result = result;
      return ThroughTvmFfi();
  }
}

// The exception tvm_ffi.Function.__call__ raises for a call that returned `rc`.
PyObject* RaiseError(int rc) {
  // -2: the callee set a Python exception itself, which tvm-ffi raises as it is.
  if (rc == -2) return nullptr;
  TVMFFIObjectHandle error = nullptr;
  TVMFFIErrorMoveFromRaised(&error);
  if (error != nullptr) {
    const TVMFFIByteArray& kind = TVMFFIErrorGetCellPtr(error)->kind;
    if (std::string_view(kind.data, kind.size) == "EnvErrorAlreadySet") {
      // A Python exception is set already (a signal seen by TVMFFIEnvCheckSignals).
      TVMFFIObjectDecRef(error);
      return nullptr;
    }
  }
  HandOver& h = EmptyHandOver();
  h.rc = rc;
  h.error = error;
  return ThroughTvmFfi();
}

// Calls `handle` with `args` when every one is None, a bool, an int (exactly `int`, within int64)
// or a float (exactly `float`), releasing the GIL for the call when `release_gil` is set, as
// tvm_ffi.Function.__call__ does: true, with *result the call's result (a new reference) or
// nullptr with the exception tvm-ffi raises for the error. False, having called nothing, for
// any other argument or more than kMaxScalarArgs.
bool CallWithScalars(void* handle, bool release_gil, PyObject* const* args, Py_ssize_t n,
                     PyObject** result) {
  if (n > kMaxScalarArgs) return false;
  TVMFFIAny packed[kMaxScalarArgs];
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!Pack(args[i], &packed[i])) return false;
  }
  TVMFFIAny out{};  // type kTVMFFINone, as the C ABI asks
  int rc;
  if (release_gil) {
    Py_BEGIN_ALLOW_THREADS;
    rc = TVMFFIFunctionCall(handle, packed, static_cast<int32_t>(n), &out);
    Py_END_ALLOW_THREADS;
  } else {
    rc = TVMFFIFunctionCall(handle, packed, static_cast<int32_t>(n), &out);
  }
  *result = rc == 0 ? ResultObject(out) : RaiseError(rc);
  return true;
}

}  // namespace

PyObject* CallFfiFunction(PyObject* fn, PyObject* const* args, Py_ssize_t n) {
  PyObject* result;
  if (CallWithScalars(ChandleOf(fn), ReleasesGil(fn), args, n, &result)) return result;
  PyObject* tuple = PyTuple_New(n);
  if (tuple == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
  result = g_function_call(fn, tuple, nullptr);
  Py_DECREF(tuple);
  return result;
}

bool InitScalarCall() {
  g_function_call = FfiObjects().function_call;
  TVMFFIObjectHandle handle = nullptr;
  if (TVMFFIFunctionCreate(nullptr, HandBack, nullptr, &handle) != 0) {
    TVMFFIObjectHandle error = nullptr;
    TVMFFIErrorMoveFromRaised(&error);
    if (error != nullptr) TVMFFIObjectDecRef(error);
    PyErr_SetString(PyExc_ImportError, "kwcall: could not make its tvm-ffi hand-back function");
    return false;
  }
  g_hand_back = NewFfiFunction(handle);  // takes a reference of its own
  TVMFFIObjectDecRef(handle);
  if (g_hand_back == nullptr) return false;
  ReleaseGilOf(g_hand_back) = 0;  // nothing to wait for
  g_no_args = PyTuple_New(0);
  return g_no_args != nullptr;
}

}  // namespace python
}  // namespace kwcall
