// kwcall.Function's vectorcall entry points, one per way a call can go, and the one table that
// picks an instance's when it is made.
#ifndef KWCALL_PYTHON_EXT_ENTRY_POINTS_H_
#define KWCALL_PYTHON_EXT_ENTRY_POINTS_H_

#include <Python.h>

#include "function_state.h"

namespace kwcall {
namespace python {

/*!
 * \brief The entry point of an instance whose state is `state`, from its plan's call kind and
 *        its preprocess step: a full-arity positional call of a native kind goes to the target
 *        as it is; every other call is bound to the signature; with a preprocess step, each
 *        call's (args, kwargs) go through the step first.
 */
vectorcallfunc EntryPointFor(const FunctionState& state);

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_ENTRY_POINTS_H_
