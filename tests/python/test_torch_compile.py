"""Tracing kwcall operators: the Meta kernel lets FakeTensorMode and meta tensors run them
without calling the function (no kernel for a key that runs before it, and no fake tensor that
reaches the device kernel anyway, is let through), torch.compile(fullgraph=True) traces them
with no graph break and its generated code calls the operator, and torch.library.opcheck finds
the schema, the fake kernel and AOT dispatch consistent."""

from __future__ import annotations

import kwcall
import pytest
from torch_helpers import (
    TENSORS,
    axpy_function,
    kwtorch,
    op,
    op_name,
    register_axpy,
    targets,
    torch,
)

pytestmark = pytest.mark.usefixtures("registered_ops")


def test_fake_tensor_mode_runs_the_meta_kernel_and_not_the_function():
    from torch._subclasses.fake_tensor import FakeTensorMode

    _, axpy_op = register_axpy()
    calls = targets()["axpy_calls"]
    before = calls()
    with FakeTensorMode():
        x, y, out = torch.ones(4), torch.ones(4), torch.empty(4)
        axpy_op(x, y, out, alpha=3.0)
        assert out.shape == (4,) and out.dtype == torch.float32
    meta = torch.empty(4, device="meta")
    axpy_op(meta, meta, meta)
    assert calls() == before


@pytest.mark.parametrize(
    "key",
    ["CompositeImplicitAutograd", "Autograd", "AutogradCPU", "CompositeExplicitAutograd", "Meta"],
)
def test_a_kernel_for_a_key_that_runs_before_meta_is_refused(key):
    # With such a kernel FakeTensorMode (torch.compile, opcheck) called the function with
    # tensors that have no data: a writing kernel died.
    name = op_name("alias_key")
    with pytest.raises(ValueError) as refused:
        kwtorch.register(
            axpy_function(), name, mutates_args=["out"], types=TENSORS, device_types=[key]
        )
    assert str(refused.value) == (
        f"kwcall.torch: device_types names '{key}': a kwcall operator gets a kernel for 'CPU' "
        "and 'CUDA', the devices whose tensors it passes (and a Meta kernel, always); a kernel "
        "for another key, an alias or autograd key among them, could run before the Meta kernel "
        "and call the function with fake tensors"
    )
    assert name not in kwtorch.registered()


def test_a_fake_tensor_sent_to_the_device_kernel_never_reaches_the_function():
    from torch._subclasses.fake_tensor import FakeTensorMode

    name = op_name("fake")
    f = kwcall.wrap(targets()["recorder"](), kwcall.Signature(["x"], name="rec"))
    kwtorch.register(f, name, mutates_args=["x"], types={"x": "Tensor"})
    cpu = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)
    with FakeTensorMode():
        fake = torch.empty(3)
        with pytest.raises(RuntimeError, match=f"{name}: argument 'x' has no data .a fake or meta"):
            op(name).default.redispatch(cpu, fake)
        # A tensor with no elements may have no data: it is passed.
        op(name).default.redispatch(cpu, torch.empty(0, 3))
    assert list(targets()["last_record"]()) == [
        "Tensor(DLTensor*, ndim=2, bits=32, code=2, device=1)"
    ]


def test_torch_compile_fullgraph_calls_the_operator_from_its_generated_code():
    from torch._inductor.utils import run_and_get_code

    name, axpy_op = register_axpy()

    def model(x, y, out):
        axpy_op(x, y, out, alpha=2.0)
        return out * 3.0

    compiled = torch.compile(model, fullgraph=True)  # a graph break would raise
    x, y = torch.arange(8.0), torch.ones(8)
    result, code = run_and_get_code(compiled, x, y, torch.zeros(8))
    expected = model(x, y, torch.zeros(8))
    assert torch.equal(result, expected)
    ns, op = name.split("::")
    assert any(f"torch.ops.{ns}.{op}.default" in source for source in code), code
    # Called again, the compiled code runs the operator again (no recompile needed).
    out = torch.zeros(8)
    assert torch.equal(compiled(x, y, out), expected)
    assert torch.equal(out, expected / 3.0)


def test_dynamo_sees_no_graph_break():
    import torch._dynamo

    _, axpy_op = register_axpy()

    def model(x, y, out):
        axpy_op(x, y, out)
        return out + 1

    x = torch.ones(4)
    explanation = torch._dynamo.explain(model)(x, x, torch.zeros(4))
    assert explanation.graph_break_count == 0
    assert explanation.graph_count == 1


def test_opcheck_schema_fake_kernel_and_aot_dispatch():
    _, axpy_op = register_axpy()
    x, y = torch.randn(5), torch.randn(5)
    torch.library.opcheck(
        axpy_op.default,
        (x, y, torch.zeros(5)),
        {"alpha": 0.5},
        test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"),
    )
