"""``@cute.jit`` functions that several tests compile (conftest.py's fixtures compile them).
Host-only, so no GPU is needed. No ``from __future__ import annotations``: CuTeDSL reads the
annotations at compile time."""

from cutlass import Float32, Int32, cute


@cute.jit
def kern(out: cute.Tensor, a: Int32, *, b: Int32 = Int32(2)):  # noqa: B008
    out[0] = Float32(a) + Float32(b)
