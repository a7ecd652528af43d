"""Dispatch tables of CuTeDSL compiles (host-only @cute.jit functions, no GPU needed):
kwcall.cute.table_compiler, DispatchTable.save and the round trip back, and
examples/dispatch_table (a C++ program with no libpython that loads the saved table)."""

# No `from __future__ import annotations`: CuTeDSL reads the annotations.
import subprocess
import sys

import kwcall
import pytest
import tvm_ffi
from helpers import REPOSITORY
from kwcall import key

cute = pytest.importorskip("cutlass.cute")
torch = pytest.importorskip("torch")
kwcute = pytest.importorskip("kwcall.cute")

from cutlass import Float32, Int32  # noqa: E402


@cute.jit
def shift(x: cute.Tensor, out: cute.Tensor, by: Int32, *, scale: Float32 = Float32(1.0)):  # noqa: B008
    for i in range(cute.size(x)):
        out[i] = (x[i] + by.to(x.element_type)) * scale.to(x.element_type)


SIGNATURE = kwcall.Signature(["x", "out", "by"], (), ["scale"], {"scale": 1.0}, name="shift")


def _table(compiled=None):
    compile = kwcute.table_compiler(shift)

    def counting(key_, *args):
        compiled.append(key_)
        return compile(key_, *args)

    chosen = compile if compiled is None else counting
    return kwcall.DispatchTable(SIGNATURE, [key.dtype("x"), key.shape("x", 0)], compile=chosen)


def _check(table, dtype, n, by=2, scale=None):
    x = torch.arange(n, dtype=dtype)
    out = torch.zeros(n, dtype=dtype)
    if scale is None:
        table(x, out, by)
        assert torch.equal(out, x + by)
    else:
        table(x, out, by, scale=scale)
        assert torch.equal(out, (x + by) * scale)


def test_table_compiler_compiles_each_key_once():
    compiled = []
    table = _table(compiled)
    _check(table, torch.float32, 4)
    _check(table, torch.float32, 4, by=5, scale=2.0)
    _check(table, torch.float64, 4)
    _check(table, torch.float32, 6)
    assert compiled == [("float32", 4), ("float64", 4), ("float32", 6)]
    assert all(kwcute.is_compiled_function(f) for f in table._objects.values())


def test_a_compile_argument_mapping_sees_the_key():
    seen = []

    def compile_args(key_, x, out, by, scale):
        seen.append(key_)
        tensors = (kwcute.dlpack_tensor(x), kwcute.dlpack_tensor(out))
        return (*tensors, Int32(by)), {"scale": Float32(scale)}

    table = kwcall.DispatchTable(
        SIGNATURE, [key.dtype("x")], compile=kwcute.table_compiler(shift, compile_args)
    )
    _check(table, torch.float32, 3, by=1, scale=3.0)
    assert seen == [("float32",)]


def test_save_and_load_round_trip(tmp_path):
    table = _table()
    _check(table, torch.float32, 4)
    _check(table, torch.float64, 8)
    library = tmp_path / "libshift.so"
    table.save(library)
    loaded = kwcall.load_dispatch_table(library, "shift")
    assert loaded.keys() == [("float32", 4), ("float64", 8)] and loaded.compile is None
    _check(loaded, torch.float64, 8, by=3, scale=0.5)
    _check(loaded, torch.float32, 4, by=-1)
    with pytest.raises(LookupError, match=r"dtype\(x\)='float32', shape\(x, 0\)=5"):
        _check(loaded, torch.float32, 5)
    # The same library under another name, and the loaded module is a tvm-ffi module too.
    table.save(tmp_path / "libother.so", name="shift_copy")
    module = tvm_ffi.load_module(str(tmp_path / "libother.so"))
    assert len(kwcall.load_dispatch_table(module, "shift_copy")) == 2


def test_save_refuses_entries_it_cannot_export_and_writes_nothing(tmp_path):
    table = _table()
    _check(table, torch.float32, 4)
    table.add(("float64", 4), kwcall.wrap(tvm_ffi.get_global_func("ffi.Array"), SIGNATURE))
    library = tmp_path / "libshift.so"
    library.write_bytes(b"old")
    with pytest.raises(TypeError, match=r"the entry for the key \('float64', 4\) is Function, not"):
        table.save(library)
    assert library.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["libshift.so"]  # no temporary left
    with pytest.raises(ValueError, match=r"must be a C identifier"):
        table.save(library, name="not-c")


def test_the_example_runs_from_a_cpp_program_without_python():
    done = subprocess.run(
        [sys.executable, str(REPOSITORY / "examples" / "dispatch_table" / "run.py")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no libpython in this process" in done.stdout
    assert "float64[8], alpha by keyword: ok" in done.stdout
