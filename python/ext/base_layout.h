// What kwcall relies on in tvm_ffi.Function's private C layout, checked once at import.
#ifndef KWCALL_PYTHON_EXT_BASE_LAYOUT_H_
#define KWCALL_PYTHON_EXT_BASE_LAYOUT_H_

#include <Python.h>

#include <cstddef>

namespace kwcall {
namespace python {

/*! \brief Mirror of a tvm_ffi.core.CObject instance (every tvm-ffi Python object). */
struct ObjectLayout {
  PyObject_HEAD void* chandle;
};

/*!
 * \brief Mirror of a tvm_ffi.Function instance. Function is a Cython class: CObject adds
 *        `void* chandle` after the object header, Function adds `int c_release_gil` and
 *        `dict __dict__`. CheckBaseLayout verifies every offset derived from this struct.
 */
struct BaseLayout {
  ObjectLayout object;
  int c_release_gil;
  PyObject* dict;
};

inline constexpr Py_ssize_t kBaseBasicSize = sizeof(BaseLayout);
inline constexpr Py_ssize_t kBaseDictOffset = offsetof(BaseLayout, dict);

/*! \brief The FFI object handle of any tvm-ffi Python object. */
inline void*& ChandleOf(PyObject* obj) { return reinterpret_cast<ObjectLayout*>(obj)->chandle; }

/*! \brief `Function.c_release_gil`: whether a call releases the GIL. */
inline int& ReleaseGilOf(PyObject* obj) {
  return reinterpret_cast<BaseLayout*>(obj)->c_release_gil;
}

/*!
 * \brief Whether a call of `obj` releases the GIL, read as one relaxed atomic load: a caller on
 *        another thread may set `release_gil` meanwhile, and either value is right then.
 */
inline bool ReleasesGil(PyObject* obj) {
  return __atomic_load_n(&ReleaseGilOf(obj), __ATOMIC_RELAXED) != 0;
}

/*!
 * \brief Check tvm_ffi.Function against BaseLayout; on a mismatch set ImportError naming the
 *        supported apache-tvm-ffi versions and return false.
 * \param function_type tvm_ffi.Function.
 * \param probe A live tvm_ffi.Function instance whose `__chandle__()` is compared with the
 *        pointer at `chandle`, and whose `release_gil` is toggled to find `c_release_gil`.
 */
bool CheckBaseLayout(PyTypeObject* function_type, PyObject* probe);

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_BASE_LAYOUT_H_
