"""From C++: the caller module looks each route's global up once and calls it n times,
on the thread Python called it on (tvm-ffi releases the GIL) and on a plain C++ thread."""

from __future__ import annotations

from .build import Modules
from .cells import UNBOUNDED_CALLS, Cell
from .routes import ALPHA, BETA, Mix

POSITIONAL, DEFAULTS, KEYWORDS, CALL_SITE = 0, 1, 2, 3  # caller.cc's modes

# route -> (which registered function, call mode)
CPP_ROUTES = {
    "A": ("A", POSITIONAL),
    "B": ("B", POSITIONAL),
    "C": ("C", POSITIONAL),
    "D": ("K", POSITIONAL),
    "E": ("K", DEFAULTS),
    "F": ("K", KEYWORDS),
    "G": ("K", CALL_SITE),
}

# A Python-callback route from a plain thread costs ~10 us a call; this bounds its samples.
SLOW_ROUTES = {"B", "C"}
SLOW_MAX_CALLS = 20_000


def _route_args(modules: Modules, mix: Mix, route: str, device_id: int):
    """What caller.cc needs to call one route: (global name, leading arguments, mode,
    CUDA device or -1, stream-sync function or None)."""
    fn, mode = CPP_ROUTES[route]
    sync = modules.cuda.get_function("stream_sync") if mix.cuda else None
    cuda_device = device_id if mix.cuda else -1
    return mix.globals[fn], list(mix.lead), mode, cuda_device, sync


def call_runner(modules: Modules, mix: Mix, route: str, device_id: int):
    """run(n) for n calls of the route from Python's thread."""
    call_n = modules.caller.get_function("call_n")
    name, lead, mode, cuda_device, sync = _route_args(modules, mix, route, device_id)

    def run(n: int) -> list[int]:
        return [call_n(name, lead, ALPHA, BETA, n, mode, cuda_device, sync)]

    return run


def thread_runner(
    modules: Modules, mix: Mix, route: str, threads: int, device_id: int, streams: list[int]
):
    """run(n) for n calls on each of `threads` plain C++ threads; streams: one per thread,
    or empty for the default stream."""
    run_threads = modules.caller.get_function("threads")
    name, lead, mode, cuda_device, sync = _route_args(modules, mix, route, device_id)

    def run(n: int) -> list[int]:
        out = run_threads(name, lead, ALPHA, BETA, threads, n, mode, cuda_device, streams, sync)
        return list(out)

    return run


def cells(modules: Modules, mixes: list[Mix], device_id: int) -> list[Cell]:
    out = []
    for mix in mixes:
        for route in CPP_ROUTES:
            labels = {"mix": mix.name, "route": route}
            out.append(
                Cell(
                    "cpp",
                    {**labels, "caller": "python_thread"},
                    call_runner(modules, mix, route, device_id),
                )
            )
            out.append(
                Cell(
                    "cpp",
                    {**labels, "caller": "plain_thread"},
                    thread_runner(modules, mix, route, 1, device_id, []),
                    max_calls=SLOW_MAX_CALLS if route in SLOW_ROUTES else UNBOUNDED_CALLS,
                )
            )
    return out
