"""The eager call object ``kwcall.torch.register`` returns: in plain eager mode it calls the
function directly, otherwise the operator through torch; results, errors and the stream the
function sees are the same either way. Each case runs both the object and ``torch.ops`` and
compares them, and says which route the object took (torch's profiler records the operator's
name only when torch's dispatcher ran it)."""

from __future__ import annotations

import kwcall
import pytest
import tvm_ffi
from torch_helpers import (
    TENSORS,
    axpy_function,
    kwtorch,
    op_name,
    register_functional_axpy,
    targets,
    torch,
)

pytestmark = pytest.mark.usefixtures("registered_ops")

from torch.overrides import TorchFunctionMode  # noqa: E402  (torch_helpers skips without torch)
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402


def through_torch(name, fn):
    """fn()'s result, and whether torch's dispatcher ran the operator ``name``."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        result = fn()
    return result, any(event.name == name for event in profile.events())


class _Seen:
    """A mode that records the name of each function it sees, then runs it."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def _record(self, func, args, kwargs):
        self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


class Recording(_Seen, TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return self._record(func, args, kwargs)


class FunctionRecording(_Seen, TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return self._record(func, args, kwargs)


def inputs(requires_grad=False):
    g = torch.Generator().manual_seed(2)
    return torch.randn(6, generator=g, requires_grad=requires_grad), torch.randn(6, generator=g)


def test_plain_eager_calls_go_direct_and_give_the_operator_s_results():
    name, call = register_functional_axpy()
    x, y = inputs()
    direct, took_torch = through_torch(name, lambda: call(x, y, alpha=3.0))
    assert not took_torch
    by_torch, took_torch = through_torch(name, lambda: call.op(x, y, alpha=3.0))
    assert took_torch and torch.equal(direct, by_torch)
    assert not direct.requires_grad and direct.is_contiguous()


def test_the_mutating_operator_s_eager_call_writes_the_same():
    name = op_name("axpy_out")
    call = kwtorch.register(axpy_function(), name, mutates_args=["out"], types=TENSORS)
    x, y = inputs()
    out, out_torch = torch.zeros(6), torch.zeros(6)
    result, took_torch = through_torch(name, lambda: call(x, y, out, alpha=-2.0))
    assert result is None and not took_torch
    call.op(x, y, out_torch, alpha=-2.0)
    assert torch.equal(out, out_torch)


def test_grad_mode_and_requires_grad():
    name, call = register_functional_axpy()
    x, y = inputs(requires_grad=True)
    with torch.no_grad():
        _, took_torch = through_torch(name, lambda: call(x, y))
    assert not took_torch  # nothing for autograd to record
    direct, took_torch = through_torch(name, lambda: call(x, y))
    assert took_torch  # autograd must see it
    by_torch = call.op(x, y)
    assert direct.requires_grad == by_torch.requires_grad
    assert type(direct.grad_fn) is type(by_torch.grad_fn)
    # torch's autograd fallback, the same either way: a warning, and no gradient for x.
    for result in (direct, by_torch):
        with pytest.warns(UserWarning, match="an autograd kernel was not registered"):
            assert torch.autograd.grad(result.sum(), x, allow_unused=True) == (None,)


@pytest.mark.parametrize("mode", [Recording, FunctionRecording])
def test_an_active_mode_sees_the_operator(mode):
    name, call = register_functional_axpy()
    x, y = inputs()
    with mode() as direct_mode:
        direct = call(x, y)
    with mode() as torch_mode:
        by_torch = call.op(x, y)
    assert torch.equal(direct, by_torch)
    assert any(name.split("::")[1] in seen for seen in direct_mode.seen), direct_mode.seen
    assert direct_mode.seen == torch_mode.seen


def test_fake_tensors_subclasses_and_meta_tensors_go_through_torch():
    from torch._subclasses.fake_tensor import FakeTensorMode

    name, call = register_functional_axpy()
    calls = targets()["axpy_calls"]
    before = calls()
    with FakeTensorMode():
        fake = call(torch.empty(5), torch.empty(5))
    assert fake.shape == (5,) and calls() == before
    meta, took_torch = through_torch(
        name, lambda: call(torch.empty(4, device="meta"), torch.empty(4, device="meta"))
    )
    assert took_torch and meta.device.type == "meta" and calls() == before
    x, y = inputs()
    parameter = torch.nn.Parameter(x.clone(), requires_grad=False)
    result, took_torch = through_torch(name, lambda: call(parameter, y))
    assert took_torch and torch.equal(result, call.op(x, y))


@pytest.mark.parametrize("transform", ["vmap", "functionalize"])
def test_functorch_transforms_go_through_torch(transform):
    name, call = register_functional_axpy()
    x, y = torch.randn(3, 6), torch.randn(3, 6)
    if transform == "vmap":
        direct = torch.func.vmap(call)(x, y)
        by_torch = torch.func.vmap(call.op)(x, y)
    else:
        direct = torch.func.functionalize(call)(x, y)
        by_torch = torch.func.functionalize(call.op)(x, y)
    assert torch.equal(direct, by_torch) and torch.allclose(direct, x + y)


@pytest.mark.parametrize(
    "bad_call",
    [
        lambda fn, x, y: fn(x),
        lambda fn, x, y: fn(x, y, beta=1.0),
        lambda fn, x, y: fn(x, y, 2.0),
        lambda fn, x, y: fn(x, y, alpha="two"),
        lambda fn, x, y: fn(x.double(), y.double()),  # the function refuses float64
        lambda fn, x, y: fn(x, y[:3]),  # and tensors of two sizes
    ],
)
def test_errors_are_the_operator_s(bad_call):
    _, call = register_functional_axpy()
    x, y = inputs()
    with pytest.raises(Exception) as direct_error:
        bad_call(call, x, y)
    with pytest.raises(Exception) as torch_error:
        bad_call(call.op, x, y)
    assert type(direct_error.value) is type(torch_error.value)
    assert str(direct_error.value) == str(torch_error.value)


def stream_of_op(outputs: bool):
    f = kwcall.wrap(targets()["stream_of"], kwcall.Signature(["t", "out"], name="stream_of"))
    name = op_name("stream_of")
    if outputs:
        rule = kwtorch.like("t", dims=(0,), dtype="int64")
        return name, kwtorch.register(f, name, types={"t": "Tensor"}, outputs={"out": rule})
    types = {"t": "Tensor", "out": "Tensor"}
    return name, kwtorch.register(f, name, types=types, mutates_args=["out"])


def test_the_function_sees_the_same_stream_either_way_cpu():
    # For CPU tensors neither route sets tvm-ffi's environment stream: the function sees the
    # one the caller set (here a made-up handle), through the object as through torch.
    name, call = stream_of_op(outputs=True)
    t = torch.ones(1)
    cpu = tvm_ffi.device("cpu", 0)
    assert call(t).item() == call.op(t).item() == 0
    with tvm_ffi.use_raw_stream(cpu, 0x5EED):
        direct, took_torch = through_torch(name, lambda: call(t))
        assert not took_torch
        assert direct.item() == call.op(t).item() == 0x5EED


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_the_function_sees_torch_s_current_stream_either_way_cuda():
    _, call = stream_of_op(outputs=False)
    t = torch.ones(1, device="cuda")
    side = torch.cuda.Stream()
    for stream in (torch.cuda.current_stream(), side):
        with torch.cuda.stream(stream):
            direct, by_torch = torch.zeros(1, dtype=torch.int64), torch.zeros(1, dtype=torch.int64)
            call(t, direct)
            call.op(t, by_torch)
        assert direct.item() == by_torch.item() == stream.cuda_stream


def test_under_torch_compile_the_object_calls_the_operator():
    from torch._inductor.utils import run_and_get_code

    name, call = register_functional_axpy()
    x, y = inputs()
    compiled = torch.compile(lambda x, y: call(x, y, alpha=2.0) + 1, fullgraph=True)
    result, code = run_and_get_code(compiled, x, y)
    assert torch.equal(result, call(x, y, alpha=2.0) + 1)
    ns, stem = name.split("::")
    assert f"torch.ops.{ns}.{stem}.default(" in "\n".join(code)


def test_after_unregister_the_object_goes_through_torch():
    name, call = register_functional_axpy()
    x, y = inputs()
    calls = targets()["axpy_calls"]
    kwtorch.unregister(name)
    before = calls()
    with pytest.raises(AttributeError, match="has no attribute"):  # as torch.ops.ns.name now
        call(x, y)
    assert calls() == before


def test_the_object_says_what_it_is():
    name, call = register_functional_axpy()
    assert call.qualified_name == name and call.op is call.fallback
    assert call.op.name() == name  # the operator's OpOverload, torch.ops.ns.name.default
    assert call.schema == "(Tensor x, Tensor y, *, float alpha=1.0) -> Tensor"
    assert call.function.signature.name == "axpy"
    assert isinstance(call.direct, kwcall.Function)


def test_the_mutating_operator_s_eager_call_under_torch_compile():
    name = op_name("axpy_out")
    call = kwtorch.register(axpy_function(), name, mutates_args=["out"], types=TENSORS)

    def model(x, y, out):
        call(x, y, out, alpha=2.0)
        return out * 3.0

    x, y = inputs()
    out, expected_out = torch.zeros(6), torch.zeros(6)
    result = torch.compile(model, fullgraph=True)(x, y, out)
    assert torch.equal(result, model(x, y, expected_out)) and torch.equal(out, expected_out)
