"""CuTeDSL integration: compiled ``@cute.jit`` functions become kwcall Functions.

Since nvidia-cutlass-dsl 4.6, ``cute.compile(..., options="--enable-tvm-ffi")`` returns
``TVMFFIJitCompiledFunctionWithKwargs`` for every function with an argument: a Python
object whose ``__call__`` goes through an exec-generated keyword wrapper. It is not a
``tvm_ffi.Function``, so registering it as a global hands C++ callers a Python callback.

``install()`` replaces that one class (``cutlass.cutlass_dsl.tvm_ffi_provider.
TVMFFIJitCompiledFunctionWithKwargs``, which CuTeDSL looks up on every compile) with a
type derived from both ``kwcall.Function`` and CuTeDSL's ``TVMFFIJitCompiledFunctionBase``:
the object is a ``tvm_ffi.Function`` whose handle binds keywords in C++, and it keeps
``export_to_c``, ``to()``, ``run_compiled_program``, ``execution_args``, ``engine``,
``ir_module``, ``capi_func`` and the artifacts. Nothing else in CuTeDSL changes.
"""

from __future__ import annotations

import contextvars
import importlib.metadata
import threading
import warnings
from typing import Any

import tvm_ffi

from . import _kwcall
from ._function import bind
from ._signature import Signature

#: nvidia-cutlass-dsl releases (major.minor) whose compiled-function classes kwcall knows.
SUPPORTED_VERSIONS = ("4.6", "4.7", "4.8")

_tvm_ffi_call = tvm_ffi.Function.__call__
_lock = threading.RLock()
_original: Any = None  # CuTeDSL's class while kwcall is installed
_types: dict[int, type] = {}  # the compiled-function type, per provider module
# The Python function's name for error messages while kwcall.cute.compile runs; CuTeDSL
# only hands the class a mangled name. install() alone uses CuTeDSL's own "wrapper".
_display_name: contextvars.ContextVar[str] = contextvars.ContextVar(
    "kwcall_cute_name", default="wrapper"
)


def cutedsl_version() -> str | None:
    """The installed nvidia-cutlass-dsl version, or None."""
    try:
        return importlib.metadata.version("nvidia-cutlass-dsl")
    except importlib.metadata.PackageNotFoundError:
        return None


def is_supported(version: str | None) -> bool:
    return version is not None and ".".join(version.split(".")[:2]) in SUPPORTED_VERSIONS


def _provider() -> Any:
    from cutlass.cutlass_dsl import tvm_ffi_provider

    return tvm_ffi_provider


def _new_compiled(
    cls: type, *args: Any, kwargs_wrapper_spec: Any, map_dataclass_to_tuple: Any = (), **kwargs: Any
) -> Any:
    """Builds the object CuTeDSL asked TVMFFIJitCompiledFunctionWithKwargs for."""
    provider = _provider()
    fn = _kwcall.new_unbound(_compiled_type(provider))
    provider.TVMFFIJitCompiledFunctionBase.__init__(fn, *args, **kwargs)
    fn.kwargs_wrapper_spec = kwargs_wrapper_spec
    fn.map_dataclass_to_tuple = list(map_dataclass_to_tuple)
    raw = fn._create_tvm_ffi_function()
    fn._tvm_ffi_function = raw  # CuTeDSL's name for the native positional function
    if raw is None:  # compiled for another architecture: no engine, nothing to call
        return fn
    spec = kwargs_wrapper_spec
    signature = Signature(
        list(spec.arg_names),
        tuple(_ffi_scalar(v) for v in spec.arg_defaults),
        list(spec.kwonly_names),
        {k: _ffi_scalar(v) for k, v in spec.kwonly_defaults.items()},
        unpack=list(map_dataclass_to_tuple),
        name=_display_name.get(),
    )
    bind(fn, raw, signature)
    if fn.execution_args.has_pointer_address_arg_specs:
        # Python callers' pointer objects become addresses first, as CuTeDSL does; C++
        # callers pass addresses and keep the direct path.
        _kwcall.set_preprocess(fn, fn.execution_args.convert_python_pointer_args_for_tvm_ffi)
    return fn


def _ffi_scalar(value: Any) -> Any:
    """A CuTeDSL Numeric default as the Python scalar tvm-ffi would turn it into on every
    call (its __tvm_ffi_float__/__tvm_ffi_int__ protocol), converted once instead."""
    for protocol in ("__tvm_ffi_float__", "__tvm_ffi_int__"):
        convert = getattr(type(value), protocol, None)
        if convert is not None:
            return convert(value)
    return value


def _init_noop(self: Any, *args: Any, **kwargs: Any) -> None:
    """__new__ did the work; type.__call__ must not run CuTeDSL's __init__ twice."""


def _run_compiled_program(self: Any, exe_args: list) -> Any:
    """CuTeDSL's implicit compile-and-call passes every parameter in declaration order:
    the native convention, which the handle forwards untouched."""
    return _tvm_ffi_call(self, *exe_args)


def _compiled_type(provider: Any) -> type:
    """The kwcall-backed compiled-function type, made once per CuTeDSL provider module."""
    key = id(provider)
    if key not in _types:
        # Made in C so that the combined type keeps kwcall's vectorcall; a class statement
        # would inherit tvm_ffi.Function.__call__ and lose it.
        compiled = _kwcall.derive_type(
            "kwcall.cute.CompiledFunction", (provider.TVMFFIJitCompiledFunctionBase,)
        )
        compiled.__new__ = staticmethod(_new_compiled)
        compiled.__init__ = _init_noop
        compiled.run_compiled_program = _run_compiled_program
        compiled.__module__ = "kwcall.cute"
        _types[key] = compiled
    return _types[key]


def install() -> bool:
    """Make every ``--enable-tvm-ffi`` compile return a kwcall-backed function.

    Returns False, with a warning and without patching, when nvidia-cutlass-dsl is
    missing or its version is not one of SUPPORTED_VERSIONS.
    """
    global _original
    with _lock:
        if _original is not None:
            return True
        version = cutedsl_version()
        if not is_supported(version):
            warnings.warn(
                f"kwcall.cute: nvidia-cutlass-dsl {version or '(not installed)'} is not supported "
                f"(supported: {', '.join(v + '.x' for v in SUPPORTED_VERSIONS)}); CuTeDSL is left "
                "unchanged",
                RuntimeWarning,
                stacklevel=2,
            )
            return False
        provider = _provider()
        _original = provider.TVMFFIJitCompiledFunctionWithKwargs
        provider.TVMFFIJitCompiledFunctionWithKwargs = _compiled_type(provider)
        return True


def uninstall() -> None:
    """Give CuTeDSL its own class back. Functions compiled meanwhile keep working."""
    global _original
    with _lock:
        if _original is None:
            return
        _provider().TVMFFIJitCompiledFunctionWithKwargs = _original
        _original = None


def is_installed() -> bool:
    return _original is not None


def compile(fn: Any, *args: Any, options: str | None = None, **kwargs: Any) -> Any:
    """``cute.compile`` with ``--enable-tvm-ffi`` that returns a kwcall-backed function for
    this one call, whether or not ``install()`` is in effect. Errors name ``fn``."""
    import cutlass.cute as cute

    if not options or "--enable-tvm-ffi" not in options.split():
        options = f"{options} --enable-tvm-ffi" if options else "--enable-tvm-ffi"
    name = getattr(fn, "__name__", None) or "wrapper"
    with _lock:
        was_installed = is_installed()
        install()
        token = _display_name.set(name)
        try:
            return cute.compile(fn, *args, options=options, **kwargs)
        finally:
            _display_name.reset(token)
            if not was_installed:
                uninstall()
