"""The pinned requirements for one interpreter, for the scripts and the tests.

requirements/tested.txt pins what kwcall was built and tested with, per Python version through
environment markers. A marker cannot tell a free-threaded CPython (3.13t) from the default build
of the same version, so requirements/free-threaded.txt holds what differs there, each line
marked with the Pythons it serves (python_version == "3.13"): on a free-threaded interpreter of
those versions, a package it names takes its lines instead of tested.txt's ("!NAME; MARKER":
none at all); on the others (3.14t) tested.txt's lines stand.

    python scripts/pins.py                         # the pins for this Python, markers applied
    python scripts/pins.py --markers [--free-threaded] NAME...
                                                   # those packages' lines, markers kept (for
                                                   # an interpreter elsewhere, a root's)
"""

from __future__ import annotations

import re
import sys
import sysconfig
from pathlib import Path

REQUIREMENTS = Path(__file__).resolve().parents[1] / "requirements"
TESTED = REQUIREMENTS / "tested.txt"
FREE_THREADED = REQUIREMENTS / "free-threaded.txt"


def running_free_threaded() -> bool:
    """Whether this interpreter is a free-threaded build."""
    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def package_name(line: str) -> str:
    """The normalized name a requirement line is about ("nvidia-cutlass-dsl")."""
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9._-]+", line).group()).lower()


def _requirement_lines(path: Path) -> list[str]:
    lines = (line.split("#")[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line]


#: One Python a free-threaded line serves; its marker is these terms joined by "or".
_SERVES = re.compile(r'python_version\s*==\s*"(\d+\.\d+)"')


def free_threaded_lines() -> list[tuple[str, set[str]]]:
    """free-threaded.txt's lines with the Pythons each serves (its marker, which each must
    have, names them)."""
    found = []
    for line in _requirement_lines(FREE_THREADED):
        marker = line.partition(";")[2]
        versions = set(_SERVES.findall(marker))
        if not versions or _SERVES.sub("", marker).replace(" or ", "").strip():
            raise ValueError(
                f"requirements/{FREE_THREADED.name}: {line!r} names no Pythons it serves; mark it "
                'with python_version == "X.Y" (several joined by "or")'
            )
        found.append((line, versions))
    return found


def _excluding(line: str, versions: set[str]) -> str:
    """``line`` with its marker also ruling out ``versions``."""
    requirement, _, marker = (part.strip() for part in line.partition(";"))
    terms = " and ".join(f'python_version != "{version}"' for version in sorted(versions))
    return f"{requirement}; ({marker}) and {terms}" if marker else f"{requirement}; {terms}"


def pin_lines(free_threaded: bool) -> list[tuple[Path, str]]:
    """Every pin line that may apply to such an interpreter, with the file it comes from (their
    markers say where; pip applies them)."""
    pins = [(TESTED, line) for line in _requirement_lines(TESTED)]
    if not free_threaded:
        return pins
    served: dict[str, set[str]] = {}
    overrides = []
    for line, versions in free_threaded_lines():
        served.setdefault(package_name(line.lstrip("!")), set()).update(versions)
        if not line.startswith("!"):
            overrides.append((FREE_THREADED, line))
    kept = [
        (path, _excluding(line, served[package_name(line)]))
        if package_name(line) in served
        else (path, line)
        for path, line in pins
    ]
    return kept + overrides


def left_out(free_threaded: bool) -> list[str]:
    """free-threaded.txt's "!NAME; MARKER" lines: packages such an interpreter gets none of."""
    return (
        [line for line, _ in free_threaded_lines() if line.startswith("!")] if free_threaded else []
    )


def applies(line: str) -> bool:
    """Whether a pin line's marker holds for this interpreter."""
    try:
        from packaging.requirements import Requirement
    except ImportError:  # an environment with pip alone
        from pip._vendor.packaging.requirements import Requirement
    marker = Requirement(line).marker
    return marker is None or marker.evaluate()


def main(argv: list[str]) -> None:
    if argv[:1] == ["--markers"]:
        free_threaded = argv[1:2] == ["--free-threaded"]
        names = set(argv[2:] if free_threaded else argv[1:])
        for _, line in pin_lines(free_threaded):
            if package_name(line) in names:
                print(line)
        return
    if argv:
        sys.exit(__doc__)
    for _, line in pin_lines(running_free_threaded()):
        if applies(line):
            print(line.split(";")[0].strip())


if __name__ == "__main__":
    main(sys.argv[1:])
