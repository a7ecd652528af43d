"""Where an installed kwcall keeps its C++ parts (headers, libkwcall, CMake package), and a
helper that builds a C++ tvm-ffi module against them.

The C++ parts are installed beside the compiled extension, ``kwcall/_kwcall*.so``; locating
them from there works for wheel installs and for editable installs alike (where the Python
files stay in the source tree).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import tvm_ffi.libinfo


def package_dir() -> Path:
    """The installed package folder that holds the extension and the C++ parts."""
    from ._kwcall import __file__ as extension

    return Path(extension).resolve().parent


def include_dir() -> str:
    """The folder that holds ``kwcall/kwcall.h``."""
    return str(package_dir() / "include")


def library_dir() -> str:
    """The folder that holds ``libkwcall.so``."""
    return str(package_dir() / "lib")


def cmake_dir() -> str:
    """The folder that holds ``kwcallConfig.cmake`` (``-Dkwcall_DIR=...``)."""
    return str(package_dir() / "share" / "cmake" / "kwcall")


def cxxflags() -> list[str]:
    """Compile flags for code that includes ``<kwcall/kwcall.h>`` (tvm-ffi's included)."""
    return [
        "-std=c++17",
        f"-I{include_dir()}",
        f"-I{tvm_ffi.libinfo.find_include_path()}",
        f"-I{tvm_ffi.libinfo.find_dlpack_include_path()}",
    ]


def ldflags() -> list[str]:
    """Link flags: the library folders, with run paths so the result finds them."""
    tvm_lib = str(Path(tvm_ffi.libinfo.find_libtvm_ffi()).parent)
    return [
        f"-L{library_dir()}",
        f"-Wl,-rpath,{library_dir()}",
        f"-L{tvm_lib}",
        f"-Wl,-rpath,{tvm_lib}",
    ]


def libs() -> list[str]:
    """The libraries to link: libkwcall and libtvm_ffi."""
    return ["-lkwcall", "-ltvm_ffi"]


def build_module(name: str, sources: Sequence[str], build_directory: str | None = None) -> str:
    """Compile C++ ``sources`` into a shared library that may include ``<kwcall/kwcall.h>`` and
    export tvm-ffi functions; returns its path, for ``tvm_ffi.load_module``.

    Runs the C++ compiler (``$CXX``, else ``c++``) once, in a subprocess; nothing in this
    process (its environment included) changes. The library is rebuilt only when a source or
    kwcall itself is newer than it.
    """
    out_dir = Path(build_directory) if build_directory else Path.cwd() / "build" / name
    out_dir.mkdir(parents=True, exist_ok=True)
    output = out_dir / f"lib{name}.so"
    inputs = [Path(s) for s in sources] + [package_dir() / "lib" / "libkwcall.so"]
    if output.exists() and all(output.stat().st_mtime >= p.stat().st_mtime for p in inputs):
        return str(output)
    compiler = shlex.split(os.environ.get("CXX", "c++"))
    command = [
        *compiler,
        "-shared",
        "-fPIC",
        "-O2",
        *cxxflags(),
        *[str(s) for s in sources],
        "-o",
        str(output),
        *ldflags(),
        *libs(),
    ]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(
            f"kwcall.libinfo.build_module({name!r}) failed:\n{shlex.join(command)}\n"
            f"{done.stdout}{done.stderr}"
        )
    return str(output)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use kwcall-config (python -m kwcall.config)")
