"""The eager call object ``kwcall.torch.register`` returns: in plain eager mode it calls the
operator's function directly, at about the function's own cost, instead of going through
torch's dispatcher (which costs several times the function, docs/torch.md); every other call
goes through ``torch.ops.ns.name``, so that results, errors and the current stream are the
operator's either way.

The direct route is taken when none of what torch would run before the operator's kernel is
active. Each check is the one torch makes itself, read once per call in C
(python/ext/eager_call.cc):

* a torch function mode (torch's ``_is_torch_function_mode_enabled``): it sees the operator's
  call;
* a torch dispatch mode, FakeTensorMode and the infra modes of ``make_fx``, functionalization
  and ``torch.export`` included (``_len_torch_dispatch_stack``);
* a functorch transform (``vmap``, ``grad``: ``_are_functorch_transforms_active``);
* a tensor argument of a subclass (FakeTensor, FunctionalTensor, ``nn.Parameter``, any class
  with ``__torch_function__`` or ``__torch_dispatch__``);
* a tensor argument that requires grad while grad mode is on (the operator's autograd
  kernel, or torch's refusal, must run).

``torch.compile`` never runs the object: it is registered with
``torch.compiler.allow_in_graph``, so Dynamo puts it in the graph as it is and AOTAutograd
traces it under its modes, where it calls the operator; the compiled graph holds the
operator. Tensors on other devices or layouts (meta, sparse, a conjugate view), and every
call the function or the binding refuses, fail on the direct route and are replayed through
the operator: torch's error, or the operator's result, is what the caller gets.

The direct route is the eager function of src/torch/eager.cc: the same output rules and the
same CUDA device and stream handling as the operator's kernel, with the outputs allocated by
torch (tvm-ffi's environment allocator, which tvm-ffi's call sets from the torch tensors
passed).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import tvm_ffi

import kwcall
import torch
from kwcall import _kwcall

from . import _outputs, _privates

_eager_function = tvm_ffi.get_global_func("kwcall.torch.EagerFunction")


def _without(signature: kwcall.Signature, names: Mapping[str, Any]) -> kwcall.Signature:
    """``signature`` less the parameters ``names``: the operator's arguments."""
    params = [p for p in signature.parameters() if p.name not in names]
    return kwcall.Signature.from_inspect(inspect.Signature(params), name=signature.name)


def make_eager_call(
    f: Any,
    qualified_name: str,
    schema: str,
    outputs: Mapping[str, _outputs.Like],
    device_types: Sequence[str] | None,
    op: Any,
) -> Any:
    """The eager call of the operator ``op`` that ``f`` serves for ``device_types``."""
    keys = None if device_types is None else list(device_types)
    target = _eager_function(f, qualified_name, schema, _outputs.as_maps(outputs), keys)
    direct = kwcall.wrap(target, _without(f.signature, outputs))
    checks = _privates.mode_checks()
    if checks is None:  # a torch without one: the object always calls the operator
        direct, checks = op, ()
    requires_grad = inspect.getattr_static(torch.Tensor, "requires_grad")
    call = _kwcall.eager_call(
        direct, op, torch.Tensor, checks, torch.is_grad_enabled, requires_grad, len(outputs) > 1
    )
    call.__name__ = call.__qualname__ = qualified_name.split("::")[1].replace(".", "_")
    call.qualified_name = qualified_name
    call.function = f
    call.op = op
    call.schema = schema
    torch.compiler.allow_in_graph(call)
    return call
