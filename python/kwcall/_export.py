"""Signatures that travel inside exported object files (kwcall.cute.export_to_c).

The signature becomes the tvm-ffi function ``__kwcall_signature_<name>`` (what
``KWCALL_EXPORT_SIGNATURE`` defines in C++), compiled from a few lines of C with the system C
compiler and linked into the exported object (a relocatable link), so that whatever library
or program is linked from that object carries it. A JSON sidecar is written beside it too.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import tvm_ffi.libinfo

#: Must match KWCALL_SIGNATURE_FUNCTION_PREFIX in include/kwcall/export.h.
SIGNATURE_FUNCTION_PREFIX = "__kwcall_signature_"

_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _c_string(text: str) -> str:
    """A C string literal holding ``text``'s UTF-8 bytes (octal escapes, never ambiguous)."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in '"\\?' or not 0x20 <= byte < 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def c_source(function_name: str, json_text: str) -> str:
    """C source exporting ``json_text`` as the signature of ``function_name``."""
    symbol = f"__tvm_ffi_{SIGNATURE_FUNCTION_PREFIX}{function_name}"
    return f"""// The signature of {function_name}, written by kwcall.cute.export_to_c.
#include <tvm/ffi/c_api.h>

TVM_FFI_DLL_EXPORT int {symbol}(void* self, const TVMFFIAny* args, int32_t num_args,
                                TVMFFIAny* result) {{
  static const char json[] = {_c_string(json_text)};
  TVMFFIByteArray bytes = {{json, sizeof(json) - 1}};
  (void)self;
  (void)args;
  (void)num_args;
  return TVMFFIStringFromByteArray(&bytes, result);
}}
"""


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} failed: {done.stderr.strip()}")


def add_signature(object_path: str, function_name: str, json_text: str) -> str:
    """Link the signature of ``function_name`` into the object file at ``object_path`` and write
    ``<object_path>.kwcall.json``; returns the sidecar's path. Without a working C compiler the
    signature is only in the sidecar, with a RuntimeWarning saying so."""
    if not _C_IDENTIFIER.match(function_name):
        raise ValueError(f"function_name must be a C identifier, got {function_name!r}")
    sidecar = f"{object_path}.kwcall.json"
    Path(sidecar).write_text(json_text)
    compiler = shlex.split(os.environ.get("CC", "cc"))
    if shutil.which(compiler[0]) is None:
        warnings.warn(
            f"kwcall.cute.export_to_c: no C compiler ({compiler[0]}); the signature of "
            f"{function_name} is only in {sidecar}",
            RuntimeWarning,
            stacklevel=3,
        )
        return sidecar
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "signature.c"
        source.write_text(c_source(function_name, json_text))
        signature_object = Path(tmp) / "signature.o"
        merged = Path(tmp) / "merged.o"
        try:
            _run(
                [
                    *compiler,
                    "-c",
                    "-fPIC",
                    "-O2",
                    f"-I{tvm_ffi.libinfo.find_include_path()}",
                    str(source),
                    "-o",
                    str(signature_object),
                ]
            )
            # A relocatable link: one object holding CuTeDSL's code and the signature.
            _run(
                [
                    *compiler,
                    "-r",
                    "-nostdlib",
                    object_path,
                    str(signature_object),
                    "-o",
                    str(merged),
                ]
            )
        except RuntimeError as error:
            warnings.warn(
                f"kwcall.cute.export_to_c: the signature of {function_name} is only in "
                f"{sidecar}: {error}",
                RuntimeWarning,
                stacklevel=3,
            )
            return sidecar
        shutil.copyfile(merged, object_path)
    return sidecar
