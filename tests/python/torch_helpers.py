"""What the torch operator tests share: torch and kwcall.torch imported (the test module is
skipped, saying why, where torch is absent or too old), the native targets of
native/torch_targets.cc, and unique operator names."""

from __future__ import annotations

import importlib
import itertools
from pathlib import Path
from typing import Any

import kwcall
import pytest
from helpers import build_native

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed here (scripts/test.sh --torch installs it)"
)
try:
    import kwcall.torch as kwtorch
except ImportError as error:  # a torch older than kwcall.torch needs
    pytest.skip(str(error), allow_module_level=True)

# Inductor's modules imported before any test runs: imported first inside a test after
# FakeTensorMode has run, torch 2.13's torch._inductor.decomposition fails ('CustomDecompTable'
# object is not a mapping).
importlib.import_module("torch._inductor.lowering")

_TARGETS: list[Any] = []
_numbers = itertools.count()


def targets() -> Any:
    """native/torch_targets.cc, built once per session into build/tests."""
    if not _TARGETS:
        build_dir = Path(__file__).resolve().parents[2] / "build" / "tests" / "torch_targets"
        _TARGETS.append(build_native("kwcall_torch_targets", "torch_targets.cc", build_dir))
    return _TARGETS[0]


def op_name(stem: str) -> str:
    """A fresh ``kwcall_test::<stem>_<n>``: each test registers its own operators."""
    return f"kwcall_test::{stem}_{next(_numbers)}"


def op(qualified_name: str) -> Any:
    """``torch.ops.ns.name`` for ``ns::name``."""
    ns, name = qualified_name.split("::")
    return getattr(getattr(torch.ops, ns), name)


TENSORS = {"x": "Tensor", "y": "Tensor", "out": "Tensor"}


def axpy_function() -> Any:
    """``def axpy(x, y, out, *, alpha=1.0)`` on the C++ axpy: out = alpha * x + y."""
    signature = kwcall.Signature(["x", "y", "out"], (), ["alpha"], {"alpha": 1.0}, name="axpy")
    return kwcall.wrap(targets()["axpy"], signature)


def register_axpy(stem: str = "axpy_out") -> tuple[str, Any]:
    """A fresh axpy_out operator (unregistered at the end of the test by conftest.py's
    ``registered_ops``)."""
    name = op_name(stem)
    kwtorch.register(axpy_function(), name, mutates_args=["out"], types=TENSORS)
    return name, op(name)


def register_functional_axpy(stem: str = "axpy") -> tuple[str, Any]:
    """A fresh ``axpy(Tensor x, Tensor y, *, float alpha=1.0) -> Tensor``: the axpy function
    with ``out`` allocated by the kernel like ``x``; (its name, the eager call object)."""
    name = op_name(stem)
    call = kwtorch.register(
        axpy_function(), name, types=TENSORS, outputs={"out": kwtorch.like("x")}
    )
    return name, call


def qstats_function() -> Any:
    """``def qstats(q, out, lse)`` on the C++ qstats: out = 2 * q, lse[b, h, s] = sum_d q."""
    return kwcall.wrap(targets()["qstats"], kwcall.Signature(["q", "out", "lse"], name="qstats"))


QSTATS_OUTPUTS = {
    "out": kwtorch.like("q"),
    "lse": kwtorch.like("q", dims=(0, 2, 1), dtype=torch.float32),
}


def register_qstats() -> tuple[str, Any]:
    """A fresh ``qstats(Tensor q) -> (Tensor, Tensor)``: (its name, the eager call object)."""
    name = op_name("qstats")
    call = kwtorch.register(qstats_function(), name, types={"q": "Tensor"}, outputs=QSTATS_OUTPUTS)
    return name, call


def expected_qstats(q: Any) -> tuple[Any, Any]:
    return 2 * q, q.sum(dim=3).permute(0, 2, 1)
