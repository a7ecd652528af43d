"""Python calls whose arguments are plain scalars skip tvm-ffi's Python layer
(python/ext/scalar_call.cc): kwcall packs None, bool, int and float itself, calls the C ABI and
makes scalar results itself. Everything else it hands to tvm-ffi. tvm_ffi.Function.__call__ on
the same target is the oracle: every result, every exception, every refusal must be the same.
"""

from __future__ import annotations

import enum
import gc
import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import kwcall
import pytest
import tvm_ffi

echo = tvm_ffi.get_global_func("testing.echo")  # C++: returns its first argument
add_one = tvm_ffi.get_global_func("testing.add_one")  # C++: int -> int, typed
nop = tvm_ffi.get_global_func("testing.nop")
make_object = tvm_ffi.get_global_func("testing.make_unregistered_object")
use_count = tvm_ffi.get_global_func("testing.object_use_count")
run_check_signal = tvm_ffi.get_global_func("testing.run_check_signal")


def wrapped(target: tvm_ffi.Function, *names: str) -> kwcall.Function:
    return kwcall.wrap(target, kwcall.Signature(list(names)))


def result_of(call):
    """(type, value) of what `call` returned, or (exception type, message)."""
    try:
        value = call()
    except Exception as e:  # noqa: BLE001 - the oracle's exception, whatever it is
        return (type(e), str(e))
    return (type(value), value)


class Level(enum.IntEnum):
    HIGH = 3


class Ratio(float):
    pass


SCALARS = [
    None,
    True,
    False,
    0,
    -1,
    7,
    2**63 - 1,
    -(2**63),
    0.0,
    -2.5,
    float("inf"),
    1e300,
]
# Not plain scalars: tvm-ffi's own path takes them (big ints it converts or refuses).
OTHERS = [2**63, -(2**63) - 1, 2**80, Level.HIGH, Ratio(1.5), "text", b"bytes", (1, 2)]


@pytest.mark.parametrize("value", SCALARS + OTHERS, ids=repr)
def test_each_argument_arrives_as_tvm_ffi_passes_it(value):
    f = wrapped(echo, "x")
    assert result_of(lambda: f(value)) == result_of(lambda: echo(value))


def test_a_nan_arrives_as_a_nan():
    got = wrapped(echo, "x")(float("nan"))
    assert type(got) is float and got != got


def test_results_of_every_kind_come_back_as_tvm_ffi_makes_them():
    assert result_of(wrapped(nop)) == result_of(nop) == (type(None), None)
    assert wrapped(add_one, "x")(41) == 42
    # An object result from scalar arguments: tvm-ffi makes its Python object.
    got, want = wrapped(make_object)(), make_object()
    assert type(got) is type(want)
    # Held once, by the Python object: nothing kept by the hand-over to tvm-ffi.
    assert use_count(got) == use_count(want)


def test_errors_are_tvm_ffis():
    f = wrapped(add_one, "x")
    for bad in (1.5, None, True):
        assert result_of(lambda bad=bad: f(bad)) == result_of(lambda bad=bad: add_one(bad))
    assert result_of(lambda: f(1.5))[0] is TypeError
    # The thread's state is clean after an error: the next calls return their own results.
    assert f(1) == 2
    assert type(wrapped(make_object)()) is type(make_object())


def test_a_python_callbacks_exception_comes_back_as_it_left():
    def boom(x):
        raise ValueError(f"boom {x}")

    target = tvm_ffi.convert(boom)
    f = wrapped(target, "x")
    assert result_of(lambda: f(3)) == result_of(lambda: target(3)) == (ValueError, "boom 3")


@pytest.mark.skipif(
    not hasattr(signal, "pthread_kill")
    or threading.current_thread() is not threading.main_thread(),
    reason="needs signals delivered to the main thread",
)
def test_a_signal_during_the_call_raises_keyboardinterrupt():
    # testing.run_check_signal polls TVMFFIEnvCheckSignals: the interrupt is a Python exception
    # set while the call runs, which tvm-ffi raises as it is (EnvErrorAlreadySet).
    f = wrapped(run_check_signal, "seconds")
    for call in (lambda: run_check_signal(5), lambda: f(5)):
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                call()
        finally:
            timer.join()


def test_release_gil_is_kept_on_the_scalar_path(gil_probe):
    # GilHeld(a, b) -> [whether the calling thread holds the GIL, a, b]
    f = wrapped(gil_probe.get_function("gil_held"), "a", "b")
    f.release_gil = True
    assert list(f(1, 2)) == [0, 1, 2]
    f.release_gil = False
    assert list(f(1, 2)) == [1, 1, 2]


def test_threads_get_their_own_results(gil_probe):
    f = wrapped(gil_probe.get_function("gil_held"), "a", "b")
    f.release_gil = True

    def first_wrong(t):
        """The first (t, i, result) whose result is not thread t's own, or None."""
        for i in range(2000):
            got = list(f(t, i))
            if got[1:] != [t, i]:
                return (t, i, got)
        return None

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(first_wrong, range(4))) == [None] * 4


def test_object_results_are_not_leaked():
    f = wrapped(make_object)
    gc.collect()
    before = sys.getallocatedblocks()
    for _ in range(20000):
        f()
    gc.collect()
    assert sys.getallocatedblocks() - before < 1000
