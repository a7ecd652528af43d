"""Session fixtures shared by the Python tests; plain helpers live in helpers.py."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from helpers import build_native
from packaging.requirements import Requirement

REQUIREMENTS = Path(__file__).resolve().parents[2] / "requirements" / "tested.txt"
CUTE_TESTS = ("test_cute.py", "test_cute_gpu.py")


def _cute_left_out() -> str | None:
    """Why CuTeDSL is not installed on this Python, when its pin's marker leaves it out."""
    if importlib.util.find_spec("cutlass") is not None or not REQUIREMENTS.exists():
        return None
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("nvidia-cutlass-dsl"):
            requirement = Requirement(line)
            if requirement.marker is not None and not requirement.marker.evaluate():
                return (
                    f"nvidia-cutlass-dsl publishes no wheels for CPython "
                    f"{sys.version_info[0]}.{sys.version_info[1]}, so CuTeDSL is not installed "
                    f"here (requirements/tested.txt: {line})"
                )
    return None


CUTE_LEFT_OUT = _cute_left_out()


class _SkippedModule(pytest.Module):
    def collect(self):
        pytest.skip(CUTE_LEFT_OUT)


def pytest_pycollect_makemodule(module_path, parent):
    if CUTE_LEFT_OUT and module_path.name in CUTE_TESTS:
        return _SkippedModule.from_parent(parent, path=module_path)
    return None


@pytest.fixture(scope="session")
def gil_probe(tmp_path_factory):
    """native/gil_probe.cc: C++ threads that call globals by name, and C++ targets that
    report whether the calling thread holds the GIL."""
    return build_native(
        "gil_probe", "gil_probe.cc", tmp_path_factory.mktemp("gil_probe"), with_kwcall=True
    )
