"""The dispatch-table routes: one entry, ``attn(q, k, v, out, causal)`` over four CPU tensors
(a native function that does nothing), reached directly and through kwcall.DispatchTable tables
that hold 16 keys:

* from C++ (dispatch_targets.cc, DLTensor views, on Python's thread): the entry itself (X0) and
  the table's function with keys of 1 term over 1 tensor (X1), 4 terms over 3 tensors (X4) and
  8 terms over 3 tensors and the bool (X8);
* from Python with torch tensors: the entry's own kwcall.Function (P0), the table with a 12-term
  key (P1), and Python dispatches that build a key the way flash-attn-4 (12 terms, P2) and quack
  (7 terms, P3) do, look it up in a dict and call the entry positionally.
"""

from __future__ import annotations

import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tvm_ffi

import kwcall
import kwcall.libinfo
from kwcall import key

from .build import HERE, _build_dir, default_cache_dir
from .cells import Cell, route_cells

SOURCES = ("dispatch_targets.cc",)
SIGNATURE = kwcall.Signature(["q", "k", "v", "out", "causal"], name="attn")

CPP_DISPATCH_ROUTES = {
    "X0": "the entry, directly",
    "X1": "the table, 1 term over 1 tensor",
    "X4": "the table, 4 terms over 3 tensors",
    "X8": "the table, 8 terms over 3 tensors and a bool",
}
PY_DISPATCH_ROUTES = {
    "P0": "the entry's own kwcall.Function",
    "P1": "the table, 12-term key",
    "P2": "Python dispatch: a 12-term key built as flash-attn-4 builds it, a dict lookup",
    "P3": "Python dispatch: a 7-term key built as quack's jit_cache builds it, a dict lookup",
}

KEYS = {
    "X1": [key.dtype("q")],
    "X4": [key.dtype("q"), key.shape("q", -1), key.shape("k", -2), key.divisible("v", -1, 8)],
    "X8": [
        key.dtype("q"),
        key.shape("q", -1),
        key.shape("k", -1),
        key.shape("k", -2),
        key.contiguous("q"),
        key.contiguous("k"),
        key.aligned("v", 16),
        key.value("causal"),
    ],
    "P1": [
        key.dtype("q"),
        key.shape("q", -1),
        key.shape("v", -1),
        key.shape("q", -2),
        key.shape("k", -2),
        key.value("causal"),
        key.zero_strides("q"),
        key.zero_strides("k"),
        key.zero_strides("v"),
        key.is_none("out"),
        key.aligned("q", 16),
        key.device("q"),
    ],
}
#: Other keys in each table, so a probe meets a table of realistic size.
OTHER_ENTRIES = 15


def _broadcast_dims(t: Any) -> tuple[int, ...]:
    """flash-attn-4's get_broadcast_dims: the dimensions whose stride is 0."""
    return tuple(i for i, s in enumerate(t.stride()) if s == 0)


def fa4_key(q: Any, k: Any, v: Any, out: Any, causal: bool) -> tuple:
    """12 terms, as flash_attn/cute/interface.py's compile_key builds them from tensors."""
    return (
        q.dtype,
        q.shape[-1],
        v.shape[-1],
        q.shape[-2],
        k.shape[-2],
        causal,
        _broadcast_dims(q),
        _broadcast_dims(k),
        _broadcast_dims(v),
        out is None,
        q.data_ptr() % 16 == 0,
        q.device,
    )


def quack_key(q: Any, k: Any, v: Any, out: Any, causal: bool) -> tuple:
    """7 terms, as quack/cache/jit.py's jit_cache builds (qualname, *args, *sorted(kwargs))
    from what its ops pass: dtypes, N and flags."""
    return ("attn", q.dtype, k.dtype, v.dtype, q.shape[-1], *sorted({"causal": causal}.items()))


class DispatchRoutes:
    """The entry, the tables, the tensors and the C++ caller, made once; each route checked."""

    def __init__(self, cache_dir: Path | None) -> None:
        import torch

        root = cache_dir or default_cache_dir()
        library = kwcall.libinfo.build_module(
            "kwcall_bench_dispatch", [str(HERE / s) for s in SOURCES], _build_dir(root, SOURCES)
        )
        module = tvm_ffi.load_module(library)
        self.entry = module.get_function("dispatch_entry")
        self.call_n = module.get_function("dispatch_call_n")
        self.function = kwcall.wrap(self.entry, SIGNATURE)
        self.q = torch.zeros(1, 128, 8, 64, dtype=torch.bfloat16)
        self.k = torch.zeros(1, 128, 2, 64, dtype=torch.bfloat16)
        self.v = torch.zeros(1, 128, 2, 64, dtype=torch.bfloat16)
        self.out = torch.zeros(1, 128, 8, 64, dtype=torch.bfloat16)
        self.args = (self.q, self.k, self.v, self.out, True)
        self.views = [tvm_ffi.from_dlpack(t) for t in self.args[:4]]
        self.tables = {route: self._table(route, terms) for route, terms in KEYS.items()}
        self.python_caches = {
            "P2": self._cache(fa4_key(*self.args)),
            "P3": self._cache(quack_key(*self.args)),
        }
        self._check()

    def _table(self, route: str, terms: list) -> kwcall.DispatchTable:
        table = kwcall.DispatchTable(SIGNATURE, terms, name=f"bench_{route}")
        real = table.key_of(*self.args)
        for i in range(OTHER_ENTRIES):  # keys that differ in their int or dtype terms
            other = tuple(
                v + 1 + i
                if type(v) is int
                else ("float16" if i % 2 else "float32")
                if isinstance(v, str) and "float" in v
                else v
                for v in real
            )
            if other != real and other not in table:
                table.add(other, self.entry)
        table.add(real, self.entry)
        return table

    def _cache(self, real_key: tuple) -> dict:
        cache = {(i, *real_key[1:]): self.entry for i in range(OTHER_ENTRIES)}
        cache[real_key] = self.entry
        return cache

    def _check(self) -> None:
        """Every table must reach its entry for these arguments before anything is timed."""
        for route, table in self.tables.items():
            table(*self.args)
            if self.call_n(table.function, *self.views, True, 1) < 0:
                raise RuntimeError(f"dispatch route {route}: no time measured")

    def cpp_runner(self, route: str) -> Callable[[int], list[int]]:
        f = self.entry if route == "X0" else self.tables[route].function
        views = self.views
        return lambda n: [self.call_n(f, *views, True, n)]

    def python_runner(self, route: str) -> Callable[[int], list[int]]:
        setup = "f = _f; q, k, v, out = _q, _k, _v, _out; key_of = _key_of; cache = _cache"
        statement = {
            "P0": "f(q, k, v, out, True)",
            "P1": "f(q, k, v, out, True)",
            "P2": "cache[key_of(q, k, v, out, True)](q, k, v, out, True)",
            "P3": "cache[key_of(q, k, v, out, True)](q, k, v, out, True)",
        }[route]
        timer = timeit.Timer(
            statement,
            setup,
            timer=time.perf_counter_ns,
            globals={
                "_f": {"P0": self.function, "P1": self.tables.get("P1")}.get(route),
                "_q": self.q,
                "_k": self.k,
                "_v": self.v,
                "_out": self.out,
                "_key_of": {"P2": fa4_key, "P3": quack_key}.get(route),
                "_cache": self.python_caches.get(route),
            },
        )
        return lambda n: [timer.timeit(n)]


def unavailable() -> str | None:
    """Why the dispatch routes cannot run here (they use torch tensors), or None."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return "torch is not installed"
    return None


def cells(routes: DispatchRoutes) -> list[Cell]:
    return route_cells(
        "dispatch", CPP_DISPATCH_ROUTES, "python_thread", routes.cpp_runner
    ) + route_cells("dispatch", PY_DISPATCH_ROUTES, "python", routes.python_runner)
