"""The torch operator an export carries (``export_to_c(..., torch_op=...)``): torch's full
schema text ``"ns::name(arguments) -> returns"``, written beside the signature as the companion
``__kwcall_torch_op_<name>`` (``KWCALL_EXPORT_TORCH_OP`` of ``<kwcall/export.h>``), which
``kwcall::ExportedTorchOp`` and ``kwcall::torch::RegisterExported`` read back in C++.

The text is checked here with the loader's own rules (its form, through the C++ reader), with
``kwcall::torch::RegisterOp``'s (the argument kinds its kernel reads, through its C++ reader),
and, where torch is importable, its arguments against the signature: torch calls the kernel
with every argument in schema order, and kwcall's direct path takes every parameter in
declaration order, so the two must name the same parameters in the same order. What torch
lends here (a derived schema, torch's reading of one) kwcall.torch registers: the core names no
integration.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tvm_ffi

from . import _link_signature
from ._signature import Signature

#: Where the torch integration registers its ``TorchSchemas`` (an entry point of this group in
#: pyproject.toml), loaded when an export first needs it: loading it imports torch.
TORCH_SCHEMAS = "kwcall.torch_schemas"


@dataclass(frozen=True)
class TorchSchemas:
    """What an export borrows of the torch integration: ``derive(compiled)`` the arguments and
    results ``kwcall.torch.schema_of`` writes, and ``arguments(text)`` each argument of a full
    schema as torch reads it, ``(name, keyword_only)``."""

    derive: Callable[[Any], str]
    arguments: Callable[[str], list[tuple[str, bool]]]


def _torch_schemas() -> TorchSchemas:
    """The registered ``TorchSchemas``; ImportError, saying what is missing, without torch."""
    for entry in importlib.metadata.entry_points(group=TORCH_SCHEMAS):
        return entry.load()
    raise ImportError(f"no torch integration is registered (entry points {TORCH_SCHEMAS!r})")


_from_result = tvm_ffi.get_global_func("kwcall.ExportedTorchOpFromResult")
_argument_kinds = tvm_ffi.get_global_func("kwcall.torch.ArgumentKinds")


def torch_op_text(compiled: Any, signature: Signature, torch_op: object, function_name: str) -> str:
    """The full schema ``torch_op`` asks for: ``"ns::name(arguments) -> returns"`` is used as
    written (``"ns::name" + kwcall.torch.schema_of(compiled, mutates_args=("out",))`` writes
    one); ``"ns::name"`` takes the schema ``kwcall.torch.schema_of(compiled)`` derives, which
    marks no tensor written and so is refused, saying to pass the full schema."""
    _link_signature.check_function_name(function_name)
    if not isinstance(torch_op, str):
        raise TypeError(
            "torch_op must be the operator's name 'ns::name' or its full schema "
            f"'ns::name(arguments) -> returns', got {type(torch_op).__name__}"
        )
    text = torch_op
    if "(" not in torch_op:
        text = torch_op + _torch_schemas().derive(compiled)
    # The form, with the texts kwcall::ExportedTorchOp uses; then what RegisterOp would refuse.
    _, schema = _from_result(text, function_name)
    try:
        _argument_kinds(schema)
    except ValueError as error:
        if text == torch_op:
            raise
        raise ValueError(
            f"{error}; torch_op={torch_op!r} derives a schema that marks no tensor written: "
            f"pass the full schema, torch_op={torch_op!r} + kwcall.torch.schema_of(compiled, "
            "mutates_args=[...])"
        ) from None
    _check_arguments(text, signature)
    return text


def _check_arguments(text: str, signature: Signature) -> None:
    try:
        schemas = _torch_schemas()
    except ImportError:
        return  # no torch kwcall.torch takes: torch checks the schema at the registration
    got = schemas.arguments(text)
    want = [(p.name, p.kind == p.KEYWORD_ONLY) for p in signature.parameters()]
    if got != want:

        def shown(params: list[tuple[str, bool]]) -> str:
            positional = [name for name, kwonly in params if not kwonly]
            kwonly = [name for name, kwonly in params if kwonly]
            return ", ".join(positional + (["*", *kwonly] if kwonly else []))

        raise ValueError(
            f"torch_op {text!r}: its arguments ({shown(got)}) are not the parameters of "
            f"{signature.name or 'the function'} ({shown(want)}), in order with the same "
            "keyword-only ones: torch passes every argument in schema order"
        )
