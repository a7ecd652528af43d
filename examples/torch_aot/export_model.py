"""The Python side of the AOTInductor example: the kernel library's function becomes the torch
operator ``torch.ops.kwcall_example.axpy_out`` (its C++ kernel calls the kwcall function; no
Python on the call path), a small model calling it is exported with ``torch.export`` and
compiled and packaged by AOTInductor into a ``.pt2`` that runner.cc runs without Python.

    python examples/torch_aot/export_model.py KERNELS_LIBRARY MODEL_PT2
"""

from __future__ import annotations

import sys

import kwcall
import kwcall.torch
import tvm_ffi

import torch

NAME = "kwcall_example::axpy_out"
#: What the schema cannot read from a plain signature (a CuTeDSL kernel's compile has them).
TYPES = {"x": "Tensor", "y": "Tensor", "out": "Tensor"}


class Model(torch.nn.Module):
    """Two calls of the operator (the second leaves ``alpha`` to its default) and work that
    Inductor compiles itself: relu(2x + y + y) + 1."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        torch.ops.kwcall_example.axpy_out(x, y, out, alpha=2.0)
        out2 = torch.empty_like(x)
        torch.ops.kwcall_example.axpy_out(out, y, out2)
        return torch.relu(out2) + 1


def register(library: str) -> kwcall.Function:
    """The library's function as the operator, with the schema it exports beside it."""
    module = tvm_ffi.load_module(library)
    axpy_out = kwcall.load_function(module, "axpy_out")  # the signature shipped in the library
    kwcall.torch.register(axpy_out, NAME, mutates_args=("out",), types=TYPES)
    exported = tvm_ffi.get_global_func("kwcall.ExportedTorchOp")(module, "axpy_out")
    derived = [NAME, kwcall.torch.schema_of(axpy_out, mutates_args=("out",), types=TYPES)]
    assert list(exported) == derived, f"the library exports {list(exported)}, not {derived}"
    return axpy_out


def export(library: str, package_path: str) -> str:
    axpy_out = register(library)
    x, y = torch.linspace(-3, 3, 8), torch.linspace(1, 0, 8)
    direct = torch.empty_like(x)
    axpy_out(x, y, direct, alpha=2.0)  # the kwcall function itself, keywords bound in C++
    torch.testing.assert_close(direct, 2 * x + y)
    torch.testing.assert_close(Model()(x, y), torch.relu(2 * x + 2 * y) + 1)
    n = torch.export.Dim("n", min=2)
    program = torch.export.export(Model(), (x, y), dynamic_shapes=({0: n}, {0: n}))
    return torch._inductor.aoti_compile_and_package(program, package_path=package_path)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(export(sys.argv[1], sys.argv[2]))
