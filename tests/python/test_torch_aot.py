"""examples/torch_aot end to end (issue 30.4): the kernel library's function becomes a torch
operator, a model calling it is compiled and packaged by AOTInductor into a .pt2, and a libtorch
C++ program registers the function as the operator the library exports beside it
(kwcall::torch::RegisterExported) and runs the .pt2 with no libpython in the process: the
program reads its own /proc/self/maps, and ldd shows none linked."""

from __future__ import annotations

import subprocess
import sys

from helpers import REPOSITORY, TIME_SCALE, require_cxx
from torch_helpers import torch  # noqa: F401  (skips without torch, or one too old)

require_cxx("the example and AOTInductor need a C++ compiler")

EXAMPLE = REPOSITORY / "examples" / "torch_aot"


def test_a_libtorch_program_runs_the_packaged_graph_without_python(tmp_path):
    build = tmp_path / "build"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "run.py"), "--build", str(build)],
        capture_output=True,
        text=True,
        # A guard against a hang: building the runner against libtorch and AOTInductor's
        # compile of the graph take a minute or two on a busy 2-core machine.
        timeout=900 * TIME_SCALE,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert (
        "registered kwcall_example::axpy_out: axpy_out(Tensor x, Tensor y, Tensor(a!) out, *, "
        "float alpha=1.0) -> ()"
    ) in lines
    assert "1000 values match" in lines  # a length the graph was not traced with
    assert "libpython mapped: none" in lines and lines[-1] == "ok"
    assert (build / "model.pt2").is_file()
    linked = subprocess.run(["ldd", str(build / "runner")], capture_output=True, text=True)
    assert "libtorch_cpu" in linked.stdout and "libkwcall" in linked.stdout
    assert "libpython" not in linked.stdout
