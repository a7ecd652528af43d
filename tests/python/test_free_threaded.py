"""On free-threaded CPython, importing kwcall leaves the GIL off: the extension declares
``Py_MOD_GIL_NOT_USED``, so the interpreter has no reason to turn the GIL back on (it would,
with a RuntimeWarning, for a module that declares nothing). Each import runs in a fresh
interpreter with PYTHON_GIL unset, so that the module's declaration alone decides."""

from __future__ import annotations

import copy
import importlib.util
import os
import subprocess
import sys
import sysconfig

import kwcall
import pytest
import tvm_ffi
from helpers import TIME_SCALE

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
needs_free_threading = pytest.mark.skipif(
    not FREE_THREADED, reason="this CPython has the GIL (not a free-threaded build)"
)


def _gil_after_import(module: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    code = f"import sys, {module}; print(sys._is_gil_enabled())"
    return subprocess.run(
        [sys.executable, "-W", "default", "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=120 * TIME_SCALE,
    )


@needs_free_threading
@pytest.mark.parametrize("module", ["kwcall", "kwcall._kwcall"])
def test_import_leaves_the_gil_off(module):
    done = _gil_after_import(module)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False", done.stdout
    assert "RuntimeWarning" not in done.stderr and "GIL" not in done.stderr, done.stderr


@needs_free_threading
@pytest.mark.skipif(
    importlib.util.find_spec("cutlass") is None,
    reason="CuTeDSL (nvidia-cutlass-dsl) is not installed: it publishes no wheel for this "
    "free-threaded CPython",
)
def test_import_of_kwcall_cute_leaves_the_gil_off():
    done = _gil_after_import("kwcall.cute")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False", done.stdout
    assert "RuntimeWarning" not in done.stderr, done.stderr


@needs_free_threading
def test_this_test_run_has_the_gil_off():
    """The suite itself (kwcall, tvm_ffi and the tests' imports) runs without the GIL unless
    PYTHON_GIL forced it on."""
    if os.environ.get("PYTHON_GIL") == "1":
        pytest.skip("PYTHON_GIL=1 forces the GIL on for this run")
    assert sys._is_gil_enabled() is False


@needs_free_threading
def test_functions_made_together_share_no_cache_line():
    """Threads calling functions of their own write each one's reference count on every call:
    instances made one after another must not share a cache line (false sharing)."""
    line = 64
    f = kwcall.wrap(tvm_ffi.get_global_func("ffi.Array"), kwcall.Signature(["a"]))
    size = type(f).__basicsize__
    assert size % line == 0
    copies = [copy.copy(f) for _ in range(32)]
    taken: set[int] = set()
    for c in copies:
        lines = set(range(id(c) // line, (id(c) + size - 1) // line + 1))
        assert not lines & taken
        taken |= lines
