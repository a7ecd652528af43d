"""quack 0.6.5's RMSNorm forward as one kwcall.DispatchTable, on a CUDA GPU (issue 36, item 7).

The table takes the compiled kernel's own parameters (``mX, mW, mB, mRes, mO, mResO, mRstd,
mMean, eps``: an entry whose kwcall signature differs from the table's is refused), is keyed by
what quack's ``jit_cache`` keys ``_compile_rmsnorm_fwd`` by (the dtypes of x, out, residual,
weight, bias and residual_out, N, whether rstd and mean are given, per-head weight or bias), and
compiles each key with quack's own ``_compile_rmsnorm_fwd`` (under ``kwcall.cute.install()``, so
the entry is the compiled function quack itself calls). For each shape it checks the table's
output against quack's ``rmsnorm_fwd`` and ``rmsnorm`` (equal), times CPU per call side by side
(``rmsnorm``, ``rmsnorm_fwd``, the table, the compiled function; outputs allocated per call as
quack allocates them), then saves the table and calls it from call_table, a C++ program with no
Python, and checks its output. Prints one table; exits 1 on a wrong result, 0 with "skipped"
where there is no CUDA device or no quack.

    python bench/dispatch_quack_rmsnorm.py [--calls 500] [--reps 15]

Wheels the GPU host needs beyond kwcall's: quack-kernels==0.6.5, einops, typing_extensions,
torch-c-dlpack-ext (and nvidia-cutlass-dsl, apache-tvm-ffi, torch, which kwcall's GPU tests use);
call_table is built with the system C++ compiler and the CUDA toolkit nvcc belongs to.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "dispatch_gpu"))
import common  # noqa: E402

SHAPES = [(4096, 4096, "bfloat16"), (1024, 8192, "float16"), (16384, 256, "float32")]
EPS = 1e-6
HEADER = ["shape", "rmsnorm", "rmsnorm_fwd", "table", "entry", "table ÷ rmsnorm", "equal"]


def compile_args(qr, torch, key: tuple) -> tuple:
    """quack's _compile_rmsnorm_fwd arguments for a table key (its own jit_cache key)."""
    *dtypes, n, no_rstd, no_mean, w_ndim, b_ndim = key
    cute_dtypes = [
        None if d is None else qr.torch2cute_dtype_map[getattr(torch, d)] for d in dtypes
    ]
    per_head = w_ndim == 2 or b_ndim == 2
    # dtype, out, residual, weight, bias, residual_out; N; rstd, mean; is_layernorm, per_head,
    # weight_offset: as quack's _rmsnorm_fwd passes them.
    return (*cute_dtypes, n, not no_rstd, not no_mean, False, per_head, 0.0)


def make_table(torch, qr, kwcall, x, w):
    """The table over the kernel's own parameters, read from quack's compile for (x, w)."""
    from kwcall import key

    dtype = str(x.dtype).removeprefix("torch.")
    # (x, out, residual, weight, bias, residual_out dtypes; N; no rstd, no mean; weight's and
    # bias's ndim): the key of table(x, w, None, None, out, None, None, None, eps).
    key_of_call = (dtype, dtype, None, "float32", None, None, x.shape[-1], True, True, 1, None)
    signature = qr._compile_rmsnorm_fwd(*compile_args(qr, torch, key_of_call)).signature
    mx, mw, mb, mres, mo, mreso, mrstd, mmean, _eps = signature.arg_names
    terms = [key.dtype(p) for p in (mx, mo, mres, mw, mb, mreso)]
    terms += [key.shape(mx, -1), key.is_none(mrstd), key.is_none(mmean), key.ndim(mw), key.ndim(mb)]

    def compile(k, *args):
        return qr._compile_rmsnorm_fwd(*compile_args(qr, torch, k))

    return kwcall.DispatchTable(signature, terms, compile=compile, name="quack_rmsnorm_fwd")


def bench_shape(torch, qr, table, m, n, dtype_name, calls, reps, failures) -> list:
    """One shape: the table's output against quack's, then the routes side by side (a row)."""
    x = torch.randn(m, n, device="cuda", dtype=getattr(torch, dtype_name))
    w = torch.randn(n, device="cuda", dtype=torch.float32)
    out = torch.empty_like(x)
    table(x, w, None, None, out, None, None, None, EPS)
    want_fwd, _, _ = qr.rmsnorm_fwd(x, w, eps=EPS)
    equal = torch.equal(out, want_fwd) and torch.equal(out, qr.rmsnorm(x, w, eps=EPS))
    if not equal:
        failures.append(f"{m}x{n} {dtype_name}: the table's output differs from quack's")
    entry = qr._compile_rmsnorm_fwd(
        *compile_args(qr, torch, table.key_of(x, w, None, None, out, None, None, None, EPS))
    )

    def via_table():
        o = torch.empty_like(x)
        table(x, w, None, None, o, None, None, None, EPS)

    def via_entry():
        o = torch.empty_like(x)
        entry(x, w, None, None, o, None, None, None, EPS)

    t = common.side_by_side(
        {
            "rmsnorm": lambda: qr.rmsnorm(x, w, eps=EPS),
            "rmsnorm_fwd": lambda: qr.rmsnorm_fwd(x, w, eps=EPS),
            "table": via_table,
            "entry": via_entry,
        },
        calls,
        reps,
    )
    ratio = t["table"] / t["rmsnorm"]
    return [
        f"{m}x{n} {dtype_name}",
        t["rmsnorm"],
        t["rmsnorm_fwd"],
        t["table"],
        t["entry"],
        f"{ratio:.3f}",
        "yes" if equal else "NO",
    ]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=500, help="calls a batch (< 1000)")
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    torch = common.cuda_torch_or_exit("dispatch_quack_rmsnorm")
    os.environ["QUACK_CACHE_ENABLED"] = "0"  # every entry a fresh compile save() can export
    import kwcall
    import kwcall.cute

    kwcall.cute.install()  # quack's cute.compile returns kwcall's compiled functions
    try:
        # The module, not the function: quack/__init__.py binds quack.rmsnorm to rmsnorm().
        qr = importlib.import_module("quack.rmsnorm")
    except ImportError as error:
        print(f"dispatch_quack_rmsnorm: skipped, quack is not installed ({error})")
        return 0
    build = common.ROOT / "build" / "dispatch_quack"
    app = common.build_call_table(build / "app")
    failures: list[str] = []
    m, n, dtype_name = SHAPES[0]
    x = torch.randn(m, n, device="cuda", dtype=getattr(torch, dtype_name))
    w = torch.randn(n, device="cuda", dtype=torch.float32)
    table = make_table(torch, qr, kwcall, x, w)
    rows = [bench_shape(torch, qr, table, *s, args.calls, args.reps, failures) for s in SHAPES]
    library = build / "libquack_rmsnorm_table.so"
    table.save(library)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        call = [x, w, None, None, torch.empty_like(x), None, None, None, EPS]
        manifest = common.write_manifest(folder, call, outputs={4})
        us = common.run_call_table(app, library, "quack_rmsnorm_fwd", manifest, args.calls)
        cpp_equal = torch.equal(common.read_output(folder, 4, x), qr.rmsnorm_fwd(x, w, eps=EPS)[0])
    if not cpp_equal:
        failures.append("call_table's output differs from quack's")
    rows.append(
        [
            f"{m}x{n} {dtype_name}, C++ (call_table, no Python)",
            "",
            "",
            us,
            "",
            "",
            "yes" if cpp_equal else "NO",
        ]
    )
    title = (
        f"quack RMSNorm forward, {common.timing_text(args)}; a table of {len(table)} entries saved"
    )
    return common.report(title, HEADER, rows, failures)


if __name__ == "__main__":
    sys.exit(main())
