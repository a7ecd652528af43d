// A Python call of a tvm_ffi.Function with bound objects. When they are all plain scalars it is
// made without tvm-ffi's Python layer: the arguments packed here exactly as
// tvm_ffi.Function.__call__ packs them, the function called through the C ABI, and a scalar
// result made here. What tvm-ffi's layer must convert (any other result, an error) is handed to
// it through one more call, so Python sees exactly what tvm_ffi.Function.__call__ gives; any
// other argument takes tvm_ffi.Function.__call__ itself.
#ifndef KWCALL_PYTHON_EXT_SCALAR_CALL_H_
#define KWCALL_PYTHON_EXT_SCALAR_CALL_H_

#include <Python.h>

namespace kwcall {
namespace python {

/*!
 * \brief `fn(*args)` with `fn` a tvm_ffi.Function: packed here and called through the C ABI when
 *        every argument is a plain scalar (None, bool, int, float) and they are few (up to
 *        kMaxScalarArgs, scalar_call.cc), else through tvm_ffi.Function.__call__; either way
 *        releasing the GIL when `fn`'s release_gil says so.
 * \return A new reference, or nullptr with the exception tvm_ffi.Function.__call__ raises.
 */
PyObject* CallFfiFunction(PyObject* fn, PyObject* const* args, Py_ssize_t n);

/*!
 * \brief Make the function that hands results and errors to tvm-ffi, and keep
 *        tvm_ffi.Function.__call__; false with an error set. After InitFfiObjects.
 */
bool InitScalarCall();

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_SCALAR_CALL_H_
