"""``kwcall.load_function`` reads CuTeDSL's modules (issue 24.8): given
``cute.runtime.load_module(obj, enable_tvm_ffi=True)`` it returns the exported function bound
to the signature linked beside it, installed or not, as it does for ``tvm_ffi.load_module``.
It used to read ``implements_function`` as a kernel name and fail with CuTeDSL's "internal DSL
problem". Modules it cannot read are refused with what to pass instead. Real exports of a
host-only @cute.jit function, no GPU needed."""

# No `from __future__ import annotations`: CuTeDSL reads the annotations at compile time.
import importlib.metadata
import subprocess
import sys

import kwcall
import kwcall._load
import pytest
import tvm_ffi
from helpers import TIME_SCALE

cute = pytest.importorskip("cutlass.cute")
np = pytest.importorskip("numpy")
kwcute = pytest.importorskip("kwcall.cute")

from cutlass import Float32, Int32  # noqa: E402
from cutlass.cute.runtime import from_dlpack  # noqa: E402

OUT = np.zeros(1, dtype=np.float32)


@cute.jit
def host(out: cute.Tensor, a: Int32, b: Int32 = Int32(2), *, k: Int32 = Int32(0)):  # noqa: B008
    out[0] = Float32(a) * 100.0 + Float32(b) * 10.0 + Float32(k)


def run(fn, *args, **kwargs):
    OUT[:] = 0
    fn(OUT, *args, **kwargs)
    return float(OUT[0])


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(the fresh compile, an object with its signature, one without)."""
    folder = tmp_path_factory.mktemp("load_function")
    signed, plain = folder / "signed.o", folder / "plain.o"
    stock = cute.compile(host, from_dlpack(OUT), Int32(1), options="--enable-tvm-ffi")
    stock.export_to_c(str(plain), function_name="func")  # stock's method: no signature
    fresh = kwcute.compile(host, from_dlpack(OUT), Int32(1), options="--enable-tvm-ffi")
    kwcute.export_to_c(fresh, str(signed), function_name="func")
    return fresh, signed, plain


def load(path):
    return cute.runtime.load_module(str(path), enable_tvm_ffi=True)


@pytest.mark.parametrize("installed", [False, True])
def test_load_function_reads_a_cutedsl_module(exported, installed):
    fresh, signed, _ = exported
    if installed:
        assert kwcute.install()
    try:
        f = kwcall.load_function(load(signed), "func")
    finally:
        kwcute.uninstall()
    assert isinstance(f, kwcall.Function)
    assert f.signature == fresh.signature
    assert str(f.signature) == "(out, a, b=2, *, k=0)"
    assert type(f.target) is tvm_ffi.Function  # the module's own function, bound once
    assert run(f, 3) == 320.0
    assert run(f, 3, k=5) == 325.0
    assert run(f, a=1, b=7) == 170.0
    with pytest.raises(TypeError) as got:
        f(OUT, 1, kk=1)
    with pytest.raises(TypeError) as want:
        fresh(OUT, 1, kk=1)
    assert str(got.value) == str(want.value)


def test_load_function_takes_a_signature_for_a_module_without_one(exported):
    _, _, plain = exported
    with pytest.raises(AttributeError, match="the module exports no signature for 'func'"):
        kwcall.load_function(load(plain), "func")
    given = kwcall.Signature(["out", "a", "b", "k"], (2, 0))
    f = kwcall.load_function(load(plain), "func", given)
    assert f.signature == given
    assert run(f, 3, k=5) == 325.0


def test_load_function_names_a_missing_function(exported):
    _, signed, _ = exported
    with pytest.raises(AttributeError, match="^kwcall.load_function: the module has no function"):
        kwcall.load_function(load(signed), "nope")


def test_a_module_loaded_without_tvm_ffi_is_refused_with_what_to_pass(exported):
    _, signed, _ = exported
    module = cute.runtime.load_module(str(signed))  # enable_tvm_ffi=False: CuTeDSL's own calls
    with pytest.raises(TypeError) as error:
        kwcall.load_function(module, "func")
    assert "cute.runtime.load_module(path, enable_tvm_ffi=True)" in str(error.value)


def test_other_objects_are_refused_with_what_to_pass():
    with pytest.raises(TypeError) as error:
        kwcall.load_function(object(), "func")
    assert str(error.value) == (
        "kwcall.load_function: module must be a tvm_ffi.Module (tvm_ffi.load_module(path)) or "
        "a module of CuTeDSL's cute.runtime.load_module(path, enable_tvm_ffi=True), got object"
    )


def test_cutedsl_registers_its_module_lookup_with_the_core():
    # Issue 39.3: kwcall.load_function names no integration; kwcall.cute registers how to read
    # CuTeDSL's modules (an entry point of kwcall._load.MODULE_LOOKUPS) and the core calls it.
    entries = importlib.metadata.entry_points(group=kwcall._load.MODULE_LOOKUPS)
    assert [entry.value for entry in entries] == ["kwcall.cute._runtime_modules:lookup"]
    assert kwcute._runtime_modules.lookup in kwcall._load._module_lookups()
    assert kwcute._runtime_modules.lookup(object()) is None  # not one of CuTeDSL's: no lookup


def test_a_process_that_never_imported_kwcall_cute_reads_a_cutedsl_module(exported):
    # What the core reached up for before the lookup was registered: a warm cache's process
    # imports CuTeDSL and kwcall, not kwcall.cute, and still reads the exported module.
    _, signed, _ = exported
    code = f"""
import sys
import cutlass.cute as cute
import kwcall
assert "kwcall.cute" not in sys.modules
f = kwcall.load_function(cute.runtime.load_module({str(signed)!r}, enable_tvm_ffi=True), "func")
print(type(f).__name__, f.signature)
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300 * TIME_SCALE
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Function (out, a, b=2, *, k=0)"
