// What kwcall relies on in tvm_ffi.Function's private C layout, checked once at import.
#ifndef KWCALL_PYTHON_BASE_LAYOUT_H_
#define KWCALL_PYTHON_BASE_LAYOUT_H_

#include <Python.h>

namespace kwcall {
namespace python {

/*!
 * \brief tvm_ffi.Function is a Cython class: PyObject header, `void* chandle` (from
 * CObject), `int c_release_gil`, `dict __dict__`. kwcall reads and sets `chandle`.
 */
struct BaseLayout {
  static constexpr Py_ssize_t kChandleOffset = sizeof(PyObject);
  static constexpr Py_ssize_t kReleaseGilOffset = kChandleOffset + sizeof(void*);
  static constexpr Py_ssize_t kBasicSize = 40;
  static constexpr Py_ssize_t kDictOffset = 32;
};

inline void*& ChandleOf(PyObject* obj) {
  return *reinterpret_cast<void**>(reinterpret_cast<char*>(obj) + BaseLayout::kChandleOffset);
}

/*! \brief `Function.c_release_gil`: whether a call releases the GIL. */
inline int ReleaseGilOf(PyObject* obj) {
  return *reinterpret_cast<int*>(reinterpret_cast<char*>(obj) + BaseLayout::kReleaseGilOffset);
}

/*!
 * \brief Check tvm_ffi.Function against BaseLayout; on a mismatch set ImportError naming
 *        the supported apache-tvm-ffi versions and return false.
 * \param function_type tvm_ffi.Function.
 * \param probe A live tvm_ffi.Function instance whose `__chandle__()` is compared with the
 *        pointer at kChandleOffset, and whose `release_gil` is toggled to find
 *        kReleaseGilOffset.
 */
bool CheckBaseLayout(PyTypeObject* function_type, PyObject* probe);

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_BASE_LAYOUT_H_
