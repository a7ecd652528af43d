"""Scaling of one shared, module-level function called from 1 and 2 Python threads at once
(LOAD_GLOBAL), on free-threaded CPython: throughput at 2 threads ÷ at 1 thread, median of
ROUNDS rounds that interleave the targets; also the threads' CPU time a call at 2 threads ÷
at 1 (1.00: no cost from sharing), which holds on a machine whose cores are busy elsewhere.

Targets, all wrapping tvm-ffi's C++ `testing.echo`:
  ffi        the tvm_ffi.Function itself (what tvm-ffi's own objects do)
  kw         a kwcall.Function as this kwcall build makes it
  kw+defer   a kwcall.Function given PyUnstable_Object_EnableDeferredRefcount here, through
             ctypes, right after it was made (what the 3.14t build does in C)
Each is reported with whether its reference count is deferred (ctypes' call returns 0 for an
object that already has it).

    python bench/deferred_refcount_scaling.py [ROUNDS] [CALLS]

Free-threaded CPython 3.14+ only (PyUnstable_Object_EnableDeferredRefcount is new in 3.14, and
with the GIL the threads take turns). docs/testing.md has the results.
"""

from __future__ import annotations

import copy
import ctypes
import gc
import os
import statistics
import sys
import sysconfig
import threading
import time
import types

import kwcall
import tvm_ffi

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 7
CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000

if not sysconfig.get_config_var("Py_GIL_DISABLED") or sys.version_info < (3, 14):
    sys.exit("needs a free-threaded CPython 3.14 or later (python3.14t)")
if sys._is_gil_enabled():
    sys.exit("the GIL is on (PYTHON_GIL=1, or a module that needs it): the threads take turns")

_enable = ctypes.pythonapi.PyUnstable_Object_EnableDeferredRefcount
_enable.argtypes = [ctypes.py_object]
_enable.restype = ctypes.c_int

echo = tvm_ffi.get_global_func("testing.echo")
SIG = kwcall.Signature(["x", "alpha", "beta"], name="echo3")


def deferral(probe) -> str:
    """Whether objects made as `probe` was defer their reference count: asked of the probe,
    a throwaway (ctypes' call enables it on an object that lacks it)."""
    if not gc.is_tracked(probe):
        return "untracked: cannot defer"
    return "deferred" if _enable(probe) == 0 else "not deferred"


plain = kwcall.wrap(echo, SIG)
deferred_here = copy.copy(plain)
_enable(deferred_here)
TARGETS = {"ffi": echo, "kw": plain, "kw+defer": deferred_here}

LOOP = "def loop(n, x, a, b):\n    for _ in range(n):\n        target(x, a, b)\n"


def rate(target, threads: int) -> tuple[float, float]:
    """(calls per second of `threads` threads calling the global `target` at once, the
    threads' CPU ns per call): the CPU time counts only while a thread ran, so on a machine
    whose cores other work takes turns on it still shows what sharing the object costs."""
    module = {"target": target}
    ready = threading.Barrier(threads + 1)
    spans = [(0, 0)] * threads
    cpu = [0] * threads

    def body(i: int) -> None:
        ns: dict = {}
        exec(compile(LOOP, "<loop>", "exec"), ns)
        loop = types.FunctionType(ns["loop"].__code__, module)
        x, a, b = int("7"), float("1.5"), int("3")  # objects of this thread's own
        loop(100, x, a, b)
        ready.wait()
        begin, cpu_begin = time.perf_counter_ns(), time.thread_time_ns()
        loop(CALLS, x, a, b)
        cpu[i] = time.thread_time_ns() - cpu_begin
        spans[i] = (begin, time.perf_counter_ns())

    workers = [threading.Thread(target=body, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    ready.wait()
    for w in workers:
        w.join()
    wall = max(e for _, e in spans) - min(b for b, _ in spans)
    return threads * CALLS / wall * 1e9, sum(cpu) / (threads * CALLS)


def main() -> None:
    print(
        f"Python {sys.version.split()[0]} GIL enabled: {sys._is_gil_enabled()}, "
        f"kwcall {kwcall.__version__}, tvm-ffi {tvm_ffi.__version__}, {ROUNDS} rounds x "
        f"{CALLS} calls a thread"
    )
    state = {
        "ffi": deferral(tvm_ffi.get_global_func("testing.echo")),
        "kw": deferral(kwcall.wrap(echo, SIG)),
        "kw+defer": "deferred (ctypes)" if _enable(deferred_here) == 0 else "not deferred",
    }
    speedups: dict[str, list[float]] = {name: [] for name in TARGETS}
    cpu_ratios: dict[str, list[float]] = {name: [] for name in TARGETS}
    ones: dict[str, list[float]] = {name: [] for name in TARGETS}
    for _ in range(ROUNDS):
        for name, target in TARGETS.items():
            (one, one_cpu), (two, two_cpu) = rate(target, 1), rate(target, 2)
            ones[name].append(one)
            speedups[name].append(two / one)
            cpu_ratios[name].append(two_cpu / one_cpu)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(
        "| target | made by this build | 1-thread calls/s | 2 ÷ 1 throughput | "
        "2 ÷ 1 CPU ns a call | 2 ÷ 1 throughput (all rounds) |"
    )
    print("|---|---|---:|---:|---:|---|")
    med = statistics.median
    for name in TARGETS:
        print(
            f"| {name} | {state[name]} | {med(ones[name]):,.0f} | {med(speedups[name]):.2f} | "
            f"{med(cpu_ratios[name]):.2f} | {' '.join(f'{s:.2f}' for s in speedups[name])} |"
        )


if __name__ == "__main__":
    main()
