"""A dispatch table as one torch operator (kwcall.torch.register(table, ...)): the C++ kernel
calls the table, which picks the entry from the tensors torch hands it (DLTensor views), in eager
torch and from torch.compile(fullgraph=True)'s generated code."""

from __future__ import annotations

import kwcall
import pytest
from kwcall import key
from torch_helpers import TENSORS, kwtorch, op, op_name, targets, torch

pytestmark = pytest.mark.usefixtures("registered_ops")


def _axpy_table(compiled: list) -> kwcall.DispatchTable:
    """def axpy(x, y, out, *, alpha=1.0) keyed by x's dtype and layout; compile hands out the
    C++ axpy for every float32 key and records the keys it was asked for."""

    def compile(key_, *args):
        compiled.append(key_)
        return targets()["axpy"]

    signature = kwcall.Signature(["x", "y", "out"], (), ["alpha"], {"alpha": 1.0}, name="axpy")
    table = kwcall.DispatchTable(
        signature, [key.dtype("x"), key.contiguous("x")], compile=compile, name="axpy"
    )
    table.add(("float32", True), targets()["axpy"])
    return table


def test_the_operator_calls_the_entry_of_its_key():
    compiled = []
    table = _axpy_table(compiled)
    name = op_name("axpy_table")
    eager = kwtorch.register(table, name, mutates_args=["out"], types=TENSORS)
    assert eager.function is table
    axpy = op(name)
    x, y, out = torch.arange(6.0), torch.ones(6), torch.zeros(6)
    axpy(x, y, out, alpha=2.0)
    assert torch.equal(out, 2.0 * x + 1.0) and compiled == []
    out.zero_()
    eager(x, y, out, alpha=2.0)  # the eager call object: the table called directly
    assert torch.equal(out, 2.0 * x + 1.0) and compiled == []
    xt = torch.arange(6.0).reshape(2, 3).t()  # not contiguous: another key, compiled on the miss
    out = torch.zeros(3, 2)
    axpy(xt, torch.ones(3, 2), out)
    assert torch.equal(out, xt + 1.0)
    assert compiled == [("float32", False)]
    assert table.keys() == [("float32", True), ("float32", False)]


def test_a_missing_key_without_compile_is_torch_error_naming_the_key():
    signature = kwcall.Signature(["x", "y", "out"], (), ["alpha"], {"alpha": 1.0}, name="axpy")
    table = kwcall.DispatchTable(signature, [key.dtype("x")], name="axpy_f32")
    table.add(("float32",), targets()["axpy"])
    name = op_name("axpy_f32")
    kwtorch.register(table, name, mutates_args=["out"], types=TENSORS)
    x = torch.ones(4, dtype=torch.float64)
    with pytest.raises(RuntimeError, match=r"no entry for the key dtype\(x\)='float64'"):
        op(name)(x, x, torch.zeros(4, dtype=torch.float64))


def test_torch_compile_fullgraph_calls_the_table_operator():
    from torch._inductor.utils import run_and_get_code

    table = _axpy_table([])
    name = op_name("axpy_table_compiled")
    kwtorch.register(table, name, mutates_args=["out"], types=TENSORS)
    axpy = op(name)

    def model(x, y, out):
        axpy(x, y, out, alpha=3.0)
        return out + 1.0

    compiled = torch.compile(model, fullgraph=True)
    x, y = torch.arange(8.0), torch.ones(8)
    result, code = run_and_get_code(compiled, x, y, torch.zeros(8))
    assert torch.equal(result, 3.0 * x + 2.0)
    ns, op_ = name.split("::")
    assert any(f"torch.ops.{ns}.{op_}.default" in source for source in code), code
