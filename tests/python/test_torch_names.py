"""Operator names: overloads (``ns::name.overload``) beside each other in one packet, a
further device's kernel added to an operator registered already, and ``replace=True``."""

from __future__ import annotations

import kwcall
import pytest
from torch_helpers import TENSORS, axpy_function, kwtorch, op, op_name, targets, torch

pytestmark = pytest.mark.usefixtures("registered_ops")


def test_overloads_of_one_name():
    name = op_name("axpy")
    functional = kwtorch.register(
        axpy_function(), name, types=TENSORS, outputs={"out": kwtorch.like("x")}
    )
    out_variant = kwtorch.register(
        axpy_function(), name + ".out", types=TENSORS, mutates_args=["out"]
    )
    packet = op(name)
    assert sorted(packet.overloads()) == ["default", "out"]
    assert str(packet.out._schema).startswith(name + ".out(Tensor x, Tensor y, Tensor(a!) out")
    assert out_variant.op.name() == packet.out.name() == name + ".out"
    assert functional.op.name() == packet.default.name() == name
    x, y, out = torch.ones(3), torch.full((3,), 2.0), torch.zeros(3)
    packet.out(x, y, out, alpha=3.0)
    assert out.tolist() == [5.0] * 3
    assert packet.default(x, y).tolist() == [3.0] * 3
    out.zero_()
    out_variant(x, y, out)
    assert out.tolist() == [3.0] * 3
    with pytest.raises(RuntimeError, match=r"\.out is registered already"):
        kwtorch.register(axpy_function(), name + ".out", types=TENSORS, mutates_args=["out"])
    kwtorch.unregister(name + ".out")
    assert op(name).overloads() == ["default"]
    with pytest.raises(ValueError, match="'namespace::name.overload'"):
        kwtorch.register(axpy_function(), name + ".a.b", types=TENSORS, mutates_args=["out"])


def test_a_further_device_s_kernel():
    name = op_name("axpy_out")
    kwtorch.register(
        axpy_function(), name, types=TENSORS, mutates_args=["out"], device_types=["CPU"]
    )
    assert not torch._C._dispatch_has_kernel_for_dispatch_key(name, "CUDA")
    cuda = kwtorch.register(
        axpy_function(), name, types=TENSORS, mutates_args=["out"], device_types=["CUDA"]
    )
    assert torch._C._dispatch_has_kernel_for_dispatch_key(name, "CUDA")
    x, y, out = torch.ones(2), torch.ones(2), torch.zeros(2)
    calls = targets()["axpy_calls"]
    before = calls()
    cuda(x, y, out)  # CPU tensors: the CUDA function's eager call sends them to torch's CPU kernel
    assert out.tolist() == [2.0, 2.0] and calls() == before + 1
    with pytest.raises(RuntimeError, match="with kernels for CPU, CUDA: pass device_types="):
        kwtorch.register(
            axpy_function(), name, types=TENSORS, mutates_args=["out"], device_types=["CPU"]
        )
    with pytest.raises(RuntimeError, match="needs the same schema and outputs"):
        kwtorch.register(axpy_function(), name, types=TENSORS, device_types=["XPU"],
                         outputs={"out": kwtorch.like("x")})  # fmt: skip
    kwtorch.unregister(name)  # the added kernels go with the operator
    with pytest.raises(RuntimeError, match="does not exist"):
        torch._C._dispatch_has_kernel_for_dispatch_key(name, "CUDA")


def test_replace():
    name = op_name("replaced")
    old = kwtorch.register(axpy_function(), name, types=TENSORS, outputs={"out": kwtorch.like("x")})
    x, y = torch.ones(3), torch.full((3,), 2.0)
    assert old(x, y, alpha=2.0).tolist() == [4.0] * 3
    f = kwcall.wrap(targets()["mul64"], kwcall.Signature(["a", "b", "out"], name="mul"))
    new = kwtorch.register(
        f, name, types={"a": "Tensor", "b": "Tensor"}, outputs={"out": kwtorch.like("a")},
        replace=True,
    )  # fmt: skip
    assert kwtorch.registered()[name] == "(Tensor a, Tensor b) -> Tensor"
    a, b = x.double(), y.double()
    assert op(name)(a, b).tolist() == [2.0] * 3 and new(a, b).tolist() == [2.0] * 3
    # The old object serves no more calls itself: they go to the operator, now the new one.
    assert old(a, b).tolist() == [2.0] * 3
    with pytest.raises(RuntimeError, match="registered already"):
        kwtorch.register(
            f, name, types={"a": "Tensor", "b": "Tensor"}, outputs={"out": kwtorch.like("a")}
        )
