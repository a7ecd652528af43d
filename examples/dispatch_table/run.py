"""A CuTeDSL kernel family as one dispatch table, from Python and from C++ with no Python.

Builds examples/dispatch_table/family.py's table, calls it from Python with torch tensors
(each new dtype and length is compiled once, on its first call), saves it with
DispatchTable.save, loads it back, then builds and runs main.cc, a C++ program that loads the
saved table with no libpython in the process and calls it positionally and with a keyword.
Exits non-zero on any wrong result. Runs on a CPU (the kernel is host-only).

    python examples/dispatch_table/run.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def check(what: str, got, expected) -> None:
    import torch

    if not torch.equal(got, expected):
        raise SystemExit(f"{what}: got {got}, expected {expected}")
    print(f"{what}: ok")


def main() -> int:
    import torch

    sys.path.insert(0, str(HERE))
    import family
    import kwcall
    import kwcall.libinfo

    table = family.table()
    for dtype, n in [(torch.float32, 4), (torch.float64, 8), (torch.float32, 4)]:
        x = torch.arange(1, n + 1, dtype=dtype)
        out = torch.zeros(n, dtype=dtype)
        table(x, out, alpha=3.0)
        check(f"Python, {dtype} [{n}]", out, x * 3)
    print(f"keys compiled: {table.keys()}")
    assert table.keys() == [("float32", 4), ("float64", 8)], table.keys()

    build = ROOT / "build" / "dispatch_table"
    build.mkdir(parents=True, exist_ok=True)
    library = build / "libscale_table.so"
    table.save(library)
    loaded = kwcall.load_dispatch_table(library, "scale")
    x, out = torch.arange(1.0, 9.0, dtype=torch.float64), torch.zeros(8, dtype=torch.float64)
    loaded(x, out)
    check("loaded back in Python, float64 [8], alpha's default", out, x * 2)

    app = build / "app"
    bin_dir = Path(sys.executable).parent
    cmake = [str(bin_dir / "cmake")] if (bin_dir / "cmake").exists() else ["cmake"]
    package = f"-Dkwcall_DIR={kwcall.libinfo.cmake_dir()}"
    # This Python, for an install layout kwcall's package cannot find one in (pip --target).
    python = f"-DPython_EXECUTABLE={sys.executable}"
    configure = [*cmake, "-S", str(HERE), "-B", str(app), package, python]
    subprocess.run(configure, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([*cmake, "--build", str(app)], check=True, stdout=subprocess.DEVNULL)
    done = subprocess.run([str(app / "dispatch_app"), str(library), "scale"], text=True)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
