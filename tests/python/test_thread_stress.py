"""Python threads and plain C++ threads call one kwcall function at once, with far more
keyword shapes than its shape cache keeps, while other threads copy it, register it again as
a global, build and drop reference cycles through it and run the cycle collector. Every result
is checked against the values the call passed.

The target (``native/shape_stress.cc``) returns ``sum(value_i * 100**i)`` over
``def weigh(a, b, c=3, d=4, e=5, f=6, g=7, *, h=8)``: an argument bound to the wrong parameter,
or a default used in place of a passed value, gives another number. On free-threaded CPython
the threads really run at once (the GIL stays off: test_free_threaded.py); under the GIL the
Python threads take turns, and the C++ threads still run beside them. The run lasts
``SECONDS`` (times KWCALL_TEST_TIME_SCALE) whatever the machine.
"""

from __future__ import annotations

import copy
import gc
import random
import threading
import time
import weakref

import kwcall
import pytest
import tvm_ffi
from helpers import KWARGS, TIME_SCALE, build_native, not_interned, run_threads_for, unique

SECONDS = 2.0 * TIME_SCALE
PYTHON_CALLERS = 4
CPP_CALLERS = 2
NAMES = ("a", "b", "c", "d", "e", "f", "g", "h")
POSITIONAL = 7  # a..g; h is keyword-only
DEFAULTS = {"c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8}


@pytest.fixture(scope="module")
def stress(tmp_path_factory):
    return build_native("shape_stress", "shape_stress.cc", tmp_path_factory.mktemp("stress"))


def _signature() -> kwcall.Signature:
    return kwcall.Signature(
        list(NAMES[:POSITIONAL]),
        tuple(DEFAULTS[n] for n in NAMES[2:POSITIONAL]),
        ["h"],
        {"h": DEFAULTS["h"]},
        name="weigh",
    )


def _weigh(bound: dict[str, int]) -> int:
    return sum(bound[name] * 100**i for i, name in enumerate(NAMES))


def _random_call(rng: random.Random) -> tuple[tuple, dict, int, tuple]:
    """(positional values, keywords in call order, expected result, the call's shape)."""
    values = {name: rng.randrange(10, 100) for name in NAMES}
    nargs = rng.randrange(POSITIONAL + 1)
    keywords = [n for n in NAMES[nargs:] if n not in DEFAULTS or rng.random() < 0.5]
    rng.shuffle(keywords)
    bound = {**DEFAULTS, **{n: values[n] for n in NAMES[:nargs]}}
    bound.update((n, values[n]) for n in keywords)
    positional = tuple(values[n] for n in NAMES[:nargs])
    return positional, {n: values[n] for n in keywords}, _weigh(bound), (nargs, tuple(keywords))


def _call(fn, rng: random.Random, shapes: set) -> tuple[int, int]:
    """One random call of fn, in one of the ways Python can make it: (got, expected)."""
    positional, keywords, want, shape = _random_call(rng)
    shapes.add(shape)
    way = rng.randrange(3)
    if way == 0:  # interned names, the shape cache's pointer compare
        got = fn(*positional, **keywords)
    elif way == 1:  # equal strings that are other objects: the name lookup
        got = fn(*positional, **{not_interned(k): v for k, v in keywords.items()})
    else:  # tvm-ffi's own KWARGS tail
        tail = [item for pair in keywords.items() for item in pair]
        got = fn(*positional, KWARGS, *tail) if tail else fn(*positional)
    return got, want


class Problems:
    """What the threads found wrong, the first few kept for the message."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.first: list[str] = []

    def add(self, text: str) -> None:
        with self.lock:
            self.count += 1
            if len(self.first) < 5:
                self.first.append(text)


def test_python_and_cpp_threads_with_churn(stress):
    f = kwcall.wrap(stress.weigh, _signature())
    second = tvm_ffi.convert(lambda a, b: b)
    name = unique("stress.weigh")
    tvm_ffi.register_global_func(name, f, override=True)
    stop = threading.Event()
    problems = Problems()
    calls = [0] * PYTHON_CALLERS
    shapes: list[set] = [set() for _ in range(PYTHON_CALLERS)]
    churn = {"copies": 0, "registrations": 0, "collections": 0, "cycles": 0}
    cycles: list[weakref.ref] = []

    def guarded(body):
        def run(*args):
            try:
                body(*args)
            except BaseException as err:  # a thread's failure fails the test
                problems.add(f"{body.__name__} raised {err!r}")
                stop.set()

        return run

    @guarded
    def python_caller(i: int) -> None:
        rng = random.Random(1000 + i)
        mine = copy.copy(f) if i % 2 else f  # half share f itself, half own a copy
        while not stop.is_set():
            got, want = _call(mine, rng, shapes[i])
            if got != want:
                problems.add(f"Python call returned {got}, expected {want}")
            calls[i] += 1

    @guarded
    def copier() -> None:
        rng = random.Random(1)
        while not stop.is_set():
            g = copy.deepcopy(f) if rng.random() < 0.5 else copy.copy(f)
            got, want = _call(g, rng, set())
            if got != want:
                problems.add(f"a copy returned {got}, expected {want}")
            churn["copies"] += 1

    @guarded
    def registrar() -> None:
        # The registry's rule (test_no_gil.py): nobody looks the name up while it changes. The
        # C++ threads hold their own reference, so the entry can be replaced under them.
        while not stop.is_set():
            tvm_ffi.register_global_func(name, copy.copy(f), override=True)
            tvm_ffi.register_global_func(name, f, override=True)
            churn["registrations"] += 2

    @guarded
    def cycle_maker() -> None:
        # g -> defaults (held by the C++ signature too) -> holder -> g, and f2 -> __dict__ ->
        # f2: only the collector frees them, and they are called while it runs.
        rng = random.Random(2)
        while not stop.is_set():
            holder = _Holder()
            g = kwcall.wrap(second, kwcall.Signature(["a", "b"], (holder,), name="cyc"))
            holder.fn = g
            f2 = kwcall.wrap(stress.weigh, _signature())
            f2.me = f2
            if churn["cycles"] % 50 == 0:
                cycles.append(weakref.ref(holder))
            if g(1) is not holder:
                problems.add("a function in a cycle lost its default")
            got, want = _call(f2, rng, set())
            if got != want:
                problems.add(f"a function in a cycle returned {got}, expected {want}")
            del holder, g, f2
            churn["cycles"] += 1

    @guarded
    def collector() -> None:
        while not stop.is_set():
            gc.collect()
            churn["collections"] += 1
            time.sleep(0.005)

    threads = [threading.Thread(target=python_caller, args=(i,)) for i in range(PYTHON_CALLERS)]
    threads += [threading.Thread(target=t) for t in (copier, registrar, cycle_maker, collector)]
    stress.start(f, CPP_CALLERS, 7)
    try:
        run_threads_for(threads, stop, SECONDS)
    finally:
        cpp_calls, cpp_mismatches, cpp_first = stress.stop()
        tvm_ffi.remove_global_func(name)

    assert problems.count == 0, problems.first
    assert (cpp_mismatches, cpp_first) == (0, "")
    assert cpp_calls > 0 and all(calls), (cpp_calls, calls)
    assert all(churn.values()), churn
    # Far more shapes than the 8 a function keeps (src/binding/keyword_shapes.h): most calls
    # miss the cache and bind from the names.
    assert len(set().union(*shapes)) > 100
    gc.collect()
    assert cycles and all(ref() is None for ref in cycles)


class _Holder:
    """A default that points back at its function (and can be weakly referenced)."""


def test_preprocess_step_while_its_dict_changes_and_copies_are_made(stress):
    """A function with a preprocess step, as kwcall.cute makes them, called from Python threads
    while its copies are made and called: the step returns one dict every call shares, whose
    values other threads replace (and so free) meanwhile. Every call binds the values as the
    step returned them: on free-threaded CPython the threads really run at once."""
    shared = {"h": 1000}
    f = kwcall._function.make(
        kwcall.Function, stress.weigh, _signature(), lambda args, _: (args, shared)
    )
    args = (11, 12, 13, 14, 15, 16, 17)
    positional = dict(zip(NAMES[:POSITIONAL], args, strict=True))
    # The step's value, or h's default when a call caught the dict between pop and set.
    allowed = {_weigh({**positional, "h": 1000}), _weigh({**positional, "h": DEFAULTS["h"]})}
    stop = threading.Event()
    problems = Problems()

    def replacer() -> None:
        while not stop.is_set():
            shared["h"] = int("1000")  # a new object each time: the one it replaces is freed
            shared.pop("h")
            shared["h"] = int("1000")

    def caller() -> None:
        fn = f
        while not stop.is_set():
            got = fn(*args)
            if got not in allowed:
                problems.add(f"{got} not in {allowed}")
            fn = copy.copy(f) if fn is f else f

    threads = [threading.Thread(target=replacer)] + [
        threading.Thread(target=caller) for _ in range(PYTHON_CALLERS)
    ]
    run_threads_for(threads, stop, SECONDS)
    assert problems.count == 0, problems.first
