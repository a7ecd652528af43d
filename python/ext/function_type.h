// kwcall.Function: a heap subtype of tvm_ffi.Function whose vectorcall binds Python
// arguments in C++ and whose handle is the C++ kwcall function.
#ifndef KWCALL_PYTHON_EXT_FUNCTION_TYPE_H_
#define KWCALL_PYTHON_EXT_FUNCTION_TYPE_H_

#include <Python.h>

namespace kwcall {
namespace python {

/*!
 * \brief Create the kwcall.Function type (once per process) as a subtype of tvm_ffi.Function
 *        (and of tvm_ffi.core.ObjectConvertible where tvm-ffi has it, so tvm_ffi.convert(f)
 *        is f).
 * \return The type, whose reference the process keeps, or nullptr with an exception set.
 */
PyObject* CreateFunctionType();

/*! \brief kwcall.Function; nullptr before CreateFunctionType. */
PyTypeObject* FunctionType();

/*!
 * \brief Create a type that derives from kwcall.Function and from `extra_bases` (Python
 *        classes that add no C fields), keeping kwcall's vectorcall. A class statement would
 *        inherit tvm_ffi.Function.__call__ instead and lose it.
 */
PyObject* CreateDerivedType(const char* qualified_name, PyObject* extra_bases);

/*!
 * \brief A new instance of `cls` (kwcall.Function or a type from CreateDerivedType) bound to
 *        `target` with `signature` (see Bind): the one construction call.
 */
PyObject* Make(PyTypeObject* cls, PyObject* target, PyObject* signature);

/*!
 * \brief A new instance of `cls` not bound to any target yet (CuTeDSL's objects get their
 *        state before they are bound). Its handle is a function that raises
 *        RuntimeError(`message`) (a default text when `message` is nullptr), from Python and
 *        from C++ alike, until Bind.
 */
PyObject* NewUnbound(PyTypeObject* cls, const char* message);

/*! \brief A new tvm_ffi.Function that raises RuntimeError(`message`) when called. */
PyObject* NewErrorFunction(const char* message);

/*!
 * \brief Bind an unbound instance: its handle becomes the C++ kwcall function that calls
 *        `target` (a tvm_ffi.Function, or tvm-ffi's conversion of a Python callable) with
 *        `signature` (a kwcall.Signature), and its name the signature's.
 * \param target What `.target` returns. Python callers call a Python callable directly with
 *        the bound objects, and receive the signature's default objects themselves.
 * \return 0, or -1 with an exception set.
 */
int Bind(PyObject* self, PyObject* target, PyObject* signature);

/*!
 * \brief Pass each Python call's (args, kwargs) through `preprocess(args, kwargs) -> (args,
 *        kwargs)` before binding (None removes the step), also while other threads call.
 *        Only for an instance made by NewUnbound, whose entry point reads its state on every
 *        call; one made by Make calls its binding directly and pays nothing for steps. -1 on
 *        error.
 */
int SetPreprocess(PyObject* self, PyObject* preprocess);

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_FUNCTION_TYPE_H_
