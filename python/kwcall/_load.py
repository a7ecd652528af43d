"""kwcall.load_function: a function of exported code, bound to the signature exported beside it
(read from its companion, ``_companion``), from tvm-ffi's modules and CuTeDSL's.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import tvm_ffi

from ._companion import Lookup, exported_signature
from ._function import Function, wrap
from ._signature import Signature


def _tvm_ffi_function(module: tvm_ffi.Module, name: str) -> tvm_ffi.Function | None:
    return module.get_function(name) if module.implements_function(name) else None


def _lookup(module: Any) -> Lookup:
    if isinstance(module, tvm_ffi.Module):
        return functools.partial(_tvm_ffi_function, module)
    if "cutlass" in sys.modules:  # a CuTeDSL module exists only once CuTeDSL is imported
        from .cute import _runtime_modules

        lookup = _runtime_modules.lookup(module)
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
