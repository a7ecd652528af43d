"""``python -m kwcall.bench.compare``: two sets of benchmark runs (before and after a change)
side by side, as ×A (the paired ratio to route A of the same run) for every cell both have.

    python -m kwcall.bench.compare --before R1 [R1 ...] --after R2 [R2 ...] [--out FILE]

Each R is a results folder (or its results.json) written by ``python -m kwcall.bench``. Run the
two builds alternately (before, after, before, after) so drift lands on both.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .cells import Cell, from_json, paired_ratio

# The labels that identify a cell apart from its route.
KEY_LABELS = ("group", "caller", "mix", "stream", "objects", "threads")


def load(path: Path) -> dict[str, Any]:
    path = path / "results.json" if path.is_dir() else path
    return json.loads(path.read_text())


def ratios_to_a(run: dict[str, Any]) -> dict[tuple, float]:
    """(key labels..., route) -> ×A for one run."""
    cells = [from_json(c) for c in run["cells"]]

    def key(cell: Cell) -> tuple:
        return tuple(
            cell.threads if k == "threads" else cell.group if k == "group" else cell.labels.get(k)
            for k in KEY_LABELS
        )

    bases = {key(c): c for c in cells if c.labels.get("route") == "A"}
    return {
        (*key(c), c.labels["route"]): paired_ratio(c, bases[key(c)])
        for c in cells
        if key(c) in bases
    }


def describe(runs: list[dict[str, Any]]) -> str:
    commits = sorted({str(r.get("commit")) for r in runs})
    commands = sorted({str(r.get("command")) for r in runs})
    return f"commit {', '.join(commits)}; `{'`, `'.join(commands)}`"


def table(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[str]:
    b = [ratios_to_a(r) for r in before]
    a = [ratios_to_a(r) for r in after]
    keys = sorted(set.intersection(*(set(r) for r in b + a)), key=str)
    lines = [
        "# Before and after",
        "",
        f"- before ({len(before)} runs): {describe(before)}",
        f"- after ({len(after)} runs): {describe(after)}",
        "",
        "Each cell is ×A, the median over repetitions of the ratio to route A sampled in the same "
        "repetition, one figure per run. B and C are the routes kwcall replaces.",
        "",
        "| " + " | ".join(KEY_LABELS) + " | route | before ×A | after ×A |",
        "|" + "---|" * (len(KEY_LABELS) + 3),
    ]
    for k in keys:
        if k[-1] == "A":
            continue
        cols = ["–" if v is None else str(v) for v in k]
        before_x, after_x = (" / ".join(f"{r[k]:.2f}" for r in rs) for rs in (b, a))
        lines.append("| " + " | ".join(cols) + f" | {before_x} | {after_x} |")
    return lines


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(prog="python -m kwcall.bench.compare", description=__doc__)
    parser.add_argument("--before", type=Path, nargs="+", required=True)
    parser.add_argument("--after", type=Path, nargs="+", required=True)
    parser.add_argument("--out", type=Path, help="also write the table here")
    args = parser.parse_args(argv)
    text = "\n".join(table([load(p) for p in args.before], [load(p) for p in args.after])) + "\n"
    if args.out:
        args.out.write_text(text)
    print(text, end="")
    return text


if __name__ == "__main__":
    main()
