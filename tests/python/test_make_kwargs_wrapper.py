"""Tests for ``kwcall.make_kwargs_wrapper`` / ``make_kwargs_wrapper_from_signature``.

Ported (rewritten, not copied) from apache/tvm-ffi
``tests/python/utils/test_kwargs_wrapper.py`` at commit
620fece9f8d81dded637cec9fc52e388f7bd0ae1 (file last changed in 24054b47, #563).
The reference implementation is ``tvm_ffi/utils/kwargs_wrapper.py`` from
apache-tvm-ffi 0.1.15.post2.

Every upstream assertion is kept as upstream states it: targets are Python callables (kwcall
calls them with the bound objects themselves, so ``result[1] is default_list`` holds), and
invalid specs raise with tvm-ffi's own messages. kwcall-specific cases (FFI targets, the
kwcall.Function type) are marked as extra.

Upstream cases skipped (exec-generated Python specifics that cannot apply)
--------------------------------------------------------------------------
* The ``test_optimized_default_types`` docstring talks about *how* defaults are
  emitted in the generated source (None/bool literals embedded, everything else
  via the ``MISSING`` sentinel).  kwcall generates no Python source, so only
  the observable results of that test are ported, not the code-generation
  detail.

Extra cases (not in upstream tests, but behaviour of the reference code)
------------------------------------------------------------------------
* ``test_call_time_binding_errors``: the exec-generated wrapper is a real Python
  function, so bad calls raise ``TypeError``; kwcall must do the same.
* ``test_returns_kwcall_function`` / ``test_target_conversion``: kwcall-specific
  API contract from the kwcall brief.
* Internal-name conflicts are checked for every reserved name, not only
  ``__i_target_func``, and metadata copying also checks ``__module__`` and
  ``__qualname__`` (both are documented for ``prototype``).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Callable
from typing import Any

import kwcall
import pytest
import tvm_ffi
from helpers import needs_unpack

# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _py(value: Any) -> Any:
    """Recursively turn FFI containers back into plain Python values.

    ``tvm_ffi.Array`` -> tuple, ``tvm_ffi.Map`` -> dict; everything else
    is returned unchanged (ints, floats, str, None, bool, opaque objects).
    """
    if isinstance(value, (tvm_ffi.Array, list, tuple)):
        return tuple(_py(v) for v in value)
    if isinstance(value, (tvm_ffi.Map, dict)):
        return {k: _py(v) for k, v in value.items()}
    return value


def _ffi(fn: Callable[..., Any]) -> tvm_ffi.Function:
    """Wrap a Python callable as a ``tvm_ffi.Function`` target."""
    return tvm_ffi.convert(fn)


def _summing_target() -> Callable[..., Any]:
    return lambda *args: sum(args)


def _echo_target() -> Callable[..., Any]:
    return lambda *args: args


# --------------------------------------------------------------------------
# kwcall-specific API contract
# --------------------------------------------------------------------------


def test_returns_kwcall_function() -> None:
    wrapper = kwcall.make_kwargs_wrapper(_summing_target(), ["a", "b"])
    assert isinstance(wrapper, kwcall.Function)
    assert isinstance(wrapper, tvm_ffi.Function)

    def proto(a: int, b: int = 1) -> None:
        pass

    wrapper = kwcall.make_kwargs_wrapper_from_signature(_summing_target(), inspect.signature(proto))
    assert isinstance(wrapper, kwcall.Function)
    assert isinstance(wrapper, tvm_ffi.Function)


def test_target_conversion() -> None:
    # A plain Python callable is converted with tvm_ffi.convert internally.
    wrapper = kwcall.make_kwargs_wrapper(lambda *args: sum(args), ["a", "b"])
    assert wrapper(1, b=2) == 3

    # A global FFI function works as a target as well.
    echo = tvm_ffi.get_global_func("testing.echo")
    wrapper = kwcall.make_kwargs_wrapper(echo, ["x"], arg_defaults=(7,))
    assert wrapper() == 7
    assert wrapper(x="hi") == "hi"


# --------------------------------------------------------------------------
# upstream: test_basic_wrapper
# --------------------------------------------------------------------------


def test_positional_all_required() -> None:
    wrapper = kwcall.make_kwargs_wrapper(_summing_target(), ["a", "b", "c"])
    assert wrapper(1, 2, 3) == 6
    assert wrapper(a=1, b=2, c=3) == 6
    assert wrapper(1, b=2, c=3) == 6
    # keyword order does not matter
    assert wrapper(c=3, a=1, b=2) == 6


def test_positional_one_trailing_default() -> None:
    wrapper = kwcall.make_kwargs_wrapper(_summing_target(), ["a", "b", "c"], arg_defaults=(10,))
    assert wrapper(1, 2) == 1 + 2 + 10
    assert wrapper(1, 2, 3) == 6
    assert wrapper(1, 2, c=5) == 1 + 2 + 5


def test_positional_defaults_are_right_aligned() -> None:
    wrapper = kwcall.make_kwargs_wrapper(_summing_target(), ["a", "b", "c"], arg_defaults=(20, 30))
    assert wrapper(1) == 1 + 20 + 30
    assert wrapper(1, 2) == 1 + 2 + 30
    assert wrapper(1, 2, 3) == 6
    # order seen by the target is the declared order
    echo = kwcall.make_kwargs_wrapper(_echo_target(), ["a", "b", "c"], arg_defaults=(20, 30))
    assert _py(echo(1)) == (1, 20, 30)
    assert _py(echo(1, c=3)) == (1, 20, 3)


def test_positional_all_defaults() -> None:
    wrapper = kwcall.make_kwargs_wrapper(_summing_target(), ["a", "b", "c"], arg_defaults=(1, 2, 3))
    assert wrapper() == 6
    assert wrapper(10) == 10 + 2 + 3
    assert wrapper(10, 20, 30) == 60


def test_bound_method_target() -> None:
    class Calculator:
        def __init__(self, base: int) -> None:
            self.base = base

        def add(self, a: int, b: int) -> int:
            return self.base + a + b

    calc = Calculator(100)
    wrapper = kwcall.make_kwargs_wrapper(_ffi(calc.add), ["a", "b"], arg_defaults=(5,))
    assert wrapper(1) == 100 + 1 + 5
    assert wrapper(a=1, b=2) == 103


# --------------------------------------------------------------------------
# upstream: test_keyword_only_arguments
# --------------------------------------------------------------------------


def test_kwonly_all_optional() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _summing_target(),
        ["a", "b"],
        arg_defaults=(),
        kwonly_names=["c", "d"],
        kwonly_defaults={"c": 100, "d": 200},
    )
    assert wrapper(1, 2) == 1 + 2 + 100 + 200
    assert wrapper(1, 2, c=10) == 1 + 2 + 10 + 200
    assert wrapper(1, 2, c=10, d=20) == 33


def test_kwonly_all_required() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _summing_target(),
        ["a", "b"],
        arg_defaults=(),
        kwonly_names=["c", "d"],
        kwonly_defaults={},
    )
    assert wrapper(1, 2, c=10, d=20) == 33
    assert wrapper(d=20, c=10, b=2, a=1) == 33


def test_kwonly_mixed_required_and_optional() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _summing_target(),
        ["a", "b"],
        arg_defaults=(),
        kwonly_names=["c", "d"],
        kwonly_defaults={"d": 100},
    )
    assert wrapper(1, 2, c=10) == 1 + 2 + 10 + 100
    assert wrapper(1, 2, c=10, d=20) == 33


def test_positional_defaults_with_kwonly_defaults() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _summing_target(),
        ["a", "b", "c"],
        arg_defaults=(10,),
        kwonly_names=["d", "e"],
        kwonly_defaults={"d": 20, "e": 30},
    )
    assert wrapper(1, 2) == 1 + 2 + 10 + 20 + 30
    assert wrapper(1, 2, 5, d=15) == 1 + 2 + 5 + 15 + 30
    # target receives positional args first, then kw-only in declared order
    echo = kwcall.make_kwargs_wrapper(
        _echo_target(),
        ["a", "b", "c"],
        arg_defaults=(10,),
        kwonly_names=["d", "e"],
        kwonly_defaults={"d": 20, "e": 30},
    )
    assert _py(echo(1, 2, e=5)) == (1, 2, 10, 20, 5)


# --------------------------------------------------------------------------
# upstream: test_validation_errors
# --------------------------------------------------------------------------


def _target() -> tvm_ffi.Function:
    return _summing_target()


def test_validation_duplicate_positional_names() -> None:
    with pytest.raises(ValueError, match="Duplicate argument names found"):
        kwcall.make_kwargs_wrapper(_target(), ["a", "b", "a"])


def test_validation_duplicate_kwonly_names() -> None:
    with pytest.raises(ValueError, match="Duplicate keyword-only argument names found"):
        kwcall.make_kwargs_wrapper(_target(), ["a"], kwonly_names=["b", "c", "b"])


def test_validation_non_string_name() -> None:
    with pytest.raises(TypeError, match="Argument name must be a string"):
        kwcall.make_kwargs_wrapper(_target(), ["a", 123])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="Keyword-only argument name must be a string"):
        kwcall.make_kwargs_wrapper(_target(), ["a"], kwonly_names=[None])  # type: ignore[list-item]


def test_validation_invalid_identifier() -> None:
    with pytest.raises(ValueError, match="not a valid Python identifier"):
        kwcall.make_kwargs_wrapper(_target(), ["a", "b-c"])
    with pytest.raises(ValueError, match=re.escape("'1x' is not a valid Python identifier")):
        kwcall.make_kwargs_wrapper(_target(), ["a"], kwonly_names=["1x"])


def test_validation_python_keyword_name() -> None:
    with pytest.raises(
        ValueError, match="is a Python keyword and cannot be used as a parameter name"
    ):
        kwcall.make_kwargs_wrapper(_target(), ["a", "if"])
    with pytest.raises(
        ValueError, match="is a Python keyword and cannot be used as a parameter name"
    ):
        kwcall.make_kwargs_wrapper(_target(), ["a"], kwonly_names=["class"])


def test_validation_arg_defaults_must_be_tuple() -> None:
    with pytest.raises(TypeError, match="arg_defaults must be a tuple"):
        kwcall.make_kwargs_wrapper(_target(), ["a", "b"], arg_defaults=[10])  # type: ignore[arg-type]


def test_validation_arg_defaults_too_long() -> None:
    with pytest.raises(ValueError, match=r"arg_defaults has .* values but only"):
        kwcall.make_kwargs_wrapper(_target(), ["a"], arg_defaults=(1, 2, 3))


def test_validation_positional_kwonly_overlap() -> None:
    with pytest.raises(ValueError, match="cannot be both positional and keyword-only"):
        kwcall.make_kwargs_wrapper(_target(), ["a", "b"], kwonly_names=["b"])


def test_validation_kwonly_default_for_unknown_name() -> None:
    with pytest.raises(ValueError, match="not in kwonly_names"):
        kwcall.make_kwargs_wrapper(
            _target(), ["a", "b"], kwonly_names=["c"], kwonly_defaults={"d": 10}
        )


# The reserved names are an artefact of tvm-ffi's exec-based implementation,
# but they are observable API behaviour, so kwcall rejects them too.
@pytest.mark.parametrize(
    "reserved", ["__i_target_func", "__i_MISSING", "__i_arg_defaults", "__i_unpack"]
)
def test_validation_internal_name_conflict(reserved: str) -> None:
    with pytest.raises(ValueError, match="conflict with internal names"):
        kwcall.make_kwargs_wrapper(_target(), [reserved, "b"])
    with pytest.raises(ValueError, match=re.escape(reserved)):
        kwcall.make_kwargs_wrapper(_target(), ["a"], kwonly_names=[reserved])


# --------------------------------------------------------------------------
# upstream: test_special_default_values
# --------------------------------------------------------------------------


def test_none_defaults() -> None:
    wrapper = kwcall.make_kwargs_wrapper(_echo_target(), ["a", "b", "c"], arg_defaults=(None, None))
    assert _py(wrapper(1)) == (1, None, None)


def test_object_default_reference_is_preserved() -> None:
    class Marker:
        pass

    marker = Marker()
    wrapper = kwcall.make_kwargs_wrapper(
        _echo_target(), ["a", "b", "c"], arg_defaults=(marker, None)
    )
    first = wrapper(1)
    assert first[1] is marker
    assert first[2] is None
    # the very same default object is used on every call (no copying)
    assert wrapper(2)[1] is marker

    # Complex objects as defaults: the object itself reaches the target.
    default_list = [1, 2, 3]
    wrapper = kwcall.make_kwargs_wrapper(
        _echo_target(), ["a", "b", "c"], arg_defaults=(default_list, None)
    )
    result = wrapper(1)
    assert result[1] is default_list
    assert result[2] is None
    # extra: through an FFI target the list arrives converted, with the same items.
    wrapper = kwcall.make_kwargs_wrapper(
        _ffi(lambda *args: args), ["a", "b", "c"], arg_defaults=(default_list, None)
    )
    assert list(wrapper(1)[1]) == default_list


# --------------------------------------------------------------------------
# upstream: test_wrapper_with_signature
# --------------------------------------------------------------------------


def test_from_signature_positional_defaults() -> None:
    def source_func(a: Any, b: Any, c: int = 10, d: int = 20) -> None:
        """Source function documentation."""

    sig = inspect.signature(source_func)
    wrapper = kwcall.make_kwargs_wrapper_from_signature(_summing_target(), sig)
    assert wrapper(1, 2) == 1 + 2 + 10 + 20
    assert wrapper(1, 2, 3) == 1 + 2 + 3 + 20
    assert wrapper(1, 2, 3, 4) == 10
    assert wrapper(1, 2, d=4) == 1 + 2 + 10 + 4


def test_from_signature_prototype_metadata() -> None:
    def source_func(a: Any, b: Any, c: int = 10, d: int = 20) -> None:
        """Source function documentation."""

    sig = inspect.signature(source_func)
    wrapper = kwcall.make_kwargs_wrapper_from_signature(_summing_target(), sig, source_func)
    assert wrapper.__name__ == "source_func"
    assert wrapper.__doc__ == "Source function documentation."
    assert wrapper(1, 2) == 33


def test_from_signature_optional_kwonly() -> None:
    def source_kwonly(a: Any, b: Any, *, c: int = 10, d: int = 20) -> None:
        pass

    wrapper = kwcall.make_kwargs_wrapper_from_signature(
        _summing_target(), inspect.signature(source_kwonly)
    )
    assert wrapper(1, 2) == 33
    assert wrapper(1, 2, c=5, d=6) == 14


def test_from_signature_required_kwonly() -> None:
    def source_required_kwonly(a: Any, b: Any, *, c: Any, d: int = 20) -> None:
        pass

    wrapper = kwcall.make_kwargs_wrapper_from_signature(
        _summing_target(), inspect.signature(source_required_kwonly)
    )
    assert wrapper(1, 2, c=10) == 1 + 2 + 10 + 20
    assert wrapper(1, 2, c=10, d=5) == 18


def test_from_signature_rejects_var_positional() -> None:
    def with_varargs(a: Any, *args: Any) -> None:
        pass

    with pytest.raises(ValueError, match=r"\*args not supported"):
        kwcall.make_kwargs_wrapper_from_signature(
            _summing_target(), inspect.signature(with_varargs)
        )


def test_from_signature_rejects_var_keyword() -> None:
    def with_kwargs(a: Any, **kwargs: Any) -> None:
        pass

    with pytest.raises(ValueError, match=r"\*\*kwargs not supported"):
        kwcall.make_kwargs_wrapper_from_signature(_summing_target(), inspect.signature(with_kwargs))


def _source_with_skip(a: Any, b: Any, c: int = 10, d: int = 20) -> None:
    pass


def test_from_signature_exclude_one_positional() -> None:
    wrapper = kwcall.make_kwargs_wrapper_from_signature(
        _summing_target(), inspect.signature(_source_with_skip), exclude_arg_names=["c"]
    )
    # remaining parameters: a, b, d=20
    assert wrapper(1, 2) == 1 + 2 + 20
    assert wrapper(1, 2, d=5) == 8
    assert wrapper(1, 2, 5) == 8  # d is now the third positional
    with pytest.raises(TypeError):
        wrapper(1, 2, c=5)


def test_from_signature_exclude_several() -> None:
    wrapper = kwcall.make_kwargs_wrapper_from_signature(
        _summing_target(),
        inspect.signature(_source_with_skip),
        exclude_arg_names=["b", "d"],
    )
    # remaining parameters: a, c=10
    assert wrapper(1) == 1 + 10
    assert wrapper(1, c=5) == 6


def test_from_signature_exclude_kwonly() -> None:
    def source_kwonly_skip(a: Any, b: Any, *, c: int = 10, d: int = 20) -> None:
        pass

    wrapper = kwcall.make_kwargs_wrapper_from_signature(
        _summing_target(),
        inspect.signature(source_kwonly_skip),
        exclude_arg_names=["c"],
    )
    # remaining parameters: a, b, *, d=20
    assert wrapper(1, 2) == 1 + 2 + 20
    assert wrapper(1, 2, d=5) == 8


def test_from_signature_exclude_unknown_name_is_ignored() -> None:
    wrapper = kwcall.make_kwargs_wrapper_from_signature(
        _summing_target(),
        inspect.signature(_source_with_skip),
        exclude_arg_names=["non_existent"],
    )
    # identical to no exclusion
    assert wrapper(1, 2) == 33
    assert wrapper(1, 2, 3, 4) == 10


def test_from_signature_exclude_mixed_known_and_unknown() -> None:
    wrapper = kwcall.make_kwargs_wrapper_from_signature(
        _summing_target(),
        inspect.signature(_source_with_skip),
        # any iterable is accepted, and unknown names are ignored
        exclude_arg_names=("c", "non_existent", "also_missing"),
    )
    assert wrapper(1, 2) == 1 + 2 + 20
    assert wrapper(1, 2, d=5) == 8


# --------------------------------------------------------------------------
# upstream: test_exception_propagation
# --------------------------------------------------------------------------


def _raising(a: int, b: int, c: str) -> int:
    if a == 0:
        raise ValueError("a cannot be zero")
    if b < 0:
        raise RuntimeError(f"b must be non-negative, got {b}")
    if c != "valid":
        raise TypeError(f"c must be 'valid', got {c!r}")
    return a + b


def test_exception_propagation_positional_defaults() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _ffi(_raising), ["a", "b", "c"], arg_defaults=(10, "valid")
    )
    assert wrapper(5) == 15
    with pytest.raises(ValueError, match="a cannot be zero"):
        wrapper(0)
    with pytest.raises(RuntimeError, match="b must be non-negative"):
        wrapper(1, -5)
    with pytest.raises(TypeError, match="c must be 'valid'"):
        wrapper(1, c="nope")


def test_exception_propagation_kwonly_defaults() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _ffi(_raising),
        ["a"],
        kwonly_names=["b", "c"],
        kwonly_defaults={"b": 10, "c": "valid"},
    )
    assert wrapper(5) == 15
    with pytest.raises(ValueError, match="a cannot be zero"):
        wrapper(0)
    with pytest.raises(RuntimeError, match="b must be non-negative"):
        wrapper(5, b=-5)
    with pytest.raises(TypeError, match="c must be 'valid'"):
        wrapper(5, c="invalid")


# --------------------------------------------------------------------------
# upstream: test_metadata_preservation
# --------------------------------------------------------------------------


def _my_function(x: int, y: int = 10) -> int:
    """Document the function."""
    return x + y


def test_metadata_preservation() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _summing_target(), ["x", "y"], arg_defaults=(10,), prototype=_my_function
    )
    assert wrapper.__name__ == "_my_function"
    assert wrapper.__doc__ == "Document the function."
    assert wrapper.__annotations__ == _my_function.__annotations__
    # also documented as copied from the prototype
    assert wrapper.__module__ == _my_function.__module__
    assert wrapper.__qualname__ == _my_function.__qualname__
    assert wrapper(5) == 15


# --------------------------------------------------------------------------
# upstream: test_optimized_default_types
# --------------------------------------------------------------------------


def test_none_default_values() -> None:
    wrapper = kwcall.make_kwargs_wrapper(_echo_target(), ["a", "b", "c"], arg_defaults=(None,))
    assert _py(wrapper(1, 2)) == (1, 2, None)
    assert _py(wrapper(1, 2, 3)) == (1, 2, 3)
    assert _py(wrapper(1, 2, c=None)) == (1, 2, None)


def test_bool_default_values() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _echo_target(), ["a", "flag", "debug"], arg_defaults=(True, False)
    )
    result = wrapper(1)
    assert _py(result) == (1, True, False)
    assert type(result[1]) is bool
    assert type(result[2]) is bool
    assert _py(wrapper(1, False)) == (1, False, False)
    assert _py(wrapper(1, flag=False, debug=True)) == (1, False, True)


def test_str_default_values() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _echo_target(), ["a", "b", "name"], arg_defaults=("default",)
    )
    assert _py(wrapper(1, 2)) == (1, 2, "default")
    assert _py(wrapper(1, 2, "custom")) == (1, 2, "custom")
    assert _py(wrapper(1, 2, name="custom")) == (1, 2, "custom")


def test_kwonly_none_bool_str_defaults() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _echo_target(),
        ["a"],
        kwonly_names=["b", "flag", "name"],
        kwonly_defaults={"b": None, "flag": True, "name": "default"},
    )
    assert _py(wrapper(1)) == (1, None, True, "default")
    assert _py(wrapper(1, b=2)) == (1, 2, True, "default")
    assert _py(wrapper(1, flag=False)) == (1, None, False, "default")
    assert _py(wrapper(1, name="custom")) == (1, None, True, "custom")
    assert _py(wrapper(1, b=2, flag=False, name="test")) == (1, 2, False, "test")


# --------------------------------------------------------------------------
# upstream: test_map_dataclass_to_tuple
# --------------------------------------------------------------------------


@dataclasses.dataclass
class _Config:
    x: int
    y: int


@dataclasses.dataclass
class _Nested:
    value: int
    cfg: _Config


@needs_unpack
def test_map_dataclass_single_arg() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _echo_target(), ["a", "cfg"], map_dataclass_to_tuple=["cfg"]
    )
    assert _py(wrapper(1, _Config(x=10, y=20))) == (1, (10, 20))
    # passed by keyword
    assert _py(wrapper(a=1, cfg=_Config(x=3, y=4))) == (1, (3, 4))


@needs_unpack
def test_map_dataclass_multiple_args() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _echo_target(), ["a", "b"], map_dataclass_to_tuple=["a", "b"]
    )
    assert _py(wrapper(_Config(x=1, y=2), _Config(x=3, y=4))) == ((1, 2), (3, 4))


@needs_unpack
def test_map_dataclass_nested() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _echo_target(), ["a", "nested"], map_dataclass_to_tuple=["nested"]
    )
    result = wrapper(1, _Nested(value=5, cfg=_Config(x=10, y=20)))
    assert _py(result) == (1, (5, (10, 20)))


@needs_unpack
def test_map_dataclass_only_selected_args() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _echo_target(), ["a", "cfg", "b"], map_dataclass_to_tuple=["cfg"]
    )
    assert _py(wrapper(1, _Config(x=10, y=20), 3)) == (1, (10, 20), 3)

    # an argument that is not selected keeps its dataclass instance
    other = _Config(x=7, y=8)
    result = wrapper(other, _Config(x=1, y=2), 3)
    assert result[0] is other
    assert _py(result[1]) == (1, 2)


@needs_unpack
def test_map_dataclass_positional_default() -> None:
    default_cfg = _Config(x=0, y=0)
    wrapper = kwcall.make_kwargs_wrapper(
        _echo_target(),
        ["a", "cfg"],
        arg_defaults=(default_cfg,),
        map_dataclass_to_tuple=["cfg"],
    )
    # the default value is unpacked as well
    assert _py(wrapper(1)) == (1, (0, 0))
    assert _py(wrapper(1, _Config(x=5, y=6))) == (1, (5, 6))


@needs_unpack
def test_map_dataclass_kwonly_default() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _echo_target(),
        ["a"],
        kwonly_names=["cfg"],
        kwonly_defaults={"cfg": _Config(x=0, y=0)},
        map_dataclass_to_tuple=["cfg"],
    )
    assert _py(wrapper(1)) == (1, (0, 0))
    assert _py(wrapper(1, cfg=_Config(x=7, y=8))) == (1, (7, 8))


def test_map_dataclass_empty_list_disables_conversion() -> None:
    wrapper = kwcall.make_kwargs_wrapper(_echo_target(), ["a", "b"], map_dataclass_to_tuple=[])
    cfg = _Config(x=1, y=2)
    result = wrapper(1, cfg)
    assert result[0] == 1
    assert result[1] is cfg  # passed through untouched (opaque object)


@needs_unpack
def test_map_dataclass_from_signature() -> None:
    def source_func(a: int, cfg: _Config) -> None:
        pass

    wrapper = kwcall.make_kwargs_wrapper_from_signature(
        _echo_target(), inspect.signature(source_func), map_dataclass_to_tuple=["cfg"]
    )
    assert _py(wrapper(1, _Config(x=10, y=20))) == (1, (10, 20))


# --------------------------------------------------------------------------
# extra: call-time binding errors (the reference wrapper is a real Python
# function, so these raise TypeError)
# --------------------------------------------------------------------------


def test_call_time_binding_errors() -> None:
    wrapper = kwcall.make_kwargs_wrapper(
        _summing_target(),
        ["a", "b"],
        arg_defaults=(2,),
        kwonly_names=["c", "d"],
        kwonly_defaults={"d": 4},
    )
    assert wrapper(1, c=3) == 10
    with pytest.raises(TypeError):
        wrapper(c=3)  # missing required positional 'a'
    with pytest.raises(TypeError):
        wrapper(1)  # missing required keyword-only 'c'
    with pytest.raises(TypeError):
        wrapper(1, 2, 3)  # too many positional arguments ('c' is kw-only)
    with pytest.raises(TypeError):
        wrapper(1, c=3, e=5)  # unexpected keyword argument
    with pytest.raises(TypeError):
        wrapper(1, a=1, c=3)  # multiple values for 'a'
