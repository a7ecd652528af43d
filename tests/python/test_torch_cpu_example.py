"""examples/torch_op/run_cpu.py end to end: a C++ function built with kwcall.libinfo.build_module,
bound to an annotated Python signature (the schema's types come from the annotations), becomes a
torch operator that runs eagerly, under torch.compile(fullgraph=True) and torch.library.opcheck,
and gets a backward through a torch.autograd.Function (gradcheck). No CuTeDSL, no GPU."""

from __future__ import annotations

import subprocess
import sys

from helpers import REPOSITORY, TIME_SCALE, require_cxx
from torch_helpers import torch  # noqa: F401  (skips without torch)

require_cxx("the example builds C++ and torch.compile needs a compiler")


def test_the_cpu_example_runs_every_check(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            str(REPOSITORY / "examples" / "torch_op" / "run_cpu.py"),
            "--build",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600 * TIME_SCALE,  # a guard: torch.compile's C++ build on a busy machine
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "schema: (Tensor x, Tensor y, Tensor(a!) out, *, float alpha=1.0) -> ()",
        "eager, keyword: ok",
        "eager, the default alpha: ok",
        "torch.compile(fullgraph=True): ok",
        "torch.library.opcheck: ok",
        "autograd.Function backward (gradcheck): ok",
        "ok",
    ]
