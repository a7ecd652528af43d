"""A disk-cache round trip of a real CuTeDSL kernel, as flash-attention's and quack's caches do
it, with kwcall.cute.install(): the fp16 elementwise add of examples/cute_from_cpp
(c = a + alpha * b, keyword-only alpha) compiled with stock ``cute.compile``, written with the
compiled function's own ``export_to_c(obj, function_name="func")``, read back with
``cute.runtime.load_module(obj, enable_tvm_ffi=True).func`` (and ``["func"]``), and called from
Python with keywords and from C++ with KWARGS. Every result is checked against PyTorch; C++
launch times of the warm hit and of its native handle are printed. Needs a CUDA GPU.

    python examples/cute_cache/run.py [--size N] [--launches N] [--repeats R]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
KERNEL = HERE.parent / "cute_from_cpp"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=1 << 16)
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    sys.path.insert(0, str(KERNEL))
    from cuda_torch import SKIP, cuda_torch

    torch = cuda_torch()
    if torch is None:
        print(SKIP)
        return 0
    import cutlass.cute as cute
    import elementwise_add as ea
    import kwcall
    import kwcall.cute
    import kwcall.libinfo
    import tvm_ffi

    n = args.size
    a = torch.randn(n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    c = torch.empty_like(a)
    rows: list[tuple[str, str]] = []

    def check(label: str, alpha: float) -> None:
        torch.cuda.synchronize()
        expected = (a.float() + alpha * b.float()).half()
        ok = torch.allclose(c.float(), expected.float(), atol=1e-2, rtol=1e-2)
        rows.append((label, "ok" if ok else "FAIL"))
        c.zero_()

    assert kwcall.cute.install()
    (a_t, b_t, c_t), stream = ea.compile_args()
    fresh = cute.compile(
        ea.elementwise_add, a_t, b_t, c_t, stream=stream, options="--enable-tvm-ffi"
    )
    cache = Path(tempfile.mkdtemp(prefix="kwcall-cute-cache-"))
    obj = cache / "kernel.o"
    fresh.export_to_c(object_file_path=str(obj), function_name="func")  # the libraries' call
    module = cute.runtime.load_module(str(obj), enable_tvm_ffi=True)
    loaded, by_item = module.func, module["func"]
    kwcall.cute.uninstall()
    plain = cute.runtime.load_module(str(obj), enable_tvm_ffi=True).func  # without kwcall
    rows.append(("warm hit is a kwcall.Function", str(isinstance(loaded, kwcall.Function))))
    rows.append(("its signature", str(loaded.signature)))
    rows.append(("without install(): stock type", type(plain).__name__))

    loaded(a, b, c)
    check("Python -> warm hit, alpha left to its default", 1.0)
    loaded(a, b, c, alpha=0.5)
    check("Python -> warm hit, alpha=0.5", 0.5)
    by_item(c=c, b=b, a=a, alpha=-1.0)
    check('Python -> module["func"], every argument by keyword', -1.0)
    plain(a, b, c, 2.0)
    check("Python -> without install(), positional (a, b, c, 2.0)", 2.0)
    errors = []
    for fn in (fresh, loaded):
        try:
            fn(a, b, c, alhpa=1.0)
        except TypeError as error:
            errors.append(str(error))
    same = len(errors) == 2 and errors[0] == errors[1]
    rows.append(("bad keyword: same error as the fresh compile", "ok" if same else "FAIL"))
    rows.append(("  its text", errors[-1] if errors else "(no error)"))

    name = "example.cache_func"
    tvm_ffi.register_global_func(name, loaded, override=True)
    tvm_ffi.register_global_func("example.cache_native", loaded.target, override=True)
    lib = kwcall.libinfo.build_module(
        "kwcall_cute_launcher",
        [str(KERNEL / "launcher.cc")],
        str(HERE.parents[1] / "build" / "cute_cache"),
    )
    launcher = tvm_ffi.load_module(lib)
    launcher.launch_keyword(name, a, b, c, 3.0)
    check("C++ -> warm hit, KWARGS alpha=3.0", 3.0)
    launcher.launch_positional(name, a, b, c, 2.0)
    check("C++ -> warm hit, positional (a, b, c, 2.0)", 2.0)

    print("| check | result |")
    print("|---|---|")
    for label, result in rows:
        print(f"| {label} | {result} |")

    timed = {
        "native handle, a, b, c, alpha": ("example.cache_native", True),
        "warm hit, a, b, c, alpha (native call)": (name, True),
        "warm hit, a, b, c (default filled in C++)": (name, False),
    }
    samples: dict[str, list[float]] = {label: [] for label in timed}
    for global_name, pass_alpha in timed.values():
        launcher.time_launches(global_name, a, b, c, 100, pass_alpha)
    for _ in range(args.repeats):
        for label, (global_name, pass_alpha) in timed.items():
            torch.cuda.synchronize()
            samples[label].append(
                launcher.time_launches(global_name, a, b, c, args.launches, pass_alpha)
            )
            torch.cuda.synchronize()
    base = statistics.median(samples["native handle, a, b, c, alpha"])
    print(f"\nC++ caller, CPU time per launch (median of {args.repeats} x {args.launches}):")
    print("| route | ns/launch | ratio to native handle |")
    print("|---|---:|---:|")
    for label, values in samples.items():
        median = statistics.median(values)
        print(f"| {label} | {median:.0f} | {median / base:.3f} |")
    print(f"\nGPU: {torch.cuda.get_device_name()}; object: {obj}")
    failed = [label for label, result in rows if result == "FAIL"]
    if failed or not isinstance(loaded, kwcall.Function):
        print("FAIL: " + "; ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
