"""Where the CPU time of a CuTeDSL kernel launched through a kwcall torch operator goes, on a
CUDA GPU: the launch through the operator beside the same launch through ``kwcall.Function``,
and routes that leave one piece out each (no kernel launch, CPU tensors, torch's overload
lookup), all interleaved in one process. Prints SKIP and exits 0 without PyTorch and a GPU.

    python bench/torch_launch_breakdown.py [--calls 2000] [--repeats 9] [--size 65536]

The kernel is examples/cute_from_cpp's elementwise add (c = a + alpha * b, fp16). The no-launch
routes call tvm-ffi's ``testing.nop`` (a C++ function that takes any arguments) instead, with the
same signature and schema, so they time the call path alone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "examples" / "cute_from_cpp"), str(ROOT / "examples" / "torch_op")]


def routes(torch, size: int) -> dict:
    """The routes, each a call with no arguments, checked once."""
    import kwcall.torch
    import tvm_ffi
    from run_gpu import compile_add

    add = compile_add()
    kwcall.torch.register(add, "kwcall_breakdown::add", mutates_args=["c"])
    nop = kwcall.wrap(tvm_ffi.get_global_func("testing.nop"), add.signature)
    tensors = {name: "Tensor" for name in ("a", "b", "c")}
    kwcall.torch.register(nop, "kwcall_breakdown::nop", mutates_args=["c"], types=tensors)
    op = torch.ops.kwcall_breakdown.add
    nop_op = torch.ops.kwcall_breakdown.nop

    a, b, c = (torch.randn(size, device="cuda", dtype=torch.float16) for _ in range(3))
    a_cpu, b_cpu, c_cpu = (t.cpu() for t in (a, b, c))
    op(a, b, c, alpha=0.5)
    torch.cuda.synchronize()
    assert torch.allclose(c.float(), (a.float() + 0.5 * b.float()), atol=1e-2), "wrong result"
    return {
        "kwcall.Function, launch": lambda: add(a, b, c, alpha=1.0),
        "torch.ops packet, launch": lambda: op(a, b, c, alpha=1.0),
        "torch.ops .default, launch": lambda: op.default(a, b, c, alpha=1.0),
        "torch.add(out=), launch (aten)": lambda: torch.add(a, b, alpha=1.0, out=c),
        "kwcall.Function, no launch, CUDA tensors": lambda: nop(a, b, c, alpha=1.0),
        "torch.ops packet, no launch, CUDA tensors": lambda: nop_op(a, b, c, alpha=1.0),
        "torch.ops packet, no launch, CPU tensors": lambda: nop_op(a_cpu, b_cpu, c_cpu, alpha=1.0),
        "torch.ops .default, no launch, CUDA tensors": lambda: nop_op.default(a, b, c, alpha=1.0),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--size", type=int, default=1 << 16)
    args = parser.parse_args()
    from cuda_torch import SKIP, cuda_torch
    from run_gpu import median_us, print_table

    if (torch := cuda_torch()) is None:
        print(SKIP)
        return 0
    medians = median_us(routes(torch, args.size), args.calls, args.repeats, torch)
    print(f"\nCPU time per call (median of {args.repeats} x {args.calls}, µs):")
    print_table(medians, "kwcall.Function, launch", "µs/call")
    print_shim_costs(torch.zeros(16, device="cuda", dtype=torch.float16))
    print(f"\nGPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    return 0


STEPS = [
    "aoti_torch_get_current_device_index",
    "aoti_torch_get_current_cuda_stream",
    "TVMFFIEnvSetStream, set and put back",
    "one tensor's DLTensor view (7 shim getters)",
    "aoti_torch_create_device_guard + delete",
]


def print_shim_costs(tensor) -> None:
    """The kernel's steps timed alone (bench/torch_shim_costs.cc), ns per call."""
    import tvm_ffi
    import tvm_ffi.cpp

    build = ROOT / "build" / "bench" / "torch_shim_costs"
    library = tvm_ffi.cpp.build(
        "torch_shim_costs",
        cpp_files=[str(ROOT / "bench" / "torch_shim_costs.cc")],
        build_directory=str(build),
    )
    costs = tvm_ffi.load_module(library)["shim_costs"](tensor, 100000)
    print("\nThe kernel's steps alone (ns per call, 100,000 calls):")
    print("| step | ns |")
    print("|---|---:|")
    for step, ns in zip(STEPS, costs, strict=True):
        print(f"| {step} | {ns} |")


if __name__ == "__main__":
    sys.exit(main())
