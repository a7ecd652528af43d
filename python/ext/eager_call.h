// kwcall._kwcall.EagerCall: the object kwcall.torch.register returns. A call checks, in C,
// that nothing torch would run before the operator's kernel is active (a torch function or
// dispatch mode, a tensor subclass, a tensor that requires grad with grad mode on), then calls
// the operator's eager function directly; otherwise, or when the direct call raised, it calls
// the operator through torch (python/kwcall/torch/_eager.py says why each check is there).
#ifndef KWCALL_PYTHON_EXT_EAGER_CALL_H_
#define KWCALL_PYTHON_EXT_EAGER_CALL_H_

#include <Python.h>

namespace kwcall {
namespace python {

// Creates the EagerCall type (once, at the module's first import); nullptr with an exception.
PyTypeObject* CreateEagerCallType();

// _kwcall.eager_call(direct, fallback, tensor_type, mode_checks, grad_enabled, requires_grad,
// tuple_result): a new EagerCall.
PyObject* NewEagerCall(PyObject* const* args, Py_ssize_t nargs);

}  // namespace python
}  // namespace kwcall

#endif  // KWCALL_PYTHON_EXT_EAGER_CALL_H_
