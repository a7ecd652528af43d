"""Operators that return new tensors (``outputs={"out": kwcall.torch.like("x")}``): the schema
returns them, kwcall's kernel allocates them from the rules (shape, picked and ordered
dimensions, dtype, device) and the function writes them; the Meta kernel allocates the same on
the meta device, so FakeTensorMode, torch.compile and torch.export see their shapes, and the
compiled code calls the operator with no copy of its outputs. Rules that cannot work are
refused at registration; a tensor whose rank a rule cannot use is torch's error at call time."""

from __future__ import annotations

import kwcall
import pytest
from torch_helpers import (
    TENSORS,
    axpy_function,
    expected_qstats,
    kwtorch,
    op,
    op_name,
    qstats_function,
    register_functional_axpy,
    register_qstats,
    targets,
    torch,
)

pytestmark = pytest.mark.usefixtures("registered_ops")


def test_the_schema_returns_the_outputs_in_declaration_order():
    like = kwtorch.like
    assert (
        kwtorch.schema_of(axpy_function(), types=TENSORS, outputs={"out": like("x")})
        == "(Tensor x, Tensor y, *, float alpha=1.0) -> Tensor"
    )
    outputs = {"lse": like("q", dims=(0, 2, 1)), "out": like("q")}  # the dict's order is not used
    assert (
        kwtorch.schema_of(qstats_function(), types={"q": "Tensor"}, outputs=outputs)
        == "(Tensor q) -> (Tensor, Tensor)"
    )
    name, _ = register_qstats()
    assert kwtorch.registered()[name] == "(Tensor q) -> (Tensor, Tensor)"
    assert str(op(name).default._schema).endswith("(Tensor q) -> (Tensor, Tensor)")


@pytest.mark.parametrize("route", ["torch.ops", "eager call"])
def test_the_output_is_a_new_contiguous_tensor_like_x(route):
    name, call = register_functional_axpy()
    fn = op(name) if route == "torch.ops" else call
    g = torch.Generator().manual_seed(1)
    x = torch.randn(5, 4, generator=g).t()  # transposed: the output is still contiguous
    y = torch.randn(4, 5, generator=g)
    out = fn(x, y, alpha=-1.5)
    assert out.shape == x.shape and out.dtype == x.dtype and out.is_contiguous()
    assert torch.allclose(out, -1.5 * x + y)
    assert fn(x, y).data_ptr() != out.data_ptr()  # a new tensor each call


@pytest.mark.parametrize("route", ["torch.ops", "eager call"])
def test_two_outputs_with_picked_dimensions_and_a_dtype(route):
    name, call = register_qstats()
    fn = op(name) if route == "torch.ops" else call
    q = torch.randn(2, 5, 3, 4, dtype=torch.float32)
    out, lse = fn(q)
    want_out, want_lse = expected_qstats(q)
    assert lse.shape == (2, 3, 5) and lse.dtype == torch.float32 and lse.is_contiguous()
    assert torch.allclose(out, want_out) and torch.allclose(lse, want_lse, atol=1e-5)
    assert type(fn(q)) is tuple


def test_the_rule_s_dtype_replaces_like_s():
    f = kwcall.wrap(targets()["stream_of"], kwcall.Signature(["t", "out"], name="stream_of"))
    name = op_name("stream_of")
    rule = kwtorch.like("t", dims=(-1,), dtype="int64")  # one dimension of t, in int64
    call = kwtorch.register(f, name, types={"t": "Tensor"}, outputs={"out": rule})
    for fn in (op(name), call):
        out = fn(torch.ones(3, 2))
        assert out.shape == (2,) and out.dtype == torch.int64


def test_meta_tensors_and_fake_tensor_mode_get_the_shapes_without_calling_the_function():
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

    name, call = register_qstats()
    calls = targets()["axpy_calls"]
    _, axpy = register_functional_axpy()
    before = calls()
    out, lse = op(name)(torch.empty(2, 5, 3, 4, device="meta"))
    assert out.device.type == "meta" and lse.shape == (2, 3, 5) and lse.dtype == torch.float32
    with FakeTensorMode():
        q = torch.empty(2, 5, 3, 4, dtype=torch.float32)
        for fn in (op(name), call):
            out, lse = fn(q)
            assert isinstance(lse, FakeTensor) and lse.shape == (2, 3, 5)
            assert lse.device == q.device and out.shape == q.shape
        assert axpy(torch.empty(7), torch.empty(7)).shape == (7,)
    assert calls() == before


@pytest.mark.parametrize("device", ["cpu", "meta", "fake"])
@pytest.mark.parametrize("route", ["torch.ops", "eager call"])
def test_a_rank_the_rule_cannot_use_is_torch_s_error_at_call_time(device, route):
    from torch._subclasses.fake_tensor import FakeTensorMode

    name, call = register_qstats()
    fn = op(name) if route == "torch.ops" else call
    message = "output 'lse' takes the dimension 2 of argument 'q', which has 2 dimension"
    q = torch.ones(3, 4, device="cpu" if device == "fake" else device)
    if device == "fake":
        with FakeTensorMode() as mode, pytest.raises(RuntimeError, match=message):
            fn(mode.from_tensor(q))
    else:
        with pytest.raises(RuntimeError, match=message):
            fn(q)
    assert fn(torch.ones(1, 2, 3, 4))[1].shape == (1, 3, 2)  # and the operator still works


like = kwtorch.like


@pytest.mark.parametrize(
    ("outputs", "types", "error", "message"),
    [
        (lambda: {"out": "x"}, {}, TypeError, r"make rules with kwcall.torch.like"),
        (lambda: {"z": like("x")}, {}, ValueError, r"outputs names 'z', which is not a parameter"),
        (lambda: {"out": like("nope")}, {}, ValueError, r"like 'nope', which is not a parameter"),
        (lambda: {"out": like("alpha")}, {}, ValueError, r"'alpha', which is of type float"),
        (lambda: {"out": like("y")}, {"y": "Tensor?"}, ValueError, r"Tensor\?, not a Tensor"),
        (lambda: {"x": like("y"), "out": like("x")}, {}, ValueError, r"'x', which is an output"),
        (lambda: {"alpha": like("x")}, {}, ValueError, r"only a Tensor parameter can be an out"),
        (lambda: {"out": like("x", dtype="float128")}, {}, ValueError, r"'float128', not one of"),
        (lambda: {"out": like("x", dims=(0, 0))}, {}, ValueError, r"names a dimension twice"),
        (lambda: {"out": like("x", dims=(99,))}, {}, ValueError, r"out of every tensor's range"),
    ],
)
def test_rules_that_cannot_work_are_refused_at_registration(outputs, types, error, message):
    name = op_name("refused")
    with pytest.raises(error, match=message):
        kwtorch.register(axpy_function(), name, types={**TENSORS, **types}, outputs=outputs())
    assert name not in kwtorch.registered()


def test_torch_compile_calls_the_functional_operator_with_no_copy_of_its_outputs():
    from torch._inductor.utils import run_and_get_code

    name, call = register_qstats()
    ns, stem = name.split("::")

    def model(q):
        out, lse = call(q)
        return out + 1.0, lse * 2.0

    compiled = torch.compile(model, fullgraph=True)
    q = torch.randn(2, 5, 3, 4)
    (out, lse), code = run_and_get_code(compiled, q)
    want_out, want_lse = expected_qstats(q)
    assert torch.allclose(out, want_out + 1) and torch.allclose(lse, 2 * want_lse, atol=1e-5)
    source = "\n".join(code)
    calls = [line for line in source.splitlines() if f"torch.ops.{ns}.{stem}.default(" in line]
    assert len(calls) == 1, source
    # The operator's results are used as they are: no functionalization wrapper, no buffer
    # allocated for them and copied into, no copy of them.
    assert "auto_functionalized" not in source
    assert ".copy_(" not in source and "aten.copy" not in source
    assert calls[0].split("=")[1].strip().startswith(f"torch.ops.{ns}.{stem}.default(arg")


def test_dynamic_shapes_under_torch_compile_and_export():
    name, call = register_qstats()
    compiled = torch.compile(lambda q: call(q)[1], fullgraph=True, dynamic=True)
    for b, s in ((2, 5), (3, 7), (1, 9)):
        q = torch.randn(b, s, 3, 4)
        assert torch.allclose(compiled(q), expected_qstats(q)[1], atol=1e-5)

    class Model(torch.nn.Module):
        def forward(self, q):
            return call(q)

    batch = torch.export.Dim("batch")
    exported = torch.export.export(
        Model(), (torch.randn(2, 5, 3, 4),), dynamic_shapes={"q": {0: batch}}
    )
    lse_meta = [n for n in exported.graph.nodes if n.op == "output"][0].args[0][1].meta["val"]
    assert str(lse_meta.shape[0]) == "s0" or not isinstance(lse_meta.shape[0], int)
    q = torch.randn(4, 5, 3, 4)
    assert torch.allclose(exported.module()(q)[1], expected_qstats(q)[1], atol=1e-5)


def test_opcheck_the_functional_operator():
    name, _ = register_qstats()
    torch.library.opcheck(op(name).default, (torch.randn(2, 5, 3, 4),))
    axpy_name, _ = register_functional_axpy()
    torch.library.opcheck(op(axpy_name).default, (torch.randn(6), torch.randn(6)), {"alpha": 2.0})
