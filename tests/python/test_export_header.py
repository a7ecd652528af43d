"""<kwcall/export.h> is the one source of the signature companion: the C source kwcall.cute
compiles is its macro, and the prefix kwcall looks symbols up by is compiled into the extension
from it. Here the macro compiles as C and as C++ to the symbol that prefix names, with C
linkage."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import tvm_ffi.libinfo
from kwcall import _link_signature, libinfo


@pytest.mark.parametrize("language, compiler", [("c", "cc"), ("c++", "c++")])
def test_the_macro_compiles_to_the_prefixed_symbol(tmp_path, language, compiler):
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler}")
    source = tmp_path / "signature.src"
    source.write_text(
        _link_signature.c_source("kern", '{"version": 1, "name": "kern", "params": []}')
    )
    obj = tmp_path / "signature.o"
    includes = [f"-I{libinfo.include_dir()}", f"-I{tvm_ffi.libinfo.find_include_path()}"]
    subprocess.run(
        [
            compiler,
            "-x",
            language,
            "-c",
            "-Wall",
            "-Werror",
            *includes,
            str(source),
            "-o",
            str(obj),
        ],
        check=True,
    )
    defined = subprocess.run(["nm", "--defined-only", str(obj)], capture_output=True, text=True)
    names = [line.split()[-1] for line in defined.stdout.splitlines()]
    assert _link_signature.signature_symbol("kern") in names
