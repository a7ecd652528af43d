"""Inductor's C++ wrapper (``cpp_wrapper=True``) calls a kwcall operator from its generated C++
through ``aoti_torch_call_dispatcher``, with the right result and no Python on the op's call:
no frame of torch's Python operator objects (``torch/_ops.py``) runs while the compiled graph
does, where Inductor's Python wrapper (the control) calls the op through one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import require_cxx
from torch_helpers import TENSORS, axpy_function, kwtorch, torch

require_cxx("Inductor's C++ wrapper needs a C++ compiler")

import torch._inductor.config as inductor_config  # noqa: E402
from torch._inductor.utils import run_and_get_code  # noqa: E402

OPS_FILE = str(Path(torch.__file__).parent / "_ops.py")


def compiled_model(name: str, cpp_wrapper: bool):
    kwtorch.register(axpy_function(), f"kwcall_test::{name}", mutates_args=["out"], types=TENSORS)
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
def test_the_cpp_wrapper_calls_the_op_through_the_dispatcher(cpp_wrapper):
    name = f"axpy_cw_{int(cpp_wrapper)}"
    try:
        compiled, code = compiled_model(name, cpp_wrapper)
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
