"""flash-attn-4's dense forward (no score or mask mods) as kwcall.DispatchTables, on a CUDA GPU
(issue 36, item 7).

FA4 (``flash_attn/cute/interface.py``, ``_flash_attn_fwd``) compiles one kernel per compile key
and calls it positionally, ``_flash_attn_fwd.compile_cache[compile_key](*call_args)``; this script
wraps that cache to record the compiled function and the arguments FA4 passes it. One table per
mask mode (causal is compiled in, not passed) takes the compiled function's own parameters (its
kwcall signature under ``kwcall.cute.install()``: ``mQ, mK, mV, mO, mLSE, softmax_scale, ...``)
and is keyed in C++ by the terms that feed FA4's compile key for these calls: the dtype, head
dims and head counts (qhead_per_kvhead), batch and sequence lengths (FA4's tile heuristics read
them), stride-0 patterns, the arch, and the presence of every optional tensor and window. A miss
compiles through FA4 itself (``_flash_attn_fwd`` on the call's tensors; the compiled function
taken from its cache). For FA4's test shapes it checks that the table's output equals
``flash_attn_func``'s, times CPU per call side by side (``flash_attn_func``; the table, ``out``
allocated as FA4 allocates it; the compiled function itself) against the issue's target (the
table ≤ 0.25× flash_attn_func), then saves each table and calls it from call_table, a C++
program with no Python, checking its output. Prints one table; exits 1 on a wrong result, 0 with
"skipped" where there is no CUDA device or no flash-attn-4.

    python bench/dispatch_fa4.py [--calls 500] [--reps 15]

Wheels the GPU host needs beyond kwcall's: flash-attn-4==4.0.0b40 and its dependencies
quack-kernels (>=0.5.3; 0.6.5 here), einops, typing_extensions, torch-c-dlpack-ext; call_table
is built with the system C++ compiler and the CUDA toolkit nvcc belongs to.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "dispatch_gpu"))
import common  # noqa: E402

# (batch, seqlen_q, seqlen_k, heads, kv heads, head dim, dtype), as FA4's tests make them.
SHAPES = [
    (1, 128, 128, 8, 8, 128, "bfloat16"),
    (2, 1024, 1024, 16, 16, 64, "float16"),
    (2, 512, 512, 16, 4, 128, "bfloat16"),
]
TARGET = 0.25
HEADER = ["shape", "causal", "flash_attn_func", "table", "compiled", "table ÷ fa (≤ 0.25)", "equal"]


class Recording:
    """FA4's compile cache, recording the compiled function it hands out and its arguments."""

    def __init__(self, cache: Any) -> None:
        self.cache = cache
        self.last: tuple[Any, tuple] | None = None

    def __contains__(self, key: Any) -> bool:
        return key in self.cache

    def __setitem__(self, key: Any, fn: Any) -> None:
        self.cache[key] = fn

    def get(self, key: Any) -> Any:
        return self[key] if key in self.cache else None

    def clear(self) -> None:
        self.cache.clear()

    def __getitem__(self, key: Any) -> Any:
        fn = self.cache[key]

        def call(*args: Any) -> Any:
            self.last = (fn, args)
            return fn(*args)

        return call


def _terms(names: list[str], args: tuple) -> list:
    from kwcall import key

    q, k, v, _out, lse = names[:5]
    terms = [
        key.dtype(q),
        key.shape(q, -1),
        key.shape(v, -1),
        key.shape(q, -2),
        key.shape(k, -2),
        key.shape(q, 0),
        key.shape(q, 1),
        key.shape(k, 1),
        key.zero_strides(q),
        key.zero_strides(k),
        key.zero_strides(v),
        key.arch(q),
        key.is_none(lse),
    ]
    # Every later argument that may be None (optional tensors, windows): its presence. The
    # softmax scale and AuxData are runtime values.
    for name, arg in zip(names[5:], args[5:], strict=True):
        if arg is None or hasattr(arg, "__dlpack__"):
            terms.append(key.is_none(name))
    return terms


def make_table(torch: Any, fa: Any, kwcall: Any, causal: bool, recording: Recording, q, k, v):
    """The table for one mask mode, its signature and terms read from FA4's compile for q, k, v."""
    fa.flash_attn_func(q, k, v, causal=causal)
    fn, args = recording.last
    signature = fn.signature
    names = [*signature.arg_names, *signature.kwonly_names]

    def compile(key_: tuple, *call: Any) -> Any:
        q_, k_, v_, out = (torch.from_dlpack(t) for t in call[:4])
        recording.last = None
        fa._flash_attn_fwd(q_, k_, v_, causal=causal, out=out)
        return recording.last[0]

    name = f"fa4_fwd{'_causal' if causal else ''}"
    return kwcall.DispatchTable(signature, _terms(names, args), compile=compile, name=name)


def bench_case(torch, fa, table, recording, shape, causal, calls, reps, failures) -> list:
    """One shape and mask mode: the table's output against flash_attn_func's, then the routes
    side by side (a row)."""
    b, sq, sk, h, hkv, d, dtype_name = shape
    dtype = getattr(torch, dtype_name)
    q = torch.randn(b, sq, h, d, device="cuda", dtype=dtype)
    k = torch.randn(b, sk, hkv, d, device="cuda", dtype=dtype)
    v = torch.randn(b, sk, hkv, d, device="cuda", dtype=dtype)
    want, _ = fa.flash_attn_func(q, k, v, causal=causal)
    fn, recorded = recording.last  # the compiled function of this shape, as FA4 called it
    scale = 1.0 / math.sqrt(d)
    rest = recorded[6:]

    def via_table():
        out = torch.empty(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
        table(q, k, v, out, None, scale, *rest)
        return out

    equal = torch.equal(via_table(), want)
    if not equal:
        failures.append(
            f"{b}x{sq}x{h}x{d} {dtype_name} causal={causal}: the table's output differs"
        )
    t = common.side_by_side(
        {
            "flash_attn_func": lambda: fa.flash_attn_func(q, k, v, causal=causal),
            "table": via_table,
            "compiled": lambda: fn(*recorded),
        },
        calls,
        reps,
    )
    ratio = t["table"] / t["flash_attn_func"]
    return [
        f"{b}x{sq}x{h}(kv {hkv})x{d} {dtype_name}",
        "yes" if causal else "no",
        t["flash_attn_func"],
        t["table"],
        t["compiled"],
        f"{ratio:.3f} ({'met' if ratio <= TARGET else 'NOT met'})",
        "yes" if equal else "NO",
    ]


def call_from_cpp(torch, fa, table, recording, causal, app, library, calls, failures) -> list:
    """The saved table called from call_table with SHAPES[0]'s tensors (a row)."""
    b, sq, sk, h, hkv, d, dtype_name = SHAPES[0]
    dtype = getattr(torch, dtype_name)
    q = torch.randn(b, sq, h, d, device="cuda", dtype=dtype)
    k = torch.randn(b, sk, hkv, d, device="cuda", dtype=dtype)
    v = torch.randn(b, sk, hkv, d, device="cuda", dtype=dtype)
    want, _ = fa.flash_attn_func(q, k, v, causal=causal)
    _, recorded = recording.last
    call = [q, k, v, torch.empty_like(want), None, 1.0 / math.sqrt(d), *recorded[6:]]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        manifest = common.write_manifest(folder, call, outputs={3})
        us = common.run_call_table(app, library, table.table_name, manifest, calls)
        equal = torch.equal(common.read_output(folder, 3, want), want)
    if not equal:
        failures.append(f"call_table {table.table_name}: the output differs")
    label = f"{b}x{sq}x{h}(kv {hkv})x{d} {dtype_name}, C++ (call_table, no Python)"
    return [label, "yes" if causal else "no", "", us, "", "", "yes" if equal else "NO"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=500, help="calls a batch (< 1000)")
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    torch = common.cuda_torch_or_exit("dispatch_fa4")
    # FA4's in-memory cache: every entry a fresh compile that save() can export.
    os.environ["FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED"] = "0"
    import kwcall
    import kwcall.cute

    kwcall.cute.install()  # FA4's cute.compile returns kwcall's compiled functions
    try:
        import flash_attn.cute.interface as fa
    except ImportError as error:
        print(f"dispatch_fa4: skipped, flash-attn-4 is not installed ({error})")
        return 0
    recording = Recording(fa._flash_attn_fwd.compile_cache)
    fa._flash_attn_fwd.compile_cache = recording
    build = common.ROOT / "build" / "dispatch_fa4"
    app = common.build_call_table(build / "app")
    failures: list[str] = []
    rows = []
    tables = {}
    for shape in SHAPES:
        for causal in (False, True):
            if causal not in tables:
                b, sq, sk, h, hkv, d, dtype_name = shape
                dtype = getattr(torch, dtype_name)
                sample = [
                    torch.randn(b, s, heads, d, device="cuda", dtype=dtype)
                    for s, heads in ((sq, h), (sk, hkv), (sk, hkv))
                ]
                tables[causal] = make_table(torch, fa, kwcall, causal, recording, *sample)
            row = bench_case(
                torch, fa, tables[causal], recording, shape, causal, args.calls, args.reps, failures
            )
            rows.append(row)
    for causal, table in tables.items():
        library = build / f"lib{table.table_name}.so"
        table.save(library)
        rows.append(
            call_from_cpp(torch, fa, table, recording, causal, app, library, args.calls, failures)
        )
    entries = ", ".join(str(len(t)) for t in tables.values())
    title = f"flash-attn-4 forward, {common.timing_text(args)}; tables of {entries} entries saved"
    return common.report(title, HEADER, rows, failures)


if __name__ == "__main__":
    sys.exit(main())
