"""register(): a kwcall function as the torch operator ``torch.ops.ns.name`` (or an overload,
``ns::name.overload``), through C++'s ``kwcall::torch::RegisterOp`` (the FFI global
``kwcall.torch.RegisterOp``); a further device's kernel added to one registered here; one
replaced by another.

The operators registered here are kept, with their functions, until ``unregister``: the
kernel calls the function's C++ handle, and a ``kwcall.cute`` function's Python object keeps
its compiled code loaded.
"""

from __future__ import annotations

import inspect
import threading
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import tvm_ffi

import torch

from . import _eager, _outputs, _privates
from ._schema import schema_of

_register_op = tvm_ffi.get_global_func("kwcall.torch.RegisterOp")
_add_kernels = tvm_ffi.get_global_func("kwcall.torch.AddKernels")
DEFAULT_DEVICE_TYPES = ("CPU", "CUDA")
_target_created_like = tvm_ffi.get_global_func("kwcall.torch.TargetCreatedLike")
# A tvm-ffi function over a Python callable: tvm-ffi makes every such function with one C entry
# point, which this one shows.
_PYTHON_CALLBACK = tvm_ffi.convert(lambda: None)


@dataclass
class _Registered:
    functions: list[Any]
    handle: Any  # kwcall.torch.Operator: dropping it unregisters (added kernels too)
    schema: str
    outputs: dict[str, _outputs.Like]
    device_types: set[str]
    calls: weakref.WeakSet = field(default_factory=weakref.WeakSet)  # the eager calls made


_lock = threading.Lock()
_operators: dict[str, _Registered] = {}


def _split(qualified_name: Any) -> tuple[str, str, str]:
    """(namespace, name, overload) of ``ns::name`` (overload ``"default"``) or
    ``ns::name.overload``."""
    if isinstance(qualified_name, str) and qualified_name.count("::") == 1:
        ns, rest = qualified_name.split("::")
        name, _, overload = rest.partition(".")
        if all(part.isidentifier() for part in (ns, name, overload or "default")):
            return ns, name, overload or "default"
    raise ValueError(
        f"kwcall.torch: the operator name must be 'namespace::name' or "
        f"'namespace::name.overload' (as in 'mylib::axpy' or 'mylib::axpy.out'), got "
        f"{qualified_name!r}"
    )


def _keys(device_types: Any) -> list[str]:
    """``device_types`` as a list of dispatch key names: one str is one key (as
    ``torch.library.custom_op`` takes it), not its letters."""
    keys = [device_types] if isinstance(device_types, str) else list(device_types)
    for key in keys:
        if not isinstance(key, str):
            raise TypeError(
                "kwcall.torch: device_types must be a dispatch key name ('CPU', 'CUDA') or a "
                f"list of them, got {key!r} ({type(key).__name__}) in it"
            )
    return keys


def _check_namespace(ns: str) -> None:
    """ValueError when ``torch.ops.<ns>`` is no operator namespace but something of torch.ops'
    own (``_dir``, ``__dict__``, ``load_library``, ``higher_order``'s namespace of Python
    operators): the operator could not be reached there, nor forgotten at ``unregister``."""
    found = inspect.getattr_static(torch.ops, ns, None)
    if found is not None and type(found) is not type(torch.ops.aten):
        raise ValueError(
            f"kwcall.torch: torch.ops.{ns} is {type(found).__name__} {found!r:.60}, not a "
            "namespace of operators, so the operator could not be reached as "
            f"torch.ops.{ns}.<name>: choose another namespace (one of your own, as in 'mylib')"
        )


def _check_native_target(f: Any) -> None:
    """TypeError when ``f`` calls a Python function: the kernel passes tensors as DLTensor*
    views, which a Python callback cannot use (the first call that touched one crashed)."""
    if _target_created_like(f, _PYTHON_CALLBACK):
        raise TypeError(
            f"kwcall.torch: {f!r} calls a Python function, which kwcall's C++ kernel cannot "
            "call (it passes tensors as DLTensor* views, which a Python callback cannot use): "
            "register a kwcall function on a native target (a kwcall.cute kernel, a C++ tvm-ffi "
            "function, kwcall.load_function's), or make a Python kernel an operator with "
            "torch.library.custom_op"
        )


def _torch_has(ns: str, name: str, overload: str) -> bool:
    """Whether torch knows the operator ``ns::name`` with that overload."""
    try:
        packet = getattr(getattr(torch.ops, ns), name)
    except (AttributeError, RuntimeError):
        return False
    return overload in packet.overloads()


def _packet(ns: str, name: str) -> Any:
    return getattr(getattr(torch.ops, ns), name)


def _retire(qualified_name: str, entry: _Registered) -> None:
    """The eager calls made for ``entry`` go through torch's dispatcher from now on, to the
    operator of that name torch has at the time of each call (none, or a replacement)."""
    ns, name, overload = _split(qualified_name)

    def through_torch(*args: Any, **kwargs: Any) -> Any:
        return getattr(_packet(ns, name), overload)(*args, **kwargs)

    for call in list(entry.calls):
        call._retire(through_torch)


def register(
    f: Any,
    qualified_name: str,
    *,
    mutates_args: Iterable[str] = (),
    types: Mapping[str, str] | None = None,
    device_types: Iterable[str] | None = None,
    outputs: Mapping[str, _outputs.Like] | None = None,
    replace: bool = False,
) -> Any:
    """Registers the kwcall function ``f`` as the operator ``torch.ops.ns.name`` (or the
    overload ``ns::name.overload``) with the schema ``schema_of(f, mutates_args, types,
    outputs)`` and a C++ kernel for each of ``device_types`` (torch's dispatch key names
    "CPU" and "CUDA", both when None) plus a Meta kernel. The operator writes into ``mutates_args``
    and returns a new tensor for each of ``outputs`` (``kwcall.torch.like`` rules).

    Returns the eager call object (python/kwcall/torch/_eager.py): called, it runs ``f``
    directly in plain eager mode and ``torch.ops.ns.name`` otherwise.

    A name registered here already, with the same schema and outputs: ``device_types`` that
    have no kernel yet add ``f``'s kernels for them. ``replace=True`` unregisters the operator
    first (its eager calls go through torch from then on, to the new one). RuntimeError
    otherwise, and when torch has an operator of that name that kwcall did not register."""
    ns, name, overload = _split(qualified_name)
    _check_namespace(ns)
    schema = schema_of(f, mutates_args, types, outputs)
    _check_native_target(f)
    rules = {p.name: outputs[p.name] for p in f.signature.parameters() if p.name in (outputs or {})}
    keys = list(DEFAULT_DEVICE_TYPES if device_types is None else _keys(device_types))
    with _lock:
        entry = _operators.get(qualified_name)
        if entry is not None and replace:
            _unregister_locked(qualified_name)
            entry = None
        if entry is not None:
            _add_locked(entry, f, qualified_name, schema, rules, keys, device_types)
        else:
            if _torch_has(ns, name, overload):
                raise RuntimeError(
                    f"kwcall.torch: torch has an operator {qualified_name} already: choose "
                    "another name (a namespace of your own)"
                )
            handle = _register_op(f, qualified_name, schema, keys, _outputs.as_maps(rules))
            entry = _Registered([f], handle, schema, rules, set(keys))
            _operators[qualified_name] = entry
        _privates.forget_cached_operator(ns, name)  # the packet learns of a new overload
        op = getattr(_packet(ns, name), overload)
        call = _eager.make_eager_call(f, qualified_name, schema, rules, keys, op)
        entry.calls.add(call)
    return call


def _add_locked(
    entry: _Registered,
    f: Any,
    qualified_name: str,
    schema: str,
    rules: dict[str, _outputs.Like],
    keys: list[str],
    device_types: Any,
) -> None:
    """Adds ``f``'s kernels for ``keys`` to a registered operator, or says why not."""
    taken = entry.device_types.intersection(keys)
    if device_types is None or taken or schema != entry.schema or rules != entry.outputs:
        why = (
            "pass device_types= naming the device types it has no kernel for yet"
            if device_types is None or taken
            else f"a further device's kernel needs the same schema and outputs ({entry.schema})"
        )
        raise RuntimeError(
            f"kwcall.torch: {qualified_name} is registered already (by kwcall.torch.register) "
            f"with kernels for {', '.join(sorted(entry.device_types))}: {why}, pass "
            f"replace=True, or kwcall.torch.unregister({qualified_name!r}) first"
        )
    _add_kernels(entry.handle, f, keys)
    entry.functions.append(f)
    entry.device_types.update(keys)


def _unregister_locked(qualified_name: str) -> None:
    ns, name, _ = _split(qualified_name)
    entry = _operators.pop(qualified_name, None)
    if entry is None:
        raise KeyError(f"kwcall.torch: no operator {qualified_name} was registered here")
    _retire(qualified_name, entry)
    del entry
    _privates.forget_cached_operator(ns, name)


def unregister(qualified_name: str) -> None:
    """Unregisters an operator ``register`` made, and lets go of its function. No call of it
    may be running then; its eager calls go through torch from then on. KeyError when there
    is no such operator."""
    _split(qualified_name)
    with _lock:
        _unregister_locked(qualified_name)


def registered() -> dict[str, str]:
    """The operators ``register`` made, with their schemas."""
    with _lock:
        return {name: entry.schema for name, entry in _operators.items()}
