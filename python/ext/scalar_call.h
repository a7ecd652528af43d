// A Python call of a tvm-ffi function whose arguments are all plain scalars, made without
// tvm-ffi's Python layer: the arguments packed here exactly as tvm_ffi.Function.__call__ packs
// them, the function called through the C ABI, and a scalar result made here. What tvm-ffi's
// layer must convert (any other result, an error) is handed to it through one more call, so
// Python sees exactly what tvm_ffi.Function.__call__ gives.
#ifndef KWCALL_PYTHON_EXT_SCALAR_CALL_H_
#define KWCALL_PYTHON_EXT_SCALAR_CALL_H_

#include <Python.h>

namespace kwcall {
namespace python {

/*! \brief Calls with more arguments than this take tvm-ffi's own path. */
inline constexpr Py_ssize_t kMaxScalarArgs = 16;

/*!
 * \brief Call the tvm-ffi function `handle` with `args` when every one is None, a bool, an int
 *        (exactly `int`, within int64) or a float (exactly `float`), releasing the GIL for the
 *        call when `release_gil` is set, as tvm_ffi.Function.__call__ does.
 * \return false, having called nothing, when an argument is not such a scalar (or there are
 *         more than kMaxScalarArgs); else true, with *result the call's result (a new
 *         reference) or nullptr with the exception tvm-ffi raises for the error.
 */
bool CallWithScalars(void* handle, bool release_gil, PyObject* const* args, Py_ssize_t n,
                     PyObject** result);

/*! \brief Make the function that hands results and errors to tvm-ffi; false with an error set. */
bool InitScalarCall();

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_SCALAR_CALL_H_
