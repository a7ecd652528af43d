"""kwcall.load_function: a function of exported code, bound to the signature exported beside it
(read from its companion, ``_companion``), from tvm-ffi's modules and from the modules of an
optional integration (CuTeDSL's), which registers how to read them.
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Callable
from typing import Any

import tvm_ffi

from ._companion import Lookup, exported_signature
from ._function import Function, wrap
from ._signature import Signature

#: Where an optional integration registers a module lookup (an entry point of this group in
#: pyproject.toml): a callable that takes a module and returns its function lookup, or None
#: when the module is none of the integration's. kwcall.cute registers the lookup of CuTeDSL's
#: modules; the core calls what is registered and names no integration.
MODULE_LOOKUPS = "kwcall.module_lookups"


@functools.cache
def _module_lookups() -> tuple[Callable[[Any], Lookup | None], ...]:
    """The registered module lookups, loaded when a module that is no tvm_ffi.Module first
    comes."""
    return tuple(entry.load() for entry in importlib.metadata.entry_points(group=MODULE_LOOKUPS))


def _tvm_ffi_function(module: tvm_ffi.Module, name: str) -> tvm_ffi.Function | None:
    return module.get_function(name) if module.implements_function(name) else None


def _lookup(module: Any) -> Lookup:
    if isinstance(module, tvm_ffi.Module):
        return functools.partial(_tvm_ffi_function, module)
    for module_lookup in _module_lookups():
        lookup = module_lookup(module)
        if lookup is not None:
            return lookup
    raise TypeError(
        "kwcall.load_function: module must be a tvm_ffi.Module (tvm_ffi.load_module(path)) or "
        "a module of CuTeDSL's cute.runtime.load_module(path, enable_tvm_ffi=True), got "
        f"{type(module).__name__}"
    )


def load_function(module: Any, name: str, signature: Signature | None = None) -> Function:
    """``module``'s function ``name`` as a kwcall.Function bound to the signature the module
    exports beside it (``KWCALL_EXPORT_SIGNATURE`` in C++, ``kwcall.cute.export_to_c`` for
    CuTeDSL), or to ``signature`` when given. ``module`` comes from ``tvm_ffi.load_module``
    or from CuTeDSL's ``cute.runtime.load_module(path, enable_tvm_ffi=True)``."""
    lookup = _lookup(module)
    target = lookup(name)
    if target is None:
        raise AttributeError(f"kwcall.load_function: the module has no function '{name}'")
    if signature is None:
        signature = exported_signature(lookup, name)
        if signature is None:
            raise AttributeError(
                f"kwcall.load_function: the module exports no signature for '{name}'; export one "
                "with KWCALL_EXPORT_SIGNATURE (or kwcall.cute.export_to_c), or pass signature="
            )
    return wrap(target, signature)
