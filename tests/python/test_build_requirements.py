"""The pins each interpreter gets: scripts/pins.py (the test environments' pins) and
pyproject.toml's build requirements (the apache-tvm-ffi that `pip install .` builds against),
for the default build and for free-threaded CPython 3.13, which tvm-ffi publishes no wheels
for."""

from __future__ import annotations

import subprocess
import sys
import sysconfig

import pytest
from helpers import REPOSITORY, load_file_module
from packaging.requirements import Requirement
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # scikit-build-core, pinned in every test environment, depends on it there
    import tomli as tomllib

pins = load_file_module(REPOSITORY / "scripts" / "pins.py", "kwcall_pins")
PYPROJECT = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def holds(line: str, python: str) -> bool:
    """Whether a pin line applies on Python ``python`` ("3.13"), on this platform."""
    marker = Requirement(line).marker
    return marker is None or marker.evaluate({"python_version": python})


def applying(free_threaded: bool, python: str) -> dict[str, str]:
    """The pins Python ``python`` gets, by package: what scripts/pins.py prints there."""
    return {
        pins.package_name(line): line.split(";")[0].strip()
        for _, line in pins.pin_lines(free_threaded)
        if holds(line, python)
    }


def test_default_build_gets_tested_txt_alone():
    assert [path.name for path, _ in pins.pin_lines(False)] == ["tested.txt"] * len(
        pins.pin_lines(False)
    )


def test_free_threaded_3_13_gets_its_own_tvm_ffi_hypothesis_and_no_cutedsl():
    default, free_threaded = applying(False, "3.13"), applying(True, "3.13")
    assert free_threaded["apache-tvm-ffi"] != default["apache-tvm-ffi"]
    assert free_threaded["hypothesis"] != default["hypothesis"]
    assert "nvidia-cutlass-dsl" in default and "nvidia-cutlass-dsl" not in free_threaded
    # Everything free-threaded.txt does not name is tested.txt's pin.
    assert free_threaded["pytest"] == default["pytest"]
    assert free_threaded["scikit-build-core"] == default["scikit-build-core"]


def test_free_threaded_3_14_gets_tested_txt_pins():
    """free-threaded.txt's lines serve 3.13t alone (tvm-ffi and CuTeDSL have cp314t wheels)."""
    for python in ("3.14", "3.15"):
        assert applying(True, python) == applying(False, python)
    assert "nvidia-cutlass-dsl" in applying(True, "3.14")


def test_every_free_threaded_pin_names_the_pythons_it_serves(tmp_path, monkeypatch):
    assert all(versions == {"3.13"} for _, versions in pins.free_threaded_lines())
    unmarked = tmp_path / "free-threaded.txt"
    unmarked.write_text('numpy==2.4.6; python_version == "3.13"\nhypothesis==6.155.7\n')
    monkeypatch.setattr(pins, "FREE_THREADED", unmarked)
    with pytest.raises(ValueError, match="'hypothesis==6.155.7' names no Pythons it serves"):
        pins.pin_lines(True)


def test_each_package_has_one_pin_per_interpreter():
    for free_threaded in (False, True):
        lines = [line for _, line in pins.pin_lines(free_threaded)]
        for python in ("3.10", "3.13", "3.14", "3.15"):
            named = [pins.package_name(line) for line in lines if holds(line, python)]
            assert len(named) == len(set(named)), (free_threaded, python, named)


def test_build_pins_are_the_tested_pins():
    """pyproject.toml's build requirement, and its override for free-threaded 3.13, are the
    apache-tvm-ffi pins the tests run with there."""
    settings = PYPROJECT["tool"]["scikit-build"]
    (override,) = settings["overrides"]
    assert override["if"] == {"abi-flags": "t", "python-version": "<3.14"}
    assert settings["build"]["requires"] == [applying(False, "3.13")["apache-tvm-ffi"]]
    assert override["build"]["requires"] == [applying(True, "3.13")["apache-tvm-ffi"]]


def test_runtime_range_admits_every_build_pin():
    (dependency,) = map(Requirement, PYPROJECT["project"]["dependencies"])
    settings = PYPROJECT["tool"]["scikit-build"]
    for requires in [settings["build"]["requires"]] + [
        o["build"]["requires"] for o in settings["overrides"]
    ]:
        (pin,) = map(Requirement, requires)
        (specifier,) = pin.specifier
        assert pin.name == dependency.name
        assert dependency.specifier.contains(Version(specifier.version)), pin


def test_wheel_build_requires_the_pin_for_this_interpreter(monkeypatch):
    """What pip installs to build kwcall here (scikit-build-core's hook, run in the source tree
    as PEP 517 runs it): on free-threaded 3.13, the release whose sdist builds there."""
    build = pytest.importorskip(
        "scikit_build_core.build",
        reason="scikit-build-core, kwcall's build backend, is not installed in this test "
        "environment (pip install . builds in an isolated one); scripts/setup.sh installs it",
    )
    monkeypatch.chdir(REPOSITORY)
    get_requires_for_build_wheel = build.get_requires_for_build_wheel

    wanted = applying(FREE_THREADED, f"{sys.version_info[0]}.{sys.version_info[1]}")
    tvm_ffi = [r for r in get_requires_for_build_wheel() if r.startswith("apache-tvm-ffi")]
    assert tvm_ffi == [wanted["apache-tvm-ffi"]]


def test_without_scikit_build_core_the_build_pin_test_skips_saying_why():
    """Where kwcall was installed with `pip install .` and the tests run with pytest alone, no
    scikit-build-core is importable: that test skips, naming it (a child pytest, where importing
    it fails)."""
    this = f"{__file__}::test_wheel_build_requires_the_pin_for_this_interpreter"
    code = (
        "import sys; sys.modules['scikit_build_core'] = None; import pytest; "
        f"sys.exit(pytest.main([{this!r}, '-q', '-rs', '-p', 'no:cacheprovider']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPOSITORY, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout
    assert "scikit-build-core, kwcall's build backend, is not installed" in done.stdout
