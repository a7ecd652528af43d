"""Every loader reads a companion alike (issue 24.7): ``kwcall.load_function`` on a tvm-ffi
module and on a CuTeDSL module, and ``cute.runtime.load_module`` under install(), given a
``__kwcall_signature_<name>`` that returns None, returns an int or raises, raise the same error
with the same text; a companion's own exception is kept as the cause. The companions are C
(native/hostile_companions.c), linked into real CuTeDSL exports of a host-only function."""

# No `from __future__ import annotations`: CuTeDSL reads the annotations at compile time.
import shutil
import subprocess

import kwcall
import pytest
import tvm_ffi.libinfo
from helpers import NATIVE

cute = pytest.importorskip("cutlass.cute")
np = pytest.importorskip("numpy")
kwcute = pytest.importorskip("kwcall.cute")

from cutlass import Float32, Int32  # noqa: E402
from cutlass.cute.runtime import from_dlpack  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")

SOURCE = NATIVE / "hostile_companions.c"
NOT_TEXT = (
    "kwcall: the signature exported for '{name}' (__kwcall_signature_{name}) returned {type}, "
    "not the signature's JSON text (KWCALL_EXPORT_SIGNATURE writes the function that returns it)"
)
# name: (error, text, the cause's type and text)
CASES = {
    "returns_none": (TypeError, NOT_TEXT.format(name="returns_none", type="None"), None),
    "returns_int": (TypeError, NOT_TEXT.format(name="returns_int", type="int"), None),
    "raises": (
        RuntimeError,
        "kwcall: __kwcall_signature_raises, the function carrying the signature of 'raises', "
        "raised ValueError: the companion's own failure",
        (ValueError, "the companion's own failure"),
    ),
    # Text that is not UTF-8: C++'s reader says what is wrong (the name), as kwcall::LoadFunction
    # does; nothing was raised by the companion.
    "returns_bad_utf8": (ValueError, None, None),  # None: the text kwcall::LoadFunction gives
}
#: C++'s own reading of a companion of the tvm-ffi module (kwcall::ExportedSignature).
cpp_exported_signature = tvm_ffi.get_global_func("kwcall.ExportedSignature")


@cute.jit
def host(out: cute.Tensor, a: Int32):
    out[0] = Float32(a)


def _cc(*args: str) -> None:
    include = f"-I{tvm_ffi.libinfo.find_include_path()}"
    subprocess.run(["cc", "-fPIC", include, *args], check=True)


@pytest.fixture(scope="module")
def objects(tmp_path_factory):
    """name -> a CuTeDSL export of ``host`` as ``name`` with the hostile companions linked in
    (a relocatable link, as kwcall.cute's export does)."""
    folder = tmp_path_factory.mktemp("hostile")
    companions = folder / "companions.o"
    _cc("-c", str(SOURCE), "-o", str(companions))
    out = np.zeros(1, dtype=np.float32)
    stock = cute.compile(host, from_dlpack(out), Int32(1), options="--enable-tvm-ffi")
    found = {}
    for name in CASES:
        exported = folder / f"{name}.cutedsl.o"
        stock.export_to_c(str(exported), function_name=name)
        found[name] = folder / f"{name}.o"
        subprocess.run(
            ["cc", "-r", "-nostdlib", "-o", str(found[name]), str(exported), str(companions)],
            check=True,
        )
    return found


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """The companions with a target each, as a tvm-ffi module."""
    path = tmp_path_factory.mktemp("hostile_lib") / "libhostile.so"
    lib = tvm_ffi.libinfo.find_libtvm_ffi()
    _cc("-shared", "-DKWCALL_TEST_TARGETS", str(SOURCE), "-o", str(path), lib)
    return tvm_ffi.load_module(str(path))


def _load(objects, name):
    return cute.runtime.load_module(str(objects[name]), enable_tvm_ffi=True)


def _under_install(objects, name, access):
    assert kwcute.install()
    try:
        return access(_load(objects, name), name)
    finally:
        kwcute.uninstall()


# Each reads the function `name` with its signature: (objects, library, name) -> function.
LOADERS = {
    "load_function(tvm_ffi.load_module)": lambda o, lib, name: kwcall.load_function(lib, name),
    "load_function(cute.runtime.load_module)": lambda o, lib, name: kwcall.load_function(
        _load(o, name), name
    ),
    "install(), module.name": lambda o, lib, name: _under_install(o, name, getattr),
    "install(), module[name]": lambda o, lib, name: _under_install(o, name, lambda m, k: m[k]),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("loader", list(LOADERS))
def test_every_loader_reports_a_hostile_companion_alike(objects, library, loader, name):
    error, text, cause = CASES[name]
    if text is None:
        with pytest.raises(error) as cpp:
            cpp_exported_signature(library, name)
        text = str(cpp.value)
        assert "is not valid UTF-8" in text
    with pytest.raises(error) as raised:
        LOADERS[loader](objects, library, name)
    assert str(raised.value) == text
    if cause is None:
        return
    cause_type, cause_text = cause
    assert type(raised.value.__cause__) is cause_type  # the companion's own, kept
    assert str(raised.value.__cause__) == cause_text
