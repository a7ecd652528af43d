"""The signature of a CuTeDSL compile: which parameters the native function takes (CuTeDSL's
rules), with their kinds, defaults and name from the @cute.jit function itself."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, NamedTuple

from .._signature import Signature
from . import _cutedsl

_P = inspect.Parameter


class Layout(NamedTuple):
    """The native parameters of a compile, in the order CuTeDSL passes them, and those that
    are dataclasses unpacked as CuTeDSL's wrapper unpacks them."""

    names: list[str]
    unpack: list[str]


def _ffi_scalar(value: Any) -> Any:
    """A CuTeDSL Numeric default as the Python scalar tvm-ffi would turn it into on every call
    (its __tvm_ffi_float__/__tvm_ffi_int__ protocol), converted once instead."""
    for protocol in ("__tvm_ffi_float__", "__tvm_ffi_int__"):
        convert = getattr(type(value), protocol, None)
        if convert is not None:
            return convert(value)
    return value


def signature(execution_args: Any, layout: Layout, name: str) -> Signature:
    """The native function's parameters with their kinds (positional-only included) and
    defaults from the @cute.jit function."""
    original = _cutedsl.original_parameters(execution_args)
    params = [
        original[n].replace(default=_ffi_scalar(original[n].default))
        if original[n].default is not _P.empty
        else original[n]
        for n in layout.names
    ]
    return Signature.from_inspect(inspect.Signature(params), name=name, unpack=layout.unpack)


def layout_of_stock(stock: Any, args: tuple, kwargs: dict) -> Layout:
    """The layout of a stock compile of ``fn(*args, **kwargs)``, by CuTeDSL's own rules
    (tvm_ffi_args_spec_converter): environment streams and constexprs are not native
    arguments; dataclass parameters are unpacked."""
    ea = stock.execution_args
    runtime = _cutedsl.runtime_parameters(ea)
    values = _cutedsl.rectified_arguments(ea, args, kwargs) or [None] * len(runtime)
    pairs = list(zip(runtime, values, strict=False))
    names = _cutedsl.wrapper_names(stock)
    if names is None:  # no JIT engine: no wrapper, the spec says the same
        names = _cutedsl.spec_names_from(
            ea, [p.name for p, v in pairs if _cutedsl.uses_env_stream(v)]
        )
    unpack = [
        p.name
        for p, v in pairs
        if p.name in names
        and (
            (isinstance(p.annotation, type) and dataclasses.is_dataclass(p.annotation))
            or (v is not None and dataclasses.is_dataclass(type(v)))
        )
    ]
    return Layout(names, unpack)


def jit_function(fn: Any) -> Any:
    """The Python function CuTeDSL compiles for ``fn`` (bound methods, callable objects and
    decorated functions unwrapped as CuTeDSL does)."""
    if inspect.ismethod(fn):
        fn = fn.__func__
    elif not inspect.isfunction(fn) and callable(fn):
        call = type(fn).__call__  # a callable object: its class's __call__
        fn = getattr(call, "__func__", call)
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    return fn


def display_name(fn: Any) -> str:
    """How errors name the function: its qualified name, else CuTeDSL's own "wrapper"."""
    if fn is None:
        return "wrapper"
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or "wrapper"
