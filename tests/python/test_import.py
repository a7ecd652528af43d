"""Importing kwcall: where tvm-ffi has not loaded its library (its config mode) and which
tvm-ffi releases it accepts. Both are decided before any of kwcall's native code loads."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import kwcall
import pytest
import tvm_ffi
from helpers import TIME_SCALE
from kwcall import _tvm_ffi_version

BIN = Path(sys.executable).parent


def _config_tool() -> list[str]:
    script = BIN / "tvm-ffi-config"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tvm_ffi.config"]


def _run(command: list[str], site: Path | None) -> subprocess.CompletedProcess:
    # The caller's own PYTHONPATH stays (an install made with pip --target lives there); the
    # folder with the sitecustomize goes first.
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=120 * TIME_SCALE
    )


def _site(tmp_path: Path, body: str) -> Path:
    """A folder with a sitecustomize.py, as a user's environment might inject one."""
    (tmp_path / "sitecustomize.py").write_text(textwrap.dedent(body))
    return tmp_path


# What the injected import records: the error, and whether kwcall's native code was mapped.
_PROBE = """
    import sys
    try:
        import {module}
        outcome = "imported"
    except ImportError as e:
        outcome = "ImportError: " + str(e)
    maps = open("/proc/self/maps").read()
    native = [n for n in ("libkwcall", "_kwcall.") if n in maps]
    with open({report!r}, "w") as f:
        f.write(outcome + "\\n" + ",".join(native))
"""


@pytest.mark.parametrize("module", ["kwcall", "kwcall.cute"])
@pytest.mark.parametrize("how", ["script", "-m"])
def test_import_in_tvm_ffi_config_mode_is_a_clean_import_error(tmp_path, module, how):
    # Issue 18.8: a sitecustomize importing kwcall ran kwcall's extension (and libkwcall)
    # inside tvm-ffi-config, then failed with AttributeError; on the H200, with kwcall.cute,
    # tvm-ffi-config printed nothing and free() aborted.
    command = _config_tool() if how == "script" else [sys.executable, "-m", "tvm_ffi.config"]
    command = [*command, "--cxxflags"]
    baseline = _run(command, None)
    assert baseline.returncode == 0 and baseline.stdout.strip()
    report = tmp_path / "report.txt"
    site = _site(tmp_path, _PROBE.format(module=module, report=str(report)))
    injected = _run(command, site)
    assert (injected.returncode, injected.stdout, injected.stderr) == (
        baseline.returncode,
        baseline.stdout,
        baseline.stderr,
    )
    outcome, native = report.read_text().split("\n")
    assert outcome.startswith(
        "ImportError: kwcall cannot be imported here: tvm-ffi is running as its config tool "
        "(tvm-ffi-config or python -m tvm_ffi.config), where it does not load its library"
    )
    assert native == "", f"kwcall's native code was loaded: {native}"


def test_plain_import_in_config_mode_reports_why_and_nothing_else(tmp_path):
    # Without a try/except the site module reports the ImportError on stderr and goes on:
    # stdout is unchanged, and stderr has kwcall's reason, no traceback from native code.
    command = [*_config_tool(), "--cxxflags"]
    baseline = _run(command, None)
    injected = _run(command, _site(tmp_path, "import kwcall.cute\n"))
    assert (injected.returncode, injected.stdout) == (baseline.returncode, baseline.stdout)
    assert "kwcall cannot be imported here: tvm-ffi is running as its config tool" in (
        injected.stderr
    )
    assert "free()" not in injected.stderr and "AttributeError" not in injected.stderr


def test_normal_processes_import_kwcall_unchanged(tmp_path):
    run = _run([sys.executable, "-c", "import kwcall; print(kwcall.__version__)"], None)
    assert run.returncode == 0 and run.stdout.strip() == kwcall.__version__


# -- the supported tvm-ffi range (issue 17.4) ----------------------------------------------
def test_range_is_the_one_pyproject_toml_writes():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    dependencies = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    assert f"apache-tvm-ffi{_tvm_ffi_version._range()}" in dependencies


def test_version_comparison_follows_pep_440():
    spec = ">=0.1.10,<0.1.16"
    inside = ["0.1.10", "0.1.10.post1", "0.1.12", "0.1.15.post2", "0.1.15+cu130", "0.1.15.0"]
    outside = ["0.1.9", "0.1.10rc1", "0.1.10.dev3", "0.1.16", "0.1.16rc1", "0.1.16.dev0", "0.2"]
    assert [v for v in inside if _tvm_ffi_version.in_range(v, spec) is not True] == []
    assert [v for v in outside if _tvm_ffi_version.in_range(v, spec) is not False] == []
    for odd in ["", "unknown", "0.1.x", "1.0-beta-3-final"]:
        assert _tvm_ffi_version.in_range(odd, spec) is None


def test_the_installed_tvm_ffi_is_accepted_and_others_are_refused(monkeypatch):
    _tvm_ffi_version.check_tvm_ffi(tvm_ffi)  # what kwcall's import ran
    spec = _tvm_ffi_version._range()

    class FakeTvmFfi:
        get_global_func = tvm_ffi.get_global_func
        __version__ = "0.1.16"

    with pytest.raises(ImportError) as e:
        _tvm_ffi_version.check_tvm_ffi(FakeTvmFfi)
    assert str(e.value) == (
        f"kwcall does not support the installed apache-tvm-ffi '0.1.16': it supports "
        f'apache-tvm-ffi{spec}; install one of those versions (pip install "apache-tvm-ffi{spec}")'
    )
    FakeTvmFfi.__version__ = "weird"
    with pytest.raises(ImportError, match="cannot read the version of the installed"):
        _tvm_ffi_version.check_tvm_ffi(FakeTvmFfi)
    del FakeTvmFfi.__version__
    with pytest.raises(ImportError, match="cannot read the version of the installed"):
        _tvm_ffi_version.check_tvm_ffi(FakeTvmFfi)


def test_import_keeps_no_layout_probe():
    # Issue 39.4: the tvm_ffi.Function the import's layout check reads (the global
    # ffi.GetKwargsObject) was kept for the life of the process.
    code = textwrap.dedent(
        """
        import gc
        import tvm_ffi
        handle = tvm_ffi.get_global_func("ffi.GetKwargsObject").__chandle__()
        def held():
            gc.collect()
            return sum(isinstance(o, tvm_ffi.Function) and o.__chandle__() == handle
                       for o in gc.get_objects())
        before = held()  # tvm-ffi's own
        import kwcall
        print(held() - before)
        """
    )
    done = _run([sys.executable, "-c", code], None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
