"""Python calls of a CuTeDSL-compiled function: kwcall's object with keywords vs the
compiled function's own native handle called positionally, and stock CuTeDSL 4.6+'s
object. Host-only function (no GPU needed): one CPU tensor and scalars.

    python bench/cute_python_calls.py [--repeats 15] [--number 20000]
"""

from __future__ import annotations

import argparse
import statistics
import timeit

import cutlass.cute as cute
import kwcall.cute
import numpy as np
from cutlass import Float32, Int32
from cutlass.cute.runtime import from_dlpack


@cute.jit
def axpb(
    out: cute.Tensor,
    a: Int32,
    b: Float32 = Float32(1.5),  # noqa: B008  (CuTeDSL's style of default)
    *,
    c: Int32,
    d: Int32 = Int32(10),  # noqa: B008
):
    out[0] = Float32(a) * b + Float32(c) + Float32(d)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--number", type=int, default=20000)
    args = parser.parse_args()

    out = np.zeros(4, dtype=np.float32)
    compile_args = (axpb, from_dlpack(out), Int32(1), Float32(2.0))
    stock = cute.compile(*compile_args, c=Int32(5), options="--enable-tvm-ffi")
    ours = kwcall.cute.compile(*compile_args, c=Int32(5))
    native = ours._tvm_ffi_function
    routes = {
        "native handle, positional (every parameter)": lambda: native(out, 2, 1.5, 3, 10),
        "kwcall, keyword c=3 (b, d defaults)": lambda: ours(out, 2, c=3),
        "kwcall, keywords c=3, d=10": lambda: ours(out, 2, c=3, d=10),
        "stock CuTeDSL 4.6+ object, keyword c=3": lambda: stock(out, 2, c=3),
    }
    samples: dict[str, list[float]] = {label: [] for label in routes}
    for _ in range(args.repeats):
        for label, call in routes.items():  # interleaved, so noise spreads evenly
            samples[label].append(timeit.timeit(call, number=args.number) / args.number * 1e9)
    base = statistics.median(samples["native handle, positional (every parameter)"])
    print(f"median of {args.repeats} x {args.number} calls, ns per call (lambda included)\n")
    print("| route | ns/call | ratio to native positional |")
    print("|---|---:|---:|")
    for label, values in samples.items():
        median = statistics.median(values)
        print(f"| {label} | {median:.0f} | {median / base:.3f} |")


if __name__ == "__main__":
    main()
