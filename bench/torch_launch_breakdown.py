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
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "cute_from_cpp"))


def per_call_us(call, calls: int, torch) -> float:
    """CPU microseconds per call over `calls` calls, the device idle before and after."""
    torch.cuda.synchronize()
    start = time.perf_counter_ns()
    for _ in range(calls):
        call()
    elapsed = time.perf_counter_ns() - start
    torch.cuda.synchronize()
    return elapsed / calls / 1e3


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--size", type=int, default=1 << 16)
    args = parser.parse_args()

    from cuda_torch import SKIP, cuda_torch

    torch = cuda_torch()
    if torch is None:
        print(SKIP)
        return 0
    import elementwise_add as ea
    import kwcall.cute
    import kwcall.torch
    import tvm_ffi

    (a_t, b_t, c_t), stream = ea.compile_args()
    add = kwcall.cute.compile(ea.elementwise_add, a_t, b_t, c_t, stream=stream)
    kwcall.torch.register(add, "kwcall_breakdown::add", mutates_args=["c"])
    nop = kwcall.wrap(tvm_ffi.get_global_func("testing.nop"), add.signature)
    tensors = {name: "Tensor" for name in ("a", "b", "c")}
    kwcall.torch.register(nop, "kwcall_breakdown::nop", mutates_args=["c"], types=tensors)
    op = torch.ops.kwcall_breakdown.add
    nop_op = torch.ops.kwcall_breakdown.nop

    n = args.size
    a, b, c = (torch.randn(n, device="cuda", dtype=torch.float16) for _ in range(3))
    a_cpu, b_cpu, c_cpu = (t.cpu() for t in (a, b, c))
    op(a, b, c, alpha=0.5)
    torch.cuda.synchronize()
    assert torch.allclose(c.float(), (a.float() + 0.5 * b.float()), atol=1e-2), "wrong result"

    routes = {
        "kwcall.Function, launch": lambda: add(a, b, c, alpha=1.0),
        "torch.ops packet, launch": lambda: op(a, b, c, alpha=1.0),
        "torch.ops .default, launch": lambda: op.default(a, b, c, alpha=1.0),
        "torch.add(out=), launch (aten)": lambda: torch.add(a, b, alpha=1.0, out=c),
        "kwcall.Function, no launch, CUDA tensors": lambda: nop(a, b, c, alpha=1.0),
        "torch.ops packet, no launch, CUDA tensors": lambda: nop_op(a, b, c, alpha=1.0),
        "torch.ops packet, no launch, CPU tensors": lambda: nop_op(a_cpu, b_cpu, c_cpu, alpha=1.0),
        "torch.ops .default, no launch, CUDA tensors": lambda: nop_op.default(a, b, c, alpha=1.0),
    }
    for call in routes.values():
        per_call_us(call, 100, torch)
    samples: dict[str, list[float]] = {label: [] for label in routes}
    for _ in range(args.repeats):
        for label, call in routes.items():
            samples[label].append(per_call_us(call, args.calls, torch))
    base = statistics.median(samples["kwcall.Function, launch"])
    print(f"\nCPU time per call (median of {args.repeats} x {args.calls}, µs):")
    print("| route | µs/call | ÷ kwcall.Function launch |")
    print("|---|---:|---:|")
    for label, values in samples.items():
        median = statistics.median(values)
        print(f"| {label} | {median:.2f} | {median / base:.2f} |")
    print_shim_costs(a, torch)
    print(f"\nGPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    return 0


STEPS = [
    "aoti_torch_get_current_device_index",
    "aoti_torch_get_current_cuda_stream",
    "TVMFFIEnvSetStream, set and put back",
    "one tensor's DLTensor view (7 shim getters)",
    "aoti_torch_create_device_guard + delete",
]


def print_shim_costs(tensor, torch) -> None:
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
