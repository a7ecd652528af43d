"""CuTeDSL ahead of time, called from C++ with no Python: the fp16 elementwise add of
examples/cute_from_cpp (keyword-only ``alpha``) exported with kwcall.cute.export_to_c, linked
into a shared library as CuTeDSL's tutorial does, and launched by cute_app (built from this
folder with find_package(kwcall)). Checks each result against PyTorch and prints cute_app's
launch-time table (kwcall against the library's bare exported function). Needs a CUDA GPU.

    python examples/cpp_only/cute_aot.py [--size N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=1 << 20)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "examples" / "cute_from_cpp"))
    from cuda_torch import SKIP, cuda_torch

    torch = cuda_torch()
    if torch is None:
        print(SKIP)
        return 0
    import cutlass.cute as cute
    import elementwise_add as ea
    import kwcall.cute
    import kwcall.libinfo

    out = ROOT / "build" / "cute_aot"
    out.mkdir(parents=True, exist_ok=True)
    (a_t, b_t, c_t), stream = ea.compile_args()
    compiled = kwcall.cute.compile(ea.elementwise_add, a_t, b_t, c_t, stream=stream)
    obj = out / "elementwise_add.o"
    kwcall.cute.export_to_c(compiled, str(obj), function_name="elementwise_add")
    library = out / "libelementwise_add.so"
    runtime = cute.runtime.find_runtime_libraries(enable_tvm_ffi=True)
    # Run paths to CuTeDSL's runtime libraries, so that a program with no Python loads them.
    rpath = [f"-Wl,-rpath,{Path(lib).parent}" for lib in runtime]
    subprocess.run(["c++", "-shared", "-o", str(library), str(obj), *runtime, *rpath], check=True)
    print(f"exported {obj} and linked {library}")

    build = out / "app"
    bin_dir = Path(sys.executable).parent
    cmake = [str(bin_dir / "cmake")] if (bin_dir / "cmake").exists() else ["cmake"]
    subprocess.run(
        [
            *cmake,
            "-S",
            str(HERE),
            "-B",
            str(build),
            f"-Dkwcall_DIR={kwcall.libinfo.cmake_dir()}",
            f"-DPython_EXECUTABLE={sys.executable}",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run([*cmake, "--build", str(build)], check=True, stdout=subprocess.DEVNULL)

    n = args.size
    a = torch.randn(n, dtype=torch.float16)
    b = torch.randn(n, dtype=torch.float16)
    a.numpy().tofile(out / "a.bin")
    b.numpy().tofile(out / "b.bin")
    done = subprocess.run(
        [str(build / "cute_app"), str(library), "elementwise_add", str(out), str(n)],
        capture_output=True,
        text=True,
    )
    print(done.stdout + done.stderr)
    if done.returncode != 0:
        return done.returncode
    failed = 0
    for name, alpha in (("default", 1.0), ("keyword", 2.5), ("positional", -1.5)):
        got = torch.from_numpy(
            __import__("numpy").fromfile(out / f"c_{name}.bin", dtype="float16")
        ).float()
        expected = (a.float() + alpha * b.float()).half().float()
        ok = torch.allclose(got, expected, atol=1e-2, rtol=1e-2)
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} C++ (no Python) alpha {name} = {alpha}: matches PyTorch")
    print(f"GPU: {torch.cuda.get_device_name()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
