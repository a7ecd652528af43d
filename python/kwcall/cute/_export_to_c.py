"""``kwcall.cute.export_to_c``: a compiled function, kwcall's or a stock one, exported with its
signature (``_write_export`` writes the files)."""

from __future__ import annotations

from typing import Any

import tvm_ffi

from .._export_torch_op import torch_op_text
from .._signature import Signature
from . import _cutedsl, _cutedsl_versions
from ._construct import from_stock
from ._write_export import write


def export_to_c(
    compiled: Any,
    object_file_path: str,
    function_name: str,
    *,
    torch_op: str | None = None,
    **kwargs: Any,
) -> str:
    """CuTeDSL's ``export_to_c`` with the signature shipped beside the code.

    Writes the object file exporting ``__tvm_ffi_<function_name>`` (CuTeDSL's bytes) plus the
    function ``__kwcall_signature_<function_name>`` carrying the signature's JSON, linked into
    the same object with the system C compiler (``CC``, default ``cc``), so that a library
    linked from it as CuTeDSL's tutorial does gives ``kwcall::LoadFunction(module,
    function_name)`` its keywords. Also writes ``<object_file_path>.kwcall.json``. Returns the
    sidecar's path. ``compiled`` is kwcall's object, or a stock one (then ``from_stock`` names
    it "wrapper"). Keywords (``enable_pic``, ...) go to CuTeDSL's ``export_to_c``.

    ``torch_op`` ships a torch operator's schema beside the signature too
    (``__kwcall_torch_op_<function_name>``), so that a C++ program registers the loaded function
    as that operator with ``kwcall::torch::RegisterExported(module, function_name)``: the
    operator's name ``"ns::name"`` (the schema ``kwcall.torch.schema_of(compiled)`` derives), or
    its full schema ``"ns::name(arguments) -> returns"``, whose arguments must be the signature's
    parameters in order.
    """
    _cutedsl_versions.require_supported("export_to_c")
    if not isinstance(compiled, tvm_ffi.Function):
        compiled = from_stock(compiled)
    signature = getattr(compiled, "signature", None)
    if not isinstance(signature, Signature) or not isinstance(compiled, _cutedsl.base_class()):
        raise TypeError(f"export_to_c needs a compiled CuTeDSL function, got {compiled!r}")
    op = None if torch_op is None else torch_op_text(compiled, signature, torch_op, function_name)
    return write(
        compiled, signature, object_file_path, function_name, kwargs, with_sidecar=True, torch_op=op
    )
