"""A torch operator schema from a kwcall function's signature.

``(Tensor x, Tensor y, Tensor(a!) out, *, float alpha=1.0) -> ()``: the parameters in order
with their names, the keyword-only marker, their defaults, ``Tensor(a!)`` (a fresh alias set
each: a ... z, aa, ...) for the mutated tensors, and no result: kwcall's operators write into
mutated tensors.
Each parameter's type comes from ``types``, else from CuTeDSL's compile for a ``kwcall.cute``
function, else from its annotation (``torch.Tensor``, ``Optional[torch.Tensor]``, ``int``, ...),
else from its default (``1.0`` is a float); a ``None`` default makes it optional.
The parameters ``outputs`` names (``kwcall.torch.like`` rules, _outputs.py) are left out and
returned instead: ``-> Tensor``, ``-> (Tensor, Tensor)``.
"""

from __future__ import annotations

import inspect
import itertools
import keyword
import math
import string
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .. import _compiled_parameters
from .._export_torch_op import TorchSchemas
from . import _outputs, _privates
from ._annotation_types import schema_type

_P = inspect.Parameter
#: The schema types kwcall's kernel passes to a tvm-ffi function (src/torch/op_schema.cc).
BASE_TYPES = ("Tensor", "int", "float", "bool", "str")
_TYPE_OF_DEFAULT = {bool: "bool", int: "int", float: "float", str: "str"}
_TYPES_HINT = "'Tensor', 'int', 'float', 'bool' or 'str', with '?' when it may be None"
_INT64 = range(-(2**63), 2**63)
# What a schema's string writes escaped: the quote and backslash, and the control characters
# torch's reader knows (torch/csrc/jit/frontend/parse_string_literal.h); others it cannot hold.
_STR_ESCAPES = {
    "\\": "\\\\",
    "'": "\\'",
    "\n": "\\n",
    "\t": "\\t",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\v": "\\v",
}


def _alias_sets() -> Iterator[str]:
    """Alias set names, one per mutated tensor: a ... z, then aa, ab, ... but the keywords
    torch's lexer shares with Python ('as', 'if', 'in', ...), which it cannot take."""
    for length in itertools.count(1):
        for letters in itertools.product(string.ascii_lowercase, repeat=length):
            if not keyword.iskeyword(name := "".join(letters)):
                yield name


def _signature_of(f: Any) -> Any:
    from .._signature import Signature

    signature = getattr(f, "signature", None)
    if not isinstance(signature, Signature):
        raise TypeError(
            f"kwcall.torch: {f!r} is not a kwcall function (it has no kwcall.Signature): make "
            "one with kwcall.wrap(target, signature) or kwcall.cute.compile(...)"
        )
    return signature


def _checked_type(name: str, written: Any) -> str:
    if not isinstance(written, str) or written.rstrip("?") not in BASE_TYPES:
        raise ValueError(
            f"kwcall.torch: types[{name!r}] is {written!r}, not a type kwcall's kernel passes: "
            f"use {_TYPES_HINT}"
        )
    return written


def _refuse_default(name: str, default: Any, why: str) -> ValueError:
    return ValueError(
        f"kwcall.torch: parameter {name!r} has the default {default!r}, {why}: drop the default "
        "(pass the value at each call) or give one a schema can write"
    )


def _default_text(name: str, type_: str, default: Any) -> str:
    """``default`` as the schema writes it for a parameter of ``type_``: text torch reads back
    as that value, or ValueError naming the parameter."""
    if default is None:
        return "None"
    base = type_.rstrip("?")
    if base == "bool" and type(default) in (bool, int) and default in (0, 1):
        return "True" if default else "False"  # CuTeDSL's Boolean defaults arrive as 0/1
    if base == "int" and type(default) is int:
        if default not in _INT64:
            raise _refuse_default(name, default, "outside int64, the range of a schema's int")
        return str(default)
    if base == "float" and type(default) in (int, float):
        try:
            value = float(default)
        except OverflowError:
            raise _refuse_default(name, default, "too large for a float") from None
        if 0 < abs(value) < sys.float_info.min:
            raise _refuse_default(name, default, "a subnormal float, which torch's reader refuses")
        if math.isfinite(value):
            return repr(value)
    if base == "str" and type(default) is str:
        unwritable = [c for c in default if (c < " " or c == "\x7f") and c not in _STR_ESCAPES]
        if unwritable:
            raise _refuse_default(
                name,
                default,
                f"whose character {unwritable[0]!r} a schema's string cannot hold (it escapes "
                "only \\n, \\t, \\a, \\b, \\f and \\v)",
            )
        return "'" + "".join(_STR_ESCAPES.get(c, c) for c in default) + "'"
    raise ValueError(
        f"kwcall.torch: parameter {name!r} of type {type_} has the default {default!r}, which a "
        "schema cannot write (defaults may be None, a bool, an int, a finite float or a str "
        "matching the type): drop the default or pass types= to change the type"
    )


def _type_of(param: Any, types: Mapping[str, str], known: Mapping[str, str]) -> str:
    name = param.name
    if name in types:
        type_ = _checked_type(name, types[name])
    elif name in known:
        type_ = known[name]
    elif param.default is not _P.empty and type(param.default) in _TYPE_OF_DEFAULT:
        type_ = _TYPE_OF_DEFAULT[type(param.default)]
    else:
        raise ValueError(
            f"kwcall.torch: parameter {name!r} has no type a schema can use: pass "
            f"types={{{name!r}: 'Tensor'}} (or {_TYPES_HINT})"
        )
    if param.default is None and not type_.endswith("?"):
        type_ += "?"
    return type_


def _output_check_types(
    params: list[Any], types: Mapping[str, str], known: Mapping[str, str], outputs: Any
) -> dict[str, str]:
    """Each parameter's type, for checking ``outputs`` (an output of no known type is a
    Tensor: the kernel passes it one)."""
    if not outputs:
        return {}
    checked = {}
    for p in params:
        try:
            checked[p.name] = _type_of(p, types, known)
        except ValueError:
            if p.name not in outputs:
                raise
            checked[p.name] = "Tensor"
    return checked


def schema_of(
    f: Any,
    mutates_args: Iterable[str] = (),
    types: Mapping[str, str] | None = None,
    outputs: Mapping[str, Any] | None = None,
) -> str:
    """The schema ``kwcall.torch.register`` gives ``f``: ``"(Tensor x, ...) -> ()"``, without
    the operator's name; with ``outputs``, those parameters are its results instead of
    arguments (``-> Tensor``). ValueError names a parameter a schema cannot express and what to
    pass instead; TypeError when ``f`` is not a kwcall function."""
    signature = _signature_of(f)
    params = list(signature.parameters())
    names = [p.name for p in params]
    types = dict(types or {})
    mutated = list(mutates_args) if not isinstance(mutates_args, str) else [mutates_args]
    for name in [*types, *mutated]:
        if name not in names:
            raise ValueError(
                f"kwcall.torch: {name!r} is not a parameter of {signature.name or 'the function'}"
                f"() (its parameters: {', '.join(names)})"
            )
    # What the annotations say, then what the compile says over them (CuTeDSL's, for a
    # kwcall.cute function: kwcall.cute registers how it is read).
    known = {
        name: type_
        for name, annotation in signature.annotations.items()
        if (type_ := schema_type(annotation)) is not None
    }
    known.update(_compiled_parameters.types_of(f, schema_type))
    rules = _outputs.checked(outputs, _output_check_types(params, types, known, outputs))
    pieces: list[str] = []
    alias = _alias_sets()
    for param in params:
        if param.name in rules:
            continue
        if param.kind is _P.POSITIONAL_ONLY:
            raise ValueError(
                f"kwcall.torch: parameter {param.name!r} is positional-only, which a torch "
                "schema cannot express: bind the target to a signature without '/' "
                "(posonly_count=0) to register it"
            )
        if param.name in signature.unpack:
            raise ValueError(
                f"kwcall.torch: parameter {param.name!r} is a dataclass or NamedTuple unpacked "
                "into its fields, which a torch schema cannot express: register a function "
                "that takes the fields as parameters of their own"
            )
        if param.name in _compiled_parameters.pointer_parameters(f):
            raise ValueError(
                f"kwcall.torch: parameter {param.name!r} is a raw pointer, which a torch schema "
                "cannot express: compile the kernel with a cute.Tensor there (a tensor is "
                "passed as a DLPack view)"
            )
        if param.kind is _P.KEYWORD_ONLY and "*" not in pieces:
            pieces.append("*")
        type_ = _type_of(param, types, known)
        if param.name in mutated:
            if type_.rstrip("?") != "Tensor":
                raise ValueError(
                    f"kwcall.torch: mutates_args names {param.name!r}, of type {type_}: only "
                    "tensors can be mutated"
                )
            type_ = "Tensor(" + next(alias) + "!)" + ("?" if type_.endswith("?") else "")
        piece = f"{type_} {param.name}"
        if param.default is not _P.empty:
            piece += "=" + _default_text(param.name, type_, param.default)
        _check_torch_reads(param.name, piece)
        pieces.append(piece)
    return "(" + ", ".join(pieces) + ") -> " + _outputs.results_text(len(rules))


def _check_torch_reads(name: str, piece: str) -> None:
    """ValueError, with torch's reason, when torch cannot read the argument ``piece`` (a
    parameter named ``NoneType``, say)."""
    try:
        _privates.parse_schema(f"f({piece}) -> ()")
    except RuntimeError as error:
        reason = (str(error).strip().splitlines() or ["no reason given"])[0].rstrip(":")
        raise ValueError(
            f"kwcall.torch: parameter {name!r} is the schema argument {piece!r}, which torch "
            f"cannot read ({reason}): rename the parameter, or drop or change its default"
        ) from None


def _arguments(text: str) -> list[tuple[str, bool]]:
    return [(a.name, a.kwarg_only) for a in _privates.parse_schema(text).arguments]


#: What kwcall.cute.export_to_c's ``torch_op`` borrows of torch (the entry point
#: ``kwcall.torch_schemas`` in pyproject.toml names it).
FOR_EXPORTS = TorchSchemas(derive=schema_of, arguments=_arguments)
