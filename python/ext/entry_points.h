// kwcall.Function's vectorcall entry points (entry_points.cc).
#ifndef KWCALL_PYTHON_ENTRY_POINTS_H_
#define KWCALL_PYTHON_ENTRY_POINTS_H_

#include <Python.h>

namespace kwcall {
namespace python {

class Binding;

/*! \brief The entry point of an instance made by NewUnbound: reads its state on every call. */
PyObject* CallLate(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames);

/*! \brief The entry point of an instance bound before it is shared, chosen once. */
vectorcallfunc BoundEntryPoint(const Binding& binding);

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_ENTRY_POINTS_H_
