"""Modules loaded back from exported files keep their keywords (disk caches' warm hits).

While install() is in effect, a function of ``cute.runtime.load_module(path,
enable_tvm_ffi=True)`` (attribute or item access) that carries a kwcall signature, the
``__kwcall_signature_<name>`` function export_to_c links beside it, comes back as a
``kwcall.Function`` bound to that signature; every other function comes back as stock returns
it. ``kwcall.load_function`` reads these modules too, installed or not: ``lookup`` is
registered with it as a module lookup (pyproject.toml, ``kwcall.module_lookups``).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import tvm_ffi

from .._companion import Lookup, exported_signature
from .._function import Function, wrap
from . import _cutedsl, _cutedsl_versions

_HOOKED = ("__getattr__", "__getitem__")


def with_signature(module: Any, name: str, function: Any) -> Any:
    """``function`` (module's ``name``) bound to the signature the module exports beside it."""
    if (
        not isinstance(function, tvm_ffi.Function)
        or isinstance(function, Function)  # item access goes through attribute access
        or not _cutedsl.module_is_tvm_ffi(module)
    ):
        return function
    signature = exported_signature(functools.partial(_cutedsl.module_function, module), name)
    return function if signature is None else wrap(function, signature)


def lookup(module: Any) -> Lookup | None:
    """The function lookup of ``module`` when it is a module of CuTeDSL's
    ``cute.runtime.load_module``, None when it is none (kwcall.load_function's other modules).
    Registered with kwcall.load_function (``kwcall._load.MODULE_LOOKUPS``)."""
    if "cutlass" not in sys.modules:  # a CuTeDSL module exists only once CuTeDSL is imported
        return None
    try:
        cls = _cutedsl.external_module_class()
    except ImportError:  # a CuTeDSL without it: not one of its modules
        return None
    if not isinstance(module, cls):
        return None
    reason = _cutedsl_versions.unsupported_reason()
    if reason is not None:
        raise RuntimeError(f"kwcall.load_function: {reason}")
    if not _cutedsl.module_is_tvm_ffi(module):
        raise TypeError(
            "kwcall.load_function: the CuTeDSL module was loaded without tvm-ffi, so its "
            "functions are no tvm-ffi functions; load it with "
            "cute.runtime.load_module(path, enable_tvm_ffi=True)"
        )
    return functools.partial(_cutedsl.module_function, module)


@functools.cache
def _methods(cls: type) -> tuple[dict[str, Callable], dict[str, Callable]]:
    """The module class's own methods and their replacements, made at the first install() and
    kept: a thread inside a replacement while uninstall() gives the class its methods back
    finishes with the method it started with (nothing it reads is ever cleared)."""
    originals = {attr: vars(cls)[attr] for attr in _HOOKED}
    get_attribute, get_item = originals["__getattr__"], originals["__getitem__"]

    def __getattr__(self: Any, name: str) -> Any:
        return with_signature(self, name, get_attribute(self, name))

    def __getitem__(self: Any, name: str) -> Any:
        return with_signature(self, name, get_item(self, name))

    return originals, {"__getattr__": __getattr__, "__getitem__": __getitem__}


def hook() -> None:
    cls = _cutedsl.external_module_class()
    _, replacements = _methods(cls)
    for attr, replacement in replacements.items():
        setattr(cls, attr, replacement)


def unhook() -> None:
    cls = _cutedsl.external_module_class()
    originals, _ = _methods(cls)
    for attr, original in originals.items():
        setattr(cls, attr, original)
