"""`import kwcall.torch` checks torch first: absent or older than the stable C shim functions
kwcall's kernel needs, it raises ImportError naming the release it needs."""

from __future__ import annotations

import subprocess
import sys

import pytest
from torch_helpers import kwtorch, torch


def test_the_minimum_is_the_one_cpp_names():
    assert kwtorch.MINIMUM_TORCH == "2.10"


def test_too_old_a_torch_is_named(monkeypatch):
    from kwcall.torch import _version

    monkeypatch.setattr(torch, "__version__", "2.9.1+cpu")
    with pytest.raises(ImportError) as error:
        _version.require_torch()
    assert str(error.value) == (
        "kwcall.torch needs PyTorch 2.10 or newer (its stable C shim's torch_library_impl and "
        "string functions), and torch 2.9.1+cpu is installed: pip install 'torch>=2.10'"
    )


def test_an_absent_torch_is_named():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "try:\n    import kwcall.torch\n"
        "except ImportError as e:\n    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.startswith(
        "kwcall.torch needs PyTorch 2.10 or newer, and torch is not installed"
    ), done.stdout + done.stderr
    assert "pip install 'torch>=2.10'" in done.stdout
