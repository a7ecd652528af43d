"""kwcall operators on a GPU: examples/torch_op/run_gpu.py launches the CuTeDSL kernel of
examples/cute_from_cpp through torch.ops eagerly, on a non-default stream, in a CUDA graph and
under torch.compile(mode="reduce-overhead"), checked against PyTorch. Skips without a CUDA GPU
(CI never has one)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from torch_helpers import torch

if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU (torch.cuda.is_available() is False)", allow_module_level=True)
pytest.importorskip("cutlass", reason="needs CuTeDSL (nvidia-cutlass-dsl)")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "torch_op" / "run_gpu.py"


def test_the_cute_kernel_runs_through_torch_ops_eager_graphed_and_compiled():
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--launches", "200", "--repeats", "3"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAIL" not in done.stdout
    # Every check ran: torch.ops (two alphas), custom_op, the eager call object, the functional
    # operator (torch.ops and its eager call), both env streams, a non-default stream, a CUDA
    # graph and torch.compile(mode="reduce-overhead").
    assert done.stdout.count("ok  ") == 11, done.stdout
