// A per-object critical section for free-threaded CPython: Py_BEGIN_CRITICAL_SECTION, new in
// 3.13 (a no-op there under the GIL); before 3.13 the GIL is the only lock and the section is a
// plain block.
#ifndef KWCALL_PYTHON_EXT_CRITICAL_SECTION_H_
#define KWCALL_PYTHON_EXT_CRITICAL_SECTION_H_

#include <Python.h>

#if PY_VERSION_HEX >= 0x030D0000
#define KWCALL_BEGIN_CRITICAL_SECTION(op) Py_BEGIN_CRITICAL_SECTION(op)
#define KWCALL_END_CRITICAL_SECTION() Py_END_CRITICAL_SECTION()
#else
#define KWCALL_BEGIN_CRITICAL_SECTION(op) {
#define KWCALL_END_CRITICAL_SECTION() }
#endif

#endif  // KWCALL_PYTHON_EXT_CRITICAL_SECTION_H_
