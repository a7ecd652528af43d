"""CuTeDSL's "call cute.jit functions from C++ via TVM-FFI" example, with kwcall.

Compiles an fp16 elementwise add with --enable-tvm-ffi three ways and registers each as a
global: the compiled function's own native handle (what C++ called before CuTeDSL 4.6),
stock CuTeDSL 4.6+'s object (a Python callback once registered) and kwcall's. A small C++
module built with tvm-ffi's C++ tooling launches them by name, positionally and with
keywords; Python calls them with keywords. Results are checked against PyTorch, then the
C++ caller's CPU time per launch is printed for each route. Needs a CUDA GPU.

    python examples/cute_from_cpp/run.py [--launches N] [--repeats R]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent


def time_python(call, launches: int) -> float:
    """CPU nanoseconds per launch over `launches` calls from Python."""
    start = time.perf_counter_ns()
    for _ in range(launches):
        call()
    return (time.perf_counter_ns() - start) / launches


def measure(runs: dict, repeats: int, torch) -> dict[str, list[float]]:
    """Samples of each run (ns per launch), interleaved so that noise spreads evenly; the
    device is idle at the start and end of each sample."""
    samples: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(repeats):
        for label, run in runs.items():
            torch.cuda.synchronize()
            samples[label].append(run())
            torch.cuda.synchronize()
    return samples


def print_table(caller: str, samples: dict[str, list[float]], args) -> None:
    """Medians, with ratios to the first route (the native handle)."""
    base = statistics.median(next(iter(samples.values())))
    print(f"\n{caller}, CPU time per launch (median of {args.repeats} x {args.launches}):")
    print("| route | ns/launch | ratio to native handle |")
    print("|---|---:|---:|")
    for label, values in samples.items():
        median = statistics.median(values)
        print(f"| {label} | {median:.0f} | {median / base:.3f} |")


def threaded_table(launcher, routes: dict, a, b, c, args, torch) -> None:
    """A C++ server's shape: 1-16 plain C++ threads, a CUDA stream each, launching the real
    kernel through the native handle, kwcall and stock's object. Launches per second (median
    of the repeats), all routes interleaved within each repeat."""
    counts = [n for n in (1, 2, 4, 8, 16) if n <= args.threads]
    streams = [torch.cuda.Stream() for _ in range(max(counts))]
    handles = [s.cuda_stream for s in streams]
    device = torch.cuda.current_device()
    timed = {
        "native handle (a, b, c, alpha)": (routes["native handle (pre-4.6)"], 0, args.launches),
        "kwcall (a, b, c, alpha)": (routes["kwcall"], 0, args.launches),
        "kwcall (alpha by keyword)": (routes["kwcall"], 2, args.launches),
        # A Python callback that takes the GIL: far fewer launches keep the run short.
        "stock 4.6+ object (a, b, c)": (
            routes["stock 4.6+ object"],
            1,
            max(args.launches // 20, 20),
        ),
    }
    rows = {}
    for n in counts:
        samples: dict[str, list[float]] = {label: [] for label in timed}
        for _ in range(args.repeats):
            for label, (name, mode, launches) in timed.items():
                torch.cuda.synchronize()
                samples[label].append(
                    launcher.threaded_launches(
                        name, a, b, c, n, launches, mode, handles[:n], device
                    )
                )
                torch.cuda.synchronize()
        rows[n] = {label: statistics.median(v) for label, v in samples.items()}
    print(f"\nC++ threads, a CUDA stream each: launches per second (median of {args.repeats}):")
    print("| threads | " + " | ".join(timed) + " | kwcall / native |")
    print("|---:|" + "---:|" * (len(timed) + 1))
    for n, row in rows.items():
        cells = " | ".join(f"{row[label]:,.0f}" for label in timed)
        ratio = row["kwcall (a, b, c, alpha)"] / row["native handle (a, b, c, alpha)"]
        print(f"| {n} | {cells} | {ratio:.2f} |")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--size", type=int, default=1 << 16)
    parser.add_argument(
        "--threads", type=int, default=16, help="largest C++ thread count (0: no thread table)"
    )
    args = parser.parse_args()

    sys.path.insert(0, str(HERE))
    from cuda_torch import SKIP, cuda_torch

    torch = cuda_torch()
    if torch is None:
        print(SKIP)
        return 0
    import cutlass.cute as cute
    import elementwise_add as ea
    import kwcall.cute
    import kwcall.libinfo
    import tvm_ffi

    (a_t, b_t, c_t), stream = ea.compile_args()
    stock = cute.compile(
        ea.elementwise_add, a_t, b_t, c_t, stream=stream, options="--enable-tvm-ffi"
    )
    (a_t, b_t, c_t), stream = ea.compile_args()
    ours = kwcall.cute.compile(ea.elementwise_add, a_t, b_t, c_t, stream=stream)
    routes = {
        "native handle (pre-4.6)": "example.add_native",
        "kwcall": "example.add_kwcall",
        "stock 4.6+ object": "example.add_stock",
    }
    tvm_ffi.register_global_func(
        routes["native handle (pre-4.6)"], ours._tvm_ffi_function, override=True
    )
    tvm_ffi.register_global_func(routes["kwcall"], ours, override=True)
    tvm_ffi.register_global_func(routes["stock 4.6+ object"], stock, override=True)

    lib = kwcall.libinfo.build_module(
        "kwcall_cute_launcher",
        [str(HERE / "launcher.cc")],
        str(HERE.parents[1] / "build" / "cute_from_cpp"),
    )
    launcher = tvm_ffi.load_module(lib)

    n = args.size
    a = torch.randn(n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    c = torch.empty_like(a)

    def check(label: str, alpha: float) -> None:
        torch.cuda.synchronize()
        expected = (a.float() + alpha * b.float()).half()
        ok = torch.allclose(c.float(), expected.float(), atol=1e-2, rtol=1e-2)
        print(f"  {'ok  ' if ok else 'FAIL'} {label}")
        if not ok:
            raise SystemExit(f"wrong result for {label}")

    print("results (c = a + alpha * b, fp16, checked against PyTorch):")
    c.zero_()
    launcher.launch_positional(routes["kwcall"], a, b, c, 2.0)
    check("C++ -> kwcall, positional (a, b, c, 2.0)", 2.0)
    c.zero_()
    launcher.launch_keyword(routes["kwcall"], a, b, c, 3.0)
    check("C++ -> kwcall, keyword alpha=3.0", 3.0)
    c.zero_()
    launcher.launch_positional(routes["native handle (pre-4.6)"], a, b, c, 2.0)
    check("C++ -> native handle, positional", 2.0)
    c.zero_()
    ours(a, b, c)
    check("Python -> kwcall, default alpha", 1.0)
    c.zero_()
    ours(a, b, c, alpha=0.5)
    check("Python -> kwcall, alpha=0.5", 0.5)
    c.zero_()
    ours(c=c, b=b, a=a, alpha=-1.0)
    check("Python -> kwcall, all keywords", -1.0)
    c.zero_()
    stock(a, b, c, alpha=0.5)
    check("Python -> stock object, alpha=0.5", 0.5)

    # (global, pass alpha): the native handle takes every parameter; the stock object,
    # a Python callback once registered, only takes what its Python signature allows.
    timed = {
        "native handle, a, b, c, alpha (pre-4.6)": (routes["native handle (pre-4.6)"], True),
        "kwcall, a, b, c, alpha (native call)": (routes["kwcall"], True),
        "kwcall, a, b, c (default filled in C++)": (routes["kwcall"], False),
        "stock 4.6+ object, a, b, c": (routes["stock 4.6+ object"], False),
    }
    for name, pass_alpha in timed.values():  # warm up every route once
        launcher.time_launches(name, a, b, c, 100, pass_alpha)
    cpp_runs = {
        label: partial(launcher.time_launches, name, a, b, c, args.launches, pass_alpha)
        for label, (name, pass_alpha) in timed.items()
    }
    print_table("C++ caller", measure(cpp_runs, args.repeats, torch), args)

    # Python callers: keywords through kwcall vs the native handle called positionally.
    native = ours._tvm_ffi_function
    py_calls = {
        "native handle, positional (a, b, c, 1.0)": lambda: native(a, b, c, 1.0),
        "kwcall, keyword alpha=1.0": lambda: ours(a, b, c, alpha=1.0),
        "kwcall, alpha left to its default": lambda: ours(a, b, c),
        "stock 4.6+ object, keyword alpha=1.0": lambda: stock(a, b, c, alpha=1.0),
    }
    py_runs = {label: partial(time_python, call, args.launches) for label, call in py_calls.items()}
    print_table("Python caller", measure(py_runs, args.repeats, torch), args)

    if args.threads:
        threaded_table(launcher, routes, a, b, c, args, torch)
    print(f"\nGPU: {torch.cuda.get_device_name()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
