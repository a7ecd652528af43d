"""What the torch operator tests share: torch and kwcall.torch imported (the test module is
skipped, saying why, where torch is absent or too old), the native targets of
native/torch_targets.cc, and unique operator names."""

from __future__ import annotations

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
    """A fresh axpy_out operator (unregistered at the end of the test by ``registered_ops``)."""
    name = op_name(stem)
    kwtorch.register(axpy_function(), name, mutates_args=["out"], types=TENSORS)
    return name, op(name)


@pytest.fixture
def registered_ops():
    """Unregisters, after the test, every operator the test registered."""
    before = set(kwtorch.registered())
    yield
    for name in set(kwtorch.registered()) - before:
        kwtorch.unregister(name)
