// kwcall._kwcall.EagerCall (eager_call.h).
#include "eager_call.h"

#include <structmember.h>

#include <array>
#include <cstddef>

namespace kwcall {
namespace python {
namespace {

PyTypeObject* eager_call_type = nullptr;

struct EagerCall {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject* direct;         // the eager function, a kwcall.Function
  PyObject* fallback;       // the operator, torch.ops.ns.name
  PyObject* tensor_type;    // torch.Tensor
  PyObject* mode_checks;    // a tuple of callables; any true result sends the call to torch
  PyObject* grad_enabled;   // torch.is_grad_enabled
  PyObject* requires_grad;  // the descriptor of Tensor.requires_grad
  int tuple_result;         // the direct call returns a sequence the operator returns as a tuple
  int retired;              // _retire() sent every later call to the operator
  PyObject* old_fallback;   // the operator before _retire(), kept for calls on their way
  PyObject* dict;
  PyObject* weakrefs;
};

// 1: the call must go through torch; 0: it may go direct; -1: an exception is set.
int NeedsTorch(EagerCall* self, PyObject* const* args, Py_ssize_t count) {
  const Py_ssize_t num_checks = PyTuple_GET_SIZE(self->mode_checks);
  for (Py_ssize_t i = 0; i < num_checks; ++i) {
    PyObject* active = PyObject_CallNoArgs(PyTuple_GET_ITEM(self->mode_checks, i));
    if (active == nullptr) return -1;
    int truth = PyObject_IsTrue(active);
    Py_DECREF(active);
    if (truth != 0) return truth;
  }
  int grad = -1;  // asked at the first tensor that requires grad
  auto tensor_type = reinterpret_cast<PyTypeObject*>(self->tensor_type);
  descrgetfunc get = Py_TYPE(self->requires_grad)->tp_descr_get;
  for (Py_ssize_t i = 0; i < count; ++i) {
    PyObject* arg = args[i];
    if (Py_TYPE(arg) != tensor_type) {
      if (PyObject_TypeCheck(arg, tensor_type)) return 1;  // a subclass: its overrides run
      continue;
    }
    PyObject* requires = get(self->requires_grad, arg, self->tensor_type);
    if (requires == nullptr) return -1;
    Py_DECREF(requires);
    if (requires != Py_True) continue;
    if (grad < 0) {
      PyObject* enabled = PyObject_CallNoArgs(self->grad_enabled);
      if (enabled == nullptr) return -1;
      grad = enabled == Py_True;
      Py_DECREF(enabled);
    }
    if (grad) return 1;
  }
  return 0;
}

PyObject* CallEager(PyObject* callable, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* self = reinterpret_cast<EagerCall*>(callable);
  const Py_ssize_t count =
      PyVectorcall_NARGS(nargsf) + (kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0);
  int torch = self->retired ? 1 : NeedsTorch(self, args, count);
  if (torch < 0) return nullptr;
  if (torch) return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
  PyObject* result = PyObject_Vectorcall(self->direct, args, nargsf, kwnames);
  if (result == nullptr) {
    // torch says what was wrong (its binding errors, its wording of the function's errors):
    // the same call through the operator raises it. Only errors, not KeyboardInterrupt.
    if (!PyErr_ExceptionMatches(PyExc_Exception)) return nullptr;
    PyErr_Clear();
    return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
  }
  if (!self->tuple_result) return result;
  PyObject* items = PySequence_Tuple(result);
  Py_DECREF(result);
  return items;
}

// The object references an EagerCall owns, which the collector visits and clears alike.
std::array<PyObject**, 8> References(PyObject* obj) {
  auto* self = reinterpret_cast<EagerCall*>(obj);
  return {&self->direct,       &self->fallback,      &self->tensor_type,  &self->mode_checks,
          &self->grad_enabled, &self->requires_grad, &self->old_fallback, &self->dict};
}

int Traverse(PyObject* obj, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(obj));
  for (PyObject** reference : References(obj)) Py_VISIT(*reference);
  return 0;
}

int Clear(PyObject* obj) {
  for (PyObject** reference : References(obj)) Py_CLEAR(*reference);
  return 0;
}

void Dealloc(PyObject* obj) {
  PyTypeObject* type = Py_TYPE(obj);
  PyObject_GC_UnTrack(obj);
  if (reinterpret_cast<EagerCall*>(obj)->weakrefs != nullptr) PyObject_ClearWeakRefs(obj);
  Clear(obj);
  type->tp_free(obj);
  Py_DECREF(type);
}

// _retire(fallback): every later call goes to `fallback`, which finds the operator by its name
// (it was unregistered or replaced: the OpOverload held so far may point at a definition torch
// has dropped). The direct function and the old operator stay referenced, so that a call
// already on its way finishes; each pointer written is a word, read whole.
PyObject* Retire(PyObject* obj, PyObject* fallback) {
  auto* self = reinterpret_cast<EagerCall*>(obj);
  if (self->retired) Py_RETURN_NONE;
  Py_INCREF(fallback);
  self->old_fallback = self->fallback;
  self->fallback = fallback;
  self->retired = 1;
  Py_RETURN_NONE;
}

PyMethodDef kMethods[] = {
    {"_retire", Retire, METH_O, "Send every later call to the given fallback."},
    {nullptr, nullptr, 0, nullptr}};

PyMemberDef kMembers[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(EagerCall, vectorcall), READONLY, nullptr},
    {"__dictoffset__", T_PYSSIZET, offsetof(EagerCall, dict), READONLY, nullptr},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(EagerCall, weakrefs), READONLY, nullptr},
    {"direct", T_OBJECT, offsetof(EagerCall, direct), READONLY,
     "The eager function a plain eager call calls."},
    {"fallback", T_OBJECT, offsetof(EagerCall, fallback), READONLY,
     "The operator every other call goes through."},
    {nullptr, 0, 0, 0, nullptr}};

// What the type is, then its lifetime under the collector.
PyType_Slot kSlots[] = {
    {Py_tp_doc, const_cast<char*>("A torch operator's eager call (kwcall.torch.register).")},
    {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
    {Py_tp_members, kMembers},
    {Py_tp_methods, kMethods},
    {Py_tp_traverse, reinterpret_cast<void*>(Traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(Clear)},
    {Py_tp_dealloc, reinterpret_cast<void*>(Dealloc)},
    {0, nullptr}};

PyType_Spec kSpec = {"kwcall._kwcall.EagerCall", sizeof(EagerCall), 0,
                     Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL, kSlots};

}  // namespace

PyTypeObject* CreateEagerCallType() {
  if (eager_call_type == nullptr) {
    eager_call_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&kSpec));
  }
  return eager_call_type;
}

PyObject* NewEagerCall(PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 7 || !PyType_Check(args[2]) || !PyTuple_Check(args[3]) ||
      Py_TYPE(args[5])->tp_descr_get == nullptr) {
    PyErr_SetString(PyExc_TypeError,
                    "eager_call(direct, fallback, tensor_type: type, mode_checks: tuple, "
                    "grad_enabled, requires_grad: a descriptor, tuple_result: bool)");
    return nullptr;
  }
  int tuple_result = PyObject_IsTrue(args[6]);
  if (tuple_result < 0) return nullptr;
  auto* self = PyObject_GC_New(EagerCall, eager_call_type);
  if (self == nullptr) return nullptr;
  Py_INCREF(eager_call_type);  // heap type instances own a reference to it
  self->vectorcall = CallEager;
  PyObject** fields[] = {&self->direct,      &self->fallback,     &self->tensor_type,
                         &self->mode_checks, &self->grad_enabled, &self->requires_grad};
  for (int i = 0; i < 6; ++i) {
    Py_INCREF(args[i]);
    *fields[i] = args[i];
  }
  self->tuple_result = tuple_result;
  self->retired = 0;
  self->old_fallback = nullptr;
  self->dict = nullptr;
  self->weakrefs = nullptr;
  PyObject_GC_Track(self);
  return reinterpret_cast<PyObject*>(self);
}

}  // namespace python
}  // namespace kwcall
