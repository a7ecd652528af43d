"""kwcall.Signature: the parameter list a kwcall function binds against.

The model is C++'s (``include/kwcall/signature.h``): an ordered list of parameters, each with
an ``inspect.Parameter`` kind, an optional default and an unpack flag. A ``kwcall.Signature``
is that C++ object itself (a tvm-ffi object, type key ``kwcall.Signature``), validated once
when it is made; Python keeps beside it only the default objects as given, so that Python
callers receive those objects themselves.
"""

from __future__ import annotations

import inspect
import keyword
import sys
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import tvm_ffi

_P = inspect.Parameter

# kwcall needs no annotations: from 3.14 on, leave them unevaluated (PEP 649), so that a
# function annotated with names defined later can be wrapped now, as functools.wraps can.
if sys.version_info >= (3, 14):
    import annotationlib

    _SIGNATURE_OPTIONS = {"annotation_format": annotationlib.Format.FORWARDREF}
else:
    _SIGNATURE_OPTIONS = {}
_make = tvm_ffi.get_global_func("kwcall.Signature")
_to_map = tvm_ffi.get_global_func("kwcall.SignatureToMap")
_to_json = tvm_ffi.get_global_func("kwcall.SignatureToJson")
_limits = tvm_ffi.get_global_func("kwcall.Limits")()

# C++ checks parameter names with the tables of this interpreter's Unicode version (it has
# one set per supported Python; for a Unicode it lacks it keeps its newest).
tvm_ffi.get_global_func("kwcall.SetIdentifierUnicodeVersion")(unicodedata.unidata_version)

#: The most nested arrays/maps a default may hold (C++ ``kwcall::kMaxNestingDepth``).
MAX_NESTING_DEPTH = int(_limits["max_nesting_depth"])
#: The most list/tuple items and dict entries all defaults of a signature may hold together
#: (C++ ``kwcall::kMaxDefaultElements``).
MAX_DEFAULT_ELEMENTS = int(_limits["max_default_elements"])

# tvm-ffi's make_kwargs_wrapper reserves these names for its generated code; C++ refuses them
# in every signature (``kwcall::kReservedNames``), and Python first with tvm-ffi's own message.
_TVM_FFI_INTERNAL_NAMES = {str(n) for n in tvm_ffi.get_global_func("kwcall.ReservedNames")()}


def _check_names(names: Any, arg_type: str) -> list[str]:
    """tvm-ffi's checks and messages (``_validate_argument_names``), in its order."""
    if isinstance(names, str) or not isinstance(names, Iterable):
        raise TypeError(
            f"{arg_type} names must be a sequence of strings, got {type(names).__name__}"
        )
    names = list(names)
    if len(set(names)) != len(names):
        raise ValueError(f"Duplicate {arg_type.lower()} names found in: {names}")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(
                f"{arg_type} name must be a string, got {type(name).__name__}: {name!r}"
            )
        if keyword.iskeyword(name):
            raise ValueError(
                f"Invalid {arg_type.lower()} name: {name!r} is a Python keyword and cannot be "
                "used as a parameter name"
            )
        if not name.isidentifier():
            raise ValueError(
                f"Invalid {arg_type.lower()} name: {name!r} is not a valid Python identifier"
            )
    return names


def _check_size(value: Any, where: str, display: str, elements: int) -> int:
    """Refuse defaults nested deeper or holding more than C++ accepts before tvm-ffi's
    recursive conversion sees them (deep input would overflow its stack, large input would be
    converted in full first). ``elements`` counts the earlier defaults' items; returns the new
    count."""
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if not isinstance(item, (list, tuple, dict)):
            continue
        if depth + 1 > MAX_NESTING_DEPTH:
            raise ValueError(
                f"The default of parameter '{where}' nests lists, tuples or dicts deeper than "
                f"the limit (kwcall::kMaxNestingDepth) of {MAX_NESTING_DEPTH}"
            )
        elements += len(item)  # counted before anything is copied
        if elements > MAX_DEFAULT_ELEMENTS:
            raise ValueError(
                f"The defaults of {display}() hold more than {MAX_DEFAULT_ELEMENTS} list or "
                f"tuple items and dict entries (at parameter '{where}'); the limit is "
                "kwcall::kMaxDefaultElements"
            )
        children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
        pending.extend((child, depth + 1) for child in children)
    return elements


def _from_ffi(value: Any) -> Any:
    """FFI containers read back from C++ become Python lists and dicts."""
    if isinstance(value, tvm_ffi.Array):
        return [_from_ffi(item) for item in value]
    if isinstance(value, tvm_ffi.Map):
        return {key: _from_ffi(item) for key, item in value.items()}
    return value


@tvm_ffi.register_object("kwcall.Signature")
class Signature(tvm_ffi.Object):
    """A validated parameter list: ``def name(p, /, a, b=1, *, k, m=2)``.

    Parameters are named as in tvm-ffi's ``make_kwargs_wrapper``: ``arg_names`` are the
    positional parameters (the first ``posonly_count`` positional-only), ``arg_defaults``
    the defaults of the last ones, ``kwonly_names``/``kwonly_defaults`` the keyword-only
    parameters. Values of parameters named in ``unpack`` are flattened like
    ``tvm_ffi.utils.unpack_dataclass_to_tuple`` before the call. ``name`` appears in error
    messages (``name() missing 1 required positional argument: 'a'``). Invalid input raises
    ``TypeError``/``ValueError`` with tvm-ffi's messages, then kwcall's for what tvm-ffi does
    not check (NFKC-normalized names, limits).
    """

    # _defaults: the Python default objects, one per parameter (inspect.Parameter.empty where
    # none), when made in Python; _params: the inspect.Parameter list, made when first asked;
    # _annotations: the parameters' annotations, when made from an inspect.Signature.
    __slots__ = ("_annotations", "_defaults", "_params")

    def __init__(
        self,
        arg_names: Sequence[str],
        arg_defaults: tuple = (),
        kwonly_names: Sequence[str] = (),
        kwonly_defaults: Mapping[str, Any] | None = None,
        posonly_count: int = 0,
        unpack: Sequence[str] = (),
        name: str = "",
    ) -> None:
        arg_names = _check_names(arg_names, "Argument")
        if not isinstance(arg_defaults, tuple):
            raise TypeError(f"arg_defaults must be a tuple, got {type(arg_defaults).__name__}")
        if len(arg_defaults) > len(arg_names):
            raise ValueError(
                f"arg_defaults has {len(arg_defaults)} values but only "
                f"{len(arg_names)} positional arguments"
            )
        kwonly_names = _check_names(kwonly_names, "Keyword-only argument")
        if kwonly_defaults is None:
            kwonly_defaults = {}
        if not isinstance(kwonly_defaults, Mapping):
            raise TypeError(
                f"kwonly_defaults must be a mapping, got {type(kwonly_defaults).__name__}"
            )
        for key in kwonly_defaults:
            if key not in kwonly_names:
                raise ValueError(
                    f"Default provided for '{key}' which is not in kwonly_names: {kwonly_names}"
                )
        overlap = set(arg_names) & set(kwonly_names)
        if overlap:
            raise ValueError(f"Arguments cannot be both positional and keyword-only: {overlap}")
        conflicts = (set(arg_names) | set(kwonly_names)) & _TVM_FFI_INTERNAL_NAMES
        if conflicts:
            raise ValueError(
                f"Argument names conflict with internal names: {conflicts}. "
                'Please avoid using names starting with "__i_"'
            )
        if not isinstance(posonly_count, int) or isinstance(posonly_count, bool):
            raise TypeError(f"posonly_count must be an int, got {type(posonly_count).__name__}")
        if not 0 <= posonly_count <= len(arg_names):
            raise ValueError(
                f"posonly_count must be between 0 and {len(arg_names)}, got {posonly_count}"
            )
        first_default = len(arg_names) - len(arg_defaults)
        params = []
        for i, arg in enumerate(arg_names):
            kind = _P.POSITIONAL_ONLY if i < posonly_count else _P.POSITIONAL_OR_KEYWORD
            default = arg_defaults[i - first_default] if i >= first_default else _P.empty
            params.append(_P(arg, kind, default=default))
        for arg in kwonly_names:
            params.append(_P(arg, _P.KEYWORD_ONLY, default=kwonly_defaults.get(arg, _P.empty)))
        self._init(name, params, unpack)

    def _init(self, name: str, params: list[inspect.Parameter], unpack: Iterable[str]) -> None:
        """Make the C++ signature from the one Python form: inspect.Parameter objects."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a string, got {type(name).__name__}")
        if isinstance(unpack, str) or not isinstance(unpack, Iterable):
            raise TypeError(f"unpack must be a sequence of strings, got {type(unpack).__name__}")
        unpack = set(unpack)
        known = {p.name for p in params}
        for item in sorted(unpack, key=str):
            if item not in known:
                raise ValueError(
                    f"Cannot unpack '{item}': {name or 'function'}() has no such parameter"
                )
        items = []
        elements = 0
        for p in params:
            item = {"name": p.name, "kind": p.kind.name}
            if p.default is not _P.empty:
                elements = _check_size(p.default, p.name, name or "function", elements)
                item["default"] = p.default
            if p.name in unpack:
                item["unpack"] = True
            items.append(item)
        self.__init_handle_by_constructor__(_make, {"version": 1, "name": name, "params": items})
        self._defaults = tuple(p.default for p in params)
        self._params = tuple(params)

    # -- the one Python view: inspect.Parameter objects ---------------------------------
    def parameters(self) -> tuple[inspect.Parameter, ...]:
        """Every parameter in declaration order, with its default (the object as given)."""
        try:
            return self._params
        except AttributeError:  # made in C++: read it once
            pass
        fields = _to_map(self)
        params = []
        for item in fields["params"]:
            default = _from_ffi(item["default"]) if "default" in item else _P.empty
            kind = getattr(_P, str(item["kind"]))  # the kind names are inspect's
            params.append(_P(str(item["name"]), kind, default=default))
        self._params = tuple(params)
        return self._params

    def param_defaults(self) -> tuple:
        """One entry per parameter: its default, or ``inspect.Parameter.empty``."""
        try:
            return self._defaults
        except AttributeError:
            return tuple(p.default for p in self.parameters())

    @property
    def annotations(self) -> dict[str, Any]:
        """The parameters' annotations, by name, as ``from_inspect``/``from_callable`` got them
        ({} for a signature made otherwise). Only read, never bound: no part of equality or of
        the JSON form. ``kwcall.torch.schema_of`` takes schema types from them."""
        return dict(getattr(self, "_annotations", {}))

    @property
    def name(self) -> str:
        return str(_to_map(self)["name"])

    @property
    def unpack(self) -> tuple[str, ...]:
        return tuple(str(item["name"]) for item in _to_map(self)["params"] if "unpack" in item)

    @property
    def param_names(self) -> tuple[str, ...]:
        """Every parameter in declaration order: the order the target receives them."""
        return tuple(p.name for p in self.parameters())

    # -- make_kwargs_wrapper's fields, derived -------------------------------------------
    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters() if p.kind != _P.KEYWORD_ONLY)

    @property
    def arg_defaults(self) -> tuple:
        return tuple(
            p.default
            for p in self.parameters()
            if p.kind != _P.KEYWORD_ONLY and p.default is not _P.empty
        )

    @property
    def kwonly_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters() if p.kind == _P.KEYWORD_ONLY)

    @property
    def kwonly_defaults(self) -> dict[str, Any]:
        return {
            p.name: p.default
            for p in self.parameters()
            if p.kind == _P.KEYWORD_ONLY and p.default is not _P.empty
        }

    @property
    def posonly_count(self) -> int:
        return sum(p.kind == _P.POSITIONAL_ONLY for p in self.parameters())

    # -- other constructors ----------------------------------------------------------------
    @classmethod
    def from_inspect(
        cls, sig: inspect.Signature, name: str = "", exclude: Iterable[str] = (), unpack=()
    ) -> Signature:
        """Build from an ``inspect.Signature``, leaving out the parameters in ``exclude``."""
        skip = set(exclude)
        params = []
        annotations = {}
        for param in sig.parameters.values():
            if param.name in skip:
                continue
            if param.kind == _P.VAR_POSITIONAL:
                raise ValueError(
                    f"*args not supported in wrapper generation (parameter '*{param.name}')"
                )
            if param.kind == _P.VAR_KEYWORD:
                raise ValueError(
                    f"**kwargs not supported in wrapper generation (parameter '**{param.name}')"
                )
            if param.annotation is not _P.empty:
                annotations[param.name] = param.annotation
            params.append(param.replace(annotation=_P.empty))
        positional = [p for p in params if p.kind != _P.KEYWORD_ONLY]
        for before, after in zip(positional, positional[1:], strict=False):
            if before.default is not _P.empty and after.default is _P.empty:
                raise ValueError(
                    f"Required positional parameter '{after.name}' cannot follow "
                    "parameters with defaults"
                )
        self = cls.__new__(cls)
        self._init(name, params, unpack)
        self._annotations = annotations
        return self

    @classmethod
    def from_callable(cls, fn: Callable, exclude: Iterable[str] = ()) -> Signature:
        """Build from a Python function's signature; its ``__qualname__`` names it."""
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "")
        signature = inspect.signature(fn, **_SIGNATURE_OPTIONS)
        if any(isinstance(p.annotation, str) for p in signature.parameters.values()):
            try:  # annotations kept as text (`from __future__ import annotations`), evaluated
                signature = inspect.signature(fn, eval_str=True)
            except Exception:  # noqa: BLE001 - a name not defined yet: the text stays
                pass
        return cls.from_inspect(signature, name=name, exclude=exclude)

    @classmethod
    def from_json(cls, text: str) -> Signature:
        """Read the JSON form written by ``to_json`` (or by C++ ``Signature::ToJson``)."""
        if not isinstance(text, str):
            raise TypeError(f"from_json() needs a str, got {type(text).__name__}")
        sig = _make(text)
        assert isinstance(sig, cls)
        return sig

    # -- other forms --------------------------------------------------------------------
    def to_json(self) -> str:
        """The JSON form (what an ahead-of-time export ships). Defaults must be JSON values."""
        return str(_to_json(self))

    def to_inspect(self) -> inspect.Signature:
        return inspect.Signature(self.parameters())

    # -- value semantics ----------------------------------------------------------------
    def _key(self) -> tuple:
        return (self.name, self.parameters(), self.unpack)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Signature):
            return NotImplemented
        return self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]  # defaults may be unhashable

    def __reduce__(self):
        return (_rebuild, (self.name, self.parameters(), self.unpack))

    def __str__(self) -> str:
        return str(self.to_inspect())

    def __repr__(self) -> str:
        unpack = f", unpack={list(self.unpack)}" if self.unpack else ""
        return f"kwcall.Signature({self.name}{self}{unpack})"


def _rebuild(name: str, params: tuple, unpack: tuple) -> Signature:
    sig = Signature.__new__(Signature)
    sig._init(name, list(params), unpack)
    return sig
