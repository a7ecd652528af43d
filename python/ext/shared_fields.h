// How a kwcall.Function's fields are shared between threads, for free-threaded CPython (and
// the same code under the GIL, where it costs nothing): a writer changes them inside a
// per-object critical section and publishes each with a release store; callers read them
// without a lock, with acquire loads, and never find an object they loaded freed under them
// (what a call may be using lives as long as the instance: see function_type.cc).
#ifndef KWCALL_PYTHON_EXT_SHARED_FIELDS_H_
#define KWCALL_PYTHON_EXT_SHARED_FIELDS_H_

#include <Python.h>

// Py_BEGIN_CRITICAL_SECTION is new in 3.13 (a no-op there under the GIL); before 3.13 the GIL
// is the only lock and the section is a plain block.
#if PY_VERSION_HEX >= 0x030D0000
#define KWCALL_BEGIN_CRITICAL_SECTION(op) Py_BEGIN_CRITICAL_SECTION(op)
#define KWCALL_END_CRITICAL_SECTION() Py_END_CRITICAL_SECTION()
#else
#define KWCALL_BEGIN_CRITICAL_SECTION(op) {
#define KWCALL_END_CRITICAL_SECTION() }
#endif

namespace kwcall {
namespace python {

/*! \brief A field a writer published with Publish: what was written before it is visible. */
template <typename T>
T LoadAcquire(T* field) {
  return __atomic_load_n(field, __ATOMIC_ACQUIRE);
}

/*! \brief Store `value` into `field` after everything written before it (one release store). */
template <typename T>
void Publish(T* field, T value) {
  __atomic_store_n(field, value, __ATOMIC_RELEASE);
}

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_SHARED_FIELDS_H_
