"""flash-attn-4's dense forward (no score or mask mods) as kwcall.DispatchTables, on a CUDA GPU
(issue 36, item 7).

FA4 (``flash_attn/cute/interface.py``, ``_flash_attn_fwd``) compiles one kernel per compile key
and calls it positionally. Here one table per mask mode (causal or not: causal is compiled in, not
passed) takes the compiled function's own parameters (its kwcall signature, under
``kwcall.cute.install()``), keyed in C++ by the terms that feed FA4's compile key for these calls:
the dtype, head dims and head counts (qhead_per_kvhead), batch and sequence lengths (FA4's tile
heuristics read them), stride-0 patterns, the arch, and the presence of every optional tensor and
window. A miss compiles through FA4 itself (its own ``_flash_attn_fwd`` on the call's tensors,
the compiled function taken from its cache). For FA4's test shapes the script checks that the
table's output equals ``flash_attn_func``'s, times CPU per call side by side (``flash_attn_func``,
the table with ``out`` allocated as FA4 allocates it, the compiled function itself), and checks
the issue's target (the table ≤ 0.25× flash_attn_func); then saves each table and calls it from
call_table, a C++ program with no Python, checking its output. Exits 0 with "skipped" where there
is no CUDA device or no flash-attn-4.

    python bench/dispatch_fa4.py [--calls 1000] [--reps 15]

Wheels the GPU host needs beyond kwcall's: flash-attn-4==4.0.0b40 and its dependencies
quack-kernels (>=0.5.3; 0.6.5 here), einops, typing_extensions, torch-c-dlpack-ext.
"""

from __future__ import annotations

import argparse
import math
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
        fn = self.cache.get(key)
        return None if fn is None else self[key]

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

    q, k, v, out, lse = names[:5]
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
    # Every other argument that may be None (optional tensors, windows): its presence.
    for name, arg in zip(names[5:], args[5:], strict=True):
        if arg is None or hasattr(arg, "__dlpack__"):
            terms.append(key.is_none(name))
    return terms


def make_table(torch: Any, fa: Any, kwcall: Any, causal: bool, recording: Recording, sample: tuple):
    """The table for one mask mode, its signature and terms read from a compile of `sample`."""
    q, k, v = sample
    fa.flash_attn_func(q, k, v, causal=causal)
    fn, args = recording.last
    signature = fn.signature
    names = [*signature.arg_names, *signature.kwonly_names]

    def compile(key_: tuple, *call: Any) -> Any:
        tensors = [torch.from_dlpack(t) for t in call[:4]]
        recording.last = None
        fa._flash_attn_fwd(*tensors[:3], causal=causal, out=tensors[3])
        return recording.last[0]

    table = kwcall.DispatchTable(
        signature,
        _terms(names, args),
        compile=compile,
        name=f"fa4_fwd{'_causal' if causal else ''}",
    )
    return table, args


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    torch = common.cuda_torch_or_exit("dispatch_fa4")
    import kwcall
    import kwcall.cute

    kwcall.cute.install()
    try:
        import flash_attn.cute.interface as fa
    except ImportError as error:
        print(f"dispatch_fa4: skipped, flash-attn-4 is not installed ({error})")
        return 0
    recording = Recording(fa._flash_attn_fwd.compile_cache)
    fa._flash_attn_fwd.compile_cache = recording
    build = common.ROOT / "build" / "dispatch_fa4"
    build.mkdir(parents=True, exist_ok=True)
    app = common.build_call_table(build / "app")
    failures = []
    tables: dict[bool, tuple[Any, tuple]] = {}
    for b, sq, sk, h, hkv, d, dtype_name in SHAPES:
        dtype = getattr(torch, dtype_name)
        q = torch.randn(b, sq, h, d, device="cuda", dtype=dtype)
        k = torch.randn(b, sk, hkv, d, device="cuda", dtype=dtype)
        v = torch.randn(b, sk, hkv, d, device="cuda", dtype=dtype)
        for causal in (False, True):
            if causal not in tables:
                tables[causal] = make_table(torch, fa, kwcall, causal, recording, (q, k, v))
            table, template = tables[causal]
            want, _ = fa.flash_attn_func(q, k, v, causal=causal)
            fa.flash_attn_func(q, k, v, causal=causal)  # the compiled function of this shape
            fn, recorded = recording.last
            scale = 1.0 / math.sqrt(d)
            rest = recorded[6:]

            def via_table(q=q, k=k, v=v, table=table, scale=scale, rest=rest):
                out = torch.empty(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
                table(q, k, v, out, None, scale, *rest)
                return out

            got = via_table()
            if not torch.equal(got, want):
                failures.append(f"{b}x{sq}x{h}x{d} {dtype_name} causal={causal}: output differs")

            def direct(fn=fn, recorded=recorded):
                fn(*recorded)

            timings = common.side_by_side(
                {
                    "flash_attn_func": lambda q=q, k=k, v=v, c=causal: fa.flash_attn_func(
                        q, k, v, causal=c
                    ),
                    "kwcall table": via_table,
                    "the compiled function": direct,
                },
                args.calls,
                args.reps,
            )
            title = f"FA4 forward {b}x{sq}x{h}(kv {hkv})x{d} {dtype_name} causal={causal}"
            common.print_table(title, timings, "flash_attn_func")
            ratio = timings["kwcall table"] / timings["flash_attn_func"]
            verdict = "met" if ratio <= TARGET else "NOT met"
            print(f"target: the table ≤ {TARGET}× flash_attn_func: {ratio:.3f} ({verdict})")
    for causal, (table, _) in tables.items():
        library = build / f"lib{table.table_name}.so"
        table.save(library)
        print(f"\nsaved {len(table)} entries of {table.table_name} to {library}")
        b, sq, sk, h, hkv, d, dtype_name = SHAPES[0]
        dtype = getattr(torch, dtype_name)
        q = torch.randn(b, sq, h, d, device="cuda", dtype=dtype)
        k = torch.randn(b, sk, hkv, d, device="cuda", dtype=dtype)
        v = torch.randn(b, sk, hkv, d, device="cuda", dtype=dtype)
        want, _ = fa.flash_attn_func(q, k, v, causal=causal)
        _, recorded = recording.last
        out = torch.empty_like(want)
        call = [q, k, v, out, None, 1.0 / math.sqrt(d), *recorded[6:]]
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            manifest = common.write_manifest(folder, call, outputs={3})
            ns = common.run_call_table(app, library, table.table_name, manifest, args.calls)
            if not torch.equal(common.read_output(folder, 3, want), want):
                failures.append(f"call_table {table.table_name}: output differs")
        print(f"C++ without Python ({table.table_name}): {ns / 1000:.2f} µs CPU per call")
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
