"""Dispatch tables under threads: a key missed by 8 threads at once is compiled once (Python
threads, with and without the GIL released on the way to C++, and plain C++ threads), a failing
compile reaches every waiter, and hits run while entries are added. On free-threaded CPython the
same tests run with the GIL off."""

from __future__ import annotations

import threading
import time

import kwcall
import pytest
import tvm_ffi
from helpers import TIME_SCALE, build_native, plain
from kwcall import key

THREADS = 8
collect = tvm_ffi.get_global_func("ffi.Array")


def _table(compile, name="race"):
    signature = kwcall.Signature(["x", "y"], (0,), name="f")
    return kwcall.DispatchTable(signature, [key.value("x")], compile=compile, name=name)


def _slow_compile(calls):
    def compile(key_, *args):
        calls.append(key_)
        time.sleep(0.2)  # long enough for every thread to miss the key too
        return collect

    return compile


def _race(call, threads=THREADS):
    """Runs ``call(i)`` in ``threads`` Python threads started together; each result or raised
    exception, in thread order. Fails if a thread does not finish (a deadlock)."""
    results = [None] * threads
    barrier = threading.Barrier(threads)

    def run(i):
        barrier.wait()
        try:
            results[i] = call(i)
        except Exception as error:
            results[i] = error

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60 * TIME_SCALE)
        assert not worker.is_alive(), "a thread is stuck: the waiters blocked the compile"
    return results


@pytest.mark.parametrize("release_gil", [True, False])
def test_eight_python_threads_missing_one_key_compile_it_once(release_gil):
    calls = []
    table = _table(_slow_compile(calls))
    # release_gil=False: the waiting threads enter C++ holding the GIL, which the compile (Python)
    # needs; kwcall's wait lets go of it.
    table.release_gil = release_gil
    results = _race(lambda i: plain(table(7, i)))
    assert calls == [(7,)]
    assert results == [(7, i) for i in range(THREADS)]
    assert table.keys() == [(7,)]


@pytest.fixture(scope="module")
def race_module(tmp_path_factory):
    return build_native("dispatch_race", "dispatch_race.cc", tmp_path_factory.mktemp("race"))


def test_eight_cpp_threads_missing_one_key_compile_it_once(race_module):
    calls = []
    table = _table(_slow_compile(calls))
    results = race_module["race"](table.function, THREADS, 3)
    assert calls == [(3,)]
    assert [plain(r) for r in results] == [(3, 0)] * THREADS


def test_cpp_threads_wait_while_the_compiling_python_thread_holds_the_gil(race_module):
    """Plain C++ threads that miss a key while the compiling Python thread holds the GIL wait
    without touching the interpreter. Before 3.12 the unchecked current thread state is the GIL
    holder's, not the calling thread's: the waiters took it for their own and detached the
    compiling thread's state, and the process crashed."""
    started = threading.Event()

    def compile(key_, *args):
        started.set()
        end = time.monotonic() + 0.3
        while time.monotonic() < end:  # Python running: this thread holds the GIL
            pass
        return collect

    table = _table(compile, name="held")
    for k in range(3):  # three keys: a crash was likely, not certain, in one
        started.clear()
        compiler = threading.Thread(target=table, args=(k,))
        compiler.start()
        started.wait(timeout=60 * TIME_SCALE)
        results = race_module["race"](table.function, THREADS, k)
        compiler.join(timeout=60 * TIME_SCALE)
        assert [plain(r) for r in results] == [(k, 0)] * THREADS


def test_a_failing_compile_reaches_every_waiter_and_leaves_no_entry():
    calls = []

    def compile(key_, *args):
        calls.append(key_)
        time.sleep(0.2)
        raise ValueError("no kernel for this shape")

    table = _table(compile, name="failing")
    results = _race(lambda i: table(5))
    # Each compiling caller gets its own exception, as tvm-ffi hands a Python callback's error
    # back (the same type for built-in and registered exceptions).
    own = [r for r in results if type(r) is ValueError]
    waited = [r for r in results if type(r) is RuntimeError]
    assert len(own) == len(calls) >= 1
    assert len(own) + len(waited) == THREADS
    for error in waited:
        assert "compiling the key value(x)=5 failed in another call: " in str(error)
        assert "no kernel for this shape" in str(error)
    assert len(table) == 0


def test_hits_while_another_thread_adds():
    table = _table(None, name="growing")
    for k in range(4):
        table.add((k,), collect)
    stop = threading.Event()
    wrong = []

    def reader(i):
        while not stop.is_set():
            got = plain(table(i % 4, i))
            if got != (i % 4, i):
                wrong.append(got)

    readers = [threading.Thread(target=reader, args=(i,)) for i in range(4)]
    for r in readers:
        r.start()
    for k in range(4, 300):
        table.add((k,), collect)
    stop.set()
    for r in readers:
        r.join()
    assert wrong == []
    assert [plain(table(k, 1)) for k in range(300)] == [(k, 1) for k in range(300)]


def test_threads_read_tensor_keys_at_once():
    """Tensor terms (each tensor's DLTensor read once for its terms) from 8 threads at once, with
    the GIL off on a free-threaded build; numpy's arrays through DLPack, so it runs where torch
    is not installed (free-threaded CPython 3.13)."""
    np = pytest.importorskip("numpy")
    signature = kwcall.Signature(["x", "y", "n"], name="f")
    terms = [key.dtype("x"), key.shape("y", -1), key.shape("x", 0), key.contiguous("y")]
    table = kwcall.DispatchTable(signature, terms, name="tensors")
    shapes = [((2, 8), "float32"), ((3, 16), "float64"), ((4, 8), "int32"), ((5, 16), "float32")]
    arrays = [
        (tvm_ffi.from_dlpack(np.zeros(s, dtype=d)), tvm_ffi.from_dlpack(np.zeros(s[::-1]).T))
        for s, d in shapes
    ]
    for i, (x, y) in enumerate(arrays):
        table.add(table.key_of(x, y, 0), tvm_ffi.convert(lambda x, y, n, i=i: (i, n)))
    assert [table.key_of(x, y, 0) for x, y in arrays[:2]] == [
        ("float32", 8, 2, False),
        ("float64", 16, 3, False),
    ]

    def calls(i):
        return [plain(table(*arrays[(i + j) % 4], j)) for j in range(200)]

    results = _race(calls)
    for i, got in enumerate(results):
        assert got == [((i + j) % 4, j) for j in range(200)]
