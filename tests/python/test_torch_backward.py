"""A functional kwcall operator takes a backward through torch.library.register_autograd: here
``mul(a, b) -> Tensor``, whose backward calls a second kwcall operator (``mul_grad``, the same
C++ multiply), checked by torch.autograd.gradcheck in float64 on the CPU, eagerly (through the
operator and through its eager call object) and under torch.compile."""

from __future__ import annotations

import kwcall
import pytest
from torch_helpers import kwtorch, op, op_name, targets, torch

pytestmark = pytest.mark.usefixtures("registered_ops")


def mul_function():
    return kwcall.wrap(targets()["mul64"], kwcall.Signature(["a", "b", "out"], name="mul"))


def register_mul():
    """mul(a, b) -> a * b, with a backward made of mul_grad(grad, other) -> grad * other."""
    types = {"a": "Tensor", "b": "Tensor"}
    name, grad_name = op_name("mul"), op_name("mul_grad")
    call = kwtorch.register(mul_function(), name, types=types, outputs={"out": kwtorch.like("a")})
    mul_grad = kwtorch.register(
        mul_function(), grad_name, types=types, outputs={"out": kwtorch.like("a")}
    )

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return mul_grad(grad, b), mul_grad(grad, a)

    torch.library.register_autograd(name, backward, setup_context=setup_context)
    return name, call


def inputs():
    g = torch.Generator().manual_seed(3)
    a = torch.randn(5, 3, dtype=torch.float64, generator=g, requires_grad=True)
    b = torch.randn(5, 3, dtype=torch.float64, generator=g, requires_grad=True)
    return a, b


@pytest.mark.parametrize("route", ["torch.ops", "eager call"])
def test_gradcheck_eagerly(route):
    name, call = register_mul()
    fn = op(name) if route == "torch.ops" else call
    a, b = inputs()
    assert torch.autograd.gradcheck(fn, (a, b))
    (a * b).sum().backward()
    want = a.grad.clone(), b.grad.clone()
    a.grad = b.grad = None
    fn(a, b).sum().backward()
    assert torch.equal(a.grad, want[0]) and torch.equal(b.grad, want[1])


def test_gradcheck_under_torch_compile():
    _, call = register_mul()
    compiled = torch.compile(lambda a, b: call(a, b) * 2.0, fullgraph=True)
    a, b = inputs()
    assert torch.autograd.gradcheck(compiled, (a, b))
    result = compiled(a, b)
    result.sum().backward()
    assert torch.allclose(a.grad, 2 * b) and torch.allclose(b.grad, 2 * a)


def test_with_grad_off_the_eager_call_goes_direct_and_records_nothing():
    _, call = register_mul()
    a, b = inputs()
    with torch.no_grad():
        out = call(a, b)
    assert not out.requires_grad and torch.equal(out, a.detach() * b.detach())
