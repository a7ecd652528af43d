"""``python -m kwcall.bench --quick`` runs end to end (in a subprocess, with a tiny budget)
and writes a table with every route, a JSON file with raw samples and a chart."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import TIME_SCALE

pytest.importorskip("matplotlib")

from kwcall.bench import (  # noqa: E402  # the bench extra
    build,
    dispatch_routes,
    py_threads,
    routes,
    torch_routes,
)

FREE_THREADED = py_threads.free_threaded()
#: The torch routes run where torch and kwcall.torch import (why not, when they do not).
NO_TORCH = torch_routes.unavailable()
NO_DISPATCH = dispatch_routes.unavailable()


def test_quick_mode_writes_every_output(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kwcall.bench",
            "--quick",
            "--device=cpu",
            "--reps=2",
            "--sample-ms=0.5",
            "--no-progress",
            f"--out={tmp_path}",
        ],
        capture_output=True,
        text=True,
        # A guard against a hang, not a time bound: the first run compiles the C++ caller (a
        # minute or more on a busy machine); later runs take seconds.
        timeout=600 * TIME_SCALE,
    )
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = tmp_path.iterdir()
    table = (run_dir / "results.md").read_text()
    assert table in proc.stdout
    for section in (
        "From C++, on the thread Python called",
        "on a plain C++ thread",
        "From Python",
        "Thread scaling",
        "Performance targets (docs/DESIGN.md)",
    ):
        assert section in table
    for route in ("A", "B", "C", "D", "E", "F", "G", "B kw", "C kw"):
        assert f"\n| {route} |" in table, route
    data = json.loads((run_dir / "results.json").read_text())
    assert data["machine"]["cpu_count"] >= 1
    groups = {cell["group"] for cell in data["cells"]}
    # Python threads scale only where they run at once: free-threaded CPython, GIL off.
    assert groups == {"cpp", "python", "threads"} | ({"py_threads"} if FREE_THREADED else set()) | (
        set() if NO_TORCH else {"torch"}
    ) | (set() if NO_DISPATCH else {"dispatch"})
    assert data["torch_routes"] == (NO_TORCH or "run")
    if NO_TORCH:
        assert f"Not run: {NO_TORCH}." in table
    else:
        for route in ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9"):
            assert f"| {route} |" in table, route
        assert "Python → the kwcall torch operator, eager ≤ 0.1× custom_op" in table
        assert "| Python → the functional operator through torch.ops ≤ the mutating one" in table
        assert "eager call object ≤ 1.2× calling the kwcall function directly | T5 ÷ T1 =" in table
        assert "C++ → the operator through the dispatcher ≤ 1 µs above calling the kwcall" in table
    assert ("Python-thread scaling (free-threaded)" in table) == FREE_THREADED
    assert data["dispatch_routes"] == (NO_DISPATCH or "run")
    if not NO_DISPATCH:
        for route in ("X0", "X1", "X4", "X8", "P0", "P1", "P2", "P3"):
            assert f"| {route} |" in table, route
        assert "C++ → a dispatch table, 4-term key over 3 tensors ≤ 25 ns above" in table
        assert "Python → a dispatch table ≤ 0.35× a 12-term Python key + dict lookup" in table
    assert all(len(cell["samples_ns"]) == 2 for cell in data["cells"])
    assert (run_dir / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # What was measured travels with the numbers.
    assert data["command"].startswith("python -m kwcall.bench --quick")
    assert "commit" in data
    assert f"`{data['command']}` on kwcall commit" in table

    # The before/after table of two sets of runs (here the same run on both sides): ×A read
    # back from the raw samples is the run's own table's, and both sides agree.
    from kwcall.bench import compare

    text = compare.main(["--before", str(run_dir), "--after", str(run_dir / "results.json")])
    ratios = compare.ratios_to_a(data)
    assert ratios and all(key[-1] != "A" or ratio == 1.0 for key, ratio in ratios.items())
    rows = [line for line in text.splitlines() if line.startswith("| cpp |")]
    assert len(rows) == sum(1 for key in ratios if key[0] == "cpp" and key[-1] != "A")
    for row in rows:
        before, after = (cell.strip() for cell in row.strip("|").split("|")[-2:])
        assert before == after
    calling_thread = table.split("## From C++, on the thread Python called")[1].split("## ")[0]
    (d_row,) = [line for line in calling_thread.splitlines() if line.startswith("| D |")]
    scalars_x_a = d_row.strip("|").split("|")[3].strip()
    key = ("cpp", "python_thread", "scalars", None, None, 1, "D")
    assert f"{ratios[key]:.2f}" == scalars_x_a


def test_python_thread_runner_times_every_thread():
    """The Python-thread cells' runner, on any build: each way of sharing and each route makes
    its calls on every thread and reports the span and each thread's time."""
    modules = build.build("cpu")  # the cache the quick run above filled
    (mix,) = [m for m in routes.make_mixes(modules, "cpu") if m.name == "scalars"]
    for sharing in py_threads.SHARING:
        for route in py_threads.PY_SCALING_ROUTES:
            span, *per_thread = py_threads.runner(mix, route, 2, sharing)(50)
            assert len(per_thread) == 2 and all(0 < t <= span for t in per_thread)
    assert bool(py_threads.cells([mix], quick=True)) == FREE_THREADED


def test_the_global_sharing_calls_through_a_module_global():
    """The "global" loops of every thread read ``target`` from one namespace (LOAD_GLOBAL, as
    a call of a module-level function does); the others call their argument."""
    import dis

    module = {"target": py_threads}
    first, second = (py_threads.loop("keywords", module) for _ in range(2))
    assert first.__globals__ is second.__globals__ is module
    assert first.__code__ is not second.__code__  # each thread's loop its own
    loads = {(i.opname, i.argval) for i in dis.get_instructions(first)}
    assert ("LOAD_GLOBAL", "target") in loads
    assert "f" not in {argval for op, argval in loads if op == "LOAD_GLOBAL"}
    plain = {(i.opname, i.argval) for i in dis.get_instructions(py_threads.loop("keywords"))}
    # 3.14 compiles the load of an argument as LOAD_FAST_BORROW, earlier Pythons as LOAD_FAST.
    assert ("LOAD_GLOBAL", "target") not in plain
    assert {("LOAD_FAST", "f"), ("LOAD_FAST_BORROW", "f")} & plain


def test_threads_are_pinned_where_the_machine_allows(monkeypatch):
    import os
    import threading

    cpus = py_threads.allowed_cpus()
    if not cpus or not hasattr(os, "sched_setaffinity"):
        pytest.skip("no sched_getaffinity/sched_setaffinity here")
    seen = {}

    def body(i: int) -> None:
        seen[i] = (py_threads.pin_to_cpu(i, cpus), os.sched_getaffinity(0))

    threads = [threading.Thread(target=body, args=(i,)) for i in range(len(cpus) + 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for i, (cpu, affinity) in seen.items():
        assert cpu == cpus[i % len(cpus)] and affinity == {cpu}
    assert sorted(os.sched_getaffinity(0)) == cpus  # this thread is left as it was
    assert py_threads.pinning().startswith("each thread pinned to one of CPUs")

    def refused(pid, mask):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "sched_setaffinity", refused)
    assert py_threads.pin_to_cpu(0, cpus) is None
    assert (
        py_threads.pinning()
        == "threads not pinned (sched_setaffinity refused: Operation not permitted)"
    )


def test_the_machine_section_imports_no_cutedsl():
    """Its versions come from package metadata: importing CuTeDSL turns the GIL back on under
    free-threaded 3.14, and the Python-thread section would be gone."""
    code = (
        "import sys, kwcall.bench.__main__ as bench; info = bench.machine('cpu'); "
        "print('cutlass' in sys.modules, info['nvidia_cutlass_dsl'], info['python_threads'])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imported, version, _ = done.stdout.split(" ", 2)
    assert imported == "False"
    try:
        from importlib.metadata import version as installed

        expected = installed("nvidia-cutlass-dsl")
    except Exception:  # noqa: BLE001 - not installed here
        expected = "None"
    assert version == expected


def test_the_native_modules_are_rebuilt_when_kwcalls_headers_change(tmp_path, monkeypatch):
    # A kwcall rebuilt in place (same include directory, same version) changes what the
    # caller compiles to: kwcall::Call and Kw are inline in include/kwcall/kwargs.h.
    include = tmp_path / "include"
    (include / "kwcall").mkdir(parents=True)
    header = include / "kwcall" / "kwargs.h"
    header.write_text("// one\n")
    monkeypatch.setattr(build.kwcall.libinfo, "include_dir", lambda: str(include))
    first = build._build_dir(tmp_path / "cache", build.CPU_SOURCES)
    assert build._build_dir(tmp_path / "cache", build.CPU_SOURCES) == first
    header.write_text("// two\n")
    assert build._build_dir(tmp_path / "cache", build.CPU_SOURCES) != first
