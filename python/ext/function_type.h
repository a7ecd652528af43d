// kwcall.Function: a heap subtype of tvm_ffi.Function whose vectorcall binds Python
// arguments in C++ and whose handle is the C++ kwcall function.
#ifndef KWCALL_PYTHON_FUNCTION_TYPE_H_
#define KWCALL_PYTHON_FUNCTION_TYPE_H_

#include <Python.h>

namespace kwcall {
namespace python {

/*!
 * \brief Create the kwcall.Function type as a subtype of `base` (tvm_ffi.Function).
 * \param kwargs_sentinel tvm_ffi.core.KWARGS: positional calls that carry it go to the C++
 *        binder unchanged.
 * \param object_convertible tvm_ffi.core.ObjectConvertible, a second base so that
 *        tvm_ffi.convert(f) returns f; nullptr where tvm-ffi has none.
 * \return A new reference, or nullptr with an exception set.
 */
PyObject* CreateFunctionType(PyTypeObject* base, PyObject* kwargs_sentinel,
                             PyObject* object_convertible);

/*!
 * \brief Create a type that derives from kwcall.Function and from `extra_bases` (Python
 *        classes that add no C fields), keeping kwcall's vectorcall. A class statement
 *        would inherit tvm_ffi.Function.__call__ instead and lose it.
 */
PyObject* CreateDerivedType(const char* qualified_name, PyObject* extra_bases);

/*!
 * \brief A new instance of `cls` (kwcall.Function or a type from CreateDerivedType) with no
 *        handle and no binding yet: calling it raises until Bind. Lets a derived type set up
 *        its own state before the handle exists.
 */
PyObject* NewUnbound(PyTypeObject* cls);

/*! \brief Give an unbound instance its handle and binding; see NewFunction. -1 on error. */
int Bind(PyObject* self, PyObject* handle, PyObject* target, PyObject* signature,
         PyObject* defaults, PyObject* unpack_fn);

/*!
 * \brief Make a bound instance pass each call's (args, kwargs) through
 *        `preprocess(args, kwargs) -> (args, kwargs)` before binding (None: no step).
 *        A slow path, for CuTeDSL's pointer-argument conversion. -1 on error.
 */
int SetPreprocess(PyObject* self, PyObject* preprocess);

/*!
 * \brief A new instance of `cls` (kwcall.Function or a type from CreateDerivedType).
 * \param handle A tvm_ffi.Function holding the C++ kwcall function; its handle is shared.
 * \param target The target, kept for `.target`.
 * \param signature The kwcall.Signature, kept for `.signature`.
 * \param defaults One entry per parameter in declaration order: the Python default object,
 *        used where the C++ signature says the parameter has a default.
 * \param unpack_fn Called on the values of parameters marked for unpacking.
 */
PyObject* NewFunction(PyTypeObject* cls, PyObject* handle, PyObject* target, PyObject* signature,
                      PyObject* defaults, PyObject* unpack_fn);

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_FUNCTION_TYPE_H_
