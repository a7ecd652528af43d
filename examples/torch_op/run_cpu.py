"""A torch operator with kwcall's C++ kernel, end to end on the CPU, with no CuTeDSL: a C++
tvm-ffi function (axpy_cpu.cc, built with kwcall.libinfo.build_module) bound to a Python
signature whose annotations give the schema, registered as ``torch.ops.kwcall_example.axpy_cpu``
and called eagerly, with keywords and defaults, from ``torch.compile(fullgraph=True)``, checked
by ``torch.library.opcheck``, and given a backward through ``torch.autograd.Function``.

    python examples/torch_op/run_cpu.py [--build DIR]

Needs torch 2.10 or newer and a C++ compiler. Prints each check and "ok".
"""

# No `from __future__ import annotations`: the signature's annotations are read as objects (with
# it, kwcall evaluates the text the same way; either works).
import argparse
import sys
from pathlib import Path

import kwcall
import kwcall.libinfo
import kwcall.torch
import tvm_ffi

import torch

HERE = Path(__file__).resolve().parent
NAME = "kwcall_example::axpy_cpu"


def axpy(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor, *, alpha: float = 1.0) -> None:
    """out = alpha * x + y (the C++ function's signature: the schema's types come from here)."""


def register(build: Path) -> kwcall.Function:
    library = kwcall.libinfo.build_module(
        "kwcall_axpy_cpu", [str(HERE / "axpy_cpu.cc")], str(build)
    )
    native = tvm_ffi.load_module(library)["axpy_out"]
    f = kwcall.wrap(native, axpy)  # axpy's signature, bound in C++; the call is the C++ one
    print("schema:", kwcall.torch.schema_of(f, mutates_args=["out"]))
    kwcall.torch.register(f, NAME, mutates_args=["out"])
    return f


class AxpyFunction(torch.autograd.Function):
    """The operator with a backward: kwcall's operators have none (they write into ``out``), so
    an autograd.Function allocates ``out``, calls the operator, and says how the gradient flows
    (d/dx = alpha * grad, d/dy = grad)."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
        out = torch.empty_like(x)
        torch.ops.kwcall_example.axpy_cpu(x, y, out, alpha=alpha)
        ctx.alpha = alpha
        return out

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        return ctx.alpha * grad, grad, None


def check(label: str, ok: bool) -> None:
    print(f"{label}: {'ok' if ok else 'FAILED'}")
    if not ok:
        sys.exit(1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", type=Path, default=Path("build/torch_op_cpu"))
    args = parser.parse_args(argv)
    register(args.build.resolve())
    op = torch.ops.kwcall_example.axpy_cpu
    x, y = torch.arange(6.0), torch.ones(6)

    out = torch.empty(6)
    op(x, y, out, alpha=2.0)
    check("eager, keyword", torch.equal(out, 2.0 * x + y))
    op(x, y, out)
    check("eager, the default alpha", torch.equal(out, x + y))

    def model(x, y):
        out = torch.empty_like(x)
        op(x, y, out, alpha=3.0)
        return out.relu() * 2

    compiled = torch.compile(model, fullgraph=True)
    check("torch.compile(fullgraph=True)", torch.equal(compiled(x, y), model(x, y)))

    torch.library.opcheck(
        op.default,
        (x, y, torch.empty(6)),
        {"alpha": 0.5},
        test_utils=("test_schema", "test_faketensor"),
    )
    check("torch.library.opcheck", True)

    xd = torch.randn(5, dtype=torch.float64, requires_grad=True)
    yd = torch.randn(5, dtype=torch.float64, requires_grad=True)
    check(
        "autograd.Function backward (gradcheck)",
        torch.autograd.gradcheck(lambda a, b: AxpyFunction.apply(a, b, 1.5), (xd, yd)),
    )
    kwcall.torch.unregister(NAME)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
