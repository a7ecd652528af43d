"""Instructions per call of the Python routes of ``python -m kwcall.bench`` (A, the target
itself, and kwcall's D positional, E trailing defaults left out, F two keywords), counted by
callgrind on each route alone: the same functions, built and registered as the benchmark does
(kwcall.bench.build, kwcall.bench.routes), each called in a plain loop between callgrind's
client requests (bench/callgrind_toggle.cc). An instruction count does not move with the
machine's load, so it compares two builds where timings on a shared machine cannot.

    python bench/python_callgrind.py [--number 20000] [--keep DIR]

Run it with each build's Python (a worktree of the other commit set up with scripts/setup.sh)
and put the tables side by side.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import callgrind_runs
import kwcall
import tvm_ffi
import tvm_ffi.cpp
from kwcall.bench import build as bench_build
from kwcall.bench import routes

ROOT = Path(__file__).resolve().parents[1]
#: Python route -> (the mix's function, how it is called): python_routes.PY_ROUTES' A, D-F.
ROUTES = {
    "A positional": ("A", "positional"),
    "D positional": ("K", "positional"),
    "E defaults left out": ("K", "defaults"),
    "F 2 keywords": ("K", "keywords"),
}


def route_names() -> list[str]:
    return [f"{mix}: {route}" for mix in ("scalars", "tensors3", "tensors9") for route in ROUTES]


def calls() -> dict[str, object]:
    mixes = routes.make_mixes(bench_build.build("cpu"), "cpu")
    made = {}
    for mix in mixes:
        for route, (letter, shape) in ROUTES.items():
            f, lead = mix.functions[letter], mix.lead
            call = {
                "positional": lambda f=f, lead=lead: f(*lead, routes.ALPHA, routes.BETA),
                "defaults": lambda f=f, lead=lead: f(*lead),
                "keywords": lambda f=f, lead=lead: f(*lead, alpha=routes.ALPHA, beta=routes.BETA),
            }[shape]
            made[f"{mix.name}: {route}"] = call
    return made


def count(number: int) -> None:
    """Under callgrind (no instrumentation until start()): each route's instructions alone."""
    out = ROOT / "build" / "bench" / "python_callgrind"
    toggle = tvm_ffi.load_module(
        tvm_ffi.cpp.build(
            "kwcall_callgrind_toggle",
            cpp_files=[str(ROOT / "bench" / "callgrind_toggle.cc")],
            build_directory=str(out),
        )
    )
    for i, call in enumerate(calls().values()):
        for _ in range(200):  # warm: the keyword shapes, caches
            call()
        toggle["start"]()
        for _ in range(number):
            call()
        toggle["stop"](f"route{i}")  # a plain word: the dump's name


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--keep", help="keep the dumps in this folder, for callgrind_annotate")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        count(args.number)
        return
    counted = callgrind_runs.per_call(
        [__file__, "--inner", "--number", str(args.number)], args.number, args.keep
    )
    rows = {name: counted.get(f"route{i}") for i, name in enumerate(route_names())}
    print(
        f"kwcall {kwcall.__version__}, Python {sys.version.split()[0]}, apache-tvm-ffi "
        f"{tvm_ffi.__version__}: callgrind, {args.number} calls a route"
    )
    print("| route | instructions per call |")
    print("|---|---:|")
    for name, value in rows.items():
        print(f"| {name} | {'-' if value is None else f'{value:,.1f}'} |")


if __name__ == "__main__":
    main()
