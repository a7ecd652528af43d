"""Python-thread scaling, on free-threaded CPython only (under the GIL Python threads take
turns, and there is nothing to scale): 1, 2, 4, 8 and 16 Python threads, as many as the
machine has cores, call the scalar mix's routes A (the bare tvm-ffi function), B (the CuTeDSL
4.6+ route), D (kwcall positionally) and F (kwcall with two keywords) at once.

Three ways of sharing: "own", each thread calling a function object of its own that it made
itself (a fresh tvm_ffi.Function for the same handle, a copy of the kwcall.Function, its own
CuTeDSL-like object), so threads share only what the routes share inside; "handed", the same
objects made one after another by the main thread and handed out (objects made together sit
together in memory, and another thread made their reference counts); and "shared", every
thread calling the one object, as a program calls one module-level function. Every thread
passes argument objects of its own and runs a loop compiled for it, so the loop's constants
and the arguments' reference counts are not what is measured."""

from __future__ import annotations

import copy
import os
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from typing import Any

import tvm_ffi

from .cells import UNBOUNDED_CALLS, Cell
from .routes import ALPHA, BETA, CuteLikeFunction, Mix

PY_SCALING_ROUTES = ("A", "B", "D", "F")
SHARING = ("own", "handed", "shared")
SHARING_TEXT = {
    "own": "a function object per thread, made on that thread",
    "handed": "a function object per thread, all made by the main thread",
    "shared": "one object shared by every thread",
}
#: The most threads measured: 16 where the machine has the cores.
MAX_THREADS = 16
#: Route B takes about 1 us a call in Python frames; this keeps its samples bounded.
B_MAX_CALLS = 20_000


def free_threaded() -> bool:
    """Whether this interpreter runs Python threads at once: a free-threaded build with the
    GIL off (PYTHON_GIL=1, or a module that needs the GIL, turns it back on)."""
    is_gil_enabled = getattr(sys, "_is_gil_enabled", None)
    return bool(sysconfig.get_config_var("Py_GIL_DISABLED")) and not (
        is_gil_enabled is None or is_gil_enabled()
    )


def thread_counts(quick: bool) -> list[int]:
    cores = os.cpu_count() or 1
    counts = [2**i for i in range(MAX_THREADS.bit_length()) if 2**i <= max(cores, 2)]
    return [1, max(counts)] if quick and len(counts) > 2 else counts


def _own_function(mix: Mix, route: str) -> Any:
    """A function object for one thread, made on that thread (its reference count is then
    the thread's own, in free-threaded CPython's biased counting)."""
    fresh_target = tvm_ffi.get_global_func(mix.globals["A"])
    if route == "A":
        return fresh_target
    if route == "B":
        return CuteLikeFunction(fresh_target, mix.arg_names, (1.0, 0))
    return copy.copy(mix.functions["K"])


# The timed loop, compiled once per thread: its code object (and so its constants, such as
# the keyword names tuple) belongs to that thread alone.
_LOOP = {
    "positional": "def loop(n, f, x, alpha, beta):\n    for _ in range(n):\n"
    "        f(x, alpha, beta)\n",
    "keywords": "def loop(n, f, x, alpha, beta):\n    for _ in range(n):\n"
    "        f(x, alpha=alpha, beta=beta)\n",
}


def _loop(shape: str) -> Callable[..., None]:
    namespace: dict[str, Any] = {}
    exec(compile(_LOOP[shape], f"<kwcall.bench {shape} loop>", "exec"), namespace)
    return namespace["loop"]


def runner(mix: Mix, route: str, threads: int, sharing: str) -> Callable[[int], list[int]]:
    """run(n) for n calls on each of `threads` Python threads: [span ns, per-thread ns ...]."""
    shape = "keywords" if route in ("B", "F") else "positional"
    shared = mix.functions["K" if route in ("D", "F") else route]

    def run(n: int) -> list[int]:
        ready = threading.Barrier(threads + 1)
        go = threading.Event()
        spans = [(0, 0)] * threads
        handed = [_own_function(mix, route) for _ in range(threads)] if sharing == "handed" else []

        def body(i: int) -> None:
            if sharing == "own":
                fn = _own_function(mix, route)
            else:
                fn = handed[i] if handed else shared
            loop = _loop(shape)
            x, beta = int(mix.lead[0]), int(BETA)
            alpha = float(str(ALPHA))  # a float object of this thread's own
            loop(1, fn, x, alpha, beta)  # warm
            ready.wait()
            go.wait()
            begin = time.perf_counter_ns()
            loop(n, fn, x, alpha, beta)
            spans[i] = (begin, time.perf_counter_ns())

        workers = [threading.Thread(target=body, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        ready.wait()
        go.set()
        for worker in workers:
            worker.join()
        # The calls' own span: from the first thread's start to the last one's end, without
        # waking or joining the threads.
        wall = max(end for _, end in spans) - min(begin for begin, _ in spans)
        return [wall, *(end - begin for begin, end in spans)]

    return run


def cells(mixes: list[Mix], quick: bool) -> list[Cell]:
    if not free_threaded():
        return []
    (mix,) = [m for m in mixes if m.name == "scalars"]
    out = []
    for sharing in SHARING:
        for count in thread_counts(quick):
            for route in PY_SCALING_ROUTES:
                labels = {"mix": mix.name, "route": route, "caller": "py_threads"}
                out.append(
                    Cell(
                        "py_threads",
                        {**labels, "objects": sharing},
                        runner(mix, route, count, sharing),
                        threads=count,
                        max_calls=B_MAX_CALLS if route == "B" else UNBOUNDED_CALLS,
                    )
                )
    return out


#: The goal: kwcall's speedup over its one-thread rate, at every thread count, at least this
#: fraction of the bare tvm-ffi function's (route A's) speedup.
SPEEDUP_GOAL = 0.9


def _rates(cells: list[Cell], sharing: str) -> dict[tuple[int, str], float]:
    return {
        (c.threads, c.labels["route"]): c.calls_per_s()
        for c in cells
        if c.group == "py_threads" and c.labels["objects"] == sharing
    }


def speedup_ratios(cells: list[Cell], sharing: str, route: str) -> dict[int, float]:
    """threads -> route's speedup ÷ route A's speedup (each over its own 1-thread rate)."""
    rate = _rates(cells, sharing)
    counts = sorted({t for t, _ in rate})
    return {
        t: (rate[t, route] / rate[1, route]) / (rate[t, "A"] / rate[1, "A"])
        for t in counts
        if (1, route) in rate and (1, "A") in rate
    }


def scaling_table(cells: list[Cell], sharing: str) -> list[str]:
    rate = _rates(cells, sharing)
    counts = sorted({t for t, _ in rate})
    head = " | ".join(f"{r} calls/s" for r in PY_SCALING_ROUTES)
    ups = " | ".join(f"{r} speedup" for r in PY_SCALING_ROUTES)
    lines = [
        f"| threads | {head} | {ups} | D ÷ A speedup | F ÷ A speedup |",
        "|---:|" + "---:|" * (2 * len(PY_SCALING_ROUTES) + 2),
    ]
    d, f = speedup_ratios(cells, sharing, "D"), speedup_ratios(cells, sharing, "F")
    for t in counts:
        rates = " | ".join(f"{rate[t, r]:,.0f}" for r in PY_SCALING_ROUTES)
        speedups = " | ".join(f"{rate[t, r] / rate[1, r]:.2f}" for r in PY_SCALING_ROUTES)
        lines.append(f"| {t} | {rates} | {speedups} | {d[t]:.2f} | {f[t]:.2f} |")
    return lines
