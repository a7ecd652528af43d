"""A function compiled by kwcall.cute as a torch operator: the schema's types come from
CuTeDSL's compile (cute.Tensor, Int32, Float32, Boolean, a tensor compiled with None), and the
host-only kernel runs on CPU tensors through torch.ops as it does when called directly."""

# No `from __future__ import annotations`: CuTeDSL reads the annotations at compile time.
import pytest
from torch_helpers import kwtorch, op, op_name, torch

cute = pytest.importorskip("cutlass.cute", reason="CuTeDSL (nvidia-cutlass-dsl) is not installed")
np = pytest.importorskip("numpy")
kwcute = pytest.importorskip("kwcall.cute")

from cutlass import Boolean, Float32, Int32  # noqa: E402
from cutlass.cute.runtime import from_dlpack  # noqa: E402

pytestmark = pytest.mark.usefixtures("registered_ops")


@cute.jit
def scaled(
    out: cute.Tensor,
    bias: cute.Tensor,
    a: Int32,
    b: Float32 = Float32(1.5),  # noqa: B008  (CuTeDSL's own style of default)
    *,
    flag: Boolean = Boolean(False),  # noqa: B008
):
    out[0] = Float32(a) * b
    if flag:
        out[1] = Float32(1.0)


@pytest.fixture(scope="module")
def compiled():
    buffer = np.zeros(4, dtype=np.float32)
    return kwcute.compile(scaled, from_dlpack(buffer), None, Int32(1), Float32(2.0), flag=True)


def test_types_come_from_the_compile(compiled):
    assert (
        kwtorch.schema_of(compiled, mutates_args=["out"])
        == "(Tensor(a!) out, Tensor? bias, int a, float b=1.5, *, bool flag=False) -> ()"
    )


def test_types_override_the_compile_s(compiled):
    assert kwtorch.schema_of(compiled, types={"a": "float"}).startswith(
        "(Tensor out, Tensor? bias, float a, "
    )


def test_the_kernel_runs_through_torch_ops_as_called_directly(compiled):
    name = op_name("scaled")
    call = kwtorch.register(compiled, name, mutates_args=["out"])
    assert call.function is compiled
    through_op, direct, eager = torch.zeros(4), torch.zeros(4), torch.zeros(4)
    for args, kwargs in [((3,), {"flag": True}), ((2, 0.25), {}), ((5,), {"b": -1.0})]:
        for out in (through_op, direct, eager):
            out.zero_()
        op(name)(through_op, None, *args, **kwargs)
        compiled(direct, None, *args, **kwargs)
        call(eager, None, *args, **kwargs)  # the eager call object, directly
        assert through_op.tolist() == direct.tolist() == eager.tolist()
    through_op.zero_()
    op(name)(through_op, None, 3, flag=True)
    assert through_op.tolist() == [4.5, 1.0, 0.0, 0.0]


@cute.jit
def takes_a_pointer(p: cute.Pointer, n: Int32):
    pass


def test_a_raw_pointer_parameter_is_refused():
    from cutlass.cute.runtime import make_ptr

    buffer = np.zeros(4, dtype=np.float32)
    pointer = make_ptr(Float32, buffer.ctypes.data, cute.AddressSpace.generic)
    compiled = kwcute.compile(takes_a_pointer, pointer, Int32(1))
    with pytest.raises(ValueError) as error:
        kwtorch.schema_of(compiled)
    assert str(error.value) == (
        "kwcall.torch: parameter 'p' is a raw pointer, which a torch schema cannot express: "
        "compile the kernel with a cute.Tensor there (a tensor is passed as a DLPack view)"
    )
