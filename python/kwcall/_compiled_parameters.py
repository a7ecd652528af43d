"""What a compile tells of its parameters beyond the signature: the type each was compiled for,
and those passed as raw addresses. An optional integration registers how its compiles are read
(kwcall.cute registers CuTeDSL's when it is imported, and a function it compiled exists only
after that); kwcall.torch asks here when it writes a schema. The core names no integration, and
neither integration imports the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: The schema type of an annotation by the asker's rules, None when it says none.
TypeOf = Callable[[Any], "str | None"]


@dataclass(frozen=True)
class ParameterReader:
    """How an integration reads its compiles: ``owns(f)`` says whether ``f`` is one of them,
    ``types(f, type_of)`` gives the schema type of each parameter the compile tells, by name
    (``type_of`` for an annotation the integration does not know), and ``pointers(f)`` the
    parameters passed as raw addresses."""

    owns: Callable[[Any], bool]
    types: Callable[[Any, TypeOf], dict[str, str]]
    pointers: Callable[[Any], list[str]]


_readers: list[ParameterReader] = []


def register_reader(reader: ParameterReader) -> None:
    """Lets ``types_of`` and ``pointer_parameters`` read the compiles ``reader`` owns."""
    _readers.append(reader)


def _reader_of(f: Any) -> ParameterReader | None:
    return next((reader for reader in _readers if reader.owns(f)), None)


def types_of(f: Any, type_of: TypeOf) -> dict[str, str]:
    """The schema type of each parameter ``f``'s compile tells, by name ({} for a function no
    integration compiled)."""
    reader = _reader_of(f)
    return {} if reader is None else reader.types(f, type_of)


def pointer_parameters(f: Any) -> list[str]:
    """The parameters ``f``'s compile passes as raw addresses ([] for a function no integration
    compiled)."""
    reader = _reader_of(f)
    return [] if reader is None else reader.pointers(f)
