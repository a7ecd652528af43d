"""``python -m kwcall.bench``: build the C++ caller, register every route, time them all in
one process, and write results/<timestamp>/{results.md, results.json, chart.png}."""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import tvm_ffi

import kwcall

from . import (
    build,
    cells,
    cpp_routes,
    dispatch_routes,
    py_threads,
    python_routes,
    report,
    routes,
    threads,
    torch_routes,
)
from .progress import progress_bar

# (samples per cell, seconds per sample)
MODES = {"quick": (7, 0.01), "full": (21, 0.05)}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m kwcall.bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="seconds, for the demo and CI")
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="cuda: CUDA tensors and real kernel launches (auto: if torch sees a GPU)",
    )
    parser.add_argument("--out", type=Path, default=Path("results"), help="results folder")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help=f"where the C++ modules are built (default {build.default_cache_dir()})",
    )
    parser.add_argument("--reps", type=int, default=None, help="samples per cell")
    parser.add_argument("--sample-ms", type=float, default=None, help="milliseconds per sample")
    parser.add_argument("--no-progress", action="store_true", help="no progress report")
    return parser.parse_args(argv)


def pick_device(choice: str) -> str:
    try:
        import torch
    except ImportError:
        torch = None
    available = torch is not None and torch.cuda.is_available()
    if choice == "cuda" and not available:
        why = "torch is not installed" if torch is None else "torch.cuda.is_available() is False"
        raise SystemExit(f"--device cuda: {why}; run with --device cpu")
    return "cuda" if choice == "cuda" or (choice == "auto" and available) else "cpu"


def source_commit() -> str | None:
    """The kwcall commit measured: KWCALL_SOURCE_COMMIT, else the git checkout that holds the
    installed package (a clone's .venv or an editable install), with "-dirty" for local edits;
    None for a wheel installed elsewhere."""
    if os.environ.get("KWCALL_SOURCE_COMMIT"):
        return os.environ["KWCALL_SOURCE_COMMIT"]
    where = Path(kwcall.__file__).resolve().parent

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(where), *args], capture_output=True, text=True, timeout=30
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    try:
        commit = git("rev-parse", "HEAD")
        if not commit:
            return None
        # Only files that build kwcall count: results and logs do not change what is measured.
        dirty = git(
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
            "src",
            "include",
            "python",
            "CMakeLists.txt",
            "pyproject.toml",
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("-dirty" if dirty else "")


def installed_version(distribution: str) -> str | None:
    """An installed distribution's version, read from its metadata (None when it is not
    installed): never imported, since importing CuTeDSL turns the GIL back on under
    free-threaded 3.14 (its extension does not declare itself free of it)."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def machine(device: str) -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "tvm_ffi": tvm_ffi.__version__,
        "kwcall": kwcall.__version__,
        # Other load skews every number, thread scaling most: record it beside them.
        "loadavg_1min_at_start": os.getloadavg()[0],
        "gil": "off (free-threaded)" if py_threads.free_threaded() else "on",
        "python_threads": py_threads.pinning(),
    }
    info["nvidia_cutlass_dsl"] = installed_version("nvidia-cutlass-dsl")
    info["torch"] = installed_version("torch")
    if device == "cuda":
        import torch

        info["gpu"] = torch.cuda.get_device_name()
    return info


#: What the benchmark needs beyond kwcall itself: the "bench" extra.
EXTRA_MODULES = ("numpy", "matplotlib", "tqdm")


def check_dependencies() -> None:
    """Stop before any work when the benchmark's extra is missing, naming it."""
    import importlib.util

    missing = [name for name in EXTRA_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise SystemExit(
            f"python -m kwcall.bench needs {', '.join(missing)}: "
            'pip install "kwcall[bench]" (numpy, matplotlib, tqdm)'
        )


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(argv)
    check_dependencies()
    mode = "quick" if args.quick else "full"
    reps, sample_s = MODES[mode]
    reps = args.reps or reps
    sample_s = args.sample_ms / 1e3 if args.sample_ms else sample_s
    device = pick_device(args.device)
    device_id = 0
    if device == "cuda":
        import torch

        device_id = torch.cuda.current_device()

    details = machine(device)
    modules = build.build(device, args.cache_dir)
    mixes = routes.make_mixes(modules, device)
    no_torch = torch_routes.unavailable()
    torch_cells = (
        [] if no_torch else torch_routes.cells(torch_routes.TorchRoutes(modules, args.cache_dir))
    )
    no_dispatch = dispatch_routes.unavailable()
    dispatch_cells = (
        [] if no_dispatch else dispatch_routes.cells(dispatch_routes.DispatchRoutes(args.cache_dir))
    )
    streams: list[int] = []
    if device == "cuda":
        create = modules.cuda.get_function("stream_create")
        streams = [create() for _ in range(max(threads.thread_counts(args.quick)))]
    try:
        todo = (
            cpp_routes.cells(modules, mixes, device_id)
            + python_routes.cells(mixes)
            + threads.cells(modules, mixes, device_id, args.quick, streams)
            + py_threads.cells(mixes, args.quick)
            + torch_cells
            + dispatch_cells
        )
        bar = progress_bar(len(todo) * (reps + 1), args.no_progress)
        cells.run_all(todo, reps, sample_s, bar)
        bar.close()
    finally:
        for stream in streams:
            modules.cuda.get_function("stream_destroy")(stream)

    meta = {
        "command": shlex.join(
            ["python", "-m", "kwcall.bench", *(sys.argv[1:] if argv is None else argv)]
        ),
        "commit": source_commit(),
        "mode": mode,
        "device": device,
        "reps": reps,
        "sample_s": sample_s,
        "route_b": "a class built like CuTeDSL 4.6+'s TVMFFIJitCompiledFunctionWithKwargs "
        "(CuTeDSL's own class needs a compiled CuTeDSL program)",
        "mixes": [(m.name, m.label) for m in mixes],
        "machine": details,
        "torch_routes": no_torch or "run",
        "dispatch_routes": no_dispatch or "run",
        "thread_counts": threads.thread_counts(args.quick),
        "free_threaded": py_threads.free_threaded(),
        "python_thread_counts": py_threads.thread_counts(args.quick)
        if py_threads.free_threaded()
        else [],
    }
    out_dir = args.out / datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    print(report.write_all(out_dir, todo, meta))
    print(f"wrote {out_dir}/results.md, results.json, chart.png")
    return out_dir


if __name__ == "__main__":
    main()
