// kwcall.Function's late entry point (entry_points.cc); the others are its binding's.
#ifndef KWCALL_PYTHON_EXT_ENTRY_POINTS_H_
#define KWCALL_PYTHON_EXT_ENTRY_POINTS_H_

#include <Python.h>

namespace kwcall {
namespace python {

/*! \brief The entry point of an instance made by NewUnbound: reads its state on every call. */
PyObject* CallLate(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames);

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_ENTRY_POINTS_H_
