"""quack 0.6.5's RMSNorm forward as one kwcall.DispatchTable, on a CUDA GPU (issue 36, item 7).

The table is keyed by the terms quack's own ``jit_cache`` keys ``_compile_rmsnorm_fwd`` by (the
dtypes of x, out, residual, weight, bias and residual_out, N, whether rstd and mean are given,
per-head weights) and compiles each key with quack's own compile path (``_compile_rmsnorm_fwd``,
under ``kwcall.cute.install()``). For each shape it checks that the table's output equals
quack's eager ``rmsnorm``, times CPU per call side by side (quack's ``rmsnorm``, its
``rmsnorm_fwd``, the table, the entry's own kwcall.Function; outputs allocated per call as quack
allocates them), then saves the table and calls it from call_table, a C++ program with no
Python, and checks its output too. Exits 0 with "skipped" where there is no CUDA device or no
quack.

    python bench/dispatch_quack_rmsnorm.py [--calls 2000] [--reps 15]

Wheels the GPU host needs beyond kwcall's: quack-kernels==0.6.5, einops, typing_extensions,
torch-c-dlpack-ext (and nvidia-cutlass-dsl, apache-tvm-ffi, torch, which kwcall's GPU tests use).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "dispatch_gpu"))
import common  # noqa: E402

SHAPES = [(4096, 4096, "bfloat16"), (1024, 8192, "float16"), (16384, 256, "float32")]
PARAMS = ["x", "weight", "bias", "residual", "out", "residual_out", "rstd", "mean", "eps"]
EPS = 1e-6


def make_table(torch, qr, kwcall):
    from kwcall import key

    def to_cute(name):
        return None if name is None else qr.torch2cute_dtype_map[getattr(torch, name)]

    def compile(k, *args):
        (
            dtype,
            out_dtype,
            res_dtype,
            w_dtype,
            b_dtype,
            res_out_dtype,
            n,
            no_rstd,
            no_mean,
            w_ndim,
        ) = k
        return qr._compile_rmsnorm_fwd(
            *map(to_cute, (dtype, out_dtype, res_dtype, w_dtype, b_dtype, res_out_dtype)),
            n,
            not no_rstd,
            not no_mean,
            False,  # is_layernorm
            w_ndim == 2,  # per_head
            0.0,  # weight_offset
        )

    terms = [key.dtype(p) for p in ("x", "out", "residual", "weight", "bias", "residual_out")]
    terms += [key.shape("x", -1), key.is_none("rstd"), key.is_none("mean"), key.ndim("weight")]
    signature = kwcall.Signature(PARAMS, name="quack_rmsnorm_fwd")
    return kwcall.DispatchTable(signature, terms, compile=compile)


def bench_shape(torch, qr, table, m: int, n: int, dtype_name: str, calls: int, reps: int) -> None:
    """One shape: the table's output against quack's, then the routes timed side by side."""
    x = torch.randn(m, n, device="cuda", dtype=getattr(torch, dtype_name))
    w = torch.randn(n, device="cuda", dtype=torch.float32)
    want = qr.rmsnorm(x, w, eps=EPS)
    out = torch.empty_like(x)
    table(x, w, None, None, out, None, None, None, EPS)
    assert torch.equal(out, want), f"{m}x{n} {dtype_name}: the table's output differs"
    entry = table.get(table.key_of(x, w, None, None, out, None, None, None, EPS))

    def via_table():
        o = torch.empty_like(x)
        table(x, w, None, None, o, None, None, None, EPS)

    def via_entry():
        o = torch.empty_like(x)
        entry(x, w, None, None, o, None, None, None, EPS)

    timings = common.side_by_side(
        {
            "quack.rmsnorm": lambda: qr.rmsnorm(x, w, eps=EPS),
            "quack.rmsnorm_fwd": lambda: qr.rmsnorm_fwd(x, w, eps=EPS),
            "kwcall table": via_table,
            "the entry (kwcall.Function)": via_entry,
        },
        calls,
        reps,
    )
    common.print_table(f"RMSNorm {m}x{n} {dtype_name}", timings, "quack.rmsnorm")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    torch = common.cuda_torch_or_exit("dispatch_quack_rmsnorm")
    os.environ["QUACK_CACHE_ENABLED"] = "0"  # every entry a fresh compile save() can export
    import kwcall
    import kwcall.cute

    kwcall.cute.install()  # quack's cute.compile returns kwcall's compiled functions
    try:
        import quack.rmsnorm as qr
    except ImportError as error:
        print(f"dispatch_quack_rmsnorm: skipped, quack is not installed ({error})")
        return 0
    table = make_table(torch, qr, kwcall)
    build = common.ROOT / "build" / "dispatch_quack"
    build.mkdir(parents=True, exist_ok=True)
    app = common.build_call_table(build / "app")
    for m, n, dtype_name in SHAPES:
        bench_shape(torch, qr, table, m, n, dtype_name, args.calls, args.reps)
    library = build / "libquack_rmsnorm_table.so"
    table.save(library)
    print(f"\nsaved {len(table)} entries to {library}")
    m, n, dtype_name = SHAPES[0]
    x = torch.randn(m, n, device="cuda", dtype=getattr(torch, dtype_name))
    w = torch.randn(n, device="cuda", dtype=torch.float32)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        call = [x, w, None, None, torch.empty_like(x), None, None, None, EPS]
        manifest = common.write_manifest(folder, call, outputs={4})
        ns = common.run_call_table(app, library, "quack_rmsnorm_fwd", manifest, args.calls)
        got = common.read_output(folder, 4, x)
    assert torch.equal(got, qr.rmsnorm(x, w, eps=EPS)), "call_table's output differs from quack's"
    print(f"C++ without Python: output equal to quack.rmsnorm; {ns / 1000:.2f} µs CPU per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
