"""Signatures that travel inside exported object files (kwcall.cute's export).

The signature becomes the tvm-ffi function ``__kwcall_signature_<name>``: a C file that uses
``KWCALL_EXPORT_SIGNATURE`` from ``<kwcall/export.h>`` (the one definition of the function and
of its prefix) is compiled as C with the system compiler and linked into the exported object
(a relocatable link), so that whatever library or program is linked from that object carries
it. A JSON sidecar is written beside it too.

Nothing a caller passes is read as anything else: every path handed to the compiler is
absolute (never an option), ``CC`` is checked before anything is written, and the companion is
compiled as C (``-x c``) whatever ``CC`` names, so its symbol has C linkage.
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

from . import libinfo
from ._companion import companion_name, exported_symbol

_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_HEADER = "kwcall/export.h"
_SIDECAR_SUFFIX = ".kwcall.json"


def signature_symbol(function_name: str) -> str:
    """The C symbol of the function carrying ``function_name``'s signature."""
    return exported_symbol(companion_name(function_name))


def sidecar_path(object_path: str) -> str:
    return f"{object_path}{_SIDECAR_SUFFIX}"


def check_function_name(function_name: object) -> None:
    if not isinstance(function_name, str) or not _C_IDENTIFIER.match(function_name):
        raise ValueError(f"function_name must be a C identifier, got {function_name!r}")


def c_string(text: str) -> str:
    """A C string literal holding ``text``'s UTF-8 bytes (octal escapes, never ambiguous)."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in '"\\?' or not 0x20 <= byte < 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def c_source(function_name: str, json_text: str, torch_op: str | None = None) -> str:
    """C source exporting ``json_text`` as the signature of ``function_name``, and ``torch_op``
    (torch's full schema text) as its torch operator when given."""
    source = (
        f"// The signature of {function_name}, written by kwcall.cute's export_to_c.\n"
        f"#include <{_HEADER}>\n\n"
        f"KWCALL_EXPORT_SIGNATURE({function_name}, {c_string(json_text)})\n"
    )
    if torch_op is not None:
        source += f"KWCALL_EXPORT_TORCH_OP({function_name}, {c_string(torch_op)})\n"
    return source


def compiler() -> list[str] | None:
    """The C compiler command from ``CC`` (default ``cc``); None when ``CC`` is unset and no
    ``cc`` exists. A ``CC`` that is empty, unparsable or names no program is a ValueError
    naming ``CC``, raised before anything is written."""
    raw = os.environ.get("CC")
    if raw is None:
        return ["cc"] if shutil.which("cc") else None
    try:
        words = shlex.split(raw)
    except ValueError as error:
        raise ValueError(f"CC={raw!r} is not a valid command line ({error})") from None
    if not words:
        raise ValueError(f"CC={raw!r} names no compiler: unset CC or set it to a C compiler")
    if shutil.which(words[0]) is None:
        raise ValueError(f"CC={raw!r}: no program {words[0]!r} on PATH")
    return words


def run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} failed: {done.stderr.strip()}")


def link_signature(
    cc: list[str],
    object_path: str,
    output_path: str,
    function_name: str,
    json_text: str,
    torch_op: str | None = None,
) -> None:
    """Write ``output_path``: the object at ``object_path`` with the signature (and the torch
    operator's schema, when given) linked in."""
    with tempfile.TemporaryDirectory(prefix="kwcall-export-") as tmp:
        source = Path(tmp, "signature.c").resolve()
        source.write_bytes(c_source(function_name, json_text, torch_op).encode("utf-8"))
        signature_object = Path(tmp, "signature.o").resolve()
        includes = [f"-I{libinfo.include_dir()}", f"-I{tvm_ffi.libinfo.find_include_path()}"]
        compile_as_c = ["-c", "-fPIC", "-O2", *includes, "-o", str(signature_object), "-x", "c"]
        run([*cc, *compile_as_c, str(source)])
        # A relocatable link: one object holding CuTeDSL's code and the signature.
        inputs = [os.path.abspath(object_path), str(signature_object)]
        run([*cc, "-r", "-nostdlib", "-o", os.path.abspath(output_path), *inputs])


def sidecar_name_too_long(error: OSError, object_path: str) -> OSError:
    """The ENAMETOOLONG of a sidecar, saying which name to shorten."""
    why = (
        f"{error.strerror}: the sidecar's name is the object's plus {_SIDECAR_SUFFIX!r}, so name "
        f"the object {len(_SIDECAR_SUFFIX)} bytes under the file system's limit (most allow "
        f"255 bytes), or call the compiled function's export_to_c method, which writes no "
        f"sidecar; the object {object_path!r} was not written"
    )
    return OSError(error.errno, why, error.filename)


def warn_unlinked(
    function_name: str, why: str, sidecar: str | None, torch_op: str | None = None
) -> None:
    kept = f"; it is in {sidecar}" if sidecar else ""
    what = "its signature" if torch_op is None else "its signature and torch operator"
    warnings.warn(
        f"kwcall.cute.export_to_c: {why}: {function_name} is exported without {what}{kept}",
        RuntimeWarning,
        stacklevel=4,
    )
