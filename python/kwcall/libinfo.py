"""Where an installed kwcall keeps its C++ headers and library, for C++ consumers."""

from __future__ import annotations

from pathlib import Path

_ROOT = Path(__file__).resolve().parent


def include_dir() -> str:
    """The folder that holds ``kwcall/kwcall.h``."""
    return str(_ROOT / "include")


def library_path() -> str:
    """``libkwcall.so``: link it, or load it before calling the ``kwcall.*`` globals."""
    return str(_ROOT / "lib" / "libkwcall.so")
