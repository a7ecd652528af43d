"""The CuTeDSL-from-C++ example on a GPU: results checked against PyTorch for C++
positional and keyword launches and Python keyword calls. Skips without a CUDA GPU (CI
never has one; see the README for where it ran)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("torch") is None:
    pytest.skip("needs a CUDA GPU, and PyTorch to check results against", allow_module_level=True)
import torch  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU (torch.cuda.is_available() is False)", allow_module_level=True)
pytest.importorskip("cutlass", reason="needs CuTeDSL (nvidia-cutlass-dsl)")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cute_from_cpp" / "run.py"


def test_cute_example_runs_and_checks_results():
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--launches", "200", "--repeats", "3"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAIL" not in done.stdout
    assert done.stdout.count("ok  ") == 7
