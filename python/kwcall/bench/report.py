"""The outputs: a Markdown table (also printed), a JSON file with every raw sample and the
machine, and a PNG chart."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import py_threads
from .cells import Cell, paired_difference, paired_ratio
from .dispatch_routes import CPP_DISPATCH_ROUTES, PY_DISPATCH_ROUTES
from .python_routes import PY_ROUTES
from .routes import ROUTES
from .torch_routes import CPP_TORCH_ROUTES, PY_TORCH_ROUTES

PY_ROUTE_TEXT = {
    "A": "target, positional",
    "B": "CuTeDSL 4.6+ object, positional",
    "B kw": "CuTeDSL 4.6+ object, 2 keywords",
    "C": "make_kwargs_wrapper, positional",
    "C kw": "make_kwargs_wrapper, 2 keywords",
    "D": ROUTES["D"],
    "E": ROUTES["E"],
    "F": ROUTES["F"],
}


def _ns(value: float) -> str:
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def _find(cells: list[Cell], **labels: Any) -> Cell | None:
    for cell in cells:
        if all(cell.labels.get(k) == v for k, v in labels.items()):
            return cell
    return None


def _ns_table(cells: list[Cell], mixes: list[tuple[str, str]], rows: dict[str, str], caller: str):
    head = "| route | what | " + " | ".join(f"{label} ns | ×A" for _, label in mixes) + " |"
    lines = [head, "|---|---|" + "---:|---:|" * len(mixes)]
    for route, text in rows.items():
        parts = []
        for mix, _ in mixes:
            cell = _find(cells, mix=mix, route=route, caller=caller)
            base = _find(cells, mix=mix, route="A", caller=caller)
            if cell is None or base is None:
                parts += ["–", "–"]
                continue
            parts += [_ns(cell.ns_per_call()), f"{paired_ratio(cell, base):.2f}"]
        lines.append(f"| {route} | {text} | " + " | ".join(parts) + " |")
    return lines


def _scaling_table(cells: list[Cell], stream: str) -> list[str]:
    group = [c for c in cells if c.group == "threads" and c.labels["stream"] == stream]
    counts = sorted({c.threads for c in group})
    lines = [
        "| threads | A calls/s | B calls/s | D calls/s | D ÷ A | D ÷ D(1 thread) | D ÷ B |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    one = _find(group, route="D", stream=stream)
    for count in counts:
        rate = {
            r: next(c for c in group if c.threads == count and c.labels["route"] == r).calls_per_s()
            for r in ("A", "B", "D")
        }
        lines.append(
            f"| {count} | {rate['A']:,.0f} | {rate['B']:,.0f} | {rate['D']:,.0f} | "
            f"{rate['D'] / rate['A']:.2f} | {rate['D'] / one.calls_per_s():.2f} | "
            f"{rate['D'] / rate['B']:,.0f} |"
        )
    return lines


#: docs/DESIGN.md's targets for the calls kwcall adds cost to, written once: ns above route A
#: for the C++ positional call, ratios to route A for the rest.
TARGETS = {
    "cpp_positional_ns": 2.5,
    "cpp_keywords": 2.5,
    "cpp_call_site": 1.3,
    "cpp_defaults": 1.5,
    "py_positional": 1.03,
    "py_keywords": 1.10,
    "torch_op_to_custom_op": 0.1,
    "cpp_dispatcher_ns": 1000,
    "table_4_terms_ns": 25,
    "table_8_terms_ns": 50,
    "table_py_to_entry": 1.10,
    "table_py_to_python_dispatch": 0.35,
    "torch_functional_op": 1.0,
    "torch_eager_call": 1.2,
}


def _ratio_table(cells: list[Cell], mix: str, sections: tuple, ratio_name: str) -> list[str]:
    """ns per call of each route, with its ratio to a base route called by the same caller;
    sections: (caller label, where, {route: what}, base route)."""
    lines = [f"| caller | route | what | ns | × {ratio_name} |", "|---|---|---|---:|---:|"]
    for caller, where, rows, base_route in sections:
        base = _find(cells, mix=mix, route=base_route, caller=caller)
        for route, text in rows.items():
            cell = _find(cells, mix=mix, route=route, caller=caller)
            lines.append(
                f"| {where} | {route} | {text} | {_ns(cell.ns_per_call())} | "
                f"{paired_ratio(cell, base):.2f} |"
            )
    return lines


@dataclass(frozen=True)
class RatioTable:
    """A group of routes, each measured against a base route its caller calls the same way:
    from C++ on the thread Python called, then from Python."""

    heading: str
    text: str
    cpp: tuple[dict[str, str], str]  # the routes and their base
    python: tuple[dict[str, str], str]
    base_name: str  # the base, as the ratio column names it


TORCH_TEXT = (
    "`axpy_out(Tensor x, Tensor y, Tensor(a!) out, *, float alpha=1.0) -> ()`, one C++ kernel, "
    "`alpha=2.0` by keyword from Python (timeit loop included); from C++ on the thread Python "
    "called."
)
DISPATCH_TEXT = (
    "`attn(q, k, v, out, causal)`, an entry that does nothing, tables of 16 keys; from C++ with "
    "DLTensor views on the thread Python called, from Python with torch tensors (timeit loop "
    "included)."
)
RATIO_TABLES = {
    "torch": RatioTable(
        "PyTorch operators, CPU tensors of 16 floats: ns per call",
        TORCH_TEXT,
        (CPP_TORCH_ROUTES, "T1"),
        (PY_TORCH_ROUTES, "T1"),
        "T1",
    ),
    "dispatch": RatioTable(
        "Dispatch tables, four CPU tensors and a bool: ns per call",
        DISPATCH_TEXT,
        (CPP_DISPATCH_ROUTES, "X0"),
        (PY_DISPATCH_ROUTES, "P0"),
        "entry",
    ),
}


def _group_section(cells: list[Cell], group: str, meta: dict[str, Any]) -> list[str]:
    """A group's section of the report: its table, or why its routes did not run (the meta's
    "<group>_routes")."""
    table = RATIO_TABLES[group]
    lines = ["", f"## {table.heading}", ""]
    if not any(c.group == group for c in cells):
        return [*lines, f"Not run: {meta.get(f'{group}_routes', 'torch is not installed')}."]
    sections = (("python_thread", "C++", *table.cpp), ("python", "Python", *table.python))
    return [*lines, table.text, "", *_ratio_table(cells, group, sections, table.base_name)]


def torch_targets(cells: list[Cell]) -> list[tuple[str, str, bool]]:
    """The targets for the torch routes (issues 30 and 38), when they ran."""
    if not any(c.group == "torch" for c in cells):
        return []

    def cell(route: str, caller: str) -> Cell:
        return _find(cells, mix="torch", route=route, caller=caller)

    op_custom = paired_ratio(cell("T2", "python"), cell("T3", "python"))
    above = paired_difference(cell("T4", "python_thread"), cell("T1", "python_thread"))
    limit, ns = TARGETS["torch_op_to_custom_op"], TARGETS["cpp_dispatcher_ns"]
    functional = paired_ratio(cell("T6", "python"), cell("T7", "python"))
    eager = paired_ratio(cell("T5", "python"), cell("T1", "python"))
    functional_limit, eager_limit = TARGETS["torch_functional_op"], TARGETS["torch_eager_call"]
    return [
        (
            "Python → the functional operator through torch.ops ≤ the mutating one plus a "
            "Python torch.empty_like",
            f"T6 ÷ T7 = {functional:.2f}",
            functional <= functional_limit,
        ),
        (
            f"Python → a torch operator's eager call object ≤ {eager_limit}× calling the kwcall "
            "function directly",
            f"T5 ÷ T1 = {eager:.2f}",
            eager <= eager_limit,
        ),
        (
            f"Python → the kwcall torch operator, eager ≤ {limit}× custom_op",
            f"T2 ÷ T3 = {op_custom:.3f}",
            op_custom <= limit,
        ),
        (
            f"C++ → the operator through the dispatcher ≤ {ns / 1000:g} µs above calling the "
            "kwcall function",
            f"T4 − T1 = {above:+,.0f} ns",
            above <= ns,
        ),
    ]


def dispatch_targets(cells: list[Cell]) -> list[tuple[str, str, bool]]:
    """issue 36's targets for dispatch tables, when their routes ran."""
    if not any(c.group == "dispatch" for c in cells):
        return []

    # the entry, and the tables of 4 and 8 terms, from C++; the entry, the table and the Python
    # dispatch of the same key, from Python
    x0, x4, x8 = (
        _find(cells, mix="dispatch", route=r, caller="python_thread") for r in "X0 X4 X8".split()
    )
    p0, p1, p2 = (
        _find(cells, mix="dispatch", route=r, caller="python") for r in "P0 P1 P2".split()
    )
    t = TARGETS
    four, eight = paired_difference(x4, x0), paired_difference(x8, x0)
    to_entry, to_python = paired_ratio(p1, p0), paired_ratio(p1, p2)
    return [
        (
            f"C++ → a dispatch table, 4-term key over 3 tensors ≤ {t['table_4_terms_ns']} ns above "
            "the entry",
            f"X4 − X0 = {four:+.1f} ns",
            four <= t["table_4_terms_ns"],
        ),
        (
            f"C++ → a dispatch table, 8-term key ≤ {t['table_8_terms_ns']} ns above the entry",
            f"X8 − X0 = {eight:+.1f} ns",
            eight <= t["table_8_terms_ns"],
        ),
        (
            f"Python → a dispatch table, torch tensors ≤ {t['table_py_to_entry']}× the entry's "
            "kwcall.Function",
            f"P1 ÷ P0 = {to_entry:.3f}",
            to_entry <= t["table_py_to_entry"],
        ),
        (
            f"Python → a dispatch table ≤ {t['table_py_to_python_dispatch']}× a 12-term Python "
            "key + dict lookup",
            f"P1 ÷ P2 = {to_python:.3f}",
            to_python <= t["table_py_to_python_dispatch"],
        ),
    ]


def design_targets(cells: list[Cell], device: str) -> list[tuple[str, str, bool]]:
    """The performance targets of docs/DESIGN.md, each as (target, measured, met), on the scalar mix
    (the 3-tensor mix for the GPU launch target)."""

    def cell(route: str, caller: str, mix: str = "scalars") -> Cell:
        return _find(cells, mix=mix, route=route, caller=caller)

    def ratio(route: str, base: str, caller: str, mix: str = "scalars") -> float:
        return paired_ratio(cell(route, caller, mix), cell(base, caller, mix))

    def rate(route: str, threads: int) -> float:
        found = [
            c
            for c in cells
            if c.group == "threads"
            and c.labels["stream"] == "none"
            and c.labels["route"] == route
            and c.threads == threads
        ]
        return found[0].calls_per_s()

    added = paired_difference(cell("D", "python_thread"), cell("A", "python_thread"))
    f_a = ratio("F", "A", "python_thread")
    g_a = ratio("G", "A", "python_thread")
    e_a = {mix: ratio("E", "A", "python_thread", mix) for mix in ("tensors3", "tensors9")}
    b_d, b_d_plain = ratio("B", "D", "python_thread"), ratio("B", "D", "plain_thread")
    pd, pf, pf_c = (
        ratio("D", "A", "python"),
        ratio("F", "A", "python"),
        ratio("F", "C kw", "python"),
    )
    scale = rate("D", 2) / rate("D", 1)
    t = TARGETS

    def at_most(what: str, shown: str, value: float, target: str, digits: int = 2):
        limit = t[target]
        return (f"{what} ≤ {limit}× A", f"{shown} = {value:.{digits}f}", value <= limit)

    out = [
        (
            f"C++ → kwcall positional ≤ A + {t['cpp_positional_ns']} ns",
            f"D − A = {added:+.1f} ns",
            added <= t["cpp_positional_ns"],
        ),
        at_most("C++ → kwcall 2 keywords", "F ÷ A", f_a, "cpp_keywords"),
        at_most("C++ → kwcall::CallSite, 2 keywords", "G ÷ A", g_a, "cpp_call_site"),
        (
            f"C++ → kwcall, trailing defaults left out, 3 and 9 tensors ≤ {t['cpp_defaults']}× A",
            f"E ÷ A = {e_a['tensors3']:.2f} / {e_a['tensors9']:.2f}",
            max(e_a.values()) <= t["cpp_defaults"],
        ),
        ("C++ kwcall ≥ 40× the 4.6 route (calling thread)", f"B ÷ D = {b_d:,.0f}", b_d >= 40),
        (
            "C++ kwcall ≥ 400× the 4.6 route (plain thread)",
            f"B ÷ D = {b_d_plain:,.0f}",
            b_d_plain >= 400,
        ),
        at_most("Python → kwcall positional", "D ÷ A", pd, "py_positional", digits=3),
        at_most("Python → kwcall 2 keywords", "F ÷ A", pf, "py_keywords", digits=3),
        ("Python → kwcall 2 keywords < make_kwargs_wrapper", f"F ÷ C kw = {pf_c:.3f}", pf_c < 1),
        ("C++ threads ≥ 1.8× at 2 threads (kwcall)", f"D(2) ÷ D(1) = {scale:.2f}", scale >= 1.8),
    ]
    if any(c.group == "py_threads" for c in cells):
        goal = py_threads.SPEEDUP_GOAL
        for route, text in (("D", "positional"), ("F", "2 keywords")):
            worst = min(py_threads.speedup_ratios(cells, "own", route).values())
            out.append(
                (
                    f"Python threads: kwcall {text} speedup ≥ {goal}× tvm-ffi's (own objects)",
                    f"worst {route} ÷ A speedup = {worst:.2f}",
                    worst >= goal,
                )
            )
    out += torch_targets(cells)
    out += dispatch_targets(cells)
    if device == "cuda":
        launch = ratio("D", "A", "python_thread", "tensors3")
        out.append(
            ("CUDA launch from C++: kwcall within 5% of A", f"D ÷ A = {launch:.3f}", launch <= 1.05)
        )
    return out


def markdown(cells: list[Cell], meta: dict[str, Any]) -> str:
    mixes = meta["mixes"]
    machine = meta["machine"]
    lines = [
        f"# kwcall benchmark ({meta['mode']}, {meta['device']})",
        "",
        f"`{meta['command']}` on kwcall commit {meta['commit'] or 'unknown (not a git checkout)'}",
        "",
        f"{machine['cpu']} ({machine['cpu_count']} cores), {machine['platform']}, "
        f"Python {machine['python']}, apache-tvm-ffi {machine['tvm_ffi']}, "
        f"kwcall {machine['kwcall']}"
        + (f", GIL {machine['gil']}" if machine.get("gil") else "")
        + (f", {machine['gpu']}" if machine.get("gpu") else "")
        + f"; 1-minute load average at start {machine['loadavg_1min_at_start']:.2f}",
        "",
        f"Medians of {meta['reps']} samples per cell (routes interleaved); ×A is the median, "
        "over repetitions, of the ratio to route A sampled in the same repetition. Route B is "
        f"{meta['route_b']}.",
        "",
        "## From C++, on the thread Python called (GIL released): ns per call",
        "",
        *_ns_table(cells, mixes, ROUTES, "python_thread"),
        "",
        "## From C++, on a plain C++ thread Python never saw: ns per call",
        "",
        *_ns_table(cells, mixes, ROUTES, "plain_thread"),
        "",
        "## From Python: ns per call (timeit loop included)",
        "",
        *_ns_table(cells, mixes, PY_ROUTE_TEXT, "python"),
    ]
    present = {c.labels["stream"] for c in cells if c.group == "threads"}
    streams = [s for s in ("none", "own", "default") if s in present]
    titles = {
        "none": "scalars",
        "own": "3 CUDA tensors, a CUDA stream per thread",
        "default": "3 CUDA tensors, every thread on the default stream",
    }
    for stream in streams:
        lines += ["", f"## Thread scaling, {titles[stream]}: calls per second", ""]
        lines += _scaling_table(cells, stream)
    sharings = [s for s in py_threads.SHARING if any(c.labels.get("objects") == s for c in cells)]
    for sharing in sharings:
        which = py_threads.SHARING_TEXT[sharing]
        lines += ["", f"## Python-thread scaling (free-threaded), {which}: calls per second", ""]
        lines += [
            "Speedup: the route's rate over its own 1-thread rate; D ÷ A and F ÷ A divide kwcall's "
            "speedup by the bare tvm-ffi function's.",
            "",
        ]
        lines += py_threads.scaling_table(cells, sharing)
    for group in RATIO_TABLES:
        lines += _group_section(cells, group, meta)
    lines += ["", "## Performance targets (docs/DESIGN.md)", "", "| target | measured | met |"]
    lines += ["|---|---|---|"]
    for target, measured, met in design_targets(cells, meta["device"]):
        lines.append(f"| {target} | {measured} | {'yes' if met else '**no**'} |")
    return "\n".join(lines) + "\n"


def write_json(path: Path, cells: list[Cell], meta: dict[str, Any]) -> None:
    data = {**meta, "cells": [c.to_json() for c in cells]}
    path.write_text(json.dumps(data, indent=1))


def chart(path: Path, cells: list[Cell], meta: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only; no display needed
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(14, 9))
    panels = [
        (axes[0][0], "From C++ (Python's thread)", list(ROUTES), "python_thread"),
        (axes[0][1], "From C++ (plain C++ thread)", list(ROUTES), "plain_thread"),
        (axes[1][0], "From Python", list(PY_ROUTES), "python"),
    ]
    mixes = meta["mixes"]
    width = 0.8 / len(mixes)
    for ax, title, routes, caller in panels:
        for i, (mix, label) in enumerate(mixes):
            values = [_find(cells, mix=mix, route=r, caller=caller).ns_per_call() for r in routes]
            ax.bar([x + i * width for x in range(len(routes))], values, width, label=label)
        ax.set_xticks([x + width * (len(mixes) - 1) / 2 for x in range(len(routes))], routes)
        ax.set_yscale("log")
        ax.set_ylabel("ns per call (log)")
        ax.set_title(title)
        ax.legend(fontsize=8)
    ax = axes[1][1]
    present = {c.labels["stream"] for c in cells if c.group == "threads"}
    for stream in [s for s in ("none", "own", "default") if s in present]:
        for route in ("A", "B", "D"):
            group = sorted(
                (
                    c
                    for c in cells
                    if c.group == "threads"
                    and c.labels["stream"] == stream
                    and c.labels["route"] == route
                ),
                key=lambda c: c.threads,
            )
            suffix = ", scalars" if stream == "none" else f", CUDA, {stream} stream"
            ax.plot(
                [c.threads for c in group],
                [c.calls_per_s() for c in group],
                "o-",
                label=f"{route}{suffix}",
            )
    ax.set_xscale("log", base=2)
    counts = sorted({c.threads for c in cells if c.group == "threads"})
    ax.set_xticks(counts, [str(c) for c in counts])
    ax.set_yscale("log")
    ax.set_xlabel("plain C++ threads")
    ax.set_ylabel("calls per second (log)")
    ax.set_title("Thread scaling")
    ax.legend(fontsize=8)
    fig.suptitle(
        f"kwcall benchmark ({meta['mode']}, {meta['device']}): "
        "A target, B CuTeDSL 4.6+ route, C make_kwargs_wrapper, D/E/F/G kwcall"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_all(out_dir: Path, cells: list[Cell], meta: dict[str, Any]) -> str:
    out_dir.mkdir(parents=True, exist_ok=True)
    table = markdown(cells, meta)
    (out_dir / "results.md").write_text(table)
    write_json(out_dir / "results.json", cells, meta)
    chart(out_dir / "chart.png", cells, meta)
    return table
