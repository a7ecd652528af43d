"""What the dispatch-table GPU scripts share: the skip on a machine without CUDA, timing routes
side by side (CPU time per call, the GPU kept busy meanwhile so that a launch never waits for it),
the compact result table, and call_table, the C++ program without Python that calls a saved
table (built here with the system C++ compiler against the installed kwcall and the CUDA
toolkit that nvcc belongs to)."""

from __future__ import annotations

import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
# The GPU sleeps this many cycles per second of a batch's CPU time, twice over (a GPU clock
# below 2.5 GHz only makes the sleep longer).
SLEEP_CYCLES_PER_SECOND = 2.5e9


def cuda_torch_or_exit(what: str) -> Any:
    """torch with a CUDA device, or exit 0 saying why the script does not run here."""
    try:
        import torch
    except ImportError:
        print(f"{what}: skipped, torch is not installed")
        sys.exit(0)
    if not torch.cuda.is_available():
        print(f"{what}: skipped, no CUDA device")
        sys.exit(0)
    return torch


def side_by_side(routes: dict[str, Callable[[], Any]], calls: int, reps: int) -> dict[str, float]:
    """µs of CPU per call of each route: the median over `reps` interleaved repetitions of `calls`
    calls. Before each timed batch the GPU is given a sleep longer than the batch, so the
    batch's launches only queue (`calls` stays under the launch queue's depth) and the time is
    the CPU's, as FA4's and quack's own CPU overhead figures are; synchronised after each batch."""
    import torch

    batch_seconds = {}
    for name, call in routes.items():  # warm-up, and each batch's length for its sleep
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            call()
        torch.cuda.synchronize()
        batch_seconds[name] = time.perf_counter() - start
    samples: dict[str, list[float]] = {name: [] for name in routes}
    for _ in range(reps):
        for name, call in routes.items():
            torch.cuda._sleep(int(SLEEP_CYCLES_PER_SECOND * 2 * batch_seconds[name]))
            start = time.perf_counter()
            for _ in range(calls):
                call()
            samples[name].append((time.perf_counter() - start) / calls * 1e6)
            torch.cuda.synchronize()
    return {name: statistics.median(s) for name, s in samples.items()}


def print_table(title: str, header: list[str], rows: list[list[Any]]) -> None:
    """A markdown table: floats with two decimals, the rest as they are."""
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
    for row in rows:
        cells = [f"{c:.2f}" if isinstance(c, float) else str(c) for c in row]
        print("| " + " | ".join(cells) + " |")


def timing_text(args: Any) -> str:
    """What the table's times are, for its title."""
    return f"µs of CPU per call, medians of {args.reps} batches of {args.calls}"


def report(title: str, header: list[str], rows: list[list[Any]], failures: list[str]) -> int:
    """Prints the result table and the failures; the exit status (1 when anything failed)."""
    print_table(title, header, rows)
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0


def _cuda_home() -> Path:
    """The CUDA toolkit: CUDA_HOME or CUDA_PATH, else the one nvcc on PATH belongs to."""
    for variable in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(variable):
            return Path(os.environ[variable])
    nvcc = shutil.which("nvcc")
    if nvcc is not None:
        return Path(nvcc).resolve().parents[1]
    if Path("/usr/local/cuda").exists():
        return Path("/usr/local/cuda")
    raise SystemExit("call_table needs the CUDA toolkit: put nvcc on PATH or set CUDA_HOME")


def _first_with(folders: list[Path], name: str) -> Path:
    for folder in folders:
        if (folder / name).exists():
            return folder
    raise SystemExit(f"call_table: no {name} in {', '.join(str(f) for f in folders)}")


def build_call_table(build: Path) -> Path:
    """bench/dispatch_gpu/call_table.cc compiled with the system C++ compiler ($CXX, else c++)
    against the installed kwcall (kwcall.libinfo's flags) and the CUDA runtime."""
    import kwcall.libinfo

    cuda = _cuda_home()
    targets = cuda / "targets" / "x86_64-linux"
    include = _first_with([cuda / "include", targets / "include"], "cuda_runtime.h")
    lib = _first_with([cuda / "lib64", cuda / "lib", targets / "lib"], "libcudart.so")
    build.mkdir(parents=True, exist_ok=True)
    app = build / "call_table"
    command = [
        *shlex.split(os.environ.get("CXX", "c++")),
        "-O2",
        *kwcall.libinfo.cxxflags(),
        f"-I{include}",
        str(HERE / "call_table.cc"),
        "-o",
        str(app),
        *kwcall.libinfo.ldflags(),
        *kwcall.libinfo.libs(),
        f"-L{lib}",
        f"-Wl,-rpath,{lib}",
        "-lcudart",
    ]
    print("$ " + shlex.join(command))
    subprocess.run(command, check=True)
    return app


def write_manifest(folder: Path, args: list[Any], outputs: set[int]) -> Path:
    """call_table's manifest for `args` (torch tensors, None, float, int, bool, a tuple of Nones);
    the positions in `outputs` are written back to folder/arg<i>.bin."""
    import torch

    lines = []
    for i, arg in enumerate(args):
        if arg is None:
            lines.append("none")
        elif isinstance(arg, tuple) and all(item is None for item in arg):
            lines.append(f"nones {len(arg)}")  # an empty NamedTuple (FA4's AuxData)
        elif isinstance(arg, bool):
            lines.append(f"bool {int(arg)}")
        elif isinstance(arg, int):
            lines.append(f"int {arg}")
        elif isinstance(arg, float):
            lines.append(f"float {arg!r}")
        elif isinstance(arg, torch.Tensor):
            path = folder / f"arg{i}.bin"
            tensor = arg.contiguous()
            if i not in outputs:
                tensor.cpu().view(torch.uint8).numpy().tofile(path)
            dtype = str(tensor.dtype).removeprefix("torch.")
            dims = " ".join(str(d) for d in tensor.shape)
            lines.append(f"{'output' if i in outputs else 'tensor'} {path} {dtype} {dims}")
        else:
            raise TypeError(f"call_table cannot pass argument {i}: {type(arg).__name__}")
    manifest = folder / "manifest.txt"
    manifest.write_text("\n".join(lines) + "\n")
    return manifest


def read_output(folder: Path, i: int, like: Any) -> Any:
    """Output `i` as call_table wrote it, as a tensor shaped like `like` (on its device)."""
    import numpy as np

    import torch

    raw = torch.from_numpy(np.fromfile(folder / f"arg{i}.bin", dtype=np.uint8))
    return raw.view(like.dtype).reshape(like.shape).to(like.device)


def run_call_table(app: Path, library: Path, name: str, manifest: Path, calls: int) -> float:
    """Runs call_table; its CPU µs per call. Fails if libpython was in its process."""
    done = subprocess.run(
        [str(app), str(library), name, str(manifest), str(calls)], capture_output=True, text=True
    )
    print(done.stdout + done.stderr, end="")
    if done.returncode != 0 or "no libpython in this process" not in done.stdout:
        raise SystemExit(f"call_table failed (exit {done.returncode})")
    (line,) = [ln for ln in done.stdout.splitlines() if ln.startswith("cpu_ns_per_call")]
    return float(line.split()[1]) / 1000
