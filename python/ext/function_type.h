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
 * \brief A new instance of `cls` (kwcall.Function or a type from CreateDerivedType), made whole
 *        from plain values: the one construction call, and nothing changes the instance after
 *        it. Its handle is the C++ kwcall function that calls `target` with `signature`.
 *        Nothing here calls into the kwcall Python package.
 * \param target A tvm_ffi.Function, or a Python callable (which C++ callers reach through
 *        tvm-ffi's conversion and Python callers call directly with the bound objects and the
 *        default objects); what `.target` returns.
 * \param signature A kwcall.Signature: the C++ signature, read through its handle.
 * \param defaults A tuple with one entry per parameter: the object Python callers get where
 *        the signature gives the parameter a default (any value where it gives none).
 * \param name A str: the instance's `__name__` and `__qualname__`.
 * \param preprocess nullptr or None, or `preprocess(args, kwargs) -> (args, kwargs)`, which
 *        each Python call passes through before it is bound (C++ callers never see it).
 * \return The instance, or nullptr with an exception set.
 */
PyObject* Make(PyTypeObject* cls, PyObject* target, PyObject* signature, PyObject* defaults,
               PyObject* name, PyObject* preprocess);

/*! \brief A new tvm_ffi.Function that raises RuntimeError(`message`) when called. */
PyObject* NewErrorFunction(const char* message);

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_FUNCTION_TYPE_H_
