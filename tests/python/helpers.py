"""Helpers shared by the Python tests (see docs/DESIGN.md for what each path is)."""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import importlib.util
import itertools
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tvm_ffi

#: How many times longer than natively this machine may take: the time bounds of the tests
#: that have one are multiplied by it (scripts/test_platform.sh sets it under emulation).
TIME_SCALE = float(os.environ.get("KWCALL_TEST_TIME_SCALE", "1"))


def wait_until(condition: Callable[[], Any], what: str, seconds: float = 10.0) -> None:
    """Waits until ``condition()`` is true, for at most ``seconds`` × TIME_SCALE: what another
    thread does may take a while to happen on a busy machine, so a test waits for it instead of
    reading it at once, and fails (naming ``what``) only when it never happens."""
    deadline = time.monotonic() + seconds * TIME_SCALE
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {seconds * TIME_SCALE:g} s for {what}")
        time.sleep(0.001)


def run_threads_for(threads: list, stop: Any, seconds: float) -> None:
    """Starts ``threads``, lets them run for ``seconds`` (or until ``stop``, a threading.Event,
    is set), then sets ``stop`` and joins each, failing if one does not stop within a bounded
    time (× TIME_SCALE)."""
    try:
        for thread in threads:
            thread.start()
        stop.wait(seconds)
        stop.set()
        for thread in threads:
            thread.join(timeout=60 * TIME_SCALE)
            assert not thread.is_alive(), f"{thread.name} did not stop"
    finally:
        stop.set()


#: C++ sources of the native helper modules some tests build.
NATIVE = Path(__file__).parent / "native"

#: The clone the tests run from (its scripts and build backend are not on sys.path).
REPOSITORY = Path(__file__).resolve().parents[2]

#: tvm-ffi releases before 0.1.12 have no tvm_ffi.utils.unpack_dataclass, which kwcall uses
#: to flatten dataclass parameters.
HAS_UNPACK = importlib.util.find_spec("tvm_ffi.utils.unpack_dataclass") is not None
needs_unpack = pytest.mark.skipif(
    not HAS_UNPACK, reason="this apache-tvm-ffi has no tvm_ffi.utils.unpack_dataclass"
)

KWARGS = tvm_ffi.core.KWARGS
#: C++ targets: ffi.Array returns every argument it gets.
collect = tvm_ffi.get_global_func("ffi.Array")


def py_collect(*args: Any) -> tuple:
    """A Python target that returns its arguments as they arrive."""
    return args


def plain(value: Any) -> Any:
    """FFI arrays and maps as Python tuples and dicts, to compare with ==."""
    if isinstance(value, (tvm_ffi.Array, list, tuple)):
        return tuple(plain(item) for item in value)
    if isinstance(value, tvm_ffi.Map):
        return {key: plain(item) for key, item in value.items()}
    return value


_IDS = itertools.count()


def unreadable_dataclass(value: Any, message: str) -> Any:
    """A dataclass instance of one field, ``x`` (holding ``value``), whose read raises
    RuntimeError(message): unpacking it must pass the error on."""

    @dataclasses.dataclass
    class Unreadable:
        x: Any

        def __getattribute__(self, name: str) -> Any:
            if name == "x":
                raise RuntimeError(message)
            return object.__getattribute__(self, name)

    return Unreadable(value)


def unique(name: str) -> str:
    """A global function name no other test uses."""
    return f"kwcall.test.{name}.{os.getpid()}.{next(_IDS)}"


def cpp_handle(f: tvm_ffi.Function, tag: str = "f") -> tvm_ffi.Function:
    """Register ``f`` as a global and fetch it back: a plain tvm_ffi.Function holding the
    same native handle, so calls on it reach kwcall's C++ binder and never its Python type."""
    name = unique(tag)
    tvm_ffi.register_global_func(name, f, override=True)
    handle = tvm_ffi.get_global_func(name)
    tvm_ffi.remove_global_func(name)
    assert type(handle) is tvm_ffi.Function
    return handle


def outcome(thunk: Callable[[], Any]) -> tuple[str, Any]:
    """('ok', plain result) or ('TypeError', message)."""
    try:
        result = thunk()
    except TypeError as e:
        return ("TypeError", str(e))
    return ("ok", plain(result))


def not_interned(name: str) -> str:
    """An equal string that is a different object (single characters are cached)."""
    if len(name) < 2:
        return name
    s = "".join([name[:1], name[1:]])
    assert s == name and s is not name
    return s


_VECTORCALL_ARGS = [ctypes.py_object, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
_PY_TPFLAGS_HAVE_VECTORCALL = 1 << 11
_PY_VECTORCALL_ARGUMENTS_OFFSET = 1 << (8 * ctypes.sizeof(ctypes.c_size_t) - 1)
# offsetof(PyTypeObject, tp_vectorcall_offset): the object header (refcount, type, size), then
# tp_name, tp_basicsize, tp_itemsize and tp_dealloc.
_TP_VECTORCALL_OFFSET = 7 * ctypes.sizeof(ctypes.c_void_p)


def _c_vectorcall() -> Callable[..., Any]:
    """CPython's PyObject_Vectorcall. Before 3.11 it is an inline function, not an exported
    symbol: do what it does (the type's vectorcall slot, else tp_call through
    _PyObject_MakeTpCall)."""
    fn = getattr(ctypes.pythonapi, "PyObject_Vectorcall", None)
    if fn is not None:
        fn.restype, fn.argtypes = ctypes.py_object, _VECTORCALL_ARGS
        return fn
    api = ctypes.pythonapi
    api.PyThreadState_Get.restype, api.PyThreadState_Get.argtypes = ctypes.c_void_p, []
    make_tp_call = api._PyObject_MakeTpCall
    make_tp_call.restype = ctypes.py_object
    make_tp_call.argtypes = [ctypes.c_void_p, *_VECTORCALL_ARGS]
    as_vectorcall = ctypes.PYFUNCTYPE(ctypes.py_object, *_VECTORCALL_ARGS)

    def call(callable_: Any, args: int, nargsf: int, kwnames: int | None) -> Any:
        tp = type(callable_)
        if tp.__flags__ & _PY_TPFLAGS_HAVE_VECTORCALL:
            offset = ctypes.c_ssize_t.from_address(id(tp) + _TP_VECTORCALL_OFFSET).value
            func = ctypes.c_void_p.from_address(id(callable_) + offset).value
            if func:
                return as_vectorcall(func)(callable_, args, nargsf, kwnames)
        nargs = nargsf & ~_PY_VECTORCALL_ARGUMENTS_OFFSET
        return make_tp_call(api.PyThreadState_Get(), callable_, args, nargs, kwnames)

    return call


def vectorcall(fn: Any, pos: tuple, kws: tuple[tuple[str, Any], ...], kwnames: Any = None) -> Any:
    """Call ``fn`` at the C level with these positional arguments and this exact ``kwnames``
    tuple (``kws``' names, which may repeat; or the given tuple object itself)."""
    values = list(pos) + [v for _, v in kws]
    if kwnames is None and kws:
        kwnames = tuple(k for k, _ in kws)
    array = (ctypes.py_object * max(len(values), 1))(*values)
    # kwnames travels as a pointer: NULL (not None) when there are no keywords.
    names = None if kwnames is None else id(kwnames)
    return _c_vectorcall()(fn, ctypes.cast(array, ctypes.c_void_p), len(pos), names)


@contextlib.contextmanager
def _ninja_on_path():
    # tvm_ffi.cpp runs `ninja`; a virtual environment that is not activated has it beside
    # its Python only. Only this build sees the longer PATH.
    with pytest.MonkeyPatch.context() as mp:
        if shutil.which("ninja") is None:
            mp.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
        yield


def require_cxx(reason: str) -> None:
    """Skips the calling test module with ``reason`` where no C++ compiler is on PATH."""
    if shutil.which("c++") is None and shutil.which("g++") is None:
        pytest.skip(reason, allow_module_level=True)


def build_native(name: str, source: str, build_dir: Path, with_kwcall: bool = False) -> Any:
    """Build ``native/<source>`` into a tvm-ffi module (with kwcall's headers and library
    when asked) and load it."""
    import kwcall.libinfo
    import tvm_ffi.cpp

    with _ninja_on_path():
        if with_kwcall:
            path = kwcall.libinfo.build_module(name, [str(NATIVE / source)], str(build_dir))
        else:
            path = tvm_ffi.cpp.build(
                name, sources=[str(NATIVE / source)], build_directory=str(build_dir)
            )
    return tvm_ffi.load_module(path)


_TESTING_MODULE: list[Any] = []


def internals_global(name: str) -> tvm_ffi.Function:
    """A ``kwcall.testing.*`` global: test-only views of kwcall's internal rules, registered by
    ``native/kwcall_testing.cc`` (built once into build/tests, loaded on first use). libkwcall
    exports only its public API, so the module compiles the rules' own sources in."""
    if not _TESTING_MODULE:
        # Not `import tvm_ffi.cpp`: that would make tvm_ffi a local name, unbound on later calls.
        from tvm_ffi import cpp as tvm_ffi_cpp

        root = Path(__file__).resolve().parents[2]
        # The identifier rule's sources (see CMakeLists.txt's KWCALL_SOURCES) and the
        # suggestion rule's.
        rules = ["identifier", "nfkc", "unicode_tables", "utf8", "binding/suggest"]
        sources = [NATIVE / "kwcall_testing.cc", *(root / f"src/{rule}.cc" for rule in rules)]
        with _ninja_on_path():
            path = tvm_ffi_cpp.build(
                "kwcall_testing",
                cpp_files=[str(s) for s in sources],
                extra_include_paths=[str(root / "src"), str(root / "include")],
                build_directory=str(root / "build" / "tests" / "kwcall_testing"),
            )
        _TESTING_MODULE.append(tvm_ffi.load_module(path))
    return tvm_ffi.get_global_func(name)


def load_file_module(path: Path, name: str):
    """The module in ``path``, a file not on sys.path (a script, the build backend)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_cute_library(obj: Path, lib: Path) -> tvm_ffi.Module:
    """CuTeDSL's exported object ``obj`` linked into the shared library ``lib`` with CuTeDSL's
    runtime libraries and loaded with tvm-ffi, as CuTeDSL's tutorial does; a skip where those
    runtime libraries do not load (they need a CUDA driver)."""
    import subprocess

    from cutlass.cute import runtime

    libraries = runtime.find_runtime_libraries(enable_tvm_ffi=True)
    subprocess.run(["c++", "-shared", "-o", str(lib), str(obj), *libraries], check=True)
    try:
        return tvm_ffi.load_module(str(lib))
    except Exception as error:
        pytest.skip(f"CuTeDSL's runtime libraries do not load here: {error}")
