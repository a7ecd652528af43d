"""Every private name of CuTeDSL that kwcall.cute reads or replaces, and nothing else.

The rest of the package calls the functions here and never spells a CuTeDSL private name.
``PRIVATE_NAMES`` lists each name with a probe; tests/python/test_cute_privates.py runs every
probe on the installed CuTeDSL, so a rename fails a test named after what changed. Entry points
check the version gate (``_cutedsl_versions.require_supported``) before anything here runs.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import tvm_ffi

from .._companion import exported_symbol


# -- the modules and classes -------------------------------------------------------------------
def provider() -> Any:
    """``cutlass.cutlass_dsl.tvm_ffi_provider``: where CuTeDSL's compiled-function classes live."""
    from cutlass.cutlass_dsl import tvm_ffi_provider

    return tvm_ffi_provider


def kwargs_class() -> type:
    """The class CuTeDSL instantiates for an ``--enable-tvm-ffi`` compile with arguments; it
    looks the name up on the provider module at every compile."""
    return provider().TVMFFIJitCompiledFunctionWithKwargs


def set_kwargs_class(cls: type) -> None:
    provider().TVMFFIJitCompiledFunctionWithKwargs = cls


def base_class() -> type:
    """The base of every ``--enable-tvm-ffi`` compiled function (and its ``export_to_c``)."""
    return provider().TVMFFIJitCompiledFunctionBase


def external_module_class() -> type:
    """What ``cute.runtime.load_module`` returns: ``__getattr__``/``__getitem__`` give functions."""
    from cutlass.base_dsl.export import ExternalBinaryModule

    return ExternalBinaryModule


def export_format(path: str) -> str:
    """The format CuTeDSL's ``export_to_c`` writes for ``path`` ("o", "ll" or "bc"): it follows
    the file's extension."""
    return provider()._get_format_from_object_file_path(path)


# -- a compiled function's state ----------------------------------------------------------------
def raw_function(compiled: Any) -> Any:
    """The compile's own tvm_ffi.Function (None without a JIT engine)."""
    return compiled._tvm_ffi_function


def state_without_wrapper(stock: Any) -> dict:
    """A stock object's state for kwcall's object: its keyword wrapper left out, and a lock of
    its own (the stock object's lock stays the stock object's)."""
    state = dict(vars(stock))
    state.pop("_kwargs_wrapper", None)
    state["_executor_lock"] = threading.RLock()
    return state


def wrapper_names(stock: Any) -> list[str] | None:
    """The native parameter names of the stock keyword wrapper, None when it has none."""
    wrapper = stock._kwargs_wrapper
    return None if wrapper is None else list(inspect.signature(wrapper).parameters)


def spec_names(spec: Any) -> list[str]:
    """The native parameter names of a KwargsWrapperSpec, in the order CuTeDSL passes them."""
    return list(spec.arg_names) + list(spec.kwonly_names)


def spec_names_from(execution_args: Any, env_streams: list[str]) -> list[str]:
    return spec_names(execution_args.get_kwargs_wrapper_spec(env_streams))


def construction(kwargs: dict) -> tuple[Any, list[str]]:
    """Take the keywords CuTeDSL adds when it constructs the keyword class out of ``kwargs``:
    the KwargsWrapperSpec and the unpacked (dataclass) parameter names."""
    return kwargs.pop("kwargs_wrapper_spec"), list(kwargs.pop("map_dataclass_to_tuple", ()))


# -- execution arguments -------------------------------------------------------------------------
def original_parameters(execution_args: Any) -> Any:
    """The @cute.jit function's own parameters (kinds and defaults as written)."""
    return execution_args.original_signature.parameters


def runtime_parameters(execution_args: Any) -> list:
    return list(execution_args.signature.parameters.values())


def rectified_arguments(execution_args: Any, args: tuple, kwargs: dict) -> list | None:
    """The compile's arguments for the runtime parameters, or None when they do not match."""
    try:
        return list(execution_args.get_rectified_args_from_original_args(args, kwargs))
    except Exception:  # noqa: BLE001 - only a refinement: callers fall back to annotations
        return None


def runtime_annotations(execution_args: Any) -> dict[str, Any]:
    """The annotation of each runtime parameter, by name (inspect.Parameter.empty for none)."""
    return {p.name: p.annotation for p in runtime_parameters(execution_args)}


def compiled_with_none(execution_args: Any) -> dict[str, bool]:
    """Which runtime parameters the compile was given None for (CuTeDSL then takes None, or a
    value, at every call: an optional argument), by name."""
    flags = getattr(execution_args, "_compiled_with_none", None)
    if flags is None:  # CuTeDSL 4.6 keeps no such flags
        return {}
    names = [p.name for p in runtime_parameters(execution_args)]
    return dict(zip(names, flags, strict=True))


def pointer_parameters(execution_args: Any) -> list[str]:
    """The runtime parameters CuTeDSL passes as raw addresses (pointer arguments)."""
    names = [p.name for p in runtime_parameters(execution_args)]
    specs = execution_args._pointer_address_arg_specs
    return [n for n, spec in zip(names, specs, strict=True) if spec is not None]


def uses_env_stream(value: Any) -> bool:
    """Whether a compile argument is a stream CuTeDSL takes from tvm-ffi's environment."""
    return bool(getattr(value, "use_tvm_ffi_env_stream", False))


def pointer_conversion(compiled: Any) -> Callable | None:
    """CuTeDSL's conversion of Python pointer objects to addresses, when the function needs it."""
    execution_args = compiled.execution_args
    if execution_args.has_pointer_address_arg_specs:
        return execution_args.convert_python_pointer_args_for_tvm_ffi
    return None


def jit_function_being_compiled(compiled: Any) -> Any:
    """The @cute.jit function whose compile is constructing ``compiled``: CuTeDSL's frames on
    this thread's stack hold it (``funcBody``) beside the same Signature object."""
    sig = compiled.execution_args.original_signature
    frame = sys._getframe(1)
    while frame is not None:
        local = frame.f_locals
        body = local.get("funcBody")
        if body is not None and (local.get("sig") is sig or local.get("signature") is sig):
            return body
        frame = frame.f_back
    return None


# -- modules loaded from exported files ----------------------------------------------------------
def module_is_tvm_ffi(module: Any) -> bool:
    return bool(module.enable_tvm_ffi)


def module_symbol(module: Any, symbol: str) -> int:
    """The address of ``symbol`` in a loaded module, 0 when it has none."""
    try:
        return module.engine.lookup(symbol) or 0
    except Exception:  # noqa: BLE001 - the engine reports a missing symbol by raising
        return 0


def module_keep_alive(module: Any) -> Any:
    """What keeps a loaded module's code mapped."""
    return module.engine


def module_function(module: Any, name: str) -> Any:
    """A tvm-ffi module's function ``name`` as its ``__getattr__`` makes it (a tvm_ffi.Function
    kept alive by the module's code), None when the module has none."""
    address = module_symbol(module, exported_symbol(name))
    if not address:
        return None
    return tvm_ffi.Function.__from_extern_c__(address, keep_alive_object=module_keep_alive(module))


# -- probes: one per private name, run by tests on the installed CuTeDSL ---------------------------
class Sample(NamedTuple):
    """What the probes inspect: a stock ``--enable-tvm-ffi`` compile with arguments, a way to
    compile one again (its arguments chosen by the caller), and a module loaded from an export
    of it with ``cute.runtime.load_module(..., enable_tvm_ffi=True)``."""

    stock: Any
    compile: Callable[[], Any]
    module: Any
    function_name: str


class Private(NamedTuple):
    name: str  # as CuTeDSL spells it
    probe: Callable[[Sample], bool]


@functools.lru_cache(maxsize=1)
def _constructed(sample_compile: Callable[[], Any]) -> dict:
    """What CuTeDSL passes when it constructs the keyword class, recorded by a subclass put in
    its place for one compile."""
    seen: dict = {}
    stock = kwargs_class()

    class Recorder(stock):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            seen["keywords"] = set(kwargs)
            super().__init__(*args, **kwargs)
            seen["jit"] = jit_function_being_compiled(self)

    set_kwargs_class(Recorder)
    try:
        seen["result"] = sample_compile()
    finally:
        set_kwargs_class(stock)
    return seen


def _has(obj: Any, *names: str) -> bool:
    return all(hasattr(obj, n) for n in names)


PRIVATE_NAMES: tuple[Private, ...] = (
    Private("cutlass.cutlass_dsl.tvm_ffi_provider", lambda s: provider() is not None),
    Private(
        "tvm_ffi_provider.TVMFFIJitCompiledFunctionWithKwargs",
        lambda s: type(s.stock) is kwargs_class(),
    ),
    Private(
        "tvm_ffi_provider.TVMFFIJitCompiledFunctionBase (with export_to_c)",
        lambda s: isinstance(s.stock, base_class()) and _has(base_class(), "export_to_c"),
    ),
    Private(
        "TVMFFIJitCompiledFunctionWithKwargs looked up at every compile",
        lambda s: type(_constructed(s.compile)["result"]).__name__ == "Recorder",
    ),
    Private(
        "TVMFFIJitCompiledFunctionWithKwargs(kwargs_wrapper_spec=, map_dataclass_to_tuple=)",
        lambda s: (
            {"kwargs_wrapper_spec", "map_dataclass_to_tuple"} <= _constructed(s.compile)["keywords"]
        ),
    ),
    Private(
        "funcBody beside sig/signature on the compile's frames",
        lambda s: inspect.isfunction(_constructed(s.compile)["jit"]),
    ),
    Private(
        "tvm_ffi_provider._get_format_from_object_file_path",
        lambda s: (
            [export_format(p) for p in ("a.o", "a.ll", "a.bc", "a.so", "a")]
            == ["o", "ll", "bc", "o", "o"]
        ),
    ),
    Private("._tvm_ffi_function", lambda s: "_tvm_ffi_function" in vars(s.stock)),
    Private(
        "._kwargs_wrapper",
        lambda s: "_kwargs_wrapper" in vars(s.stock) and wrapper_names(s.stock) is not None,
    ),
    Private("._executor_lock", lambda s: "_executor_lock" in vars(s.stock)),
    Private(
        ".execution_args.get_kwargs_wrapper_spec(exclude).arg_names/.kwonly_names",
        lambda s: spec_names_from(s.stock.execution_args, []) == wrapper_names(s.stock),
    ),
    Private(
        ".execution_args.original_signature",
        lambda s: isinstance(s.stock.execution_args.original_signature, inspect.Signature),
    ),
    Private(
        ".execution_args.signature",
        lambda s: isinstance(s.stock.execution_args.signature, inspect.Signature),
    ),
    Private(
        ".execution_args.get_rectified_args_from_original_args",
        lambda s: _has(s.stock.execution_args, "get_rectified_args_from_original_args"),
    ),
    Private(
        ".execution_args._compiled_with_none (one flag per runtime parameter; absent in 4.6)",
        lambda s: (
            not hasattr(s.stock.execution_args, "_compiled_with_none")
            or len(s.stock.execution_args._compiled_with_none)
            == len(runtime_parameters(s.stock.execution_args))
        ),
    ),
    Private(
        ".execution_args._pointer_address_arg_specs (one per runtime parameter)",
        lambda s: (
            len(s.stock.execution_args._pointer_address_arg_specs)
            == len(runtime_parameters(s.stock.execution_args))
        ),
    ),
    Private(
        ".execution_args.has_pointer_address_arg_specs/.convert_python_pointer_args_for_tvm_ffi",
        lambda s: _has(
            s.stock.execution_args,
            "has_pointer_address_arg_specs",
            "convert_python_pointer_args_for_tvm_ffi",
        ),
    ),
    Private(
        "cute.runtime.make_fake_stream(...).use_tvm_ffi_env_stream",
        lambda s: _fake_env_stream_flag(),
    ),
    Private(
        "cutlass.base_dsl.export.ExternalBinaryModule (__getattr__, __getitem__)",
        lambda s: (
            isinstance(s.module, external_module_class())
            and "__getattr__" in vars(external_module_class())
            and "__getitem__" in vars(external_module_class())
        ),
    ),
    Private(
        "ExternalBinaryModule.enable_tvm_ffi/.engine.lookup",
        lambda s: (
            module_is_tvm_ffi(s.module)
            and module_symbol(s.module, exported_symbol(s.function_name)) != 0
            and module_symbol(s.module, exported_symbol("no_such_function")) == 0
        ),
    ),
)


def _fake_env_stream_flag() -> bool:
    from cutlass.cute.runtime import make_fake_stream

    return uses_env_stream(make_fake_stream(use_tvm_ffi_env_stream=True)) and not uses_env_stream(
        make_fake_stream()
    )
