"""Eager calls of kwcall operators: results equal to calling the kwcall function, every
argument reaching the function as the signature binds it, torch's own errors for bad calls,
the function's errors as RuntimeError, autograd refusing a backward, nothing kept alive after
use, and many threads calling through the dispatcher at once."""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
import weakref
from pathlib import Path

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


def layouts():
    """(x, y, out) triples of one shape in layouts a kernel must honour: contiguous,
    transposed, strided slices with a storage offset."""
    g = torch.Generator().manual_seed(0)
    base = torch.randn(6, 5, generator=g)
    yield base[:4, :3].clone(), torch.randn(4, 3, generator=g), torch.zeros(4, 3)
    yield base.t()[:, :4], torch.randn(5, 4, generator=g), torch.zeros(4, 5).t()
    yield base[1::2, 1:], torch.randn(6, 4, generator=g)[::2], torch.zeros(3, 8)[:, ::2]


@pytest.mark.parametrize("alpha", [1.0, -2.5, 0.0])
def test_results_equal_calling_the_function(alpha):
    name, axpy_op = register_axpy()
    f = axpy_function()
    for x, y, out in layouts():
        expected = torch.zeros_like(out)
        f(x, y, expected, alpha=alpha)
        axpy_op(x, y, out, alpha=alpha)
        assert torch.equal(out, expected)
        assert torch.allclose(out, alpha * x + y)


def test_the_default_and_the_overload_packet():
    _, axpy_op = register_axpy()
    x, y, out = torch.ones(3), torch.full((3,), 2.0), torch.zeros(3)
    axpy_op(x, y, out)
    assert out.tolist() == [3.0, 3.0, 3.0]
    axpy_op.default(x, y, out=out, alpha=4.0)
    assert out.tolist() == [6.0, 6.0, 6.0]


RECORDED = (
    "(Tensor(a!) x, Tensor? t=None, *, float a=1.0, int n=2, bool b=False, str s='hi', int? o=None)"
)


@pytest.fixture
def recorder_op():
    signature = kwcall.Signature(
        ["x", "t"],
        (None,),
        ["a", "n", "b", "s", "o"],
        {"a": 1.0, "n": 2, "b": False, "s": "hi", "o": None},
        name="rec",
    )
    f = kwcall.wrap(targets()["recorder"](), signature)
    name = op_name("rec")
    kwtorch.register(f, name, mutates_args=["x"], types={"x": "Tensor", "t": "Tensor", "o": "int"})
    assert kwtorch.registered()[name] == RECORDED + " -> ()"
    return f, op(name)


TENSOR = "Tensor(DLTensor*, ndim=1, bits=32, code=2, device=1)"


@pytest.mark.parametrize(
    "args, kwargs, expected",
    [
        ((), {}, [TENSOR, "None", "float:1", "int:2", "bool:False", "str:hi", "None"]),
        (
            ("T",),
            {"a": 0.5},
            [TENSOR, TENSOR, "float:0.5", "int:2", "bool:False", "str:hi", "None"],
        ),
        (
            (),
            {"t": "T", "o": -3, "s": "héllo", "b": True, "n": 7},
            [TENSOR, TENSOR, "float:1", "int:7", "bool:True", "str:héllo", "int:-3"],
        ),
        (
            (None,),
            {"o": None},
            [TENSOR, "None", "float:1", "int:2", "bool:False", "str:hi", "None"],
        ),
        (  # every byte of a str, a NUL among them, long or short
            (),
            {"s": "a\0b"},
            [TENSOR, "None", "float:1", "int:2", "bool:False", "str:a\0b", "None"],
        ),
        (
            (),
            {"s": "\0" + "x" * 40 + "\0"},
            [TENSOR, "None", "float:1", "int:2", "bool:False", "str:\0" + "x" * 40 + "\0", "None"],
        ),
    ],
)
def test_keywords_and_defaults_reach_the_function_as_a_direct_call_binds_them(
    recorder_op, args, kwargs, expected
):
    f, rec = recorder_op
    x = torch.zeros(2)
    args = tuple(x if a == "T" else a for a in args)
    kwargs = {k: x if v == "T" else v for k, v in kwargs.items()}
    last = targets()["last_record"]
    rec(x, *args, **kwargs)
    through_op = list(last())
    f(x, *args, **kwargs)
    # A direct call passes a torch tensor as tvm-ffi's Tensor, the operator as a DLTensor view.
    direct = [s.replace("ffi.Tensor", "DLTensor*") for s in last()]
    assert through_op == expected
    assert direct == expected


# Every dtype torch's stable C shim and DLPack both name (src/torch/shim.h, kDtypes).
DTYPES = [
    *(torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.bool),
    *(torch.int8, torch.int16, torch.int32, torch.int64),
    *(torch.uint8, torch.uint16, torch.uint32, torch.uint64),
    *(torch.complex32, torch.complex64, torch.complex128),
    *(torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz),
    *(torch.float8_e8m0fnu, torch.float4_e2m1fn_x2),
]


def _shim_names(dtype: torch.dtype) -> bool:
    """Whether the loaded torch's C shim has the function that gives ``dtype``'s code (2.10
    has none for float8_e8m0fnu and float4_e2m1fn_x2)."""
    library = ctypes.CDLL(str(Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"))
    return hasattr(library, "aoti_torch_dtype_" + str(dtype).removeprefix("torch."))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_dtype_reaches_the_function_as_a_direct_call_passes_it(dtype):
    f = kwcall.wrap(targets()["recorder"](), kwcall.Signature(["x"], name="rec"))
    name = op_name("dtype")
    kwtorch.register(f, name, mutates_args=["x"], types={"x": "Tensor"})
    x = torch.empty(3, 2, dtype=dtype)
    last = targets()["last_record"]
    if not _shim_names(dtype):
        with pytest.raises(
            RuntimeError, match=f"{name}: argument 'x' has a dtype kwcall's kernel "
        ):
            op(name)(x)
        return
    op(name)(x)
    through_op = list(last())
    f(x)  # tvm-ffi's own conversion: torch's DLPack export
    assert through_op == [s.replace("ffi.Tensor", "DLTensor*") for s in last()]
    assert "ndim=2" in through_op[0]


def test_a_dtype_dlpack_cannot_say_is_refused_naming_it():
    name = op_name("bits")
    f = kwcall.wrap(targets()["recorder"](), kwcall.Signature(["x"], name="rec"))
    kwtorch.register(f, name, mutates_args=["x"], types={"x": "Tensor"})
    with pytest.raises(RuntimeError, match=f"{name}: argument 'x' has a dtype kwcall's kernel "):
        op(name)(torch.empty(2, dtype=torch.bits8))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda o, x, out: o(x), "is missing value for argument 'y'"),
        (lambda o, x, out: o(x, x, out, beta=1.0), "Unknown keyword argument 'beta'"),
        (lambda o, x, out: o(x, x, out, 2.0), "takes 3 positional argument(s) but 4"),
        (
            lambda o, x, out: o(x, x, out, alpha="a"),
            "Expected a value of type 'float' for argument 'alpha' but instead found type 'str'",
        ),
        (
            lambda o, x, out: o(x, 1, out),
            "Expected a value of type 'Tensor' for argument 'y' but instead found type 'int'",
        ),
    ],
)
def test_torch_s_own_errors_for_bad_calls(call, message):
    _, axpy_op = register_axpy()
    x, out = torch.ones(3), torch.zeros(3)
    with pytest.raises(RuntimeError) as error:
        call(axpy_op, x, out)
    assert message in str(error.value)
    axpy_op(x, x, out)  # the operator still works
    assert out.tolist() == [2.0, 2.0, 2.0]


def test_the_function_s_errors_arrive_as_runtime_error_naming_the_operator():
    name, axpy_op = register_axpy()
    x = torch.ones(3)
    with pytest.raises(RuntimeError, match=f"{name}: TypeError: .*axpy takes float32 tensors"):
        axpy_op(x.double(), x, torch.zeros(3))
    fail_name = op_name("fail")
    fail = kwcall.wrap(targets()["fail"], kwcall.Signature(["x"]))
    kwtorch.register(fail, fail_name, mutates_args=["x"], types={"x": "Tensor"})
    with pytest.raises(RuntimeError, match=f"{fail_name}: ValueError: fail.. was called, as asked"):
        op(fail_name)(x)


def test_a_backward_through_the_operator_is_refused_by_torch():
    _, axpy_op = register_axpy()
    x = torch.ones(3, requires_grad=True)
    out = torch.zeros(3)
    axpy_op(x, torch.ones(3), out, alpha=2.0)
    assert out.tolist() == [3.0, 3.0, 3.0]
    assert out.grad_fn is None
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        out.sum().backward()
    assert x.grad is None  # never a silent gradient


def test_tensors_and_the_function_are_freed_after_use():
    f = axpy_function()
    held = sys.getrefcount(f)
    name = op_name("freed")
    kwtorch.register(f, name, mutates_args=["out"], types=TENSORS)
    assert sys.getrefcount(f) == held + 1  # kept by the registry while registered
    x, y, out = torch.ones(3), torch.ones(3), torch.zeros(3)
    op(name)(x, y, out)
    refs = [weakref.ref(t) for t in (x, y, out)]
    del x, y, out
    gc.collect()
    assert [r() for r in refs] == [None, None, None]
    kwtorch.unregister(name)
    gc.collect()
    assert sys.getrefcount(f) == held


def test_many_threads_call_through_the_dispatcher_at_once():
    _, axpy_op = register_axpy()
    calls = targets()["axpy_calls"]
    before = calls()
    errors: list[BaseException] = []
    rounds, threads = 300, 8

    def work(index: int) -> None:
        try:
            x = torch.full((16,), float(index))
            y = torch.ones(16)
            out = torch.zeros(16)
            for i in range(rounds):
                axpy_op(x, y, out, alpha=float(i))
                assert out[0].item() == index * i + 1.0
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert not errors
    assert calls() - before == rounds * threads
