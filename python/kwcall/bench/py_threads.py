"""Python-thread scaling, on free-threaded CPython only (under the GIL Python threads take
turns, and there is nothing to scale): 1, 2, 4, 8 and 16 Python threads, as many as the
machine has cores, call the scalar mix's routes A (the bare tvm-ffi function), B (the CuTeDSL
4.6+ route), D (kwcall positionally) and F (kwcall with two keywords) at once.

Three ways of sharing: "own", each thread calling a function object of its own that it made
itself (a fresh tvm_ffi.Function for the same handle, a copy of the kwcall.Function, its own
CuTeDSL-like object), so threads share only what the routes share inside; "handed", the same
objects made one after another by the main thread and handed out (objects made together sit
together in memory, and another thread made their reference counts); and "shared", every
thread calling the one object, passed to its loop as an argument; and "global", every thread
calling the one object through a module-level global, as a program calls a module's function
(LOAD_GLOBAL takes a reference to the shared object on every call; on 3.14 an argument's load
takes none). Every thread passes argument objects of its own and runs a loop compiled for it,
so the loop's constants and the arguments' reference counts are not what is measured. Each
thread is pinned to a CPU of its own where the machine allows it (pin_to_cpu)."""

from __future__ import annotations

import copy
import os
import sys
import sysconfig
import threading
import time
import types
from collections.abc import Callable
from typing import Any

import tvm_ffi

from .cells import UNBOUNDED_CALLS, Cell
from .routes import ALPHA, BETA, CuteLikeFunction, Mix

PY_SCALING_ROUTES = ("A", "B", "D", "F")
SHARING = ("own", "handed", "shared", "global")
SHARING_TEXT = {
    "own": "a function object per thread, made on that thread",
    "handed": "a function object per thread, all made by the main thread",
    "shared": "one object shared by every thread, passed to the loop as an argument",
    "global": "one object shared by every thread, called through a module-level global",
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
# the keyword names tuple) belongs to that thread alone. It calls `f`, its argument, or, for
# the "global" sharing, `target`, a global of the module namespace every thread's loop shares.
_LOOP = {
    "positional": "def loop(n, f, x, alpha, beta):\n    for _ in range(n):\n"
    "        {callee}(x, alpha, beta)\n",
    "keywords": "def loop(n, f, x, alpha, beta):\n    for _ in range(n):\n"
    "        {callee}(x, alpha=alpha, beta=beta)\n",
}


def loop(shape: str, module: dict[str, Any] | None = None) -> Callable[..., None]:
    """A fresh timed loop of ``shape``: calling its argument ``f``, or, given ``module`` (one
    namespace for every thread, holding ``target``), calling that global."""
    source = _LOOP[shape].format(callee="f" if module is None else "target")
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<kwcall.bench {shape} loop>", "exec"), namespace)
    made = namespace["loop"]
    return made if module is None else types.FunctionType(made.__code__, module)


def pin_to_cpu(i: int, cpus: list[int]) -> int | None:
    """Pins the calling thread to ``cpus[i % len(cpus)]`` (``cpus``: those this process may
    run on, read before any thread was pinned) so that threads do not migrate during a sample;
    the CPU, or None where the machine does not allow it (no sched_setaffinity, or refused)."""
    if not cpus or not hasattr(os, "sched_setaffinity"):
        return None
    cpu = cpus[i % len(cpus)]
    try:
        os.sched_setaffinity(0, {cpu})  # 0: the calling thread alone
    except OSError:
        return None
    return cpu


def pinning() -> str:
    """What the Python-thread cells do about CPUs here, for the results' machine section."""
    cpus = allowed_cpus()
    if not cpus or not hasattr(os, "sched_setaffinity"):
        return "threads not pinned (no sched_setaffinity here)"
    try:
        os.sched_setaffinity(0, set(cpus))  # what it is already: a test of the right to set it
    except OSError as error:
        return f"threads not pinned (sched_setaffinity refused: {error.strerror})"
    return f"each thread pinned to one of CPUs {cpus[0]}-{cpus[-1]} ({len(cpus)} allowed)"


def allowed_cpus() -> list[int]:
    """The CPUs this process may run on, in order; empty where that cannot be read."""
    getaffinity = getattr(os, "sched_getaffinity", None)
    return sorted(getaffinity(0)) if getaffinity is not None else []


def runner(mix: Mix, route: str, threads: int, sharing: str) -> Callable[[int], list[int]]:
    """run(n) for n calls on each of `threads` Python threads: [span ns, per-thread ns ...]."""
    shape = "keywords" if route in ("B", "F") else "positional"
    shared = mix.functions["K" if route in ("D", "F") else route]

    def run(n: int) -> list[int]:
        ready = threading.Barrier(threads + 1)
        go = threading.Event()
        spans = [(0, 0)] * threads
        handed = [_own_function(mix, route) for _ in range(threads)] if sharing == "handed" else []
        module = {"target": shared} if sharing == "global" else None
        cpus = allowed_cpus()

        def body(i: int) -> None:
            pin_to_cpu(i, cpus)
            if sharing == "own":
                fn = _own_function(mix, route)
            else:
                fn = handed[i] if handed else shared
            timed = loop(shape, module)
            x, beta = int(mix.lead[0]), int(BETA)
            alpha = float(str(ALPHA))  # a float object of this thread's own
            timed(1, fn, x, alpha, beta)  # warm
            ready.wait()
            go.wait()
            begin = time.perf_counter_ns()
            timed(n, fn, x, alpha, beta)
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
