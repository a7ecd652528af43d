"""The torch that ``import kwcall.torch`` needs: installed, and a release whose stable C shim
has every function kwcall's kernel calls (the oldest such release is written once, in C++:
``kwcall::torch::kMinimumTorch``)."""

from __future__ import annotations

import re
from typing import Any

import tvm_ffi

MINIMUM_TORCH = str(tvm_ffi.get_global_func("kwcall.torch.MinimumTorch")())


def _release(version: str) -> tuple[int, ...]:
    """(major, minor) of a torch version string ("2.13.0+cpu" -> (2, 13))."""
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def require_torch() -> Any:
    """torch, imported; ImportError naming what is needed when it is absent or too old."""
    try:
        import torch
    except ImportError as error:
        raise ImportError(
            f"kwcall.torch needs PyTorch {MINIMUM_TORCH} or newer, and torch is not "
            f"installed ({error}): pip install 'torch>={MINIMUM_TORCH}'"
        ) from error
    if _release(torch.__version__) < _release(MINIMUM_TORCH):
        raise ImportError(
            f"kwcall.torch needs PyTorch {MINIMUM_TORCH} or newer (its stable C shim's "
            f"torch_library_impl and string functions), and torch {torch.__version__} is "
            f"installed: pip install 'torch>={MINIMUM_TORCH}'"
        )
    return torch
