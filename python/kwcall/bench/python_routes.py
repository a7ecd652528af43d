"""From Python: timeit loops over each route, positionally and with keywords. Every sample
includes the loop's own cost (~10-20 ns a call), the same for every route."""

from __future__ import annotations

import time
import timeit
from collections.abc import Callable

from .cells import Cell
from .routes import ALPHA, BETA, Mix

# row -> (which function, call shape)
PY_ROUTES = {
    "A": ("A", "positional"),
    "B": ("B", "positional"),
    "B kw": ("B", "keywords"),
    "C": ("C", "positional"),
    "C kw": ("C", "keywords"),
    "D": ("K", "positional"),
    "E": ("K", "defaults"),
    "F": ("K", "keywords"),
}


def _statement(lead_names: list[str], shape: str) -> str:
    args = {
        "positional": [*lead_names, "alpha", "beta"],
        "defaults": lead_names,
        "keywords": [*lead_names, "alpha=alpha", "beta=beta"],
    }[shape]
    return f"f({', '.join(args)})"


def _timer(cuda: bool) -> Callable[[], int]:
    if not cuda:
        return time.perf_counter_ns
    import torch

    def synced() -> int:
        # A launch is asynchronous: count the work the loop queued, not only the queueing.
        torch.cuda.synchronize()
        return time.perf_counter_ns()

    return synced


def runner(mix: Mix, row: str):
    fn, shape = PY_ROUTES[row]
    lead_names = [f"a{i}" for i in range(len(mix.lead))]
    # Setup binds everything to locals of timeit's loop function: no global lookups.
    setup = f"f = _f; {', '.join(lead_names)}, = _lead; alpha = _alpha; beta = _beta"
    timer = timeit.Timer(
        _statement(lead_names, shape),
        setup,
        timer=_timer(mix.cuda),
        globals={"_f": mix.functions[fn], "_lead": mix.lead, "_alpha": ALPHA, "_beta": BETA},
    )

    def run(n: int) -> list[int]:
        return [timer.timeit(n)]

    return run


def cells(mixes: list[Mix]) -> list[Cell]:
    return [
        Cell("python", {"mix": mix.name, "route": row, "caller": "python"}, runner(mix, row))
        for mix in mixes
        for row in PY_ROUTES
    ]
