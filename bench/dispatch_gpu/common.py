"""What the dispatch-table GPU scripts share: the skip on a machine without CUDA, timing routes
side by side (CPU time per call: no synchronisation inside the loop, medians of interleaved
repetitions), and call_table, the C++ program without Python that calls a saved table."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


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
    """µs of CPU per call of each route: the median over `reps` interleaved repetitions of
    `calls` calls (a synchronisation after each batch, not inside it)."""
    import torch

    samples: dict[str, list[float]] = {name: [] for name in routes}
    for _ in range(reps):
        for name, call in routes.items():
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(calls):
                call()
            samples[name].append((time.perf_counter() - start) / calls * 1e6)
            torch.cuda.synchronize()
    return {name: statistics.median(s) for name, s in samples.items()}


def print_table(title: str, timings: dict[str, float], base: str) -> None:
    print(f"\n{title}\n\n| route | µs CPU per call | × {base} |\n|---|---:|---:|")
    for name, us in timings.items():
        print(f"| {name} | {us:.2f} | {us / timings[base]:.3f} |")


def build_call_table(build: Path) -> Path:
    """bench/dispatch_gpu/call_table, built with CMake against the installed kwcall."""
    import kwcall.libinfo

    bin_dir = Path(sys.executable).parent
    cmake = [str(bin_dir / "cmake")] if (bin_dir / "cmake").exists() else ["cmake"]
    package = f"-Dkwcall_DIR={kwcall.libinfo.cmake_dir()}"
    subprocess.run([*cmake, "-S", str(HERE), "-B", str(build), package], check=True)
    subprocess.run([*cmake, "--build", str(build)], check=True)
    return build / "call_table"


def write_manifest(folder: Path, args: list[Any], outputs: set[int]) -> Path:
    """call_table's manifest for `args` (torch tensors, None, float, int, bool); the positions in
    `outputs` are written back to folder/arg<i>.bin."""
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
    """Runs call_table; its CPU ns per call. Fails if libpython was in its process."""
    done = subprocess.run(
        [str(app), str(library), name, str(manifest), str(calls)], capture_output=True, text=True
    )
    print(done.stdout + done.stderr)
    if done.returncode != 0 or "no libpython in this process" not in done.stdout:
        raise SystemExit(f"call_table failed (exit {done.returncode})")
    (line,) = [ln for ln in done.stdout.splitlines() if ln.startswith("cpu_ns_per_call")]
    return float(line.split()[1])
