"""The apache-tvm-ffi this kwcall can run with, checked before any of kwcall's native code
loads: tvm-ffi imported with its library, in a release of the supported range. Either failing is
a clear ImportError instead of a failure deep in native code.

The range is written once, as the wheel's requirement in pyproject.toml; the build reads it
from there (CMakeLists.txt) into the extension's messages and into ``_tvm_ffi_range.py``, which
this module reads. Versions are compared as PEP 440 orders them, for the operators the range
uses; a version that is not PEP 440 is refused, since nothing can tell whether it is in range.
"""

from __future__ import annotations

import re
from types import ModuleType

# PEP 440 public versions (with an optional local part): release, pre, post, dev.
_VERSION = re.compile(
    r"v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre_l>a|b|rc|alpha|beta|c|pre|preview)[-_.]?(?P<pre_n>\d*))?"
    r"(?:-(?P<post_n1>\d+)|[-_.]?(?:post|rev|r)[-_.]?(?P<post_n2>\d*))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev_n>\d*))?"
    r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?",
    re.IGNORECASE,
)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


def _key(version: str) -> tuple | None:
    """The PEP 440 sort key of ``version``, or None when it is not a PEP 440 version."""
    m = _VERSION.fullmatch(version.strip())
    if m is None:
        return None
    release = tuple(int(x) for x in m["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    post = m["post_n1"] or m["post_n2"]
    has_post = m["post_n1"] is not None or m["post_n2"] is not None
    dev = (0, int(m["dev_n"] or 0)) if m["dev_n"] is not None else (1, 0)
    if m["pre_l"]:
        pre = (_PRE[m["pre_l"].lower()], int(m["pre_n"] or 0))
    elif dev[0] == 0 and not has_post:
        pre = (-1, 0)  # 1.0.dev0 sorts before 1.0a0
    else:
        pre = (3, 0)
    return (release, pre, (1, int(post or 0)) if has_post else (0, 0), dev)


def _is_prerelease(key: tuple) -> bool:
    return key[1][0] < 3 or key[3][0] == 0


def _satisfies(key: tuple, op: str, bound: tuple) -> bool:
    if op == "<":
        # PEP 440: <V excludes V's own pre-releases.
        return key < bound and not (_is_prerelease(key) and key[0] == bound[0])
    return {
        ">=": key >= bound,
        "<=": key <= bound,
        ">": key > bound,
        "==": key == bound,
        "!=": key != bound,
    }[op]


def _range() -> str:
    """kwcall's requirement on apache-tvm-ffi, e.g. ">=0.1.10,<0.1.16"."""
    try:
        from ._tvm_ffi_range import TVM_FFI_RANGE  # written by the build
    except ImportError as e:
        raise ImportError(
            "kwcall is not built: kwcall/_tvm_ffi_range.py, which the build writes, is missing "
            "(install kwcall with pip rather than importing it from the source tree)"
        ) from e
    return TVM_FFI_RANGE


def in_range(found: str, spec: str) -> bool | None:
    """Whether version ``found`` satisfies ``spec`` (clauses such as ">=0.1.10,<0.1.16");
    None when ``found`` is not a PEP 440 version."""
    key = _key(found)
    if key is None:
        return None
    for clause in spec.split(","):
        m = re.fullmatch(r"\s*(>=|<=|==|!=|<|>)\s*(\S+)\s*", clause)
        bound = _key(m[2]) if m else None
        if bound is None:
            raise ValueError(f"kwcall cannot read its own requirement 'apache-tvm-ffi{spec}'")
        if not _satisfies(key, m[1], bound):
            return False
    return True


def check_tvm_ffi(tvm_ffi: ModuleType) -> None:
    """Raise ImportError unless ``tvm_ffi`` loaded its library and is a supported release."""
    if not hasattr(tvm_ffi, "get_global_func"):
        is_config_mode = getattr(tvm_ffi, "_is_config_mode", lambda: False)
        why = (
            "tvm-ffi is running as its config tool (tvm-ffi-config or python -m tvm_ffi.config), "
            "where it does not load its library"
            if is_config_mode()
            else "tvm_ffi was imported without its library (it has no get_global_func)"
        )
        raise ImportError(
            f"kwcall cannot be imported here: {why}, and kwcall's native code needs it. Nothing "
            "of kwcall was loaded; import kwcall in a process that uses tvm-ffi normally."
        )
    spec = _range()
    found = str(getattr(tvm_ffi, "__version__", ""))
    ok = in_range(found, spec)
    if not ok:
        reason = "does not support" if ok is False else "cannot read the version of"
        raise ImportError(
            f"kwcall {reason} the installed apache-tvm-ffi {found!r}: it supports "
            f"apache-tvm-ffi{spec}; install one of those versions "
            f'(pip install "apache-tvm-ffi{spec}")'
        )
