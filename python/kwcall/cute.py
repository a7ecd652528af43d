"""CuTeDSL integration: compiled ``@cute.jit`` functions become kwcall Functions.

Since nvidia-cutlass-dsl 4.6, ``cute.compile(..., options="--enable-tvm-ffi")`` returns
``TVMFFIJitCompiledFunctionWithKwargs`` for every function with an argument: a Python object
whose ``__call__`` goes through an exec-generated keyword wrapper. It is not a
``tvm_ffi.Function``, so registering it as a global hands C++ callers a Python callback.

kwcall's compiled-function type derives from both ``kwcall.Function`` (made in C, so it keeps
kwcall's vectorcall) and CuTeDSL's ``TVMFFIJitCompiledFunctionWithKwargs``: the object is a
``tvm_ffi.Function`` whose handle binds keywords in C++, ``isinstance`` against CuTeDSL's class
holds, and CuTeDSL's state and methods (``export_to_c``, ``to()``, ``run_compiled_program``,
``execution_args``, ``engine``, ``ir_module``, ``__tvm_ffi_object__`` ...) keep working.

* ``compile(fn, *args)`` compiles with stock CuTeDSL and builds kwcall's object from the
  result: nothing in CuTeDSL changes, for this thread or any other.
* ``install()`` makes every ``--enable-tvm-ffi`` compile in the process return kwcall's object,
  by replacing that one class (CuTeDSL looks it up on every compile); ``uninstall()`` undoes it.
* ``export_to_c(compiled, path, function_name=...)`` writes CuTeDSL's object file with the
  signature inside it (and a ``.kwcall.json`` sidecar), for C++ programs without Python.

Positional-only parameters, the user's function name and the defaults come from the
``@cute.jit`` function itself: CuTeDSL's own keyword spec drops ``/`` and names its wrapper
``wrapper``.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import inspect
import sys
import threading
import warnings
from typing import Any

import tvm_ffi

from . import _export, _kwcall
from ._function import bind
from ._signature import Signature

#: nvidia-cutlass-dsl releases (major.minor) whose compiled-function classes kwcall knows.
SUPPORTED_VERSIONS = ("4.6", "4.7", "4.8")

_INSTALL_HINT = 'install it with: pip install "kwcall[cute]"'
_NO_ENGINE = (
    "{name}() has no native function here: it was compiled without a JIT engine "
    "(no_jit_engine=True) or for another GPU architecture. Export it with "
    "kwcall.cute.export_to_c(compiled, path, function_name=...) and load it where it runs "
    "(kwcall::LoadFunction in C++, kwcall.load_function in Python)."
)
_P = inspect.Parameter

_tvm_ffi_call = tvm_ffi.Function.__call__
# CuTeDSL's compile keeps its state on one shared DSL object and is not safe to run from two
# threads at once: kwcall's own compiles take turns.
_compile_lock = threading.RLock()
_install_lock = threading.Lock()
_original: Any = None  # CuTeDSL's class while install() is in effect
_types: dict[int, type] = {}  # kwcall's compiled-function type, per CuTeDSL provider module


def cutedsl_version() -> str | None:
    """The installed nvidia-cutlass-dsl version, or None."""
    try:
        return importlib.metadata.version("nvidia-cutlass-dsl")
    except importlib.metadata.PackageNotFoundError:
        return None


def is_supported(version: str | None) -> bool:
    return version is not None and ".".join(version.split(".")[:2]) in SUPPORTED_VERSIONS


def _provider() -> Any:
    try:
        from cutlass.cutlass_dsl import tvm_ffi_provider
    except ImportError as error:
        raise ImportError(f"kwcall.cute needs CuTeDSL (nvidia-cutlass-dsl): {_INSTALL_HINT}") from (
            error
        )
    return tvm_ffi_provider


# -- the signature of a compile ---------------------------------------------------------------
def _ffi_scalar(value: Any) -> Any:
    """A CuTeDSL Numeric default as the Python scalar tvm-ffi would turn it into on every call
    (its __tvm_ffi_float__/__tvm_ffi_int__ protocol), converted once instead."""
    for protocol in ("__tvm_ffi_float__", "__tvm_ffi_int__"):
        convert = getattr(type(value), protocol, None)
        if convert is not None:
            return convert(value)
    return value


def _signature(execution_args: Any, names: list[str], unpack: list[str], name: str) -> Signature:
    """The native function's parameters (``names``, in the order CuTeDSL passes them), with
    their kinds (positional-only included) and defaults from the @cute.jit function."""
    original = execution_args.original_signature.parameters
    params = [
        original[n].replace(default=_ffi_scalar(original[n].default))
        if original[n].default is not _P.empty
        else original[n]
        for n in names
    ]
    return Signature.from_inspect(inspect.Signature(params), name=name, unpack=unpack)


def _jit_function(fn: Any) -> Any:
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


def _function_being_compiled(sig: inspect.Signature) -> Any:
    """The @cute.jit function whose compile is building ``sig``: CuTeDSL's frames on this
    thread's own stack hold it (``funcBody``) beside that same Signature object."""
    frame = sys._getframe(1)
    while frame is not None:
        local = frame.f_locals
        body = local.get("funcBody")
        if body is not None and (local.get("sig") is sig or local.get("signature") is sig):
            return body
        frame = frame.f_back
    return None


def _display_name(fn: Any) -> str:
    """How errors name the function: its qualified name, else CuTeDSL's own "wrapper"."""
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or "wrapper"


# -- kwcall's compiled-function type -----------------------------------------------------------
def _finish(fn: Any, names: list[str], unpack: list[str], name: str) -> Any:
    """Bind a compiled-function object whose CuTeDSL state is in place."""
    signature = _signature(fn.execution_args, names, unpack, name)
    raw = fn._tvm_ffi_function
    if raw is None:
        # No engine: calls (from Python and C++) raise why, and the signature stays known for
        # export_to_c.
        raw = _kwcall.error_function(_NO_ENGINE.format(name=name))
    bind(fn, raw, signature)
    if fn._tvm_ffi_function is not None and fn.execution_args.has_pointer_address_arg_specs:
        # Python callers' pointer objects become addresses first, as CuTeDSL does; C++ callers
        # pass addresses and keep the direct path.
        _kwcall.set_preprocess(fn, fn.execution_args.convert_python_pointer_args_for_tvm_ffi)
    return fn


def _new_compiled(
    cls: type, *args: Any, kwargs_wrapper_spec: Any, map_dataclass_to_tuple: Any = (), **kwargs: Any
) -> Any:
    """What CuTeDSL gets when it asks TVMFFIJitCompiledFunctionWithKwargs for an object while
    install() is in effect."""
    provider = _provider()
    fn = _kwcall.new_unbound(cls)
    provider.TVMFFIJitCompiledFunctionBase.__init__(fn, *args, **kwargs)
    fn._tvm_ffi_function = fn._create_tvm_ffi_function()
    spec = kwargs_wrapper_spec
    jit = _function_being_compiled(fn.execution_args.original_signature)
    names = list(spec.arg_names) + list(spec.kwonly_names)
    return _finish(fn, names, list(map_dataclass_to_tuple), _display_name(jit))


def _init_noop(self: Any, *args: Any, **kwargs: Any) -> None:
    """__new__ did the work; type.__call__ must not run CuTeDSL's __init__ again."""


def _run_compiled_program(self: Any, exe_args: list) -> Any:
    """CuTeDSL's implicit compile-and-call passes every parameter in declaration order: the
    native convention, which the handle forwards untouched (stock's wrapper refuses it for
    functions with keyword-only parameters)."""
    return _tvm_ffi_call(self, *exe_args)


def _compiled_type(provider: Any) -> type:
    """kwcall's compiled-function type, made once per CuTeDSL provider module: a subtype of
    kwcall.Function and CuTeDSL's class (made in C: a class statement would inherit
    tvm_ffi.Function.__call__ and lose kwcall's vectorcall)."""
    key = id(provider)
    if key not in _types:
        stock = _original if _original is not None else provider.TVMFFIJitCompiledFunctionWithKwargs
        compiled = _kwcall.derive_type("kwcall.cute.CompiledFunction", (stock,))
        compiled.__new__ = staticmethod(_new_compiled)
        compiled.__init__ = _init_noop
        compiled.run_compiled_program = _run_compiled_program
        compiled.__module__ = "kwcall.cute"
        _types[key] = compiled
    return _types[key]


def is_compiled_function(obj: Any) -> bool:
    """Whether ``obj`` is a compiled CuTeDSL function made by kwcall."""
    return any(isinstance(obj, t) for t in _types.values())


# -- from stock CuTeDSL's result ----------------------------------------------------------------
def _runtime_arguments(execution_args: Any, args: tuple, kwargs: dict) -> list | None:
    """The compile's arguments for the runtime parameters (CuTeDSL's own rectification), or
    None when they cannot be matched."""
    try:
        return list(execution_args.get_rectified_args_from_original_args(args, kwargs))
    except Exception:  # noqa: BLE001 - only a refinement: fall back to annotations
        return None


def _stock_layout(stock: Any, args: tuple, kwargs: dict) -> tuple[list[str], list[str]]:
    """The native parameter names and the unpacked (dataclass) ones of a stock compile, by
    CuTeDSL's own rules (tvm_ffi_args_spec_converter)."""
    ea = stock.execution_args
    runtime = list(ea.signature.parameters.values())
    values = _runtime_arguments(ea, args, kwargs) or [None] * len(runtime)
    env_streams = [
        p.name
        for p, v in zip(runtime, values, strict=False)
        if getattr(v, "use_tvm_ffi_env_stream", False)
    ]
    if stock._kwargs_wrapper is not None:
        names = list(inspect.signature(stock._kwargs_wrapper).parameters)
    else:
        spec = ea.get_kwargs_wrapper_spec(env_streams)
        names = list(spec.arg_names) + list(spec.kwonly_names)
    unpack = [
        p.name
        for p, v in zip(runtime, values, strict=False)
        if p.name in names
        and (
            (isinstance(p.annotation, type) and dataclasses.is_dataclass(p.annotation))
            or (v is not None and dataclasses.is_dataclass(type(v)))
        )
    ]
    return names, unpack


def from_stock(stock: Any, fn: Any = None, args: tuple = (), kwargs: dict | None = None) -> Any:
    """kwcall's object for the result of a stock ``cute.compile(fn, *args, **kwargs)``: the same
    CuTeDSL state, kwcall's binding. ``fn`` names the function in errors; ``args``/``kwargs``
    (the compile's) tell dataclass and environment-stream parameters apart exactly as
    CuTeDSL did. Results that are already tvm_ffi.Functions are returned as they are."""
    provider = _provider()
    if isinstance(stock, tvm_ffi.Function):  # kwcall's already, or CuTeDSL's for no arguments
        return stock
    if not isinstance(stock, provider.TVMFFIJitCompiledFunctionBase):
        raise TypeError(f"not a CuTeDSL --enable-tvm-ffi compile: {type(stock).__name__}")
    names, unpack = _stock_layout(stock, args, kwargs or {})
    fn_obj = _kwcall.new_unbound(_compiled_type(provider))
    state = dict(vars(stock))
    state.pop("_kwargs_wrapper", None)
    state["_executor_lock"] = threading.RLock()  # the stock object's own lock stays its own
    fn_obj.__dict__.update(state)
    return _finish(fn_obj, names, unpack, _display_name(_jit_function(fn)) if fn else "wrapper")


def compile(fn: Any, *args: Any, options: str | None = None, **kwargs: Any) -> Any:
    """``cute.compile`` with ``--enable-tvm-ffi`` that returns kwcall's object, whether or not
    ``install()`` is in effect. CuTeDSL itself is left as it is: other threads' compiles
    return what they always do."""
    try:
        import cutlass.cute as cute
    except ImportError as error:
        raise ImportError(f"kwcall.cute needs CuTeDSL (nvidia-cutlass-dsl): {_INSTALL_HINT}") from (
            error
        )
    if not options or "--enable-tvm-ffi" not in options.split():
        options = f"{options} --enable-tvm-ffi" if options else "--enable-tvm-ffi"
    with _compile_lock:
        stock = cute.compile(fn, *args, options=options, **kwargs)
    return from_stock(stock, fn, args, kwargs)


# -- install / uninstall ------------------------------------------------------------------------
def install() -> bool:
    """Make every ``--enable-tvm-ffi`` compile in the process return kwcall's object.

    Returns False, with a warning and without patching, when nvidia-cutlass-dsl is missing or
    its version is not one of SUPPORTED_VERSIONS.
    """
    global _original
    with _install_lock:
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
        compiled = _compiled_type(provider)
        _original = provider.TVMFFIJitCompiledFunctionWithKwargs
        provider.TVMFFIJitCompiledFunctionWithKwargs = compiled
        return True


def uninstall() -> None:
    """Give CuTeDSL its own class back. Functions compiled meanwhile keep working."""
    global _original
    with _install_lock:
        if _original is None:
            return
        _provider().TVMFFIJitCompiledFunctionWithKwargs = _original
        _original = None


def is_installed() -> bool:
    return _original is not None


# -- ahead of time ------------------------------------------------------------------------------
def export_to_c(compiled: Any, object_file_path: str, function_name: str, **kwargs: Any) -> str:
    """CuTeDSL's ``export_to_c`` with the signature shipped beside the code.

    Writes the object file exporting ``__tvm_ffi_<function_name>`` (CuTeDSL's bytes) plus the
    function ``__kwcall_signature_<function_name>`` carrying the signature's JSON, linked into
    the same object with the system C compiler, so that a library linked from it as CuTeDSL's
    tutorial does gives ``kwcall::LoadFunction(module, function_name)`` its keywords. Also
    writes ``<object_file_path>.kwcall.json``. Returns the sidecar's path.
    ``compiled`` is kwcall's object, or a stock one (then ``from_stock`` names it "wrapper").
    """
    if not isinstance(compiled, tvm_ffi.Function):
        compiled = from_stock(compiled)
    signature = getattr(compiled, "signature", None)
    if signature is None:
        raise TypeError(f"export_to_c needs a compiled CuTeDSL function, got {compiled!r}")
    compiled.export_to_c(object_file_path, function_name=function_name, **kwargs)
    return _export.add_signature(object_file_path, function_name, signature.to_json())
