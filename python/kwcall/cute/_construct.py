"""kwcall's compiled-function type, and the one route that builds its objects.

Every kwcall compiled function is built by ``build`` from a stock CuTeDSL object: ``compile()``
and ``from_stock()`` pass the result of a stock compile, ``install()``'s class constructs the
stock object CuTeDSL asked for and passes that. Everything kwcall's object is made with comes
from the stock object's fields (the compile's tvm_ffi.Function, its signature, CuTeDSL's pointer
conversion); the object is made whole in one call, then takes the stock object's state (engine,
module, execution arguments; not its keyword wrapper) as its attributes.
"""

from __future__ import annotations

import threading
from typing import Any

import tvm_ffi

from .. import _function
from .._kwcall import derive_type, error_function
from . import _cutedsl, _cutedsl_versions, _derive, _write_export

_NO_ENGINE = (
    "{name}() has no native function here: it was compiled without a JIT engine "
    "(no_jit_engine=True) or for another GPU architecture. Export it with "
    "kwcall.cute.export_to_c(compiled, path, function_name=...) and load it where it runs "
    "(kwcall::LoadFunction in C++, kwcall.load_function in Python)."
)

_tvm_ffi_call = tvm_ffi.Function.__call__
_types: dict[int, type] = {}  # per CuTeDSL provider module
_stock_classes: dict[int, type] = {}  # CuTeDSL's keyword class, per provider module
_types_lock = threading.RLock()  # makes each provider's type once


def build(stock: Any, layout: _derive.Layout, name: str) -> Any:
    """kwcall's object for ``stock``: bound to the signature of ``layout``, with its CuTeDSL
    state."""
    signature = _derive.signature(stock.execution_args, layout, name)
    raw = _cutedsl.raw_function(stock)
    if raw is None:
        # No engine: calls (from Python and C++) raise why; the signature stays for export.
        target, convert = error_function(_NO_ENGINE.format(name=name)), None
    else:
        # Python callers' pointer objects become addresses first, as CuTeDSL does; C++ callers
        # pass addresses and keep the direct path.
        target, convert = raw, _cutedsl.pointer_conversion(stock)
    fn = _function.make(compiled_type(), target, signature, convert)
    # The state's own names leave the function's (the signature's, which make() gave it) alone.
    state = _cutedsl.state_without_wrapper(stock)
    fn.__dict__.update({k: v for k, v in state.items() if k not in ("__name__", "__qualname__")})
    return fn


def _new_for_cutedsl(cls: type, *args: Any, **kwargs: Any) -> Any:
    """What CuTeDSL gets when it constructs its keyword class while install() is in effect:
    the stock object it asked for, built into kwcall's."""
    spec, unpack = _cutedsl.construction(dict(kwargs))
    stock = stock_class()(*args, **kwargs)
    jit = _cutedsl.jit_function_being_compiled(stock)
    return build(
        stock, _derive.Layout(_cutedsl.spec_names(spec), unpack), _derive.display_name(jit)
    )


def _init_noop(self: Any, *args: Any, **kwargs: Any) -> None:
    """__new__ did the work; type.__call__ must not run CuTeDSL's __init__ again."""


def _run_compiled_program(self: Any, exe_args: list) -> Any:
    """CuTeDSL's implicit compile-and-call passes every parameter in declaration order: the
    native convention, which the handle forwards untouched (stock's wrapper refuses it for
    functions with keyword-only parameters)."""
    return _tvm_ffi_call(self, *exe_args)


def stock_class() -> type:
    """CuTeDSL's own keyword class (also while install() has replaced it)."""
    compiled_type()
    return _stock_classes[id(_cutedsl.provider())]


def compiled_type() -> type:
    """kwcall's compiled-function type, made once per CuTeDSL provider module (before install()
    can replace CuTeDSL's class): a subtype of kwcall.Function and CuTeDSL's class, made in C
    (a class statement would inherit tvm_ffi.Function.__call__ and lose kwcall's vectorcall)."""
    key = id(_cutedsl.provider())
    compiled = _types.get(key)
    if compiled is None:
        # First compiles racing in threads make one type: the check and the store take turns.
        with _types_lock:
            compiled = _types.get(key)
            if compiled is None:
                compiled = _make_compiled_type(key)
    return compiled


def _make_compiled_type(key: int) -> type:
    stock = _cutedsl.kwargs_class()
    compiled = derive_type("kwcall.cute.CompiledFunction", (stock,))
    compiled.__new__ = staticmethod(_new_for_cutedsl)
    compiled.__init__ = _init_noop
    compiled.run_compiled_program = _run_compiled_program
    compiled.export_to_c = _write_export.export_method
    compiled.__module__ = "kwcall.cute"
    _stock_classes[key] = stock  # before the type: whoever sees the type finds its class
    _types[key] = compiled
    return compiled


def is_compiled_function(obj: Any) -> bool:
    """Whether ``obj`` is a compiled CuTeDSL function made by kwcall."""
    return any(isinstance(obj, t) for t in _types.values())


def from_stock(stock: Any, fn: Any = None, args: tuple = (), kwargs: dict | None = None) -> Any:
    """kwcall's object for the result of a stock ``cute.compile(fn, *args, **kwargs)``: the same
    CuTeDSL state, kwcall's binding. ``fn`` names the function in errors; ``args``/``kwargs``
    (the compile's) tell dataclass and environment-stream parameters apart exactly as
    CuTeDSL did. Results that are already tvm_ffi.Functions are returned as they are."""
    _cutedsl_versions.require_supported("from_stock")
    if isinstance(stock, tvm_ffi.Function):  # kwcall's already, or CuTeDSL's for no arguments
        return stock
    if not isinstance(stock, _cutedsl.base_class()):
        raise TypeError(f"not a CuTeDSL --enable-tvm-ffi compile: {type(stock).__name__}")
    layout = _derive.layout_of_stock(stock, args, kwargs or {})
    name = _derive.display_name(_derive.jit_function(fn) if fn is not None else None)
    return build(stock, layout, name)
