"""The CuTeDSL-from-C++ example on a GPU: results checked against PyTorch for C++
positional and keyword launches and Python keyword calls. Skips without a CUDA GPU (CI
never has one; docs/testing.md says where it ran)."""

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

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cute_from_cpp" / "run.py"
AOT = ROOT / "examples" / "cpp_only" / "cute_aot.py"


def run_example(script: Path, *args: str) -> subprocess.CompletedProcess:
    """Run one of the GPU examples to completion; it must exit 0."""
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_cute_example_runs_and_checks_results():
    done = run_example(EXAMPLE, "--launches", "200", "--repeats", "3", "--threads", "2")
    assert "FAIL" not in done.stdout
    assert done.stdout.count("ok  ") == 7


def test_cute_kernel_exported_ahead_of_time_runs_from_cpp_without_python():
    done = run_example(AOT, "--size", "65536")
    assert done.stdout.count("matches PyTorch") == 3
    assert "FAIL" not in done.stdout
    assert "Did you mean 'alpha'?" in done.stdout  # the C++ program's own wording (3.13's)


CACHE = ROOT / "examples" / "cute_cache" / "run.py"


def test_cute_kernel_round_trips_a_disk_cache_with_its_keywords():
    done = run_example(CACHE, "--launches", "200", "--repeats", "3")
    assert "FAIL" not in done.stdout
    assert done.stdout.count("| ok |") == 7
