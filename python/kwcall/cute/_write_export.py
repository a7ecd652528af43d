"""Ahead of time: CuTeDSL's exported object with the signature linked into it.

Both ``kwcall.cute.export_to_c(compiled, path, function_name=...)`` (``_export_to_c``) and the
``export_to_c`` method of kwcall's compiled functions (what disk caches call; the method is
here) end in ``write``. CuTeDSL writes into a temporary folder and the signature is linked in
there; only then are the object (and the sidecar) written at their destinations, together or
not at all (``kwcall._write_together``).
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import Any

from .. import _link_signature
from .._signature import Signature
from .._write_together import write_together
from . import _cutedsl


def write(
    compiled: Any,
    signature: Signature,
    object_file_path: str,
    function_name: Any,
    options: dict,
    with_sidecar: bool,
    torch_op: str | None = None,
) -> str:
    """Export ``compiled`` with ``signature`` (and the sidecar when asked, and the torch
    operator's full schema ``torch_op`` when given); returns the sidecar's path."""
    _link_signature.check_function_name(function_name)
    cc = _link_signature.compiler()  # a bad CC fails here, before anything is written
    path = os.fspath(object_file_path)
    fmt = _cutedsl.export_format(path)
    sidecar = _link_signature.sidecar_path(path)
    kept = sidecar if with_sidecar else None
    try:
        json_text = signature.to_json()
    except ValueError as error:
        if with_sidecar:
            raise  # kwcall.cute.export_to_c promises the signature: say why it cannot
        # The method is CuTeDSL's own, which disk caches call: export as stock CuTeDSL does.
        json_text = None
        unrepresentable = str(error)
    with tempfile.TemporaryDirectory(prefix="kwcall-export-") as tmp:
        exported = os.path.join(tmp, f"cutedsl.{fmt}")
        _cutedsl.base_class().export_to_c(
            compiled, exported, function_name=function_name, **options
        )
        if json_text is None:
            _link_signature.warn_unlinked(function_name, unrepresentable, None)
        elif fmt != "o":
            why = f"a .{fmt} file cannot link it"
            _link_signature.warn_unlinked(function_name, why, kept, torch_op)
        elif cc is None:
            why = "no C compiler (cc, or CC)"
            _link_signature.warn_unlinked(function_name, why, kept, torch_op)
        else:
            linked = os.path.join(tmp, "linked.o")
            _link_signature.link_signature(cc, exported, linked, function_name, json_text, torch_op)
            exported = linked
        files = [(path, Path(exported).read_bytes())]
    if with_sidecar:
        files.append((sidecar, json_text.encode("utf-8")))
    try:
        write_together(files)
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG and error.filename == sidecar:
            raise _link_signature.sidecar_name_too_long(error, path) from None
        raise
    return sidecar


def export_method(
    self: Any, object_file_path: str, function_name: str | None = None, **kwargs: Any
) -> None:
    """CuTeDSL's ``export_to_c`` method, on kwcall's compiled functions: the same arguments,
    and the signature linked into the object as ``kwcall.cute.export_to_c`` does. It writes
    only the object, as CuTeDSL's does: disk caches write to a temporary name and rename it
    (flash-attention), and a sidecar beside that name would be left behind."""
    write(self, self.signature, object_file_path, function_name, kwargs, with_sidecar=False)
