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
