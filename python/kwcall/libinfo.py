"""Where an installed kwcall keeps its C++ headers and library, and a helper that builds
a C++ tvm-ffi module against them (tvm-ffi's own C++ tooling, plus kwcall)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

_ROOT = Path(__file__).resolve().parent


def include_dir() -> str:
    """The folder that holds ``kwcall/kwcall.h``."""
    return str(_ROOT / "include")


def library_dir() -> str:
    """The folder that holds ``libkwcall.so``."""
    return str(_ROOT / "lib")


def build_module(name: str, sources: Sequence[str], build_directory: str | None = None) -> str:
    """Compile C++ ``sources`` into a tvm-ffi module that may include ``<kwcall/kwcall.h>``;
    returns the library path for ``tvm_ffi.load_module``."""
    import tvm_ffi.cpp

    if shutil.which("ninja") is None:
        # tvm_ffi.cpp runs `ninja`; a virtual environment that is not activated has it
        # beside its Python only.
        os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    return tvm_ffi.cpp.build(
        name,
        sources=list(sources),
        extra_include_paths=[include_dir()],
        extra_ldflags=[f"-L{library_dir()}", "-lkwcall", f"-Wl,-rpath,{library_dir()}"],
        build_directory=build_directory,
    )
