"""kwcall.cute's export on hostile input (issue 18): paths, CC, function names, the locale.
Each case gets the export or a clear error, and a failed export leaves the destination as it
was. Host-only @cute.jit functions (conftest.py's compiled_kern), so no GPU is needed."""

import os
import shutil
import subprocess
import sys
import textwrap

import kwcall
import pytest

cute = pytest.importorskip("cutlass.cute")
kwcute = pytest.importorskip("kwcall.cute")

from kwcall import _link_signature  # noqa: E402


def symbols(path):
    return subprocess.run(["nm", str(path)], capture_output=True, text=True, check=True).stdout


def has_kernel_and_signature(path, name="kern"):
    found = symbols(path).split()
    return f"__tvm_ffi_{name}" in found and _link_signature.signature_symbol(name) in found


def folder_listing(folder):
    return sorted(os.listdir(folder))


@pytest.mark.parametrize("name", ["-fplugin=evil.o", "-B./hook/x.o", "-o"])
def test_an_object_path_is_never_a_compiler_option(compiled_kern, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    dest = tmp_path / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    kwcute.export_to_c(compiled_kern, name, function_name="kern")
    assert has_kernel_and_signature(dest)
    assert folder_listing(dest.parent) == sorted([dest.name, dest.name + ".kwcall.json"])


@pytest.mark.parametrize(
    "cc, says",
    [("", "names no compiler"), ("   ", "names no compiler"),
     ("cc '", "is not a valid command line"), ("no-such-cc-kwcall", "no program")],
)  # fmt: skip
def test_a_bad_cc_is_named_before_anything_is_written(
    compiled_kern, tmp_path, monkeypatch, cc, says
):
    monkeypatch.setenv("CC", cc)
    with pytest.raises(ValueError, match=r"^CC=") as error:
        kwcute.export_to_c(compiled_kern, str(tmp_path / "k.o"), function_name="kern")
    assert says in str(error.value) and repr(cc) in str(error.value)
    assert folder_listing(tmp_path) == []


@pytest.mark.parametrize("cxx", ["g++", "c++", "clang++"])
def test_a_cxx_compiler_in_cc_still_gives_c_linkage(compiled_kern, tmp_path, monkeypatch, cxx):
    if shutil.which(cxx) is None:
        pytest.skip(f"no {cxx}")
    monkeypatch.setenv("CC", cxx)
    obj = tmp_path / "k.o"
    kwcute.export_to_c(compiled_kern, str(obj), function_name="kern")
    assert has_kernel_and_signature(obj)
    # The loader finds it by its C name: the module gives the function its keywords.
    assert kwcute.install()
    try:
        loaded = cute.runtime.load_module(str(obj), enable_tvm_ffi=True).kern
    finally:
        kwcute.uninstall()
    assert isinstance(loaded, kwcall.Function)
    assert str(loaded.signature) == "(out, a, *, b=2)"


def test_a_bad_function_name_is_refused_before_cutedsl_writes(compiled_kern, tmp_path):
    obj = tmp_path / "k.o"
    kwcute.export_to_c(compiled_kern, str(obj), function_name="kern")
    before = obj.read_bytes(), (tmp_path / "k.o.kwcall.json").read_bytes()
    for bad in ["a b", "a-b", "", "1a", None, "kern\n"]:
        with pytest.raises(ValueError, match="function_name must be a C identifier"):
            kwcute.export_to_c(compiled_kern, str(obj), function_name=bad)
        with pytest.raises(ValueError, match="function_name must be a C identifier"):
            compiled_kern.export_to_c(str(obj), function_name=bad)
    assert (obj.read_bytes(), (tmp_path / "k.o.kwcall.json").read_bytes()) == before
    assert folder_listing(tmp_path) == ["k.o", "k.o.kwcall.json"]


def test_a_failed_export_leaves_the_destination_as_it_was(compiled_kern, tmp_path, monkeypatch):
    obj = tmp_path / "k.o"
    kwcute.export_to_c(compiled_kern, str(obj), function_name="kern")
    before = obj.read_bytes(), (tmp_path / "k.o.kwcall.json").read_bytes()
    monkeypatch.setenv("CC", "false")  # exists, and fails every compile
    with pytest.raises(RuntimeError, match="failed"):
        kwcute.export_to_c(compiled_kern, str(obj), function_name="other")
    assert (obj.read_bytes(), (tmp_path / "k.o.kwcall.json").read_bytes()) == before
    assert folder_listing(tmp_path) == ["k.o", "k.o.kwcall.json"]
    fresh = tmp_path / "fresh.o"
    with pytest.raises(RuntimeError, match="failed"):
        compiled_kern.export_to_c(str(fresh), function_name="kern")
    assert folder_listing(tmp_path) == ["k.o", "k.o.kwcall.json"]


def test_the_export_writes_over_what_was_there(compiled_kern, tmp_path):
    obj = tmp_path / "k.o"
    obj.write_bytes(b"old")
    kwcute.export_to_c(compiled_kern, str(obj), function_name="kern")
    assert has_kernel_and_signature(obj)
    umask = os.umask(0)
    os.umask(umask)
    assert obj.stat().st_mode & 0o777 == 0o666 & ~umask


SIDECAR_SCRIPT = """
import numpy as np, cutlass.cute as cute, kwcall, kwcall.cute as kwcute
from cutlass import Float32, Int32
from cutlass.cute.runtime import from_dlpack

@cute.jit
def kern(out: cute.Tensor, \u03b1: Int32):
    out[0] = Float32(\u03b1)

f = kwcute.compile(kern, from_dlpack(np.zeros(4, np.float32)), Int32(1))
print(kwcute.export_to_c(f, {path!r}, function_name="kern"))
"""


def test_the_sidecar_is_utf8_whatever_the_locale(tmp_path):
    script = tmp_path / "export.py"
    obj = tmp_path / "k.o"
    script.write_text(textwrap.dedent(SIDECAR_SCRIPT.format(path=str(obj))), encoding="utf-8")
    env = dict(os.environ, LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONIOENCODING="")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    sidecar = (tmp_path / "k.o.kwcall.json").read_bytes().decode("utf-8")
    assert str(kwcall.Signature.from_json(sidecar)) == "(out, \u03b1)"
    assert has_kernel_and_signature(obj)


def test_without_a_c_compiler_the_signature_is_only_in_the_sidecar(
    compiled_kern, tmp_path, monkeypatch
):
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no cc to be found
    obj = tmp_path / "k.o"
    with pytest.warns(RuntimeWarning, match=r"no C compiler .*kern is exported without its sig"):
        sidecar = kwcute.export_to_c(compiled_kern, str(obj), function_name="kern")
    monkeypatch.undo()
    assert "__tvm_ffi_kern" in symbols(obj) and _link_signature.signature_symbol(
        "kern"
    ) not in symbols(obj)
    assert (
        kwcall.Signature.from_json(open(sidecar, encoding="utf-8").read())
        == compiled_kern.signature
    )


def test_a_text_format_keeps_the_signature_in_the_sidecar(compiled_kern, tmp_path):
    obj = tmp_path / "k.ll"
    with pytest.warns(RuntimeWarning, match=r"a \.ll file cannot link it"):
        kwcute.export_to_c(compiled_kern, str(obj), function_name="kern")
    assert "__tvm_ffi_kern" in obj.read_text(encoding="utf-8")
    assert folder_listing(tmp_path) == ["k.ll", "k.ll.kwcall.json"]


def test_cc_is_split_as_a_shell_would(compiled_kern, tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "cc -Wall '-DKWCALL_TEST=a b'")
    obj = tmp_path / "k.o"
    kwcute.export_to_c(compiled_kern, str(obj), function_name="kern")
    assert has_kernel_and_signature(obj)
