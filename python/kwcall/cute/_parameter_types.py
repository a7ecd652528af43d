"""What CuTeDSL's compile tells of a kwcall.cute function's parameters, registered with the core
(``_compiled_parameters``) when kwcall.cute is imported: a ``cute.Tensor`` parameter is
``Tensor`` (``Tensor?`` when the compile was given None for it), an integer Numeric (``Int32``,
...) ``int``, a float Numeric (``Float32``, ...) ``float``, ``Boolean`` ``bool``; any other
annotation is typed by the asker's rules. The pointer parameters are those annotated
``cute.Pointer`` or given as pointer addresses at the compile."""

from __future__ import annotations

from typing import Any

from .._compiled_parameters import ParameterReader, TypeOf, register_reader
from . import _construct, _cutedsl


def _type_of_annotation(annotation: Any, type_of: TypeOf) -> str | None:
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
    return type_of(annotation)


def _types(f: Any, type_of: TypeOf) -> dict[str, str]:
    execution_args = f.execution_args
    none = _cutedsl.compiled_with_none(execution_args)
    types = {}
    for name, annotation in _cutedsl.runtime_annotations(execution_args).items():
        type_ = _type_of_annotation(annotation, type_of)
        if type_ is not None:
            types[name] = type_ + "?" if none.get(name) else type_
    return types


def _pointers(f: Any) -> list[str]:
    import cutlass.cute as cute

    execution_args = f.execution_args
    annotated = [
        name
        for name, annotation in _cutedsl.runtime_annotations(execution_args).items()
        if isinstance(annotation, type) and issubclass(annotation, cute.Pointer)
    ]
    addresses = _cutedsl.pointer_parameters(execution_args)
    return annotated + [name for name in addresses if name not in annotated]


register_reader(
    ParameterReader(owns=_construct.is_compiled_function, types=_types, pointers=_pointers)
)
