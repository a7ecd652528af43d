"""The apache-tvm-ffi releases this kwcall supports: its wheel's requirement (pyproject.toml, the
one place the range is written), checked before the extension loads so that an unsupported
tvm-ffi gets a clear ImportError instead of a failure deep in native code."""

from __future__ import annotations

import importlib.metadata
import re


def _release(version: str) -> tuple[int, ...]:
    """ "0.1.15.post2" -> (0, 1, 15): the release numbers a range compares."""
    return tuple(int(part) for part in re.findall(r"\d+", version.split("post")[0])[:3])


def supported_range() -> str | None:
    """kwcall's requirement on apache-tvm-ffi, e.g. ">=0.1.10,<0.1.16" (None when kwcall runs
    without installed metadata)."""
    try:
        requirements = importlib.metadata.requires("kwcall") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for requirement in requirements:
        match = re.match(r"apache-tvm-ffi\s*([^;]*)", requirement)
        if match:
            return match.group(1).strip()
    return None


def check_tvm_ffi(found: str) -> None:
    """Raise ImportError when ``found`` (tvm_ffi.__version__) is outside the supported range."""
    spec = supported_range()
    if not spec:
        return
    ok = True
    for clause in spec.split(","):
        op, bound = re.match(r"\s*(>=|<=|==|<|>|!=)\s*(\S+)", clause).groups()
        have, want = _release(found), _release(bound)
        ok = (
            ok
            and {
                ">=": have >= want,
                "<=": have <= want,
                ">": have > want,
                "<": have < want,
                "==": have == want,
                "!=": have != want,
            }[op]
        )
    if not ok:
        raise ImportError(
            f"kwcall does not support the installed apache-tvm-ffi {found}: it supports "
            f"apache-tvm-ffi{spec}; install one of those versions "
            f'(pip install "apache-tvm-ffi{spec}")'
        )
