"""``kwcall-config`` / ``python -m kwcall.config``: where kwcall's C++ parts are, and the
flags to build against them (as ``tvm-ffi-config`` does for tvm-ffi)."""

from __future__ import annotations

import argparse
import shlex
import sys

from . import libinfo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="kwcall-config",
        description="Print what C++ builds need to use kwcall (headers, library, CMake package).",
    )
    parser.add_argument("--cmakedir", action="store_true", help="the folder for -Dkwcall_DIR")
    parser.add_argument("--includedir", action="store_true", help="the folder holding kwcall/")
    parser.add_argument("--libdir", action="store_true", help="the folder holding libkwcall.so")
    parser.add_argument("--cxxflags", action="store_true", help="compile flags (tvm-ffi's too)")
    parser.add_argument("--ldflags", action="store_true", help="library folders and run paths")
    parser.add_argument("--libs", action="store_true", help="the libraries to link")
    parser.add_argument("--version", action="store_true", help="kwcall's version")
    args = parser.parse_args(argv)
    if not any(vars(args).values()):
        parser.print_help()
        return 0
    from . import __version__

    lines = {
        "version": __version__,
        "cmakedir": libinfo.cmake_dir(),
        "includedir": libinfo.include_dir(),
        "libdir": libinfo.library_dir(),
        "cxxflags": shlex.join(libinfo.cxxflags()),
        "ldflags": shlex.join(libinfo.ldflags()),
        "libs": shlex.join(libinfo.libs()),
    }
    for option, text in lines.items():
        if getattr(args, option):
            print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
