"""Builds the native modules the benchmark needs, once per source version, into a cache."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tvm_ffi
import tvm_ffi.cpp

import kwcall
import kwcall.libinfo

HERE = Path(__file__).resolve().parent
CPU_SOURCES = ("caller.cc", "targets_cpu.cc")
CUDA_SOURCES = ("targets_cuda.cu",)


@dataclass
class Modules:
    caller: Any  # call_n, threads
    targets: Any  # scalars, tensors3, tensors9 (CUDA launches on a GPU run)
    cuda: Any | None  # the CUDA module (stream helpers) on a GPU run, else None


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kwcall" / "bench"


def _build_dir(root: Path, sources: tuple[str, ...]) -> str:
    # Keyed by the sources, the kwcall headers they include and the versions they compile
    # against, so a rerun reuses the library and a rebuilt or upgraded kwcall rebuilds it.
    digest = hashlib.sha256()
    for name in sources:
        digest.update((HERE / name).read_bytes())
    for header in sorted((Path(kwcall.libinfo.include_dir()) / "kwcall").rglob("*.h")):
        digest.update(header.read_bytes())
    digest.update(
        f"{kwcall.__version__} {tvm_ffi.__version__} {kwcall.libinfo.include_dir()}".encode()
    )
    path = root / digest.hexdigest()[:16]
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


def build(device: str, cache_dir: Path | None = None) -> Modules:
    root = cache_dir or default_cache_dir()
    lib = kwcall.libinfo.build_module(
        "kwcall_bench", [str(HERE / s) for s in CPU_SOURCES], _build_dir(root, CPU_SOURCES)
    )
    cpu = tvm_ffi.load_module(lib)
    if device != "cuda":
        return Modules(caller=cpu, targets=cpu, cuda=None)
    lib = tvm_ffi.cpp.build(
        "kwcall_bench_cuda",
        cuda_files=[str(HERE / s) for s in CUDA_SOURCES],
        build_directory=_build_dir(root, CUDA_SOURCES),
    )
    cuda = tvm_ffi.load_module(lib)
    return Modules(caller=cpu, targets=cuda, cuda=cuda)
