"""kwcall.load_function: a function of exported code, bound to the signature exported beside it.

A signature travels as a companion function, ``__kwcall_signature_<name>``
(``KWCALL_EXPORT_SIGNATURE`` in C++, ``kwcall.cute.export_to_c`` for CuTeDSL), that returns its
JSON text. ``exported_signature`` reads one for every loader, tvm-ffi's modules and CuTeDSL's
(``kwcall.load_function``, and ``cute.runtime.load_module`` under ``kwcall.cute.install()``),
so that each reports a bad companion alike: the checks and texts are C++'s
(``kwcall::LoadFunction``). Nothing here reads a header: the prefix is compiled into the
extension.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import tvm_ffi

from . import _kwcall
from ._function import Function, wrap
from ._signature import Signature

#: A module's function ``f`` carries its signature in the function named this prefix + ``f``
#: (``KWCALL_SIGNATURE_FUNCTION_PREFIX``, compiled into the extension from <kwcall/export.h>).
SIGNATURE_FUNCTION_PREFIX: str = _kwcall.SIGNATURE_FUNCTION_PREFIX
#: tvm-ffi's C symbol of an exported function ``f`` is this prefix + ``f``
#: (``TVM_FFI_DLL_EXPORT_TYPED_FUNC``, and CuTeDSL's ``export_to_c``).
EXPORTED_SYMBOL_PREFIX = "__tvm_ffi_"

#: A module's function by name, None when it has none.
Lookup = Callable[[str], "tvm_ffi.Function | None"]

_signature_from_result = tvm_ffi.get_global_func("kwcall.ExportedSignatureFromResult")


def companion_name(name: str) -> str:
    """The name of the function carrying ``name``'s signature."""
    return SIGNATURE_FUNCTION_PREFIX + name


def exported_symbol(name: str) -> str:
    """The C symbol of the exported tvm-ffi function ``name``."""
    return EXPORTED_SYMBOL_PREFIX + name


def exported_signature(lookup: Lookup, name: str) -> Signature | None:
    """The signature exported for ``name`` beside it (None when there is none), read from its
    companion. A companion that raises raises RuntimeError naming it, with its own exception
    as the cause; one that returns no JSON text, or text that is no valid signature, raises
    C++'s TypeError/ValueError naming it."""
    companion = lookup(companion_name(name))
    if companion is None:
        return None
    try:
        result = companion()
    except Exception as error:
        raise RuntimeError(
            f"kwcall: {companion_name(name)}, the function carrying the signature of '{name}', "
            f"raised {type(error).__name__}: {error}"
        ) from error
    return _signature_from_result(result, name)


def _tvm_ffi_function(module: tvm_ffi.Module, name: str) -> tvm_ffi.Function | None:
    return module.get_function(name) if module.implements_function(name) else None


def _lookup(module: Any) -> Lookup:
    if isinstance(module, tvm_ffi.Module):
        return functools.partial(_tvm_ffi_function, module)
    if "cutlass" in sys.modules:  # a CuTeDSL module exists only once CuTeDSL is imported
        from .cute import _load

        lookup = _load.lookup(module)
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
