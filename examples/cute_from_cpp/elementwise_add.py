"""The kernel of CuTeDSL's "call cute.jit functions from C++ via TVM-FFI" example: an
elementwise add over fp16 tensors, c = a + alpha * b, with a keyword-only `alpha`."""

import cuda.bindings.driver as cuda
import cutlass.cute as cute
from cutlass import Float16, Float32, Int32

THREADS = 256


@cute.kernel
def add_kernel(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor, alpha: Float32, n: Int32):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    i = bidx * THREADS + tidx
    if i < n:
        c[i] = (a[i].to(Float32) + alpha * b[i].to(Float32)).to(Float16)


@cute.jit
def elementwise_add(
    a: cute.Tensor,
    b: cute.Tensor,
    c: cute.Tensor,
    *,
    alpha: Float32 = Float32(1.0),  # noqa: B008  (CuTeDSL's style of default)
    stream: cuda.CUstream,
):
    n = cute.size(a)
    add_kernel(a, b, c, alpha, n).launch(
        grid=[(n + THREADS - 1) // THREADS, 1, 1], block=[THREADS, 1, 1], stream=stream
    )


def compile_args():
    """Compile-time stand-ins: fp16 vectors of any length, and tvm-ffi's env stream (the
    caller's current stream), which is not a native argument."""
    n = cute.sym_int()
    vec = [cute.runtime.make_fake_compact_tensor(Float16, (n,)) for _ in range(3)]
    stream = cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True)
    return vec, stream
