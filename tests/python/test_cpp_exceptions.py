"""C++ exceptions from tvm-ffi targets reach C++ callers through kwcall.

The published wheels link libstdc++ into libkwcall statically (scripts/build_dist.sh), while
the caller and libtvm_ffi use the system's libstdc++: the program built here against the
installed kwcall throws on one side of that boundary and catches on the other, for each route
kwcall calls its target by (the positional forward, defaults filled in, keywords bound) and for
kwcall's own binding error. The direct call of the target is the reference.
"""

from __future__ import annotations

import shutil
import subprocess

from helpers import NATIVE
from test_cpp_package import cmake_build

ROUTES = ("positional", "defaults", "keywords")


def _run(tmp_path) -> dict[str, str]:
    source = tmp_path / "exceptions"
    shutil.copytree(NATIVE / "exceptions", source)
    cmake_build(source, tmp_path / "build")
    lines = subprocess.run(
        [str(tmp_path / "build" / "throwing")], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    return dict(line.split(": ", 1) for line in lines)


def test_target_exceptions_cross_kwcall_unchanged(tmp_path):
    out = _run(tmp_path)
    assert out["ffi_error direct"] == "ffi::Error ValueError: target refused x=1"
    assert out["std_error direct"].endswith("index out of range in the target")
    for target in ("ffi_error", "std_error"):
        for route in ROUTES:
            assert out[f"{target} {route}"] == out[f"{target} direct"], (target, route)
        assert out[f"{target} kwcall's own"] == (
            "ffi::Error TypeError: target() got an unexpected keyword argument 'z'"
        )
