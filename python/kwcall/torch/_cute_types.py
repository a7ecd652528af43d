"""Schema types of a function compiled by ``kwcall.cute``, from CuTeDSL's compile: a
``cute.Tensor`` parameter is ``Tensor`` (``Tensor?`` when the compile was given None for it),
an integer Numeric (``Int32``, ...) ``int``, a float Numeric (``Float32``, ...) ``float``,
``Boolean`` ``bool``; Python's own annotations (``int``, ``float``, ``bool``, ``str``) too."""

from __future__ import annotations

from typing import Any

from ._annotation_types import schema_type


def _execution_args(f: Any) -> Any:
    """CuTeDSL's record of ``f``'s compile, or None when ``f`` is not a kwcall.cute function
    (CuTeDSL is then never imported)."""
    import sys

    if "kwcall.cute._construct" not in sys.modules:
        return None
    from ..cute import _construct

    return f.execution_args if _construct.is_compiled_function(f) else None


def _type_of_annotation(annotation: Any) -> str | None:
    import cutlass.cute as cute
    from cutlass.base_dsl import typing as dsl

    if not isinstance(annotation, type):
        return None
    if issubclass(annotation, cute.Tensor):
        return "Tensor"
    if issubclass(annotation, dsl.Boolean):  # before Integer: Boolean is one
        return "bool"
    if issubclass(annotation, dsl.Integer):
        return "int"
    if issubclass(annotation, dsl.Float):
        return "float"
    return schema_type(annotation)


def types_of(f: Any) -> dict[str, str]:
    """The schema type of each parameter CuTeDSL's compile tells, by name ({} for a function
    not made by kwcall.cute)."""
    execution_args = _execution_args(f)
    if execution_args is None:
        return {}
    from ..cute import _cutedsl

    none = _cutedsl.compiled_with_none(execution_args)
    types = {}
    for name, annotation in _cutedsl.runtime_annotations(execution_args).items():
        type_ = _type_of_annotation(annotation)
        if type_ is not None:
            types[name] = type_ + "?" if none.get(name) else type_
    return types


def pointer_parameters(f: Any) -> list[str]:
    """The parameters CuTeDSL passes as raw addresses: annotated ``cute.Pointer``, or given
    as pointer addresses at the compile ([] for a function not made by kwcall.cute)."""
    execution_args = _execution_args(f)
    if execution_args is None:
        return []
    import cutlass.cute as cute

    from ..cute import _cutedsl

    annotated = [
        name
        for name, annotation in _cutedsl.runtime_annotations(execution_args).items()
        if isinstance(annotation, type) and issubclass(annotation, cute.Pointer)
    ]
    addresses = _cutedsl.pointer_parameters(execution_args)
    return annotated + [name for name in addresses if name not in annotated]
