"""C++ callers of a kwcall function never need Python.

A native probe (``native/gil_probe.cc``, built once per session against libkwcall)
starts C++ threads that look a global function up by name and call it positionally, with
defaults, with tvm-ffi's KWARGS convention and through a ``kwcall::CallSite``. The Python thread
then waits for them *while holding the GIL* (``release_gil = False`` on the probe's
``wait``); the threads make no call before ``wait`` starts, so every call falls in
that window. A kwcall function must finish every call in that window; a Python-callback
function, the same harness otherwise, must finish none, which shows the test can fail.

Free-threaded CPython has no GIL to hold, so those window tests skip there; what they prove
is shown on every build by C++ threads that call while Python threads run hot loops and call
the same function, each C++ call reporting whether its thread had Python attached.
"""

from __future__ import annotations

import copy
import sys
import sysconfig
import threading
import time

import kwcall
import pytest
import tvm_ffi
from helpers import TIME_SCALE, wait_until

#: Whether the GIL is off in this process (a free-threaded build that left it off).
NO_GIL = bool(sysconfig.get_config_var("Py_GIL_DISABLED")) and not sys._is_gil_enabled()
needs_gil = pytest.mark.skipif(
    NO_GIL,
    reason="free-threaded CPython with the GIL off: no thread can hold the GIL, so there is no "
    "window to call in (test_cpp_threads_call_while_python_threads_run_hot_loops covers it)",
)

#: How long the probe's held wait may take for every call to finish (milliseconds).
HELD_WAIT_MS = int(20_000 * TIME_SCALE)


@pytest.fixture
def probe(gil_probe):
    return gil_probe


@pytest.fixture
def heartbeat():
    """A Python thread that records a timestamp about every 0.2 ms.

    Each beat needs the GIL, so no beat can fall inside a window where another
    thread holds the GIL. A tiny switch interval makes it grab the GIL at once
    whenever the GIL is free.
    """
    beats: list[int] = []
    stop = threading.Event()

    def beat():
        while not stop.is_set():
            beats.append(time.monotonic_ns())  # same clock as the probe's steady_clock
            time.sleep(0.0002)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    wait_until(lambda: beats, "the heartbeat thread's first beat")
    yield beats
    stop.set()
    thread.join()
    sys.setswitchinterval(old)


def _waiter(probe, release_gil: bool) -> tvm_ffi.Function:
    wait = probe.get_function("wait")
    wait.release_gil = release_gil
    assert wait.release_gil is release_gil
    return wait


def _beats_inside(beats: list[int], begin: int, end: int) -> int:
    return sum(begin < t < end for t in list(beats))


def _register_kwcall_add3(probe, name: str) -> kwcall.Function:
    # def add3(a, b, *, c=1): a C++ target behind a kwcall binding function.
    sig = kwcall.Signature(["a", "b"], (), ["c"], {"c": 1}, name="add3")
    f = kwcall.wrap(probe.add3, sig)
    tvm_ffi.register_global_func(name, f, override=True)
    return f


@needs_gil
def test_kwcall_function_runs_while_python_holds_gil(probe, heartbeat):
    name = "kwcall.test.no_gil.add3"
    _register_kwcall_add3(probe, name)
    n = 100_000
    probe.start(name, n, 1)
    try:
        count, begin, end = _waiter(probe, release_gil=False)(HELD_WAIT_MS)
    finally:
        done, mismatches = probe.join()
        tvm_ffi.remove_global_func(name)
    assert count == n, f"only {count}/{n} C++ calls finished while Python held the GIL"
    assert (done, mismatches) == (n, 0)
    # Python made no progress during the wait, so the GIL really was held throughout.
    assert _beats_inside(heartbeat, begin, end) == 0
    # ... and the heartbeat thread was alive: it beats again after the wait, once it gets the
    # GIL and the CPU (on a busy machine, not at once).
    wait_until(lambda: heartbeat[-1] > end, "a heartbeat after the held wait")


@needs_gil
def test_kwcall_function_from_concurrent_cpp_threads(probe, heartbeat):
    name = "kwcall.test.no_gil.add3_mt"
    _register_kwcall_add3(probe, name)
    n, threads = 50_000, 4
    probe.start(name, n, threads)
    try:
        count, begin, end = _waiter(probe, release_gil=False)(HELD_WAIT_MS)
    finally:
        done, mismatches = probe.join()
        tvm_ffi.remove_global_func(name)
    assert count == n * threads
    assert (done, mismatches) == (n * threads, 0)
    assert _beats_inside(heartbeat, begin, end) == 0


@needs_gil
def test_python_callback_cannot_run_while_python_holds_gil(probe, heartbeat):
    """Negative control: the same harness against a Python callback must time out."""
    name = "kwcall.test.no_gil.py_add3"

    # Accepts all three call shapes of the probe: (a, b, c), (a, b) and
    # (a, b, KWARGS, "c", c); a Python callback receives KWARGS positionally.
    def py_add3(a, b, *rest):
        return a + b + (rest[-1] if rest else 1)

    tvm_ffi.register_global_func(name, py_add3, override=True)
    probe.start(name, 100_000, 1)
    try:
        held, begin, end = _waiter(probe, release_gil=False)(300)
        # The same wait with the GIL released lets the callback (and the heartbeat) run,
        # showing that the held wait above, not the harness, blocked them. On a busy machine
        # neither may get the CPU within one short wait, so short waits are repeated until
        # both have run inside them.
        released = []

        def callback_and_heartbeat_ran() -> bool:
            released.append(_waiter(probe, release_gil=True)(50))
            return released[-1][0] > 0 and any(
                _beats_inside(heartbeat, r_begin, r_end) > 0 for _, r_begin, r_end in released
            )

        wait_until(callback_and_heartbeat_ran, "callbacks and heartbeats in a released wait")
    finally:
        _, mismatches = probe.join()
        tvm_ffi.remove_global_func(name)
    assert held == 0, "a Python callback ran while Python held the GIL"
    assert end - begin >= 300_000_000  # it timed out rather than finished
    assert _beats_inside(heartbeat, begin, end) == 0
    assert mismatches == 0


def test_register_once_then_cpp_threads_look_up_and_call(probe):
    """kwcall's registration rule (issue 18.11): tvm-ffi's registry is not safe against
    ``register_global_func``/``remove_global_func`` racing ``Function::GetGlobal`` in C++
    threads (tvm-ffi itself aborts, with or without kwcall), so kwcall functions are registered
    once, before C++ threads look them up. Then any number of threads may look them up and
    call them, while Python calls them too."""
    names = [f"kwcall.test.no_gil.registered_once.{i}" for i in range(4)]
    functions = [_register_kwcall_add3(probe, name) for name in names]
    stop = threading.Event()
    python_calls = []

    def python_caller():
        while not stop.is_set():
            python_calls.append(functions[len(python_calls) % 4](1, 2, c=3))

    caller = threading.Thread(target=python_caller)
    caller.start()
    look_up_and_call = probe.get_function("look_up_and_call")
    look_up_and_call.release_gil = True
    try:
        done, mismatches = look_up_and_call(names, 20_000, 8)
    finally:
        stop.set()
        caller.join()
        for name in names:
            tvm_ffi.remove_global_func(name)  # after every C++ thread has finished
    assert (done, mismatches) == (8 * 20_000, 0)
    assert python_calls and set(python_calls) == {6}


def test_cpp_threads_call_while_python_threads_run_hot_loops(probe):
    """C++ threads call a kwcall function while Python threads spin in pure-Python loops and
    call the same function. Every C++ call returns right and finds its thread without Python
    attached (PyGILState_Check in the target); Python callers that keep the GIL
    (release_gil=False) find it attached, which shows the probe can see it."""
    sig = kwcall.Signature(["a", "b"], name="gil_held")
    f = kwcall.wrap(probe.gil_held, sig)
    keeps_gil = kwcall.wrap(probe.gil_held, sig)
    keeps_gil.release_gil = False
    stop = threading.Event()
    results: list[list] = [[] for _ in range(4)]

    def hot_loop(i: int) -> None:
        fn = keeps_gil if i % 2 else f
        while not stop.is_set():
            sum(j * j for j in range(200))  # pure Python work between calls
            results[i].append(tuple(fn(i, b=len(results[i]))))

    threads = [threading.Thread(target=hot_loop, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    call = probe.get_function("call_and_check_attached")
    call.release_gil = True  # the Python threads run meanwhile, under the GIL too
    try:
        done, attached, mismatches = call(f, 20_000, 4)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60 * TIME_SCALE)
    assert (done, attached, mismatches) == (4 * 20_000, 0, 0)
    for i, calls in enumerate(results):
        assert calls, f"Python thread {i} made no call"
        want_attached = 1 if i % 2 else 0
        assert calls == [(want_attached, i, n) for n in range(len(calls))]


def test_release_gil_is_settled_when_set(probe):
    """Setting release_gil picks the callee a kwcall.Function's calls use (a call reads no
    setting): on a function, on its copies, and on one with a preprocess step. The target
    reports whether its thread had Python attached."""
    sig = kwcall.Signature(["a", "b"], name="gil_held")

    def attached(fn) -> int:
        return tuple(fn(1, 2))[0]

    f = kwcall.wrap(probe.gil_held, sig)
    for release in (False, True, False, True):
        f.release_gil = release
        assert f.release_gil is release
        assert attached(f) == (0 if release else 1)
        copied = copy.copy(f)
        assert copied.release_gil is release
        assert attached(copied) == (0 if release else 1)
        copied.release_gil = not release  # the copy's own setting, not f's
        assert attached(copied) == (1 if release else 0)
        assert attached(f) == (0 if release else 1)
    # A function with a preprocess step (another entry point) calls through the same callee.
    stepped = kwcall._function.make(kwcall.Function, probe.gil_held, sig, lambda a, k: (a, k))
    for release in (False, True, False):
        stepped.release_gil = release
        assert attached(stepped) == (0 if release else 1)
        assert attached(copy.copy(stepped)) == (0 if release else 1)
