"""Session fixtures shared by the Python tests; plain helpers live in helpers.py."""

from __future__ import annotations

import pytest
from helpers import build_native


@pytest.fixture(scope="session")
def gil_probe(tmp_path_factory):
    """native/gil_probe.cc: C++ threads that call globals by name, and C++ targets that
    report whether the calling thread holds the GIL."""
    return build_native("gil_probe", "gil_probe.cc", tmp_path_factory.mktemp("gil_probe"))
