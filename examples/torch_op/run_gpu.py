"""The CuTeDSL kernel of examples/cute_from_cpp (c = a + alpha * b, fp16) as a torch operator
with kwcall's C++ kernel, on a CUDA GPU: checked eagerly, on a non-default stream, in a CUDA
graph (capture and replay) and under torch.compile(mode="reduce-overhead"), then timed side by
side with the kwcall.Function call and a quack-style torch.library.custom_op of the same
kernel. Prints SKIP and exits 0 without PyTorch and a CUDA GPU.

    python examples/torch_op/run_gpu.py [--launches 2000] [--repeats 9] [--size 65536]

Targets (issue 30): the operator's launch at most 1.5x the kwcall.Function launch (CPU time),
and a CUDA-graph replay of the operator equal to the same graph of the direct launch.
"""

# No `from __future__ import annotations`: torch.library.custom_op reads the annotations of
# the op below, and would not resolve 'torch.Tensor' written as a string (torch is imported in
# main, so that the script skips without it).
import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "examples" / "cute_from_cpp"))


def per_launch_us(call, launches: int, torch) -> float:
    """CPU microseconds per launch over `launches` calls, the device idle before and after."""
    torch.cuda.synchronize()
    start = time.perf_counter_ns()
    for _ in range(launches):
        call()
    elapsed = time.perf_counter_ns() - start
    torch.cuda.synchronize()
    return elapsed / launches / 1e3


def median_us(routes: dict, launches: int, repeats: int, torch) -> dict[str, float]:
    """Each route's median CPU µs per launch: warmed up, then sampled in turn `repeats` times."""
    for call in routes.values():
        per_launch_us(call, 100, torch)
    samples: dict[str, list[float]] = {label: [] for label in routes}
    for _ in range(repeats):
        for label, call in routes.items():
            samples[label].append(per_launch_us(call, launches, torch))
    return {label: statistics.median(values) for label, values in samples.items()}


def print_table(medians: dict[str, float], base: str, unit: str) -> None:
    """A markdown table of `medians`, each also as a ratio to medians[base]."""
    print(f"| route | {unit} | ÷ {base} |")
    print("|---|---:|---:|")
    for label, value in medians.items():
        print(f"| {label} | {value:.2f} | {value / medians[base]:.2f} |")


def compile_add():
    """The example's kernel compiled by kwcall.cute: def (a, b, c, *, alpha=1.0), fp16."""
    import elementwise_add as ea
    import kwcall.cute

    (a_t, b_t, c_t), stream = ea.compile_args()
    return kwcall.cute.compile(ea.elementwise_add, a_t, b_t, c_t, stream=stream)


def replay_us(graph, launches: int, repeats: int, torch) -> float:
    """GPU microseconds per launch of a graph holding `launches` launches (median replay)."""
    samples = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end) * 1e3 / launches)
    return statistics.median(samples)


def capture(call, launches: int, torch):
    """A CUDA graph of `launches` calls (warmed up on a side stream first, as torch asks)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(launches):
            call()
    return graph


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--size", type=int, default=1 << 16)
    parser.add_argument("--graph-launches", type=int, default=100)
    args = parser.parse_args()

    from cuda_torch import SKIP, cuda_torch

    torch = cuda_torch()
    if torch is None:
        print(SKIP)
        return 0
    import kwcall.torch
    import tvm_ffi
    import tvm_ffi.cpp

    ours = compile_add()
    schema = kwcall.torch.schema_of(ours, mutates_args=["c"])
    print(f"schema from the compile: {schema}")
    eager = kwcall.torch.register(ours, "kwcall_example::add", mutates_args=["c"])
    op = torch.ops.kwcall_example.add
    # The functional operator of the same kernel: c allocated like a, and returned.
    new_c = kwcall.torch.register(
        ours, "kwcall_example::add_new", outputs={"c": kwcall.torch.like("a")}
    )

    @torch.library.custom_op("kwcall_example::add_custom_op", mutates_args=("c",))
    def add_custom_op(
        a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, alpha: float = 1.0
    ) -> None:
        ours(a, b, c, alpha=alpha)  # quack's cute_op: a Python body around the compiled call

    theirs = torch.ops.kwcall_example.add_custom_op

    # tvm-ffi's environment stream as the kernel sees it, through an operator of its own.
    targets = tvm_ffi.load_module(
        tvm_ffi.cpp.build(
            "kwcall_torch_targets",
            cpp_files=[str(ROOT / "tests/python/native/torch_targets.cc")],
            build_directory=str(ROOT / "build" / "torch_op"),
        )
    )
    stream_of = kwcall.wrap(targets["stream_of"], kwcall.Signature(["t", "out"]))
    eager_stream_of = kwcall.torch.register(
        stream_of,
        "kwcall_example::stream_of",
        mutates_args=["out"],
        types={"t": "Tensor", "out": "Tensor"},
    )

    n = args.size
    a = torch.randn(n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    c = torch.empty_like(a)
    failures = []

    def check(label: str, got, alpha: float, x=None) -> None:
        torch.cuda.synchronize()
        expected = ((a if x is None else x).float() + alpha * b.float()).half()
        ok = torch.allclose(got.float(), expected.float(), atol=1e-2, rtol=1e-2)
        print(f"  {'ok  ' if ok else 'FAIL'} {label}")
        if not ok:
            failures.append(label)

    print("results (c = a + alpha * b, fp16, against PyTorch):")
    c.zero_()
    op(a, b, c)
    check("torch.ops eager, default alpha", c, 1.0)
    c.zero_()
    op(a, b, c, alpha=0.5)
    check("torch.ops eager, alpha=0.5", c, 0.5)
    c.zero_()
    theirs(a, b, c, alpha=0.5)
    check("custom_op eager, alpha=0.5", c, 0.5)
    c.zero_()
    eager(a, b, c, alpha=0.5)
    check("the eager call object, alpha=0.5", c, 0.5)
    check("the functional operator through torch.ops, alpha=0.5", new_c.op(a, b, alpha=0.5), 0.5)
    check("the functional operator's eager call, alpha=0.5", new_c(a, b, alpha=0.5), 0.5)

    side = torch.cuda.Stream()
    seen = torch.zeros(1, dtype=torch.int64)
    with torch.cuda.stream(side):
        torch.ops.kwcall_example.stream_of(a, seen)
        c2 = torch.zeros_like(a)
        op(a, b, c2, alpha=-1.0)
    side.synchronize()
    stream_ok = int(seen.item()) == side.cuda_stream
    print(
        f"  {'ok  ' if stream_ok else 'FAIL'} env stream on a non-default stream is torch's "
        f"current stream ({int(seen.item()):#x} vs {side.cuda_stream:#x})"
    )
    if not stream_ok:
        failures.append("non-default stream")
    seen_eager = torch.zeros(1, dtype=torch.int64)
    with torch.cuda.stream(side):
        eager_stream_of(a, seen_eager)  # the direct route: the same stream handling
    side.synchronize()
    eager_stream_ok = int(seen_eager.item()) == side.cuda_stream
    print(
        f"  {'ok  ' if eager_stream_ok else 'FAIL'} the eager call object's env stream on a "
        f"non-default stream is torch's current stream ({int(seen_eager.item()):#x})"
    )
    if not eager_stream_ok:
        failures.append("eager call's stream")
    check("torch.ops on a non-default stream, alpha=-1.0", c2, -1.0)

    c.zero_()
    graph = capture(lambda: op(a, b, c, alpha=2.0), 1, torch)
    new_a = torch.randn_like(a)
    a.copy_(new_a)
    graph.replay()
    check("CUDA graph of torch.ops: capture, new input, replay", c, 2.0, new_a)

    def fresh(x, y):
        out = torch.empty_like(x)
        op(x, y, out, alpha=3.0)
        return out

    compiled = torch.compile(fresh, mode="reduce-overhead", fullgraph=True)
    for _ in range(3):  # cudagraph trees record on the first calls, replay afterwards
        result = compiled(a, b)
    check("torch.compile(mode='reduce-overhead'), fullgraph", result.clone(), 3.0)
    from torch._dynamo.utils import counters

    skips = counters["inductor"]["cudagraph_skips"]
    print(f"  cudagraph skips under reduce-overhead: {skips} (0: the graph was CUDA-graphed)")

    print(f"\nCPU time per launch from Python (median of {args.repeats} x {args.launches}, µs):")
    routes = {
        "kwcall.Function, alpha=1.0": lambda: ours(a, b, c, alpha=1.0),
        "torch.ops (kwcall operator), alpha=1.0": lambda: op(a, b, c, alpha=1.0),
        "torch.library.custom_op, alpha=1.0": lambda: theirs(a, b, c, alpha=1.0),
        "the eager call object, alpha=1.0": lambda: eager(a, b, c, alpha=1.0),
        "functional operator, torch.ops": lambda: new_c.op(a, b, alpha=1.0),
        "torch.ops + torch.empty_like in Python": lambda: op(a, b, torch.empty_like(a)),
        "functional operator's eager call": lambda: new_c(a, b, alpha=1.0),
    }
    medians = median_us(routes, args.launches, args.repeats, torch)
    print_table(medians, "kwcall.Function, alpha=1.0", "µs/launch")

    k = args.graph_launches
    graphs = {}
    for label, call in {
        "graph of kwcall.Function launches": lambda: ours(a, b, c, alpha=1.0),
        "graph of torch.ops launches": lambda: op(a, b, c, alpha=1.0),
        "graph of custom_op launches": lambda: theirs(a, b, c, alpha=1.0),
    }.items():
        try:
            graphs[label] = capture(call, k, torch)
        except Exception as error:  # noqa: BLE001 - reported, the other graphs still run
            print(f"  FAIL capturing the {label}: {error}")
            failures.append(f"capture: {label}")
    print(
        f"\nCUDA graph replay, GPU time per launch ({k} launches a graph, median of "
        f"{args.repeats} replays, µs):"
    )
    print("| graph | µs/launch | ÷ kwcall.Function graph |")
    print("|---|---:|---:|")
    replay = {label: replay_us(g, k, args.repeats, torch) for label, g in graphs.items()}
    base = replay.get("graph of kwcall.Function launches", float("nan"))
    for label, value in replay.items():
        print(f"| {label} | {value:.3f} | {value / base:.2f} |")

    print(f"\nGPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    if failures:
        print(f"FAILED: {', '.join(failures)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
