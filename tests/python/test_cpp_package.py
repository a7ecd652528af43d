"""kwcall as a C++ dependency: kwcall-config, the CMake package of the installed wheel, and
exported signatures loaded in C++ (no Python in the process) and in Python.

The CMake projects are built outside the repository, in pytest's temporary folders, exactly as
a user's project would be: find_package(kwcall CONFIG) with -Dkwcall_DIR from kwcall-config and
-DPython_EXECUTABLE (test_cmake_layouts.py finds the Python without it).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import kwcall
import kwcall.libinfo
import pytest
import tvm_ffi
from helpers import KWARGS, NATIVE, TIME_SCALE, plain
from test_cpython_oracle import EXAMPLES, Spec, build_oracle

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# The console script beside this interpreter (a venv install); ``python -m kwcall.config``
# answers the same everywhere (also for --target installs, which put scripts elsewhere).
SCRIPT = BIN / "kwcall-config"
CONFIG = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "kwcall.config"]


def tool(name: str) -> str:
    """cmake/ninja: the environment's own when it has them (the tests' venv does)."""
    local = BIN / name
    return str(local) if local.exists() else (shutil.which(name) or name)


#: kwcall installed into this interpreter's environment (not with pip --target).
IN_PREFIX = Path(kwcall.__file__).resolve().is_relative_to(Path(sys.prefix).resolve())


def config(*options: str) -> str:
    return subprocess.run(
        [*CONFIG, *options], check=True, capture_output=True, text=True
    ).stdout.strip()


def cmake_configure(
    source: Path, build: Path, *options: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Configure a CMake project with Ninja and `options` (-D...); returns the finished run."""
    command = [tool("cmake"), "-S", str(source), "-B", str(build), "-G", "Ninja"]
    command.append(f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}")
    return subprocess.run([*command, *options], capture_output=True, text=True, env=env)


def cmake_build(source: Path, build: Path) -> None:
    """Configure and build a CMake project against the installed kwcall, as a user would: with
    -Dkwcall_DIR from kwcall-config and the Python that imports kwcall (the package asks it
    where tvm-ffi is, so this works in every layout where ``import kwcall`` does)."""
    configure = cmake_configure(
        source,
        build,
        f"-Dkwcall_DIR={config('--cmakedir')}",
        f"-DPython_EXECUTABLE={sys.executable}",
    )
    assert configure.returncode == 0, configure.stdout + configure.stderr
    subprocess.run([tool("cmake"), "--build", str(build)], check=True, capture_output=True)


def run_cpp_only_app(build: Path) -> None:
    """Run examples/cpp_only's program, built in `build`, without Python: its calls give
    their results and CPython's error."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    out = subprocess.run(
        [str(build / "app")], check=True, capture_output=True, text=True, env=env
    ).stdout.splitlines()
    assert out[1:] == [
        "axpy(2, 3, 4, 1) = 12",
        "axpy(2, 3) = 5",
        "axpy(2, 3, beta=1, alpha=4) = 12",
        "TypeError: axpy() got some positional-only arguments passed as keyword arguments: 'y'",
    ]
    # The program never loaded Python.
    maps = subprocess.run(["ldd", str(build / "app")], capture_output=True, text=True).stdout
    assert "libpython" not in maps


# -- kwcall-config ------------------------------------------------------------------------
def test_config_prints_the_installed_parts():
    if IN_PREFIX:
        # Installed into this interpreter's environment: pip put the script beside it.
        assert SCRIPT.exists(), "the kwcall-config console script is installed with the package"
    assert (Path(config("--includedir")) / "kwcall" / "kwcall.h").is_file()
    assert (Path(config("--libdir")) / "libkwcall.so").is_file()
    assert (Path(config("--cmakedir")) / "kwcallConfig.cmake").is_file()
    assert config("--libs") == "-lkwcall -ltvm_ffi"
    assert f"-I{config('--includedir')}" in config("--cxxflags")
    assert f"-L{config('--libdir')}" in config("--ldflags")
    assert config("--version") == kwcall.__version__
    module = subprocess.run(
        [sys.executable, "-m", "kwcall.config", "--cmakedir"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert module == config("--cmakedir")


def test_parts_are_found_next_to_the_extension():
    # Wheel and editable installs both put the C++ parts beside the compiled extension.
    root = Path(kwcall._kwcall.__file__).resolve().parent
    assert Path(kwcall.libinfo.include_dir()) == root / "include"
    assert Path(kwcall.libinfo.library_dir()) == root / "lib"


# -- the C++-only example -----------------------------------------------------------------
def test_cpp_only_example_builds_and_runs_without_python(tmp_path):
    source = tmp_path / "cpp_only"
    shutil.copytree(ROOT / "examples" / "cpp_only", source)
    cmake_build(source, tmp_path / "build")
    run_cpp_only_app(tmp_path / "build")


# -- the CPython-oracle cases, bound in pure C++ ------------------------------------------
def _random_spec(rng: random.Random) -> Spec:
    pool = ["a", "b", "c", "p", "q", "k", "m", "x1", "value", "seven_c", "eight_ch", "long_name_x"]
    n_pos, n_kwonly = rng.randint(0, 5), rng.randint(0, 3)
    names = rng.sample(pool, n_pos + n_kwonly)
    pos_names, kwonly = tuple(names[:n_pos]), tuple(names[n_pos:])
    pos_defaults = tuple(rng.randint(-99, 99) for _ in range(rng.randint(0, n_pos)))
    kw_defaults = tuple((n, rng.randint(-99, 99)) for n in kwonly if rng.random() < 0.5)
    return Spec(
        rng.choice(["f", "g", "kernel", "Outer.method"]),
        pos_names,
        rng.randint(0, n_pos),
        pos_defaults,
        kwonly,
        kw_defaults,
    )


def _random_call(rng: random.Random, spec: Spec) -> tuple[tuple, tuple]:
    names = list(spec.all_names) + ["zz", "alpah", "valeu"]
    pos = tuple(rng.randint(0, 99) for _ in range(rng.randint(0, len(spec.pos_names) + 1)))
    chosen = rng.sample(names, rng.randint(0, min(4, len(names))))
    return pos, tuple((n, rng.randint(0, 99)) for n in chosen)


def _expected(spec: Spec, pos: tuple, kws: tuple) -> str:
    if not kws and len(pos) == len(spec.all_names):
        return "ok:" + "".join(f" {v}" for v in pos)  # the native convention: forwarded
    try:
        out = build_oracle(spec)(*pos, **dict(kws))
    except TypeError as error:
        return f"TypeError: {error}"
    return "ok:" + "".join(f" {v}" for v in out)


def _signature_json(spec: Spec) -> str:
    sig = kwcall.Signature(
        list(spec.pos_names),
        spec.pos_defaults,
        list(spec.kwonly_names),
        dict(spec.kwonly_defaults),
        posonly_count=spec.posonly_count,
        name=spec.name,
    )
    return sig.to_json()


def test_oracle_cases_bind_the_same_in_pure_cpp(tmp_path):
    rng = random.Random(20261130)
    cases = [(c.spec, c.pos, c.kws) for c in EXAMPLES]
    for _ in range(400):
        spec = _random_spec(rng)
        cases.append((spec, *_random_call(rng, spec)))
    vectors = {
        "suggestions": sys.version_info >= (3, 13),  # this interpreter's wording
        "cases": [
            {
                "describe": f"{spec} pos={pos} kws={kws}",
                "signature": _signature_json(spec),
                "pos": list(pos),
                "kws": [list(kv) for kv in kws],
                "expected": _expected(spec, pos, kws),
            }
            for spec, pos, kws in cases
        ],
    }
    (tmp_path / "vectors.json").write_text(json.dumps(vectors))
    cmake_build(NATIVE / "oracle_vectors", tmp_path / "build")
    run = subprocess.run(
        [
            str(tmp_path / "build" / "run_vectors"),
            str(tmp_path / "build" / "libecho.so"),
            str(tmp_path / "vectors.json"),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"cases: {len(cases)}, mismatches: 0" in run.stdout


# -- exported signatures from Python ------------------------------------------------------
@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    path = kwcall.libinfo.build_module(
        "kwcall_test_kernels",
        [str(ROOT / "tests" / "cpp" / "exported_kernels.cc")],
        str(tmp_path_factory.mktemp("kernels")),
    )
    return tvm_ffi.load_module(path)


def test_load_function_gives_python_its_keywords_back(kernels):
    scale = kwcall.load_function(kernels, "scale")
    assert isinstance(scale, kwcall.Function)
    assert str(scale.signature) == "(x, y=10, *, alpha=2)"
    assert plain(scale(1)) == (1, 10, 2)
    assert plain(scale(1, alpha=5)) == (1, 10, 5)
    assert plain(scale(y=4, x=3)) == (3, 4, 2)
    assert plain(scale(1, KWARGS, "alpha", 7)) == (1, 10, 7)
    with pytest.raises(TypeError, match=r"^scale\(\) missing 1 required positional"):
        scale()


def test_load_function_errors(kernels):
    with pytest.raises(AttributeError, match="the module has no function 'missing'"):
        kwcall.load_function(kernels, "missing")
    with pytest.raises(AttributeError, match="exports no signature for 'bare'"):
        kwcall.load_function(kernels, "bare")
    bare = kwcall.load_function(kernels, "bare", kwcall.Signature(["x", "y", "alpha"], (0, 0)))
    assert plain(bare(1)) == (1, 0, 0)
    with pytest.raises(ValueError, match="'1x' is not a valid Python identifier"):
        kwcall.load_function(kernels, "broken")


# -- hostile companions (issue 18.5-18.7) --------------------------------------------------
@pytest.mark.parametrize(
    "name, returned",
    [
        ("returns_int", "int"),
        ("returns_none", "None"),
        ("returns_bytes", "ffi.Bytes"),
        ("returns_array", "ffi.Array"),
        ("returns_map", "ffi.Map"),
        ("returns_function", "ffi.Function"),
    ],
)
def test_companion_that_returns_no_string_is_named(kernels, name, returned):
    with pytest.raises(TypeError) as error:
        kwcall.load_function(kernels, name)
    assert str(error.value) == (
        f"kwcall: the signature exported for '{name}' (__kwcall_signature_{name}) returned "
        f"{returned}, not the signature's JSON text (KWCALL_EXPORT_SIGNATURE writes the "
        "function that returns it)"
    )


def test_oversized_companion_is_refused_fast_and_small(kernels):
    # ~100 MB of JSON took 44 s and 2.5 GB when it was parsed; its length refuses it now. The
    # companion's own copy of the text (100 MB, plus its builder's) is what remains.
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"the limit \(kwcall::kMaxJsonBytes\) is 4194304") as e:
        kwcall.load_function(kernels, "returns_huge")
    assert time.perf_counter() - start < 5 * TIME_SCALE
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 600 * 1024  # KiB
    assert "'returns_huge' (__kwcall_signature_returns_huge)" in str(e.value)


@pytest.mark.parametrize(
    "name, error, message",
    [
        ("unpack_int", TypeError, "field 'unpack' must be a bool, got int"),
        ("version_true", TypeError, "field 'version' must be an integer, got bool"),
        ("reserved_name", ValueError, "'__i_target_func' is reserved by tvm-ffi"),
    ],
)
def test_exported_signatures_are_read_strictly(kernels, name, error, message):
    with pytest.raises(error, match=re.escape(message)):
        kwcall.load_function(kernels, name)
