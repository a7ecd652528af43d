"""register(): a kwcall function as the torch operator ``torch.ops.ns.name``, through C++'s
``kwcall::torch::RegisterOp`` (the FFI global ``kwcall.torch.RegisterOp``).

The operators registered here are kept, with their functions, until ``unregister``: the
kernel calls the function's C++ handle, and a ``kwcall.cute`` function's Python object keeps
its compiled code loaded.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import tvm_ffi

import torch

from ._schema import schema_of

_register_op = tvm_ffi.get_global_func("kwcall.torch.RegisterOp")


class _Registered(NamedTuple):
    function: Any
    handle: Any  # kwcall.torch.Operator: dropping it unregisters
    schema: str


_lock = threading.Lock()
_operators: dict[str, _Registered] = {}


def _split(qualified_name: Any) -> tuple[str, str]:
    if not isinstance(qualified_name, str) or qualified_name.count("::") != 1:
        raise ValueError(
            f"kwcall.torch: the operator name must be 'namespace::name' (as in "
            f"'mylib::axpy'), got {qualified_name!r}"
        )
    ns, name = qualified_name.split("::")
    return ns, name


def _torch_has(ns: str, name: str) -> bool:
    """Whether torch knows an operator ``ns::name`` (any overload)."""
    try:
        getattr(getattr(torch.ops, ns), name)
    except (AttributeError, RuntimeError):
        return False
    return True


def _forget_in_torch_ops(ns: str, name: str) -> None:
    """torch.ops caches the operators it has looked up: drop ours, so that the name can be
    registered again."""
    namespace = getattr(torch.ops, ns)
    vars(namespace).pop(name, None)


def register(
    f: Any,
    qualified_name: str,
    *,
    mutates_args: Iterable[str] = (),
    types: Mapping[str, str] | None = None,
    device_types: Iterable[str] | None = None,
) -> Any:
    """Registers the kwcall function ``f`` as the operator ``torch.ops.ns.name`` with the
    schema ``schema_of(f, mutates_args, types)`` and a C++ kernel for each of
    ``device_types`` (torch's dispatch key names "CPU" and "CUDA", both when None) plus a Meta
    kernel; returns ``f``. The operator returns nothing: it writes into ``mutates_args``.
    RuntimeError when the name exists already (registered here, or an operator torch has)."""
    ns, name = _split(qualified_name)
    schema = schema_of(f, mutates_args, types)
    keys = None if device_types is None else [str(k) for k in device_types]
    with _lock:
        if qualified_name in _operators:
            raise RuntimeError(
                f"kwcall.torch: {qualified_name} is registered already (by kwcall.torch."
                f"register): kwcall.torch.unregister({qualified_name!r}) first"
            )
        if _torch_has(ns, name):
            raise RuntimeError(
                f"kwcall.torch: torch has an operator {qualified_name} already: choose "
                "another name (a namespace of your own)"
            )
        handle = _register_op(f, qualified_name, schema, keys)
        _operators[qualified_name] = _Registered(f, handle, schema)
    return f


def unregister(qualified_name: str) -> None:
    """Unregisters an operator ``register`` made, and lets go of its function. No call of it
    may be running then. KeyError when there is no such operator."""
    ns, name = _split(qualified_name)
    with _lock:
        entry = _operators.pop(qualified_name, None)
        if entry is None:
            raise KeyError(f"kwcall.torch: no operator {qualified_name} was registered here")
        del entry
        _forget_in_torch_ops(ns, name)


def registered() -> dict[str, str]:
    """The operators ``register`` made, with their schemas."""
    with _lock:
        return {name: entry.schema for name, entry in _operators.items()}
