"""Inductor's C++ wrapper (``cpp_wrapper=True``) calls a kwcall operator from its generated C++
through ``aoti_torch_call_dispatcher``, with the right result and no Python on the op's call:
no frame of torch's Python operator objects (``torch/_ops.py``) runs while the compiled graph
does, where Inductor's Python wrapper (the control) calls the op through one."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import kwcall
import pytest
from helpers import REPOSITORY, build_native

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed here (scripts/test.sh --torch installs it)"
)
try:
    import kwcall.torch as kwtorch
except ImportError as error:  # a torch older than kwcall.torch needs
    pytest.skip(str(error), allow_module_level=True)
if shutil.which("c++") is None and shutil.which("g++") is None:
    pytest.skip("Inductor's C++ wrapper needs a C++ compiler", allow_module_level=True)

import torch._inductor.config as inductor_config  # noqa: E402
from torch._inductor.utils import run_and_get_code  # noqa: E402

OPS_FILE = str(Path(torch.__file__).parent / "_ops.py")


@pytest.fixture(scope="module")
def axpy():
    """``def axpy(x, y, out, *, alpha=1.0)`` on native/torch_targets.cc's C++ axpy."""
    build = REPOSITORY / "build" / "tests" / "torch_targets"
    targets = build_native("kwcall_torch_targets", "torch_targets.cc", build)
    signature = kwcall.Signature(["x", "y", "out"], (), ["alpha"], {"alpha": 1.0}, name="axpy")
    return kwcall.wrap(targets["axpy"], signature)


def compiled_model(axpy, name: str, cpp_wrapper: bool):
    kwtorch.register(axpy, f"kwcall_test::{name}", mutates_args=["out"],
                     types={"x": "Tensor", "y": "Tensor", "out": "Tensor"})  # fmt: skip
    op = getattr(torch.ops.kwcall_test, name)

    def model(x, y):
        out = torch.empty_like(x)
        op(x, y, out, alpha=2.0)
        return out * 3

    with inductor_config.patch(cpp_wrapper=cpp_wrapper):
        x, y = torch.randn(16), torch.randn(16)
        compiled = torch.compile(model, fullgraph=True)
        result, codes = run_and_get_code(compiled, x, y)
    torch.testing.assert_close(result, (2 * x + y) * 3)
    return compiled, "\n".join(codes)


def python_frames_of(call) -> set[tuple[str, str]]:
    """The Python functions that run during ``call()``: (file, function)."""
    seen: set[tuple[str, str]] = set()

    def profile(frame, event, arg):
        if event == "call":
            seen.add((frame.f_code.co_filename, frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return seen


@pytest.mark.parametrize("cpp_wrapper", [True, False], ids=["cpp_wrapper", "python_wrapper"])
def test_the_cpp_wrapper_calls_the_op_through_the_dispatcher(axpy, cpp_wrapper):
    name = f"axpy_cw_{int(cpp_wrapper)}"
    try:
        compiled, code = compiled_model(axpy, name, cpp_wrapper)
        calls_dispatcher = f'aoti_torch_call_dispatcher("kwcall_test::{name}"' in code
        assert calls_dispatcher == cpp_wrapper, code
        x, y = torch.randn(16), torch.randn(16)  # the shape compiled: no recompile
        frames = python_frames_of(lambda: compiled(x, y))
        in_torch_ops = {f for f in frames if f[0] == OPS_FILE}
        # The control proves the check sees the op's Python path when there is one.
        assert bool(in_torch_ops) != cpp_wrapper, sorted(in_torch_ops)
        torch.testing.assert_close(compiled(x, y), (2 * x + y) * 3)
    finally:
        kwtorch.unregister(f"kwcall_test::{name}")
