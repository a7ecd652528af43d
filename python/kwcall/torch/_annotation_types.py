"""Schema types from Python annotations: ``torch.Tensor`` (or a subclass) is ``Tensor``, ``int``,
``float``, ``bool`` and ``str`` are themselves, and ``Optional[T]`` (``T | None``) is ``T?``."""

from __future__ import annotations

import types
import typing
from typing import Any

import torch

_PYTHON_TYPES = {int: "int", float: "float", bool: "bool", str: "str"}


def schema_type(annotation: Any) -> str | None:
    """The schema type ``annotation`` says, or None when it says none kwcall's kernel passes."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        others = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(others) == 1 and len(typing.get_args(annotation)) == 2:
            inner = schema_type(others[0])
            return inner + "?" if inner is not None and not inner.endswith("?") else None
        return None
    if isinstance(annotation, type) and issubclass(annotation, torch.Tensor):
        return "Tensor"
    return _PYTHON_TYPES.get(annotation)
