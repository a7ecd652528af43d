"""Modules loaded back from exported files keep their keywords (disk caches' warm hits).

While install() is in effect, a function of ``cute.runtime.load_module(path,
enable_tvm_ffi=True)`` (attribute or item access) that carries a kwcall signature, the
``__kwcall_signature_<name>`` function export_to_c links beside it, comes back as a
``kwcall.Function`` bound to that signature; every other function comes back as stock returns
it.
"""

from __future__ import annotations

from typing import Any

import tvm_ffi

from .. import _export
from .._function import Function, wrap
from .._signature import Signature
from . import _cutedsl

_originals: dict[str, Any] = {}  # the module class's own methods while hooked


def with_signature(module: Any, name: str, function: Any) -> Any:
    """``function`` (module's ``name``) bound to the signature the module exports beside it."""
    if (
        not isinstance(function, tvm_ffi.Function)
        or isinstance(function, Function)  # item access goes through attribute access
        or not _cutedsl.module_is_tvm_ffi(module)
    ):
        return function
    address = _cutedsl.module_symbol(module, _export.signature_symbol(name))
    if not address:
        return function
    companion = tvm_ffi.Function.__from_extern_c__(
        address, keep_alive_object=_cutedsl.module_keep_alive(module)
    )
    try:
        signature = Signature.from_json(str(companion()))
    except Exception as error:
        raise ValueError(
            f"kwcall.cute: the signature exported for {name!r} is invalid: {error}"
        ) from error
    return wrap(function, signature)


def _getattr(self: Any, name: str) -> Any:
    return with_signature(self, name, _originals["__getattr__"](self, name))


def _getitem(self: Any, name: str) -> Any:
    return with_signature(self, name, _originals["__getitem__"](self, name))


_HOOKS = {"__getattr__": _getattr, "__getitem__": _getitem}


def hook() -> None:
    cls = _cutedsl.external_module_class()
    for attr, replacement in _HOOKS.items():
        _originals[attr] = vars(cls)[attr]
        setattr(cls, attr, replacement)


def unhook() -> None:
    cls = _cutedsl.external_module_class()
    for attr, original in _originals.items():
        setattr(cls, attr, original)
    _originals.clear()
