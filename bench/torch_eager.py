"""Eager calls from Python of one mutating operator, and of the functional operator made of the
same function, side by side in one process:

- ``kwcall function``: the kwcall function itself, ``f(x, y, out, alpha=2.0)``;
- ``kwcall operator``: ``kwcall.torch.register(f, ...)``, called as ``torch.ops.ns.axpy_out``;
- ``eager call``: the object ``register`` returns, called the same way;
- ``custom_op``: ``torch.library.custom_op`` of the same, a Python body calling ``f`` (what
  quack's ``cute_op`` does), called the same way;
- ``functional ...``: ``register(f, ..., outputs={"out": like("x")})``, which returns ``out``:
  through ``torch.ops``, through its eager call, against the mutating operator and the kwcall
  function each given ``torch.empty_like(x)`` in Python;
- torch's own out= operator doing the same arithmetic, as ``torch.add(x, y, alpha=2.0,
  out=out)`` and through ``torch.ops`` as the kwcall operator is, ``torch.ops.aten.add.out``:
  the floor of a call through torch's binding and dispatcher.

The function is the C++ ``axpy`` of tests/python/native/torch_targets.cc (out = alpha * x + y,
16 float32 elements: the call, not the arithmetic, is measured).

    python bench/torch_eager.py [--number 20000] [--repeats 7]   # time per call (timeit)
    python bench/torch_eager.py --callgrind [--number 2000]        # instructions per call
                                        [--keep DIR]   # the dumps, for callgrind_annotate
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path

import callgrind_runs
import kwcall
import kwcall.torch
import tvm_ffi
import tvm_ffi.cpp

import torch

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "bench" / "torch_eager"


def build(name: str, source: Path) -> tvm_ffi.Module:
    return tvm_ffi.load_module(
        tvm_ffi.cpp.build(name, cpp_files=[str(source)], build_directory=str(BUILD / name))
    )


def routes() -> dict:
    targets = build("kwcall_torch_targets", ROOT / "tests/python/native/torch_targets.cc")
    signature = kwcall.Signature(["x", "y", "out"], (), ["alpha"], {"alpha": 1.0}, name="axpy")
    f = kwcall.wrap(targets["axpy"], signature)
    tensors = {"x": "Tensor", "y": "Tensor", "out": "Tensor"}
    eager = kwcall.torch.register(f, "kwcall_bench::axpy_out", mutates_args=["out"], types=tensors)
    functional = kwcall.torch.register(
        f, "kwcall_bench::axpy", types=tensors, outputs={"out": kwcall.torch.like("x")}
    )
    functional_op = torch.ops.kwcall_bench.axpy

    @torch.library.custom_op("kwcall_bench::axpy_out_custom_op", mutates_args=("out",))
    def axpy_custom_op(
        x: torch.Tensor, y: torch.Tensor, out: torch.Tensor, alpha: float = 1.0
    ) -> None:
        f(x, y, out, alpha=alpha)

    x, y, out = torch.ones(16), torch.ones(16), torch.zeros(16)
    ours = torch.ops.kwcall_bench.axpy_out
    theirs = torch.ops.kwcall_bench.axpy_out_custom_op
    aten_out = torch.ops.aten.add.out
    return {
        "kwcall function": lambda: f(x, y, out, alpha=2.0),
        "kwcall operator": lambda: ours(x, y, out, alpha=2.0),
        "eager call": lambda: eager(x, y, out, alpha=2.0),
        "custom_op": lambda: theirs(x, y, out, alpha=2.0),
        "kwcall function + empty_like": lambda: f(x, y, torch.empty_like(x), alpha=2.0),
        "kwcall operator + empty_like": lambda: ours(x, y, torch.empty_like(x), alpha=2.0),
        "functional operator": lambda: functional_op(x, y, alpha=2.0),
        "functional eager call": lambda: functional(x, y, alpha=2.0),
        "torch.add(out=)": lambda: torch.add(x, y, alpha=2.0, out=out),
        "torch.ops.aten.add.out": lambda: aten_out(x, y, alpha=2.0, out=out),
    }


def table(rows: dict, unit: str, fmt: str) -> None:
    custom_op, function = rows["custom_op"], rows["kwcall function"]
    aten = rows["torch.ops.aten.add.out"]
    print(f"| route | {unit} per call | ÷ custom_op | ÷ kwcall function | ÷ aten.add.out |")
    print("|---|---:|---:|---:|---:|")
    for name, value in rows.items():
        print(
            f"| {name} | {value:{fmt}} | {value / custom_op:.3f} | {value / function:.2f} "
            f"| {value / aten:.2f} |"
        )


def time_routes(number: int, repeats: int) -> None:
    calls = routes()
    rows = {}
    for name, call in calls.items():
        call()
        rows[name] = min(timeit.repeat(call, number=number, repeat=repeats)) / number * 1e6
    print(
        f"torch {torch.__version__}, Python {sys.version.split()[0]}: best of {repeats} × {number}"
    )
    table(rows, "µs", ".2f")


def count_routes(number: int) -> None:
    """Under callgrind (no instrumentation until start()): each route's instructions alone."""
    toggle = build("kwcall_callgrind_toggle", ROOT / "bench/callgrind_toggle.cc")
    for name, call in routes().items():
        for _ in range(200):  # warm: caches, torch's lazily made state
            call()
        toggle["start"]()
        for _ in range(number):
            call()
        toggle["stop"](name)


def callgrind(number: int, keep: str | None) -> None:
    rows = callgrind_runs.per_call(
        [__file__, "--inner-callgrind", "--number", str(number)], number, keep
    )
    order = [name for name in routes_order() if name in rows]
    print(f"torch {torch.__version__}, Python {sys.version.split()[0]}: callgrind, {number} calls")
    table({name: rows[name] for name in order}, "instructions", ",.0f")


def routes_order() -> list[str]:
    """The routes' names, in the order ``routes`` makes them (without building anything)."""
    return [
        "kwcall function",
        "kwcall operator",
        "eager call",
        "custom_op",
        "kwcall function + empty_like",
        "kwcall operator + empty_like",
        "functional operator",
        "functional eager call",
        "torch.add(out=)",
        "torch.ops.aten.add.out",
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--number", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--keep", help="with --callgrind: keep the dumps in this folder")
    parser.add_argument("--inner-callgrind", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner_callgrind:
        count_routes(args.number)
    elif args.callgrind:
        callgrind(args.number or 2000, args.keep)
    else:
        time_routes(args.number or 20000, args.repeats)


if __name__ == "__main__":
    main()
