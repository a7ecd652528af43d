"""The nvidia-cutlass-dsl releases kwcall.cute supports: written once here (pyproject.toml's
``cute`` extra is checked against it by tests/python/test_cute_privates.py), and checked by
every entry point before it reads anything private of CuTeDSL."""

from __future__ import annotations

import functools
import importlib.metadata

#: The supported releases: from MINIMUM (included) up to BEYOND (excluded), major.minor.
MINIMUM = (4, 6)
BEYOND = (4, 9)

#: The supported major.minor series, derived from the range.
SUPPORTED_VERSIONS = tuple(f"{MINIMUM[0]}.{minor}" for minor in range(MINIMUM[1], BEYOND[1]))

#: The requirement pyproject.toml's ``cute`` extra must spell.
REQUIREMENT = f"nvidia-cutlass-dsl>={MINIMUM[0]}.{MINIMUM[1]},<{BEYOND[0]}.{BEYOND[1]}"

INSTALL_HINT = 'install it with: pip install "kwcall[cute]"'


@functools.cache
def _installed() -> str | None:
    try:
        return importlib.metadata.version("nvidia-cutlass-dsl")
    except importlib.metadata.PackageNotFoundError:
        return None


def cutedsl_version() -> str | None:
    """The installed nvidia-cutlass-dsl version, or None."""
    return _installed()


def is_supported(version: str | None) -> bool:
    return version is not None and ".".join(version.split(".")[:2]) in SUPPORTED_VERSIONS


def unsupported_reason() -> str | None:
    """Why the installed CuTeDSL cannot be used, or None when it can."""
    version = cutedsl_version()
    if is_supported(version):
        return None
    supported = ", ".join(v + ".x" for v in SUPPORTED_VERSIONS)
    if version is None:
        return f"nvidia-cutlass-dsl is not installed (supported: {supported}); {INSTALL_HINT}"
    return f"nvidia-cutlass-dsl {version} is not supported (supported: {supported})"


def require_supported(entry: str) -> None:
    """ImportError without CuTeDSL; RuntimeError naming ``entry`` for an unsupported one."""
    if cutedsl_version() is None:
        raise ImportError(f"kwcall.cute needs CuTeDSL (nvidia-cutlass-dsl): {INSTALL_HINT}")
    reason = unsupported_reason()
    if reason is not None:
        raise RuntimeError(f"kwcall.cute.{entry}: {reason}")
