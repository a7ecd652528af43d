"""Disk caches keep keywords (issue 20): a cache flow written as flash-attention's and quack's
(``compiled.export_to_c(obj, function_name="func")``, then
``cute.runtime.load_module(obj, enable_tvm_ffi=True)`` by attribute and by item) gives back,
under install(), a function that behaves as the fresh compile: the same results, the same
error texts. Host-only @cute.jit functions against stock CuTeDSL, so no GPU is needed."""

# No `from __future__ import annotations`: CuTeDSL reads the annotations at compile time.
import dataclasses
import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import kwcall
import pytest
import tvm_ffi

cute = pytest.importorskip("cutlass.cute")
np = pytest.importorskip("numpy")
kwcute = pytest.importorskip("kwcall.cute")

import cutlass  # noqa: E402
from cutlass import Float32, Int32  # noqa: E402
from cutlass.cute.runtime import from_dlpack  # noqa: E402
from helpers import collect, cpp_handle, load_cute_library, plain  # noqa: E402
from kwcall import _link_signature, libinfo  # noqa: E402

KWARGS = tvm_ffi.core.KWARGS


@cute.jit
def cached(out: cute.Tensor, a: Int32, b: Int32 = Int32(2), *, k: Int32 = Int32(0)):  # noqa: B008
    out[0] = Float32(a) * 100.0 + Float32(b) * 10.0 + Float32(k)


def expected(a, b=2, *, k=0):
    return a * 100.0 + b * 10.0 + k


OUT = np.zeros(4, dtype=np.float32)

CALLS = [
    ((3, 4), {"k": 5}),  # every parameter
    ((3,), {}),  # defaults left out
    ((2,), {"k": 5}),  # a keyword-only one
    ((), {"a": 1, "b": 7}),  # by keyword
]
BAD_CALLS = [
    ((), {}),
    ((1, 2, 3), {}),
    ((1,), {"c": 1}),
    ((1,), {"a": 1}),
    ((1,), {"kk": 1}),
]


def run(fn, *args, **kwargs):
    OUT[:] = 0
    fn(OUT, *args, **kwargs)
    return float(OUT[0])


def compile_fresh():
    return cute.compile(cached, from_dlpack(OUT), Int32(1), options="--enable-tvm-ffi")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """The flow of both libraries: compile, export with the method, load back."""
    folder = tmp_path_factory.mktemp("cache")
    assert kwcute.install()
    try:
        fresh = compile_fresh()
        obj = folder / "k.o"
        fresh.export_to_c(object_file_path=str(obj), function_name="func")
        module = cute.runtime.load_module(str(obj), enable_tvm_ffi=True)
        by_attr, by_item = module.func, module["func"]
    finally:
        kwcute.uninstall()
    return fresh, by_attr, by_item, obj


def test_the_method_links_the_signature_into_the_object(cache):
    fresh, _, _, obj = cache
    found = subprocess.run(["nm", str(obj)], capture_output=True, text=True).stdout.split()
    assert "__tvm_ffi_func" in found and _link_signature.signature_symbol("func") in found
    assert not obj.with_name("k.o.kwcall.json").exists()  # the method writes one file, as stock


def test_a_warm_hit_is_a_kwcall_function_by_attribute_and_item(cache):
    fresh, by_attr, by_item, _ = cache
    for loaded in (by_attr, by_item):
        assert isinstance(loaded, kwcall.Function)
        assert loaded.signature == fresh.signature
        assert str(loaded.signature) == "(out, a, b=2, *, k=0)"
        assert type(loaded.target) is tvm_ffi.Function  # the module's native function


@pytest.mark.parametrize("args, kwargs", CALLS)
def test_a_warm_hit_calls_as_the_fresh_compile(cache, args, kwargs):
    fresh, by_attr, by_item, _ = cache
    want = expected(*args, **kwargs)
    assert run(fresh, *args, **kwargs) == want
    assert run(by_attr, *args, **kwargs) == want
    assert run(by_item, *args, **kwargs) == want


@pytest.mark.parametrize("args, kwargs", BAD_CALLS)
def test_a_warm_hit_refuses_as_the_fresh_compile(cache, args, kwargs):
    fresh, by_attr, by_item, _ = cache
    with pytest.raises(TypeError) as want:
        fresh(OUT, *args, **kwargs)
    assert str(want.value).startswith("cached()")  # the function's name, not wrapper()
    for loaded in (by_attr, by_item):
        with pytest.raises(TypeError) as got:
            loaded(OUT, *args, **kwargs)
        assert str(got.value) == str(want.value)


def test_a_warm_hit_takes_kwargs_from_cpp(cache):
    _, by_attr, _, _ = cache
    name = "kwcall_test.cache.func"
    tvm_ffi.register_global_func(name, by_attr, override=True)
    try:
        handle = tvm_ffi.get_global_func(name)  # the C++ function: C++ callers bind here
        assert run(handle, 3, 4, 5) == expected(3, 4, k=5)  # native: forwarded untouched
        assert run(handle, 2, KWARGS, "k", 5) == expected(2, k=5)
        with pytest.raises(TypeError, match=r"^cached\(\) got an unexpected keyword argument"):
            handle(OUT, 2, KWARGS, "kk", 5)
    finally:
        tvm_ffi.remove_global_func(name)


def test_functions_without_a_signature_come_back_as_stock(tmp_path):
    stock = compile_fresh()  # not installed: stock's method, no signature
    obj = tmp_path / "plain.o"
    stock.export_to_c(str(obj), function_name="func")
    assert kwcute.install()
    try:
        module = cute.runtime.load_module(str(obj), enable_tvm_ffi=True)
        for loaded in (module.func, module["func"]):
            assert type(loaded) is tvm_ffi.Function
            assert run(loaded, 3, 4, 5) == expected(3, 4, k=5)
        with pytest.raises(Exception, match="nope"):
            module.nope  # noqa: B018 - stock's error for a missing function
    finally:
        kwcute.uninstall()


def test_without_install_a_signed_object_works_positionally(cache):
    _, _, _, obj = cache
    assert not kwcute.is_installed()
    module = cute.runtime.load_module(str(obj), enable_tvm_ffi=True)
    for loaded in (module.func, module["func"]):
        assert type(loaded) is tvm_ffi.Function  # uninstall() gave the module class back
        assert run(loaded, 3, 4, 5) == expected(3, 4, k=5)


def test_uninstall_restores_the_module_class():
    from cutlass.base_dsl.export import ExternalBinaryModule

    before = dict(vars(ExternalBinaryModule))
    assert kwcute.install()
    assert vars(ExternalBinaryModule)["__getattr__"] is not before["__getattr__"]
    kwcute.uninstall()
    assert dict(vars(ExternalBinaryModule)) == before


def test_an_exported_library_loads_with_keywords(cache, tmp_path):
    # tvm-ffi's load_module after linking a shared library, as CuTeDSL's tutorial does.
    _, _, _, obj = cache
    module = load_cute_library(obj, tmp_path / "libfunc.so")
    f = kwcall.load_function(module, "func")
    assert run(f, 2, k=5) == expected(2, k=5)
    assert run(f, 3) == expected(3)


def test_a_static_link_into_a_cpp_program_keeps_the_keywords(cache, tmp_path):
    _, _, _, obj = cache
    program = tmp_path / "cute_static"
    runtime = cute.runtime.find_runtime_libraries(enable_tvm_ffi=True)
    rpaths = [f"-Wl,-rpath,{Path(lib).parent}" for lib in runtime]
    source = Path(__file__).parent / "native" / "cute_static.cc"
    subprocess.run(
        ["c++", "-O1", *libinfo.cxxflags(), str(source), str(obj), "-o", str(program),
         *runtime, *rpaths, *libinfo.ldflags(), *libinfo.libs()],
        check=True,
    )  # fmt: skip
    done = subprocess.run([str(program)], capture_output=True, text=True)
    if done.returncode != 0 and "cuda" in done.stderr.lower():
        pytest.skip(f"CuTeDSL's runtime needs a CUDA driver here: {done.stderr[-300:]}")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == [
        str(int(expected(3, 4, k=5))),
        str(int(expected(3))),
        str(int(expected(2, k=5))),
    ]
    # CPython's text, named after the function (3.13's wording: no Python in the process).
    assert (
        lines[3] == "TypeError: cached() got an unexpected keyword argument 'kk'. Did you mean 'k'?"
    )


# -- a warm hit needs none of kwcall's headers (issue 24.6) ------------------------------------
WARM_HIT = """
import sys
from pathlib import Path

import cutlass.cute as cute
import kwcall, kwcall.cute, kwcall.libinfo
import numpy as np

assert Path(kwcall.__file__).is_relative_to(sys.argv[1]), kwcall.__file__
assert not Path(kwcall.libinfo.include_dir()).exists()
assert kwcall.cute.install()
out = np.zeros(4, dtype=np.float32)
for path in sys.argv[2:]:
    module = cute.runtime.load_module(path, enable_tvm_ffi=True)
    for loaded in (module.func, module["func"]):
        keywords = isinstance(loaded, kwcall.Function)
        loaded(out, 2, k=5) if keywords else loaded(out, 2, 2, 5)
        print(Path(path).name, "kwcall" if keywords else "stock", float(out[0]))
"""


def _copy_without_headers(folder: Path) -> Path:
    """The installed package, copied into ``folder`` without its include/ folder (as slim
    runtime images ship it)."""
    copy = folder / "kwcall"
    skip = shutil.ignore_patterns("include", "__pycache__")
    shutil.copytree(Path(kwcall.__file__).parent, copy, ignore=skip)
    for part in libinfo.package_dir().iterdir():  # editable installs keep these apart
        if part.name != "include" and not (copy / part.name).exists():
            if part.is_dir():
                shutil.copytree(part, copy / part.name, ignore=skip)
            else:
                shutil.copy2(part, copy / part.name)
    return folder


def test_a_warm_hit_needs_no_headers(cache, tmp_path):
    _, _, _, signed = cache
    plain = tmp_path / "plain.o"
    compile_fresh().export_to_c(str(plain), function_name="func")  # stock: no signature
    site = _copy_without_headers(tmp_path / "site")
    done = subprocess.run(
        [sys.executable, "-c", WARM_HIT, str(site), str(signed), str(plain)],
        # The copy first; then every folder this Python imports from, so that CuTeDSL and
        # numpy reach the child in every layout (a `pip install --target` one on PYTHONPATH).
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *filter(None, sys.path)])},
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        f"k.o kwcall {expected(2, k=5)}",
        f"k.o kwcall {expected(2, k=5)}",
        f"plain.o stock {expected(2, k=5)}",
        f"plain.o stock {expected(2, k=5)}",
    ]


# -- defaults a warm hit cannot restore (issue 24.12) -------------------------------------------
class AuxData(NamedTuple):
    """As flash-attention's forward kernel has it: ``aux_data: AuxData = AuxData()``."""

    tensors: object = None
    scalars: object = None


@cute.jit
def with_aux(out: cute.Tensor, a: Int32, aux_data: AuxData = AuxData()):  # noqa: B008
    if cutlass.const_expr(aux_data.tensors is None):
        out[0] = Float32(a)


def _fresh_and_warm(fn, path):
    assert kwcute.install()
    try:
        fresh = cute.compile(fn, from_dlpack(OUT), Int32(1), options="--enable-tvm-ffi")
        fresh.export_to_c(str(path), function_name="func")
        warm = cute.runtime.load_module(str(path), enable_tvm_ffi=True).func
    finally:
        kwcute.uninstall()
    return fresh, warm


# CuTeDSL warns that it takes the NamedTuple as a compile-time value, which it is here.
@pytest.mark.filterwarnings("ignore:Argument aux_data .* cannot be converted to a JitArgument")
def test_a_warm_hit_gives_a_tuple_default_back_as_a_list(tmp_path):
    fresh, warm = _fresh_and_warm(with_aux, tmp_path / "aux.o")
    # JSON has no tuples and no classes: the NamedTuple is written as an array, read as a list.
    assert str(inspect.signature(fresh)) == "(out, a, aux_data=AuxData(tensors=None, scalars=None))"
    assert str(inspect.signature(warm)) == "(out, a, aux_data=[None, None])"
    # What the kernel receives when the default is used is the same either way: tvm-ffi
    # passes a tuple and a list alike, as an ffi.Array; C++ callers get the stored array.
    for f in (fresh, warm):
        assert run(f, 3) == 3.0
        assert run(cpp_handle(f), 4) == 4.0
        received = kwcall.wrap(collect, f.signature)(OUT, 5)[2]
        assert type(received) is tvm_ffi.Array and plain(received) == (None, None)
        received = cpp_handle(kwcall.wrap(collect, f.signature))(OUT, 5)[2]
        assert type(received) is tvm_ffi.Array and plain(received) == (None, None)


@dataclasses.dataclass(frozen=True)
class Scales:
    scale: int = 2
    bias: int = 3


@cute.jit
def with_scales(out: cute.Tensor, a: Int32, scales: Scales = Scales()):  # noqa: B008
    out[0] = Float32(a) * Float32(scales.scale) + Float32(scales.bias)


def test_a_dataclass_default_exports_as_stock_from_the_method(tmp_path):
    # JSON cannot hold a dataclass value. The method is CuTeDSL's own, which disk caches call:
    # it warns and writes CuTeDSL's object without the signature, as stock CuTeDSL would, so
    # the warm hit is stock CuTeDSL's function, called positionally.
    assert kwcute.install()
    try:
        fresh = cute.compile(with_scales, from_dlpack(OUT), Int32(1), options="--enable-tvm-ffi")
        assert str(inspect.signature(fresh)) == "(out, a, scales=Scales(scale=2, bias=3))"
        assert run(fresh, 3) == 9.0
        obj = tmp_path / "scales.o"
        with pytest.warns(RuntimeWarning, match="'scales' of with_scales.* without its signature"):
            fresh.export_to_c(str(obj), function_name="func")
        warm = cute.runtime.load_module(str(obj), enable_tvm_ffi=True).func
        assert not isinstance(warm, kwcall.Function)
        assert run(warm, 3, (2, 3)) == 9.0  # stock: every native argument, the fields a tuple
    finally:
        kwcute.uninstall()


def test_a_dataclass_default_cannot_be_exported_with_its_signature(tmp_path):
    # kwcall.cute.export_to_c promises the signature (and its sidecar): it says why it cannot.
    fresh = kwcute.compile(with_scales, from_dlpack(OUT), Int32(1), options="--enable-tvm-ffi")
    obj = tmp_path / "scales.o"
    with pytest.raises(ValueError, match="parameter 'scales' of with_scales.* JSON cannot"):
        kwcute.export_to_c(fresh, str(obj), function_name="func")
    assert not obj.exists() and not Path(_link_signature.sidecar_path(str(obj))).exists()
