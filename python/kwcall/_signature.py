"""kwcall.Signature: the parameter list a kwcall function binds against."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable

import tvm_ffi

_normalize = tvm_ffi.get_global_func("kwcall.NormalizeSignature")
_to_json = tvm_ffi.get_global_func("kwcall.SignatureToJson")

_P = inspect.Parameter


def _names(value: Any, field: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(f"{field} must be a sequence of strings, got {type(value).__name__}")
    names = tuple(value)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(
                f"{field}: parameter name must be a string, got {type(name).__name__}: {name!r}"
            )
        if not name.isidentifier():  # the C++ check only knows ASCII identifiers
            raise ValueError(f"Invalid parameter name: {name!r} is not a valid Python identifier")
    return names


def _from_ffi(value: Any) -> Any:
    """FFI containers read back from JSON become Python lists and dicts."""
    if isinstance(value, tvm_ffi.Array):
        return [_from_ffi(item) for item in value]
    if isinstance(value, tvm_ffi.Map):
        return {key: _from_ffi(item) for key, item in value.items()}
    return value


class Signature:
    """A validated parameter list: ``def name(p, /, a, b=1, *, k, m=2)``.

    Parameters are named as in tvm-ffi's ``make_kwargs_wrapper``: ``arg_names`` are the
    positional parameters (the first ``posonly_count`` positional-only), ``arg_defaults``
    the defaults of the last ones, ``kwonly_names``/``kwonly_defaults`` the keyword-only
    parameters. Values of parameters named in ``unpack`` are flattened like
    ``tvm_ffi.utils.unpack_dataclass_to_tuple`` before the call. ``name`` appears in
    error messages (``name() missing 1 required positional argument: 'a'``).
    """

    __slots__ = (
        "_arg_names",
        "_arg_defaults",
        "_kwonly_names",
        "_kwonly_defaults",
        "_posonly_count",
        "_unpack",
        "_name",
    )

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
        if not isinstance(arg_defaults, tuple):
            raise TypeError(f"arg_defaults must be a tuple, got {type(arg_defaults).__name__}")
        if kwonly_defaults is None:
            kwonly_defaults = {}
        if not isinstance(kwonly_defaults, Mapping):
            raise TypeError(
                f"kwonly_defaults must be a mapping, got {type(kwonly_defaults).__name__}"
            )
        if not isinstance(posonly_count, int) or isinstance(posonly_count, bool):
            raise TypeError(f"posonly_count must be an int, got {type(posonly_count).__name__}")
        if not isinstance(name, str):
            raise TypeError(f"name must be a string, got {type(name).__name__}")
        self._arg_names = _names(arg_names, "arg_names")
        self._kwonly_names = _names(kwonly_names, "kwonly_names")
        self._unpack = _names(unpack, "unpack")
        self._arg_defaults = arg_defaults
        self._kwonly_defaults = dict(kwonly_defaults)
        self._posonly_count = posonly_count
        self._name = name
        _normalize(self._ffi_map())  # the C++ rules: raises ValueError/TypeError

    # -- fields -------------------------------------------------------------------------
    @property
    def arg_names(self) -> tuple[str, ...]:
        return self._arg_names

    @property
    def arg_defaults(self) -> tuple:
        return self._arg_defaults

    @property
    def kwonly_names(self) -> tuple[str, ...]:
        return self._kwonly_names

    @property
    def kwonly_defaults(self) -> dict[str, Any]:
        return dict(self._kwonly_defaults)

    @property
    def posonly_count(self) -> int:
        return self._posonly_count

    @property
    def unpack(self) -> tuple[str, ...]:
        return self._unpack

    @property
    def name(self) -> str:
        return self._name

    @property
    def param_names(self) -> tuple[str, ...]:
        """Every parameter in declaration order: the order the target receives them."""
        return self._arg_names + self._kwonly_names

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_inspect(
        cls, sig: inspect.Signature, name: str = "", exclude: Iterable[str] = ()
    ) -> Signature:
        """Build from an ``inspect.Signature``, leaving out the parameters in ``exclude``."""
        skip = set(exclude)
        arg_names: list[str] = []
        arg_defaults: list[Any] = []
        kwonly_names: list[str] = []
        kwonly_defaults: dict[str, Any] = {}
        posonly_count = 0
        for param in sig.parameters.values():
            if param.name in skip:
                continue
            if param.kind == _P.VAR_POSITIONAL:
                raise ValueError(f"*args parameters are not supported: '*{param.name}'")
            if param.kind == _P.VAR_KEYWORD:
                raise ValueError(f"**kwargs parameters are not supported: '**{param.name}'")
            has_default = param.default is not _P.empty
            if param.kind == _P.KEYWORD_ONLY:
                kwonly_names.append(param.name)
                if has_default:
                    kwonly_defaults[param.name] = param.default
                continue
            if param.kind == _P.POSITIONAL_ONLY:
                posonly_count = len(arg_names) + 1
            if has_default:
                arg_defaults.append(param.default)
            elif arg_defaults:
                raise ValueError(
                    f"Required positional parameter '{param.name}' cannot follow "
                    "parameters with defaults"
                )
            arg_names.append(param.name)
        return cls(
            arg_names,
            tuple(arg_defaults),
            kwonly_names,
            kwonly_defaults,
            posonly_count=posonly_count,
            name=name,
        )

    @classmethod
    def from_callable(cls, fn: Callable, exclude: Iterable[str] = ()) -> Signature:
        """Build from a Python function's signature; its ``__qualname__`` names it."""
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "")
        return cls.from_inspect(inspect.signature(fn), name=name, exclude=exclude)

    @classmethod
    def from_json(cls, text: str) -> Signature:
        """Read the JSON form written by ``to_json`` (or by C++ ``Signature::ToJson``)."""
        return cls._from_map(_normalize(text))

    @classmethod
    def _from_map(cls, fields: Any) -> Signature:
        return cls(
            list(fields["arg_names"]),
            tuple(_from_ffi(v) for v in fields["arg_defaults"]),
            list(fields["kwonly_names"]),
            {k: _from_ffi(v) for k, v in fields["kwonly_defaults"].items()},
            posonly_count=int(fields["posonly_count"]),
            unpack=list(fields["unpack"]),
            name=str(fields["name"]),
        )

    # -- other forms --------------------------------------------------------------------
    def to_json(self) -> str:
        """The JSON form (the AOT sidecar format). Defaults must be JSON values."""
        return _to_json(self._ffi_map())

    def to_inspect(self) -> inspect.Signature:
        params = []
        first_default = len(self._arg_names) - len(self._arg_defaults)
        for i, name in enumerate(self._arg_names):
            kind = _P.POSITIONAL_ONLY if i < self._posonly_count else _P.POSITIONAL_OR_KEYWORD
            default = self._arg_defaults[i - first_default] if i >= first_default else _P.empty
            params.append(_P(name, kind, default=default))
        for name in self._kwonly_names:
            params.append(
                _P(name, _P.KEYWORD_ONLY, default=self._kwonly_defaults.get(name, _P.empty))
            )
        return inspect.Signature(params)

    def param_defaults(self) -> tuple:
        """One entry per parameter: its default, or ``inspect.Parameter.empty``."""
        return tuple(p.default for p in self.to_inspect().parameters.values())

    def _ffi_map(self) -> dict[str, Any]:
        return {
            "name": self._name,
            "arg_names": list(self._arg_names),
            "arg_defaults": list(self._arg_defaults),
            "posonly_count": self._posonly_count,
            "kwonly_names": list(self._kwonly_names),
            "kwonly_defaults": self._kwonly_defaults,
            "unpack": list(self._unpack),
        }

    # -- value semantics ----------------------------------------------------------------
    def _key(self) -> tuple:
        return (
            self._name,
            self._arg_names,
            self._arg_defaults,
            self._posonly_count,
            self._kwonly_names,
            self._kwonly_defaults,
            self._unpack,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Signature):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # defaults may be unhashable

    def __str__(self) -> str:
        return str(self.to_inspect())

    def __repr__(self) -> str:
        unpack = f", unpack={list(self._unpack)}" if self._unpack else ""
        return f"kwcall.Signature({self._name or 'function'}{self}{unpack})"
