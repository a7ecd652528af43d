// The tvm_ffi Python objects the extension works with, looked up once at import.
#ifndef KWCALL_PYTHON_EXT_FFI_OBJECTS_H_
#define KWCALL_PYTHON_EXT_FFI_OBJECTS_H_

#include <Python.h>
#include <kwcall/signature.h>

#include <optional>

#include "base_layout.h"

namespace kwcall {
namespace python {

struct FfiObjectsT {
  PyTypeObject* object_type = nullptr;    // tvm_ffi.core.Object: a CObject, chandle after the head
  PyTypeObject* function_type = nullptr;  // tvm_ffi.Function
  ternaryfunc function_call = nullptr;    // tvm_ffi.Function.__call__
  PyObject* convert = nullptr;            // tvm_ffi.convert
  // tvm-ffi's KWARGS sentinel: the Python type of tvm_ffi.core.KWARGS and the FFI object behind
  // it (a wrapper of the same object that came back from C++ is the sentinel too).
  PyTypeObject* sentinel_type = nullptr;
  void* sentinel_handle = nullptr;
};

/*! \brief The objects; valid after InitFfiObjects succeeded. */
const FfiObjectsT& FfiObjects();

/*! \brief Look them up (and check tvm_ffi.Function's layout); false with ImportError set. */
bool InitFfiObjects();

/*! \brief A new tvm_ffi.Function that shares (increfs) `handle`, or nullptr with an error. */
PyObject* NewFfiFunction(void* handle);

/*! \brief The C++ Signature a kwcall.Signature Python object holds; TypeError when none. */
std::optional<Signature> SignatureOf(PyObject* obj);

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_FFI_OBJECTS_H_
