"""install()/uninstall() while other threads use what they patch (issue 24.5): threads reading a
loaded module's function by attribute and by item while another thread installs and
uninstalls in a loop each get the patched result (a kwcall.Function) or the stock one (a
tvm_ffi.Function), never an exception. uninstall() used to clear what a thread inside the hook
was about to read (KeyError: '__getattr__'). A host-only @cute.jit function, no GPU needed."""

# No `from __future__ import annotations`: CuTeDSL reads the annotations at compile time.
import sys
import threading

import kwcall
import pytest
import tvm_ffi
from helpers import TIME_SCALE, run_threads_for

cute = pytest.importorskip("cutlass.cute")
np = pytest.importorskip("numpy")
kwcute = pytest.importorskip("kwcall.cute")

from cutlass import Float32, Int32  # noqa: E402
from cutlass.cute.runtime import from_dlpack  # noqa: E402

READERS = 4
SECONDS = 3.0 * TIME_SCALE


@cute.jit
def host(out: cute.Tensor, a: Int32, *, k: Int32 = Int32(1)):  # noqa: B008
    out[0] = Float32(a) + Float32(k)


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    """A module loaded from an object that carries the signature."""
    obj = tmp_path_factory.mktemp("race") / "host.o"
    out = np.zeros(1, dtype=np.float32)
    assert kwcute.install()
    try:
        compiled = cute.compile(host, from_dlpack(out), Int32(1), options="--enable-tvm-ffi")
        compiled.export_to_c(str(obj), function_name="func")
    finally:
        kwcute.uninstall()
    return cute.runtime.load_module(str(obj), enable_tvm_ffi=True)


def test_uninstall_racing_module_access_never_raises(module):
    stop = threading.Event()
    errors: list[BaseException] = []
    seen: set[type] = set()
    toggles = 0

    def read() -> None:
        try:
            while not stop.is_set():
                for loaded in (module.func, module["func"]):
                    seen.add(type(loaded))
        except BaseException as error:  # noqa: BLE001 - the test reports every failure
            errors.append(error)
            stop.set()

    def toggle() -> None:
        nonlocal toggles
        try:
            while not stop.is_set():
                kwcute.install()
                kwcute.uninstall()
                toggles += 1
        except BaseException as error:  # noqa: BLE001
            errors.append(error)
            stop.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython allows
    threads = [threading.Thread(target=read) for _ in range(READERS)]
    threads.append(threading.Thread(target=toggle))
    try:
        run_threads_for(threads, stop, SECONDS)
    finally:
        sys.setswitchinterval(interval)
        kwcute.uninstall()
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    assert toggles > 0
    assert seen <= {kwcall.Function, tvm_ffi.Function}
    # Both behaviours were seen: the readers ran while the class changed under them.
    assert kwcall.Function in seen and tvm_ffi.Function in seen


def test_a_function_read_under_install_keeps_working_after_uninstall(module):
    out = np.zeros(1, dtype=np.float32)
    assert kwcute.install()
    try:
        loaded = module.func
    finally:
        kwcute.uninstall()
    assert isinstance(loaded, kwcall.Function)
    loaded(out, 2, k=5)
    assert out[0] == 7.0
    assert type(module.func) is tvm_ffi.Function


def test_first_compiles_racing_make_one_compiled_type():
    # Issue 37.14: compiled_type() checked its cache, then made and stored a type, with no lock
    # between: threads making their first compile at once each made a type of their own, so
    # objects of one kernel family had different classes. Each round empties the cache, as a
    # fresh process has it, and lets 8 threads ask at once, switching as often as CPython can.
    from kwcall.cute import _construct

    saved = dict(_construct._types), dict(_construct._stock_classes)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(30):
            _construct._types.clear()
            _construct._stock_classes.clear()
            barrier = threading.Barrier(8)
            made: list[type] = []

            def first(barrier: threading.Barrier = barrier, made: list = made) -> None:
                barrier.wait()
                made.append(_construct.compiled_type())

            threads = [threading.Thread(target=first) for _ in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert len(made) == 8
            assert len({id(t) for t in made}) == 1
            assert _construct.stock_class() is not None
    finally:
        sys.setswitchinterval(interval)
        _construct._types.clear()
        _construct._stock_classes.clear()
        _construct._types.update(saved[0])
        _construct._stock_classes.update(saved[1])
