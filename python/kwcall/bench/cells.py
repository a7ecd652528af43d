"""A cell is one thing to time (a route, a mix, a caller); the runner calibrates each cell
once, then samples every cell in turn for each repetition, so slow drift and noise spread
over all routes instead of landing on one."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: A cell's call count when nothing else bounds it: more than any sample needs.
UNBOUNDED_CALLS = 10**8


@dataclass
class Cell:
    group: str  # "cpp", "python" or "threads"
    labels: dict[str, Any]  # mix, route, caller, threads, stream ...
    run: Callable[[int], list[int]]  # n calls -> [elapsed ns, per-thread ns ...]
    threads: int = 1
    max_calls: int = UNBOUNDED_CALLS
    calls: int = 0  # per thread per sample, set by calibrate
    samples: list[list[int]] = field(default_factory=list)

    def calibrate(self, sample_s: float) -> None:
        """Choose the call count that makes one sample last about sample_s seconds."""
        n = 1
        while True:
            # The best of three, so one preemption on a busy machine does not shrink the
            # call count to a handful.
            elapsed = min(self.run(n)[0] for _ in range(3))
            # Up to 1 ms of calls is enough to extrapolate from.
            if elapsed > min(1e6, sample_s * 1e9 / 4) or n >= self.max_calls:
                break
            n *= 10
        self.calls = int(min(self.max_calls, max(1, sample_s * 1e9 * n / elapsed)))

    def sample(self) -> None:
        self.samples.append(self.run(self.calls))

    def sample_ns_per_call(self) -> list[float]:
        """Time per call in each sample as one caller sees it: the batch time on the calling
        thread, or the mean of the threads' own times (without thread start and join)."""
        return [
            (statistics.fmean(s[1:]) if len(s) > 1 else s[0]) / self.calls for s in self.samples
        ]

    def ns_per_call(self) -> float:
        """Median time per call."""
        return statistics.median(self.sample_ns_per_call())

    def calls_per_s(self) -> float:
        """Median total calls per second over all threads."""
        return statistics.median(self.threads * self.calls * 1e9 / s[0] for s in self.samples)

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            **self.labels,
            "threads": self.threads,
            "calls_per_sample": self.calls,
            "samples_ns": self.samples,
            "median_ns_per_call": self.ns_per_call(),
            "median_calls_per_s": self.calls_per_s(),
        }


def route_cells(
    group: str,
    routes: dict[str, str],
    caller: str,
    runner: Callable[[str], Callable[[int], list[int]]],
    max_calls: dict[str, int] | None = None,
) -> list[Cell]:
    """A cell for each route of ``group`` (its mix as well) that ``caller`` calls through
    ``runner(route)``; ``max_calls`` bounds some routes' call counts."""
    bound = max_calls or {}
    return [
        Cell(
            group,
            {"mix": group, "route": route, "caller": caller},
            runner(route),
            max_calls=bound.get(route, UNBOUNDED_CALLS),
        )
        for route in routes
    ]


def from_json(data: dict[str, Any]) -> Cell:
    """A cell read back from results.json (its samples, not its runner)."""
    fixed = {
        "group",
        "threads",
        "calls_per_sample",
        "samples_ns",
        "median_ns_per_call",
        "median_calls_per_s",
    }
    labels = {k: v for k, v in data.items() if k not in fixed}
    cell = Cell(data["group"], labels, run=lambda n: [], threads=data["threads"])
    cell.calls = data["calls_per_sample"]
    cell.samples = data["samples_ns"]
    return cell


def run_all(cells: list[Cell], reps: int, sample_s: float, progress: Any) -> None:
    """Calibrates every cell, then takes reps samples of each, interleaved."""
    for cell in cells:
        cell.calibrate(sample_s)  # also the warm-up
        progress.update(1)
    for _ in range(reps):
        for cell in cells:
            cell.sample()
            progress.update(1)


def paired_ratio(cell: Cell, base: Cell) -> float:
    """Median over repetitions of cell's time ÷ base's time in the same repetition: the two
    were sampled moments apart, so drift in the machine's speed cancels."""
    pairs = zip(cell.sample_ns_per_call(), base.sample_ns_per_call(), strict=False)
    return statistics.median(c / b for c, b in pairs)


def paired_difference(cell: Cell, base: Cell) -> float:
    """Median over repetitions of cell's time − base's time (ns) in the same repetition."""
    pairs = zip(cell.sample_ns_per_call(), base.sample_ns_per_call(), strict=False)
    return statistics.median(c - b for c, b in pairs)
