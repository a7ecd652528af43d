"""kwcall.cute against stock CuTeDSL, on host-only @cute.jit functions (no GPU needed).

CuTeDSL compiles and runs functions that only touch host memory (scalars, CPU tensors
through DLPack) on a machine without a GPU, so these tests run in CI. Each kwcall-backed
function is compared with stock CuTeDSL's object for the same compile.
"""

# No `from __future__ import annotations`: CuTeDSL reads the annotations (Constexpr
# fields of dataclasses) at compile time and does not resolve strings.
import dataclasses
import inspect
import warnings

import kwcall
import pytest
import tvm_ffi
from helpers import build_native

cutlass = pytest.importorskip("cutlass")
cute = pytest.importorskip("cutlass.cute")
np = pytest.importorskip("numpy")
kwcute = pytest.importorskip("kwcall.cute")

from cutlass import Constexpr, Float32, Int32  # noqa: E402
from cutlass.cute.runtime import from_dlpack  # noqa: E402


@cute.jit
def axpb(
    out: cute.Tensor,
    a: Int32,
    n: Constexpr[int],
    b: Float32 = Float32(1.5),  # noqa: B008  (CuTeDSL's own style of default)
    *,
    c: Int32,
    d: Int32 = Int32(10),  # noqa: B008
):
    out[0] = Float32(a) * b + Float32(c) + Float32(d) + Float32(n)


def axpb_expected(a, b=1.5, *, c, d=10, n=3):
    return a * b + c + d + n


@dataclasses.dataclass
class Params:
    x: Int32
    k: Constexpr[int]
    y: Float32


# The tensor comes last: CuTeDSL 4.8.1 fails to compile a tensor before a dataclass.
@cute.jit
def with_params(p: Params, z: Int32, out: cute.Tensor):
    out[0] = Float32(p.x) * p.y + Float32(z) + Float32(p.k)


@pytest.fixture(scope="module")
def out():
    return np.zeros(4, dtype=np.float32)


@pytest.fixture(scope="module")
def compiled(out):
    args = (axpb, from_dlpack(out), Int32(1), 3, Float32(2.0))
    stock = cute.compile(*args, c=Int32(5), d=Int32(6), options="--enable-tvm-ffi")
    ours = kwcute.compile(*args, c=Int32(5), d=Int32(6))
    return stock, ours


@pytest.fixture(scope="module")
def caller(tmp_path_factory):
    module = build_native(
        "kwcall_cute_caller", "cute_caller.cc", tmp_path_factory.mktemp("cute"), with_kwcall=True
    )
    call = module.call
    call.release_gil = False  # Python holds the GIL for the whole C++ call
    return call


def run(fn, buf, /, *args, **kwargs):
    """Calls fn, which writes its result to buf[0], and returns that."""
    buf[:] = 0
    fn(*args, **kwargs)
    return float(buf[0])


CALLS = [
    ((2,), {"c": 3}),
    ((2, 0.5), {"c": 3, "d": 1}),
    ((), {"a": 2, "c": 1}),
    ((7,), {"d": -4, "c": 2, "b": 0.25}),
]


def test_compile_returns_a_kwcall_function(compiled):
    stock, ours = compiled
    assert not isinstance(stock, tvm_ffi.Function)
    assert isinstance(ours, kwcall.Function) and isinstance(ours, tvm_ffi.Function)
    assert isinstance(ours, type(stock).__mro__[1])  # TVMFFIJitCompiledFunctionBase
    # The combined type keeps kwcall's vectorcall instead of tvm_ffi.Function.__call__.
    py_tpflags_have_vectorcall = 1 << 11
    assert type(ours).__flags__ & py_tpflags_have_vectorcall
    assert str(inspect.signature(ours)) == "(out, a, b=1.5, *, c, d=10)"
    assert not kwcute.is_installed()


@pytest.mark.parametrize("args, kwargs", CALLS)
def test_python_keyword_calls_match_stock(compiled, out, args, kwargs):
    stock, ours = compiled
    expected = axpb_expected(*args, **kwargs)
    assert run(stock, out, out, *args, **kwargs) == expected
    assert run(ours, out, out, *args, **kwargs) == expected


@pytest.mark.parametrize(
    "args, kwargs",
    [((), {}), ((1,), {}), ((1, 2.0, 3), {"c": 1}), ((1,), {"c": 1, "e": 2}), ((1,), {"a": 1})],
)
def test_binding_errors_match_stock(compiled, out, args, kwargs):
    stock, ours = compiled
    with pytest.raises(TypeError) as stock_err:
        stock(out, *args, **kwargs)
    with pytest.raises(TypeError) as our_err:
        ours(out, *args, **kwargs)
    # Stock CuTeDSL names its generated wrapper; kwcall.cute.compile names the function.
    assert str(our_err.value) == str(stock_err.value).replace("wrapper()", "axpb()")


def test_cpp_positional_and_keyword_calls_without_the_gil(compiled, out, caller):
    _, ours = compiled
    tvm_ffi.register_global_func("kwcall_test.axpb", ours, override=True)
    out[:] = 0
    assert caller("kwcall_test.axpb", [out, 2, 0.5, 3, 1], [], 1000, 20000) == 1000
    assert out[0] == axpb_expected(2, 0.5, c=3, d=1)
    out[:] = 0
    assert caller("kwcall_test.axpb", [out, 2], ["c", 3], 1000, 20000) == 1000
    assert out[0] == axpb_expected(2, c=3)


def test_stock_object_registered_needs_the_gil(compiled, out, caller):
    stock, _ = compiled
    tvm_ffi.register_global_func("kwcall_test.axpb_stock", stock, override=True)
    # A Python callback: the C++ thread cannot run while this thread holds the GIL.
    assert caller("kwcall_test.axpb_stock", [out, 2], ["c", 3], 1, 300) == -1


def test_native_handle_and_kwargs_from_python(compiled, out):
    _, ours = compiled
    tvm_ffi.register_global_func("kwcall_test.axpb2", ours, override=True)
    handle = tvm_ffi.get_global_func("kwcall_test.axpb2")
    assert run(handle, out, out, 2, 1.0, 3, 4) == axpb_expected(2, 1.0, c=3, d=4)
    assert run(handle, out, out, 2, tvm_ffi.core.KWARGS, "c", 3) == axpb_expected(2, c=3)


def test_cutedsl_state_is_kept(compiled, out, tmp_path):
    stock, ours = compiled
    assert ours.to() is ours
    for attr in ("engine", "ir_module", "capi_func", "execution_args", "artifacts"):
        assert getattr(ours, attr) is not None, attr
    assert ours.function_name == stock.function_name
    assert isinstance(ours._tvm_ffi_function, tvm_ffi.Function)
    out[:] = 0  # CuTeDSL's implicit compile-and-call passes every parameter in order
    ours.run_compiled_program([out, 2, 0.5, 3, 1])
    assert out[0] == axpb_expected(2, 0.5, c=3, d=1)
    obj = tmp_path / "axpb.o"
    ours.export_to_c(str(obj), function_name="axpb_export")
    assert b"__tvm_ffi_axpb_export" in obj.read_bytes()


def test_dataclass_parameters(out):
    # Fresh arguments per compile: CuTeDSL's tracing leaves IR values in the dataclass.
    def args():
        return (with_params, Params(Int32(1), 7, Float32(2.0)), Int32(3), from_dlpack(out))

    stock = cute.compile(*args(), options="--enable-tvm-ffi")
    ours = kwcute.compile(*args())
    calls = [((Params(4, 7, 5.0), 6, out), {}), ((), {"z": 9, "out": out, "p": Params(4, 7, 0.5)})]
    for call_args, call_kwargs in calls:
        expected = run(stock, out, *call_args, **call_kwargs)
        assert run(ours, out, *call_args, **call_kwargs) == expected
    assert expected == 4 * 0.5 + 9 + 7


def test_install_and_uninstall(out):
    provider = kwcute._provider()
    stock_class = provider.TVMFFIJitCompiledFunctionWithKwargs
    assert kwcute.install()
    try:
        assert kwcute.is_installed() and kwcute.install()  # idempotent
        f = cute.compile(
            axpb, from_dlpack(out), Int32(1), 3, c=Int32(5), options="--enable-tvm-ffi"
        )
        assert isinstance(f, kwcall.Function)
        with pytest.raises(TypeError, match=r"^wrapper\(\) missing"):
            f(out)
    finally:
        kwcute.uninstall()
    assert provider.TVMFFIJitCompiledFunctionWithKwargs is stock_class
    g = cute.compile(axpb, from_dlpack(out), Int32(1), 3, c=Int32(5), options="--enable-tvm-ffi")
    assert not isinstance(g, kwcall.Function)
    assert run(f, out, out, 2, c=3) == axpb_expected(2, c=3)  # still works after uninstall


def test_unknown_version_warns_and_leaves_cutedsl_alone(monkeypatch):
    provider = kwcute._provider()
    stock_class = provider.TVMFFIJitCompiledFunctionWithKwargs
    monkeypatch.setattr(kwcute, "cutedsl_version", lambda: "4.5.3")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert kwcute.install() is False
    assert any("4.5.3 is not supported" in str(w.message) for w in caught)
    assert provider.TVMFFIJitCompiledFunctionWithKwargs is stock_class
    assert not kwcute.is_installed()


def test_pointer_conversion_step_runs_before_binding(out):
    # Functions compiled with pointer arguments get CuTeDSL's conversion of pointer objects
    # as a step before binding (kwcall.cute sets it when execution_args asks for it).
    f = kwcute.compile(axpb, from_dlpack(out), Int32(1), 3, c=Int32(5))
    seen = []

    def convert(args, kwargs):
        seen.append((len(args), sorted(kwargs)))
        return f.execution_args.convert_python_pointer_args_for_tvm_ffi(args, kwargs)

    kwcall._kwcall.set_preprocess(f, convert)
    assert run(f, out, out, 2, c=3) == axpb_expected(2, c=3)
    assert run(f, out, out, 2, d=1, c=3) == axpb_expected(2, c=3, d=1)
    assert seen == [(2, ["c"]), (2, ["c", "d"])]
    with pytest.raises(TypeError, match=r"^axpb\(\) missing 1 required keyword-only"):
        f(out, 2)
    kwcall._kwcall.set_preprocess(f, lambda args, kwargs: None)
    with pytest.raises(TypeError, match=r"preprocess step must return \(args, kwargs\)"):
        f(out, 2, c=3)
    kwcall._kwcall.set_preprocess(f, None)
    assert run(f, out, out, 2, c=3) == axpb_expected(2, c=3)


@cute.jit
def store(p: cute.Pointer, v: Float32, *, scale: Float32 = Float32(2.0)):  # noqa: B008
    t = cute.make_tensor(p, cute.make_layout(4))
    t[0] = v * scale


def test_pointer_parameters_match_stock():
    from cutlass.cute.runtime import make_ptr

    buf = np.zeros(4, dtype=np.float32)
    ptr = make_ptr(Float32, buf.ctypes.data)
    stock = cute.compile(store, ptr, Float32(1.0), options="--enable-tvm-ffi")
    ours = kwcute.compile(store, make_ptr(Float32, buf.ctypes.data), Float32(1.0))
    for args, kwargs in [((ptr, 3.0), {}), ((ptr,), {"v": 3.0, "scale": 0.5})]:
        expected = run(stock, buf, *args, **kwargs)
        assert run(ours, buf, *args, **kwargs) == expected
    assert run(ours, buf, buf.ctypes.data, 4.0) == 8.0  # a plain address works too
