"""The wheel's CMake package finds Python and tvm-ffi in every layout pip makes, and says
exactly what to pass where it cannot.

Each layout is made for real: the installed kwcall and apache-tvm-ffi are packed back into
wheels (the files their RECORD lists) and installed with ``pip install --target``; a CMake
project outside the repository (examples/cpp_only) is configured against them, built and run.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import kwcall.libinfo
import pytest
from test_cpp_package import ROOT, cmake_configure, run_cpp_only_app, tool

EXAMPLE = ROOT / "examples" / "cpp_only"
#: The files of an installed distribution that pip writes at install time.
INSTALL_RECORDS = {"INSTALLER", "REQUESTED", "RECORD", "direct_url.json"}
SITE = f"python{sys.version_info.major}.{sys.version_info.minor}"


def repack(distribution: str, out: Path) -> Path:
    """The installed `distribution` as a wheel again: the files its RECORD lists inside
    site-packages (console scripts, which pip makes anew, and bytecode left out)."""
    dist = importlib.metadata.distribution(distribution)
    files = [
        f
        for f in dist.files or ()
        if ".." not in f.parts and "__pycache__" not in f.parts and f.name not in INSTALL_RECORDS
    ]
    info = next(f.parent for f in files if f.name == "WHEEL")  # <name>-<version>.dist-info
    tag = next(line for line in dist.read_text("WHEEL").splitlines() if line.startswith("Tag:"))
    wheel = out / f"{info.name.removesuffix('.dist-info')}-{tag.split()[1]}.whl"
    records = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for f in files:
            data = Path(dist.locate_file(f)).read_bytes()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            records.append(f"{f.as_posix()},sha256={digest.decode()},{len(data)}")
            archive.writestr(f.as_posix(), data)
        records.append(f"{info.as_posix()}/RECORD,,")
        archive.writestr(f"{info.as_posix()}/RECORD", "\n".join(records) + "\n")
    return wheel


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> dict[str, Path]:
    """kwcall's and apache-tvm-ffi's wheels, packed from this environment."""
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode:
        pytest.skip("needs pip in this environment")
    installed = Path(importlib.metadata.distribution("kwcall").locate_file("kwcall"))
    if installed.resolve() != kwcall.libinfo.package_dir():
        pytest.skip("kwcall is an editable install: its files are not where its RECORD says")
    out = tmp_path_factory.mktemp("wheels")
    return {name: repack(name, out) for name in ("kwcall", "apache-tvm-ffi")}


def pip_target(wheel: Path, target: Path) -> Path:
    """`pip install --no-deps --target target wheel`; returns `target`."""
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-index"]
        + ["--no-deps", "--no-compile", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    return target


def kwcall_dir(site: Path) -> str:
    return f"-Dkwcall_DIR={site / 'kwcall' / 'share' / 'cmake' / 'kwcall'}"


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without PYTHON* variables (which would show the layout to Python)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return env | extra


def links_tvm_ffi_of(build: Path, site: Path) -> bool:
    """Whether the build links the libtvm_ffi of the tvm_ffi package in `site`."""
    return str(site / "tvm_ffi" / "lib" / "libtvm_ffi.so") in (build / "build.ninja").read_text()


def build_and_run(build: Path, env: dict[str, str]) -> None:
    done = subprocess.run([tool("cmake"), "--build", str(build)], capture_output=True, env=env)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    run_cpp_only_app(build)


def not_found_reason(configure: subprocess.CompletedProcess) -> str:
    """What the package gave as the reason it is not found, with CMake's line wrapping undone."""
    assert configure.returncode != 0
    reason = configure.stderr.split("Reason given by package:", 1)[1]
    return " ".join(reason.split("Call Stack", 1)[0].split())


def python_script(path: Path, command: str) -> Path:
    """An executable `path` that runs this interpreter as `command` says: a Python for CMake."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{command}\n")
    path.chmod(0o755)
    return path


# -- tvm-ffi where the Python imports it from ---------------------------------------------
@pytest.fixture(scope="module")
def targets(tmp_path_factory, wheels) -> tuple[Path, Path]:
    """kwcall and tvm-ffi installed with two pip --target folders."""
    root = tmp_path_factory.mktemp("targets")
    return (
        pip_target(wheels["kwcall"], root / "kwcall-target"),
        pip_target(wheels["apache-tvm-ffi"], root / "tvm-ffi-target"),
    )


def configure_apart(build: Path, kwcall_at: Path, tvm_ffi_at: Path) -> dict[str, str]:
    """The example configured against kwcall and tvm-ffi in two folders, both on PYTHONPATH,
    with this Python named; returns the environment."""
    assert not (kwcall_at / "tvm_ffi").exists()
    env = clean_env(PYTHONPATH=f"{kwcall_at}{os.pathsep}{tvm_ffi_at}")
    configure = cmake_configure(
        EXAMPLE, build, kwcall_dir(kwcall_at), f"-DPython_EXECUTABLE={sys.executable}", env=env
    )
    assert configure.returncode == 0, configure.stdout + configure.stderr
    assert links_tvm_ffi_of(build, tvm_ffi_at)
    return env


def test_two_pip_target_folders_build_and_run(tmp_path, targets):
    env = configure_apart(tmp_path / "build", *targets)
    build_and_run(tmp_path / "build", env)


def test_a_user_site_beside_a_system_site(tmp_path, wheels):
    configure_apart(
        tmp_path / "build",
        pip_target(wheels["kwcall"], tmp_path / f"user/lib/{SITE}/site-packages"),
        pip_target(wheels["apache-tvm-ffi"], tmp_path / f"system/lib/{SITE}/site-packages"),
    )


# -- the Python of <prefix>/lib/pythonX.Y[t]/site-packages ---------------------------------
@pytest.mark.parametrize("folder", [SITE, "python3.13t"])
def test_the_layouts_own_python_is_found_without_being_named(tmp_path, wheels, folder):
    # <prefix>/lib/<folder>/site-packages holds both packages and <prefix>/bin/<folder> runs
    # this interpreter with them: a prefix or virtual environment (free-threaded: 3.13t). The
    # configure proves it; test_two_pip_target_folders_build_and_run builds such a project.
    prefix = tmp_path / "prefix"
    site = prefix / "lib" / folder / "site-packages"
    pip_target(wheels["kwcall"], site)
    pip_target(wheels["apache-tvm-ffi"], site)
    python = python_script(
        prefix / "bin" / folder, f'PYTHONPATH="{site}" exec "{sys.executable}" "$@"'
    )
    build = tmp_path / "build"
    configure = cmake_configure(EXAMPLE, build, kwcall_dir(site), env=clean_env())
    assert configure.returncode == 0, configure.stdout + configure.stderr
    assert f"Found Python: {python} " in configure.stdout
    assert links_tvm_ffi_of(build, site)


# -- the messages where it cannot ----------------------------------------------------------
def test_no_python_in_the_layout_is_reported_as_one_sentence(tmp_path, targets):
    site = targets[0]
    configure = cmake_configure(EXAMPLE, tmp_path / "build", kwcall_dir(site), env=clean_env())
    assert not_found_reason(configure) == (
        f"kwcall in {site} found no Python interpreter in its installed layout (<prefix>/bin "
        "beside <prefix>/lib/pythonX.Y/site-packages): pass -DPython_EXECUTABLE=<a Python "
        "that imports kwcall and tvm_ffi>"
    )


def test_a_python_without_tvm_ffi_is_reported_with_its_own_error(tmp_path, targets):
    # This interpreter isolated from every site folder: it cannot import tvm_ffi.
    python = python_script(tmp_path / "isolated-python", f'exec "{sys.executable}" -I -S "$@"')
    asked = subprocess.run(
        [str(python), "-m", "tvm_ffi.config", "--cmakedir"], capture_output=True, text=True
    )
    assert asked.returncode != 0
    option = f"-DPython_EXECUTABLE={python}"
    configure = cmake_configure(
        EXAMPLE, tmp_path / "build", kwcall_dir(targets[0]), option, env=clean_env()
    )
    assert not_found_reason(configure) == (
        f"kwcall found no tvm_ffi package: {python} -m tvm_ffi.config --cmakedir failed "
        f"({asked.stderr.strip().splitlines()[-1]}); pass -DPython_EXECUTABLE=<a Python that "
        "imports kwcall and tvm_ffi>"
    )
