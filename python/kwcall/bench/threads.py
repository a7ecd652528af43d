"""Thread scaling: 1, 2, 4 ... up to the core count plain C++ threads calling routes A, B
and D at once; on a GPU each thread launches on its own CUDA stream and, separately, all
on the default stream."""

from __future__ import annotations

import os

from .build import Modules
from .cells import UNBOUNDED_CALLS, Cell
from .cpp_routes import SLOW_MAX_CALLS, thread_runner
from .routes import Mix

SCALING_ROUTES = ("A", "B", "D")


def thread_counts(quick: bool) -> list[int]:
    cores = os.cpu_count() or 1
    counts = {1, 2, cores} if quick else {2**i for i in range(cores.bit_length())} | {cores}
    return sorted(c for c in counts if c <= max(cores, 2))


def cells(
    modules: Modules, mixes: list[Mix], device_id: int, quick: bool, streams: list[int]
) -> list[Cell]:
    """streams: CUDA streams created for the run (at least max(thread_counts)), or []."""
    by_name = {mix.name: mix for mix in mixes}
    # (mix, stream kind): the scalar mix shows the calling cost alone; on a GPU the
    # 3-tensor mix shows real launches, per-thread streams against the default stream.
    setups = [(by_name["scalars"], "none")]
    if streams:
        setups += [(by_name["tensors3"], "own"), (by_name["tensors3"], "default")]
    out = []
    for mix, stream in setups:
        for count in thread_counts(quick):
            for route in SCALING_ROUTES:
                labels = {"mix": mix.name, "route": route, "caller": "threads", "stream": stream}
                out.append(
                    Cell(
                        "threads",
                        labels,
                        thread_runner(
                            modules,
                            mix,
                            route,
                            count,
                            device_id,
                            streams[:count] if stream == "own" else [],
                        ),
                        threads=count,
                        # The GIL serializes route B's threads: keep its total bounded.
                        max_calls=max(100, SLOW_MAX_CALLS // count)
                        if route == "B"
                        else UNBOUNDED_CALLS,
                    )
                )
    return out
