"""kwcall.cute against stock CuTeDSL, on host-only @cute.jit functions (no GPU needed).

CuTeDSL compiles and runs functions that only touch host memory (scalars, CPU tensors
through DLPack) on a machine without a GPU, so these tests run in CI. Each kwcall-backed
function is compared with stock CuTeDSL's object for the same compile.
"""

# No `from __future__ import annotations`: CuTeDSL reads the annotations (Constexpr
# fields of dataclasses) at compile time and does not resolve strings.
import dataclasses
import inspect
import subprocess
import warnings

import kwcall
import pytest
import tvm_ffi
from helpers import build_native, load_cute_library, wait_until

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
    provider = kwcute._cutedsl.provider()
    stock_class = provider.TVMFFIJitCompiledFunctionWithKwargs
    assert kwcute.install()
    try:
        assert kwcute.is_installed() and kwcute.install()  # idempotent
        f = cute.compile(
            axpb, from_dlpack(out), Int32(1), 3, c=Int32(5), options="--enable-tvm-ffi"
        )
        assert isinstance(f, kwcall.Function)
        # Errors name the user's function, found on CuTeDSL's own frames (stock: "wrapper").
        with pytest.raises(TypeError, match=r"^axpb\(\) missing"):
            f(out)
    finally:
        kwcute.uninstall()
    assert provider.TVMFFIJitCompiledFunctionWithKwargs is stock_class
    g = cute.compile(axpb, from_dlpack(out), Int32(1), 3, c=Int32(5), options="--enable-tvm-ffi")
    assert not isinstance(g, kwcall.Function)
    assert run(f, out, out, 2, c=3) == axpb_expected(2, c=3)  # still works after uninstall


def test_unknown_version_warns_and_leaves_cutedsl_alone(monkeypatch):
    provider = kwcute._cutedsl.provider()
    stock_class = provider.TVMFFIJitCompiledFunctionWithKwargs
    monkeypatch.setattr(kwcute._cutedsl_versions, "cutedsl_version", lambda: "4.5.3")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert kwcute.install() is False
    assert any("4.5.3 is not supported" in str(w.message) for w in caught)
    assert provider.TVMFFIJitCompiledFunctionWithKwargs is stock_class
    assert not kwcute.is_installed()


def test_pointer_conversion_step_runs_before_binding(out, monkeypatch):
    # Functions compiled with pointer arguments get CuTeDSL's conversion of pointer objects
    # as a step before binding: kwcall.cute makes the function with it when execution_args
    # asks for it (here asked for every compile, and watched).
    seen = []

    def watched(stock):
        execution_args = stock.execution_args

        def convert(args, kwargs):
            seen.append((len(args), sorted(kwargs)))
            return execution_args.convert_python_pointer_args_for_tvm_ffi(args, kwargs)

        return convert

    monkeypatch.setattr(kwcute._cutedsl, "pointer_conversion", watched)
    f = kwcute.compile(axpb, from_dlpack(out), Int32(1), 3, c=Int32(5))
    assert run(f, out, out, 2, c=3) == axpb_expected(2, c=3)
    assert run(f, out, out, 2, d=1, c=3) == axpb_expected(2, c=3, d=1)
    assert seen == [(2, ["c"]), (2, ["c", "d"])]
    with pytest.raises(TypeError, match=r"^axpb\(\) missing 1 required keyword-only"):
        f(out, 2)
    broken = kwcall._function.make(type(f), f.target, f.signature, lambda args, kwargs: None)
    with pytest.raises(TypeError, match=r"preprocess step must return \(args, kwargs\)"):
        broken(out, 2, c=3)
    without = kwcall._function.make(type(f), f.target, f.signature)  # no step
    assert run(without, out, out, 2, c=3) == axpb_expected(2, c=3)


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


# -- drop-in completeness -----------------------------------------------------------------------
def test_compile_changes_nothing_in_cutedsl(out):
    # kwcall.cute.compile builds its object from CuTeDSL's own result: the class CuTeDSL hands
    # out stays its own the whole time, so other threads' compiles are untouched.
    import threading

    provider = kwcute._cutedsl.provider()
    stock_class = provider.TVMFFIJitCompiledFunctionWithKwargs
    seen, stop = set(), threading.Event()

    def watch():
        while not stop.is_set():
            seen.add(provider.TVMFFIJitCompiledFunctionWithKwargs)

    watcher = threading.Thread(target=watch)
    watcher.start()
    # The watcher looks before the compiles start (on a busy machine it may not run at once).
    wait_until(lambda: seen, "the watcher's first look")
    try:
        for _ in range(3):
            f = kwcute.compile(axpb, from_dlpack(out), Int32(1), 3, c=Int32(5))
            assert run(f, out, out, 2, c=3) == axpb_expected(2, c=3)
    finally:
        stop.set()
        watcher.join()
    assert seen == {stock_class}
    stock = cute.compile(
        axpb, from_dlpack(out), Int32(1), 3, c=Int32(5), options="--enable-tvm-ffi"
    )
    assert type(stock) is stock_class


def test_concurrent_kwcall_compiles_and_calls(out):
    # CuTeDSL's compile is not thread-safe; kwcall's compiles take turns, and calls run freely.
    import threading

    buffers = [np.zeros(4, dtype=np.float32) for _ in range(4)]
    results, errors = {}, []

    def work(i):
        try:
            f = kwcute.compile(axpb, from_dlpack(buffers[i]), Int32(1), 3, c=Int32(5))
            results[i] = [run(f, buffers[i], buffers[i], i, c=k) for k in range(20)]
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    for i in range(4):
        assert results[i] == [axpb_expected(i, c=k) for k in range(20)]


def test_stock_object_api_keeps_working(compiled, out):
    import copy

    provider = kwcute._cutedsl.provider()
    stock, ours = compiled
    # __tvm_ffi_object__: the raw native function, as stock returns it.
    assert ours.__tvm_ffi_object__() is ours._tvm_ffi_function
    assert isinstance(stock.__tvm_ffi_object__(), tvm_ffi.Function)
    # isinstance against CuTeDSL's class keeps its meaning.
    assert isinstance(ours, provider.TVMFFIJitCompiledFunctionWithKwargs)
    assert isinstance(ours, provider.TVMFFIJitCompiledFunctionBase)
    # copy.copy: a working copy sharing CuTeDSL's state (stock's copy does the same).
    for twin in (copy.copy(ours), copy.deepcopy(ours)):
        assert type(twin) is type(ours)
        assert twin.engine is ours.engine and twin._tvm_ffi_function is ours._tvm_ffi_function
        assert twin.__chandle__() == ours.__chandle__()
        assert run(twin, out, out, 2, c=3) == axpb_expected(2, c=3)
    assert run(copy.copy(stock), out, out, 2, c=3) == axpb_expected(2, c=3)


def test_install_keeps_isinstance_for_classes_imported_before(out):
    from cutlass.cutlass_dsl.tvm_ffi_provider import TVMFFIJitCompiledFunctionWithKwargs as Stock

    assert kwcute.install()
    try:
        f = cute.compile(
            axpb, from_dlpack(out), Int32(1), 3, c=Int32(5), options="--enable-tvm-ffi"
        )
    finally:
        kwcute.uninstall()
    assert isinstance(f, Stock) and isinstance(f, kwcall.Function)
    assert kwcute.is_compiled_function(f)


@cute.jit
def posonly(out: cute.Tensor, a: Int32, b: Int32, /, *, c: Int32 = Int32(0)):  # noqa: B008
    out[0] = Float32(a) * 10.0 + Float32(b) + Float32(c) * 100.0


def test_positional_only_parameters_follow_python(out):
    stock = cute.compile(posonly, from_dlpack(out), Int32(1), Int32(2), options="--enable-tvm-ffi")
    ours = kwcute.compile(posonly, from_dlpack(out), Int32(1), Int32(2))
    assert str(inspect.signature(ours)) == "(out, a, b, /, *, c=0)"
    assert run(ours, out, out, 3, 4) == 34.0
    assert run(ours, out, out, 3, 4, c=1) == 134.0
    # Stock accepts b by keyword (its spec drops "/"); Python and kwcall do not.
    assert run(stock, out, out, 3, b=4) == 34.0

    def reference(out, a, b, /, *, c=0):
        pass

    reference.__qualname__ = "posonly"
    with pytest.raises(TypeError) as expected:
        reference(out, 3, b=4)
    with pytest.raises(TypeError) as got:
        ours(out, 3, b=4)
    assert str(got.value) == str(expected.value)
    assert "positional-only arguments passed as keyword arguments: 'b'" in str(got.value)
    # From C++ (tvm-ffi's KWARGS convention, on the native handle) too.
    name = f"kwcall_test.posonly.{id(ours)}"
    tvm_ffi.register_global_func(name, ours, override=True)
    with pytest.raises(TypeError) as from_cpp:
        tvm_ffi.get_global_func(name)(out, 3, tvm_ffi.core.KWARGS, "b", 4)
    tvm_ffi.remove_global_func(name)
    assert str(from_cpp.value) == str(expected.value)


def test_no_engine_compile_raises_clearly_and_replaces_nothing_silently(out):
    ours = kwcute.compile(axpb, from_dlpack(out), Int32(1), 3, c=Int32(5), no_jit_engine=True)
    assert ours._tvm_ffi_function is None
    assert str(ours.signature) == "(out, a, b=1.5, *, c, d=10)"
    with pytest.raises(RuntimeError, match=r"axpb\(\) has no native function here: .*export_to_c"):
        ours(out, 2, c=3)
    with pytest.raises(RuntimeError, match="has no native function here"):
        ours.run_compiled_program([out, 2, 0.5, 3, 1])
    # An existing global of that name survives a registration that does not override...
    name = f"kwcall_test.no_engine.{id(ours)}"
    tvm_ffi.register_global_func(name, lambda: "kept")
    with pytest.raises(Exception, match="already registered"):
        tvm_ffi.register_global_func(name, ours)
    assert tvm_ffi.get_global_func(name)() == "kept"
    # ...and one that does gives C++ callers the same clear error, never a missing function.
    tvm_ffi.register_global_func(name, ours, override=True)
    with pytest.raises(RuntimeError, match="has no native function here"):
        tvm_ffi.get_global_func(name)(out, 2, tvm_ffi.core.KWARGS, "c", 3)
    tvm_ffi.remove_global_func(name)
    # Passed to C++ as an argument it is a valid function (stock's object crashes the process).
    echo = tvm_ffi.get_global_func("testing.echo")
    assert echo(ours).__chandle__() == ours.__chandle__()


def test_export_to_c_ships_the_signature(compiled, tmp_path):
    _, ours = compiled
    obj = tmp_path / "axpb.o"
    sidecar = kwcute.export_to_c(ours, str(obj), function_name="axpb_aot")
    assert kwcall.Signature.from_json(open(sidecar).read()) == ours.signature
    symbols = subprocess.run(["nm", str(obj)], capture_output=True, text=True).stdout
    assert "__tvm_ffi_axpb_aot" in symbols
    assert "__tvm_ffi___kwcall_signature_axpb_aot" in symbols
    no_engine = kwcute.compile(
        axpb, from_dlpack(np.zeros(4, np.float32)), Int32(1), 3, c=Int32(5), no_jit_engine=True
    )
    kwcute.export_to_c(no_engine, str(tmp_path / "ne.o"), function_name="axpb_ne")
    assert (
        "__tvm_ffi___kwcall_signature_axpb_ne"
        in subprocess.run(["nm", str(tmp_path / "ne.o")], capture_output=True, text=True).stdout
    )
    with pytest.raises(ValueError, match="function_name must be a C identifier"):
        kwcute.export_to_c(ours, str(tmp_path / "x.o"), function_name="a-b")


def test_exported_library_loads_with_keywords(compiled, out, tmp_path):
    # CuTeDSL's "AOT use" route: link the object into a shared library with CuTeDSL's runtime
    # libraries, load it with tvm-ffi; kwcall.load_function restores the keywords.
    _, ours = compiled
    obj = tmp_path / "axpb.o"
    kwcute.export_to_c(ours, str(obj), function_name="axpb_lib")
    module = load_cute_library(obj, tmp_path / "libaxpb.so")
    f = kwcall.load_function(module, "axpb_lib")
    assert str(f.signature) == "(out, a, b=1.5, *, c, d=10)"
    assert run(f, out, out, 2, c=3) == axpb_expected(2, c=3)
    assert run(f, out, out, 2, 0.5, d=1, c=3) == axpb_expected(2, 0.5, c=3, d=1)
