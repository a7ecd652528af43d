"""Session fixtures shared by the Python tests; plain helpers live in helpers.py."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from helpers import REPOSITORY, build_native, load_file_module

#: scripts/pins.py: which pins apply to this interpreter (requirements/tested.txt, and on a
#: free-threaded build requirements/free-threaded.txt); absent outside the repository.
PINS_SCRIPT = REPOSITORY / "scripts" / "pins.py"


def _cute_left_out() -> str | None:
    """Why CuTeDSL is not installed on this Python, when no pin of it applies here."""
    if importlib.util.find_spec("cutlass") is not None or not PINS_SCRIPT.exists():
        return None
    pins = load_file_module(PINS_SCRIPT, "kwcall_pins")
    free_threaded = pins.running_free_threaded()
    lines = [
        (path, line)
        for path, line in pins.pin_lines(free_threaded)
        if pins.package_name(line) == "nvidia-cutlass-dsl"
    ]
    if not lines or any(pins.applies(line) for _, line in lines):
        return None
    build = "free-threaded CPython" if free_threaded else "CPython"
    # A free-threaded.txt line that leaves it out says so best; else the pin whose marker does.
    left_out = [line for line in pins.left_out(free_threaded) if pins.applies(line.lstrip("!"))]
    path, line = (pins.FREE_THREADED, left_out[0]) if left_out else lines[0]
    return (
        f"nvidia-cutlass-dsl publishes no wheels for {build} "
        f"{sys.version_info[0]}.{sys.version_info[1]}, so CuTeDSL is not installed here "
        f"(requirements/{path.name}: {line})"
    )


CUTE_LEFT_OUT = _cute_left_out()


class _SkippedModule(pytest.Module):
    def collect(self):
        pytest.skip(CUTE_LEFT_OUT)


def pytest_pycollect_makemodule(module_path, parent):
    if CUTE_LEFT_OUT and module_path.name.startswith("test_cute"):
        return _SkippedModule.from_parent(parent, path=module_path)
    return None


@pytest.fixture(scope="session")
def gil_probe(tmp_path_factory):
    """native/gil_probe.cc: C++ threads that call globals by name, and C++ targets that
    report whether the calling thread holds the GIL."""
    return build_native(
        "gil_probe", "gil_probe.cc", tmp_path_factory.mktemp("gil_probe"), with_kwcall=True
    )


@pytest.fixture
def registered_ops():
    """Unregisters, after the test, every torch operator the test registered (a test module of
    torch's opts in: ``pytestmark = pytest.mark.usefixtures("registered_ops")``)."""
    import kwcall.torch as kwtorch

    before = set(kwtorch.registered())
    yield
    for name in set(kwtorch.registered()) - before:
        kwtorch.unregister(name)


@pytest.fixture(scope="module")
def compiled_kern():
    """kwcall.cute's compile of cute_kernels.kern(out, a, *, b=2), which writes a + b to
    out[0]; a skip without CuTeDSL."""
    pytest.importorskip("cutlass.cute")
    np = pytest.importorskip("numpy")
    kwcute = pytest.importorskip("kwcall.cute")
    from cute_kernels import kern
    from cutlass import Int32
    from cutlass.cute.runtime import from_dlpack

    return kwcute.compile(kern, from_dlpack(np.zeros(4, np.float32)), Int32(1))
