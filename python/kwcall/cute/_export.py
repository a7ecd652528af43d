"""Ahead of time: CuTeDSL's exported object with the signature linked into it.

Both ``kwcall.cute.export_to_c(compiled, path, function_name=...)`` and the ``export_to_c``
method of kwcall's compiled functions (what disk caches call) end here. CuTeDSL writes into a
temporary folder and the signature is linked in there; only then are the object (and the
sidecar) written at their destinations, together or not at all (``kwcall._write_together``).
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import Any

import tvm_ffi

from .. import _export
from .._signature import Signature
from .._write_together import write_together
from . import _cutedsl, _versions


def write(
    compiled: Any,
    signature: Signature,
    object_file_path: str,
    function_name: Any,
    options: dict,
    with_sidecar: bool,
) -> str:
    """Export ``compiled`` with ``signature`` (and the sidecar when asked); returns the
    sidecar's path."""
    _export.check_function_name(function_name)
    cc = _export.compiler()  # a bad CC fails here, before anything is written
    path = os.fspath(object_file_path)
    fmt = _cutedsl.export_format(path)
    sidecar = _export.sidecar_path(path)
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
            _export.warn_unlinked(function_name, unrepresentable, None)
        elif fmt != "o":
            _export.warn_unlinked(function_name, f"a .{fmt} file cannot link it", kept)
        elif cc is None:
            _export.warn_unlinked(function_name, "no C compiler (cc, or CC)", kept)
        else:
            linked = os.path.join(tmp, "linked.o")
            _export.link_signature(cc, exported, linked, function_name, json_text)
            exported = linked
        files = [(path, Path(exported).read_bytes())]
    if with_sidecar:
        files.append((sidecar, json_text.encode("utf-8")))
    try:
        write_together(files)
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG and error.filename == sidecar:
            raise _export.sidecar_name_too_long(error, path) from None
        raise
    return sidecar


def export_to_c(compiled: Any, object_file_path: str, function_name: str, **kwargs: Any) -> str:
    """CuTeDSL's ``export_to_c`` with the signature shipped beside the code.

    Writes the object file exporting ``__tvm_ffi_<function_name>`` (CuTeDSL's bytes) plus the
    function ``__kwcall_signature_<function_name>`` carrying the signature's JSON, linked into
    the same object with the system C compiler (``CC``, default ``cc``), so that a library
    linked from it as CuTeDSL's tutorial does gives ``kwcall::LoadFunction(module,
    function_name)`` its keywords. Also writes ``<object_file_path>.kwcall.json``. Returns the
    sidecar's path. ``compiled`` is kwcall's object, or a stock one (then ``from_stock`` names
    it "wrapper"). Keywords (``enable_pic``, ...) go to CuTeDSL's ``export_to_c``.
    """
    _versions.require_supported("export_to_c")
    if not isinstance(compiled, tvm_ffi.Function):
        from ._construct import from_stock

        compiled = from_stock(compiled)
    signature = getattr(compiled, "signature", None)
    if not isinstance(signature, Signature) or not isinstance(compiled, _cutedsl.base_class()):
        raise TypeError(f"export_to_c needs a compiled CuTeDSL function, got {compiled!r}")
    return write(compiled, signature, object_file_path, function_name, kwargs, with_sidecar=True)


def export_method(
    self: Any, object_file_path: str, function_name: str | None = None, **kwargs: Any
) -> None:
    """CuTeDSL's ``export_to_c`` method, on kwcall's compiled functions: the same arguments,
    and the signature linked into the object as ``kwcall.cute.export_to_c`` does. It writes
    only the object, as CuTeDSL's does: disk caches write to a temporary name and rename it
    (flash-attention), and a sidecar beside that name would be left behind."""
    write(self, self.signature, object_file_path, function_name, kwargs, with_sidecar=False)
