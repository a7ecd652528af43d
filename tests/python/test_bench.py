"""``python -m kwcall.bench --quick`` runs end to end (in a subprocess, with a tiny budget)
and writes a table with every route, a JSON file with raw samples and a chart."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib")


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
        timeout=120,  # the first run compiles the C++ caller; later runs take seconds
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
    for route in ("A", "B", "C", "D", "E", "F", "B kw", "C kw"):
        assert f"\n| {route} |" in table, route
    data = json.loads((run_dir / "results.json").read_text())
    assert data["machine"]["cpu_count"] >= 1
    groups = {cell["group"] for cell in data["cells"]}
    assert groups == {"cpp", "python", "threads"}
    assert all(len(cell["samples_ns"]) == 2 for cell in data["cells"])
    assert (run_dir / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
