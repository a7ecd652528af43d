"""Run a C++ micro-benchmark and print medians with ratios to the direct call.

python bench/cpp_table.py [path/to/kwcall_cpp_bench] [--repetitions N]
python bench/cpp_table.py build/cpp/bench/kwcall_dispatch_bench   # the dispatch-table routes
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

# Each binary's routes, its direct call first (the baseline).
CALL_ROWS = {
    "TargetDirect": "C++ -> target itself (3 scalars)",
    "KwcallPositional": "C++ -> kwcall function, positional",
    "KwcallDefaultsLeftOut": "C++ -> kwcall function, 2 defaults left out",
    "KwcallTwoKeywords": "C++ -> kwcall function, 2 keywords (KWARGS)",
    "KwcallCallSite": "C++ -> kwcall::CallSite, the same 2 keywords bound once",
    "KwcallCallSiteInOrder": "C++ -> kwcall::CallSite, 2 keywords in declaration order",
}
DISPATCH_ROWS = {
    "EntryDirect": "C++ -> the entry itself (4 DLTensors and a bool)",
    "TableOneTerm": "C++ -> a table of 16 keys, 1 term over 1 tensor",
    "TableFourTerms": "C++ -> a table of 16 keys, 4 terms over 3 tensors",
    "TableEightTerms": "C++ -> a table of 16 keys, 8 terms over 3 tensors and a bool",
}


def main() -> int:
    parser = argparse.ArgumentParser()
    default_bin = Path(__file__).resolve().parents[1] / "build/cpp/bench/kwcall_cpp_bench"
    parser.add_argument("binary", nargs="?", default=str(default_bin))
    parser.add_argument("--repetitions", type=int, default=15)
    parser.add_argument("--min-time", default="0.05")
    args = parser.parse_args()
    # Interleaved repetitions spread machine noise evenly over the routes.
    out = subprocess.run(
        [
            args.binary,
            "--benchmark_format=json",
            f"--benchmark_repetitions={args.repetitions}",
            "--benchmark_enable_random_interleaving=true",
            f"--benchmark_min_time={args.min_time}",
            "--benchmark_report_aggregates_only=true",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    medians = {
        b["run_name"]: b["real_time"]
        for b in json.loads(out)["benchmarks"]
        if b.get("aggregate_name") == "median"
    }
    rows = DISPATCH_ROWS if "EntryDirect" in medians else CALL_ROWS
    base = medians[next(iter(rows))]
    print(f"median of {args.repetitions} repetitions, ns per call\n")
    print("| route | ns/call | ratio to target | added ns |")
    print("|---|---:|---:|---:|")
    for key, label in rows.items():
        ns = medians[key]
        print(f"| {label} | {ns:.2f} | {ns / base:.2f}x | {ns - base:+.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
