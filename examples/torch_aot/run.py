"""The AOTInductor example end to end: build the kernel library and the libtorch runner with
CMake, export the model to a ``.pt2`` (export_model.py), then run the runner, a C++ program
with no Python in it, which registers the operator and runs the graph.

    python examples/torch_aot/run.py [--build DIR]

Needs torch (the runner links its wheel's CPU libraries, a CUDA wheel's too, with no CUDA
toolkit), CMake, Ninja and a C++ compiler. README.md says more.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import kwcall.libinfo

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    """cmake/ninja beside this interpreter (pip installs them there), else from PATH."""
    local = BIN / name
    return str(local) if local.exists() else (shutil.which(name) or name)


def build(folder: Path) -> None:
    configure = [
        tool("cmake"),
        "-S",
        str(HERE),
        "-B",
        str(folder),
        "-G",
        "Ninja",
        f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}",
        f"-Dkwcall_DIR={kwcall.libinfo.cmake_dir()}",
        f"-DPython_EXECUTABLE={sys.executable}",  # whose torch the runner links (CPU libraries)
    ]
    for command in (configure, [tool("cmake"), "--build", str(folder)]):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")


def run_runner(folder: Path, package: str) -> subprocess.CompletedProcess:
    """The runner in an environment without Python's variables: nothing points it at Python."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    command = [str(folder / "runner"), str(folder / "libkernels.so"), package]
    return subprocess.run(command, capture_output=True, text=True, env=env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", type=Path, default=Path("build/torch_aot"))
    args = parser.parse_args(argv)
    folder = args.build.resolve()
    build(folder)
    sys.path.insert(0, str(HERE))
    import export_model

    package = export_model.export(str(folder / "libkernels.so"), str(folder / "model.pt2"))
    done = run_runner(folder, package)
    print(done.stdout + done.stderr, end="")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
