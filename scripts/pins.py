"""The pinned requirements for one interpreter, for the scripts and the tests.

requirements/tested.txt pins what kwcall was built and tested with, per Python version through
environment markers. A marker cannot tell a free-threaded CPython (3.13t) from the default build
of the same version, so requirements/free-threaded.txt holds what differs there: on a
free-threaded interpreter, each package it names takes its lines instead of tested.txt's.

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


def pin_lines(free_threaded: bool) -> list[tuple[Path, str]]:
    """Every pin line that may apply to such an interpreter, with the file it comes from."""
    pins = [(TESTED, line) for line in _requirement_lines(TESTED)]
    if not free_threaded:
        return pins
    overrides = [(FREE_THREADED, line) for line in _requirement_lines(FREE_THREADED)]
    replaced = {package_name(line) for _, line in overrides}
    return [pin for pin in pins if package_name(pin[1]) not in replaced] + overrides


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
