"""A kernel family in CuTeDSL, host-only (it runs on a CPU): ``scale`` writes ``out = x * alpha``
for one-dimensional tensors; CuTeDSL compiles one specialization per dtype and length (the
tensors' layouts are static), and ``table()`` makes them one kwcall.DispatchTable keyed by
``dtype(x)`` and ``shape(x, 0)``."""

# No `from __future__ import annotations`: CuTeDSL reads the annotations.
import cutlass.cute as cute
import kwcall
import kwcall.cute
from cutlass import Float32
from kwcall import key


@cute.jit
def scale(x: cute.Tensor, out: cute.Tensor, alpha: Float32 = Float32(2.0)):  # noqa: B008
    for i in range(cute.size(x)):
        out[i] = x[i] * alpha.to(x.element_type)


def table() -> kwcall.DispatchTable:
    """def scale(x, out, alpha=2.0), keyed by x's dtype and length, compiled on a miss."""
    return kwcall.DispatchTable(
        kwcall.Signature(["x", "out", "alpha"], (2.0,), name="scale"),
        [key.dtype("x"), key.shape("x", 0)],
        compile=kwcall.cute.table_compiler(scale),
    )
