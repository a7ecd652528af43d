"""Tests for ``kwcall.unpack_dataclass_to_tuple``.

Ported (rewritten, not copied) from apache/tvm-ffi
``tests/python/utils/test_unpack_dataclass.py`` at commit
620fece9f8d81dded637cec9fc52e388f7bd0ae1 (file last changed in 24054b47, #563).
The reference implementation is ``tvm_ffi/utils/unpack_dataclass.py`` from
apache-tvm-ffi 0.1.15.post2.  ``kwcall.unpack_dataclass_to_tuple`` returns
plain Python values, so results are compared exactly (including container type).

This module deliberately uses ``from __future__ import annotations`` (as
upstream does): field annotations are strings and are resolved with
``typing.get_type_hints``; classes local to a test function that refer to other
local classes cannot be resolved, which changes how their fields are treated.

Upstream cases skipped or reshaped
----------------------------------
* ``test_validate_dataclass_to_tuple_schema`` is skipped.  It tests the private
  ``_validate_dataclass_to_tuple_schema``, a guard that keeps field names safe
  to splice into ``exec``-generated source.  kwcall generates no Python source
  and has no such private function.
* ``test_extract_dataclass_to_tuple_schema`` tests the private
  ``_extract_dataclass_to_tuple_schema``.  kwcall does not expose the schema,
  so each case is ported as its *observable* effect through
  ``unpack_dataclass_to_tuple``:

  - a field classified as a leaf (``None``) is returned as-is, i.e. the same
    object, and a dataclass stored in it is *not* unpacked;
  - a field classified as ``"unpack"`` goes through dynamic dispatch, i.e.
    containers are rebuilt (new object) and dataclasses inside are unpacked;
  - a nested dataclass schema unpacks the nested instance inline.

  Its "non-dataclass raises TypeError" case has no public-API equivalent
  (``unpack_dataclass_to_tuple`` passes non-dataclasses through) and is
  skipped.

Extra case (not in upstream tests)
----------------------------------
* ``test_namedtuple_preserves_type``: the installed 0.1.15.post2 source rebuilds
  named tuples with one positional argument per field (upstream HEAD does
  not have this branch and would fail on named tuples).
"""

from __future__ import annotations

import collections
import dataclasses
import sys
from typing import Any

import pytest

pytest.importorskip("tvm_ffi.utils.unpack_dataclass", reason="needs tvm-ffi's unpack_dataclass")

from kwcall import unpack_dataclass_to_tuple as unpack  # noqa: E402

# ---------------------------------------------------------------------------
# Module-level dataclasses: their string annotations resolve via
# typing.get_type_hints, so the field types drive leaf / unpack decisions.
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class Point:
    x: int
    y: int


@dataclasses.dataclass
class Nested:
    value: int
    cfg: Point


@dataclasses.dataclass
class WithAny:
    data: Any
    scale: int


@dataclasses.dataclass
class WithListOfPoints:
    items: list[Point]
    scale: int


@dataclasses.dataclass
class WithLeafList:
    values: list[int]
    name: str


@dataclasses.dataclass
class WithDictOfPoints:
    mapping: dict[str, Point]
    count: int


@dataclasses.dataclass
class WithLeafDict:
    mapping: dict[str, int]
    count: int


@dataclasses.dataclass
class WithTuplePair:
    pair: tuple[Point, int]
    flag: bool


@dataclasses.dataclass
class WithOptional:
    value: int | None
    name: str


# ---------------------------------------------------------------------------
# upstream: test_unpack_dataclass_to_tuple
# ---------------------------------------------------------------------------


def test_flat_nested_and_deep() -> None:
    @dataclasses.dataclass
    class Config:
        x: int
        y: int

    @dataclasses.dataclass
    class Inner:
        value: int
        cfg: Config

    @dataclasses.dataclass
    class Deep:
        nested: Inner
        flag: bool

    result = unpack(Config(x=1, y=2))
    assert result == (1, 2)
    assert type(result) is tuple

    assert unpack(Inner(value=5, cfg=Config(x=10, y=20))) == (5, (10, 20))

    deep = Deep(nested=Inner(value=5, cfg=Config(x=10, y=20)), flag=True)
    assert unpack(deep) == ((5, (10, 20)), True)


def test_leaf_passthrough() -> None:
    assert unpack(42) == 42
    assert unpack("hello") == "hello"
    assert unpack(None) is None
    assert unpack(2.5) == 2.5
    obj = object()
    assert unpack(obj) is obj


def test_list_is_recursed_and_stays_a_list() -> None:
    result = unpack([Point(x=1, y=2), Point(x=3, y=4)])
    assert result == [(1, 2), (3, 4)]
    assert type(result) is list


def test_tuple_is_recursed() -> None:
    result = unpack((Point(x=1, y=2), 5))
    assert result == ((1, 2), 5)
    assert type(result) is tuple


def test_dict_values_are_recursed() -> None:
    result = unpack({"a": Point(x=1, y=2), "b": 3})
    assert result == {"a": (1, 2), "b": 3}
    assert type(result) is dict


def test_leaf_values_are_not_copied() -> None:
    class Holder:
        pass

    @dataclasses.dataclass
    class Carrier:
        obj: Any
        val: int

    holder = Holder()
    result = unpack(Carrier(obj=holder, val=1))
    assert result == (holder, 1)
    assert result[0] is holder


def test_any_field_dispatches_at_runtime() -> None:
    # a dataclass inside an Any field is unpacked
    assert unpack(WithAny(data=Point(x=1, y=2), scale=3)) == ((1, 2), 3)
    # a plain value is passed through
    assert unpack(WithAny(data=42, scale=3)) == (42, 3)
    # a list of dataclasses is unpacked element-wise (and stays a list)
    result = unpack(WithAny(data=[Point(x=1, y=2), Point(x=3, y=4)], scale=5))
    assert result == ([(1, 2), (3, 4)], 5)
    assert type(result[0]) is list
    # a nested dataclass is unpacked recursively
    result = unpack(WithAny(data=Nested(value=10, cfg=Point(x=1, y=2)), scale=5))
    assert result == ((10, (1, 2)), 5)
    # a dict of dataclasses has its values unpacked
    result = unpack(WithAny(data={"a": Point(x=1, y=2), "b": Point(x=3, y=4)}, scale=5))
    assert result == ({"a": (1, 2), "b": (3, 4)}, 5)


def test_self_referential_dataclass() -> None:
    @dataclasses.dataclass
    class Node:
        value: int
        next: Node | None

    linked = Node(value=1, next=Node(value=2, next=None))
    assert unpack(linked) == (1, (2, None))

    longer = Node(value=1, next=Node(value=2, next=Node(value=3, next=None)))
    assert unpack(longer) == (1, (2, (3, None)))


def test_repeated_calls_are_consistent() -> None:
    # the reference caches a per-class unpacker; results must not change
    for i in range(3):
        assert unpack(Point(x=i, y=i + 1)) == (i, i + 1)
        assert unpack(Nested(value=i, cfg=Point(x=1, y=2))) == (i, (1, 2))


# ---------------------------------------------------------------------------
# upstream: test_extract_dataclass_to_tuple_schema, ported as observable
# behaviour (see module docstring)
# ---------------------------------------------------------------------------

_needs_310 = pytest.mark.xfail(
    sys.version_info < (3, 10),
    reason="list[X]/dict[X,Y]/int|None not evaluable by get_type_hints before 3.10",
)


@_needs_310
def test_primitive_fields_are_leaves() -> None:
    # {"x": None, "y": None}: fields are read as-is, never dispatched
    assert unpack(Point(x=1, y=2)) == (1, 2)
    smuggled = Point(x=3, y=4)
    result = unpack(Point(x=smuggled, y=2))  # type: ignore[arg-type]
    assert result[0] is smuggled


@_needs_310
def test_nested_dataclass_field_is_inlined() -> None:
    # {"value": None, "cfg": {"x": None, "y": None}}
    assert unpack(Nested(value=1, cfg=Point(x=2, y=3))) == (1, (2, 3))
    # the inner leaves are leaves too
    smuggled = Point(x=0, y=0)
    result = unpack(Nested(value=1, cfg=Point(x=smuggled, y=3)))  # type: ignore[arg-type]
    assert result[1][0] is smuggled


@_needs_310
def test_any_field_is_unpack() -> None:
    # {"data": "unpack", "scale": None}
    assert unpack(WithAny(data=Point(x=1, y=2), scale=3)) == ((1, 2), 3)


@_needs_310
def test_list_of_dataclass_field_is_unpack() -> None:
    # {"items": "unpack", "scale": None}
    result = unpack(WithListOfPoints(items=[Point(x=1, y=2), Point(x=3, y=4)], scale=5))
    assert result == ([(1, 2), (3, 4)], 5)
    assert type(result[0]) is list


@_needs_310
def test_list_of_leaves_field_is_unpack() -> None:
    # {"values": "unpack", "name": None}: lists are never leaves, so the
    # list is rebuilt (a new object) even when it holds only ints
    values = [1, 2, 3]
    result = unpack(WithLeafList(values=values, name="n"))
    assert result == ([1, 2, 3], "n")
    assert type(result[0]) is list
    assert result[0] is not values
    # ...which also means a dataclass hiding inside is unpacked
    result = unpack(WithLeafList(values=[Point(x=1, y=2)], name="n"))  # type: ignore[list-item]
    assert result == ([(1, 2)], "n")


@_needs_310
def test_dict_of_dataclass_field_is_unpack() -> None:
    # {"mapping": "unpack", "count": None}
    mapping = {"a": Point(x=1, y=2)}
    result = unpack(WithDictOfPoints(mapping=mapping, count=1))
    assert result == ({"a": (1, 2)}, 1)
    assert result[0] is not mapping


@_needs_310
def test_dict_of_leaves_field_is_leaf() -> None:
    # {"mapping": None, "count": None}: returned as the very same dict
    mapping = {"a": 1, "b": 2}
    result = unpack(WithLeafDict(mapping=mapping, count=2))
    assert result == ({"a": 1, "b": 2}, 2)
    assert result[0] is mapping
    # a dataclass hiding in a leaf-typed dict is therefore not unpacked
    smuggled = Point(x=1, y=2)
    result = unpack(WithLeafDict(mapping={"p": smuggled}, count=1))  # type: ignore[dict-item]
    assert result[0]["p"] is smuggled


@_needs_310
def test_tuple_with_dataclass_field_is_unpack() -> None:
    # {"pair": "unpack", "flag": None}
    result = unpack(WithTuplePair(pair=(Point(x=1, y=2), 3), flag=True))
    assert result == (((1, 2), 3), True)
    assert type(result[0]) is tuple


@_needs_310
def test_optional_of_leaf_field_is_leaf() -> None:
    # {"value": None, "name": None}: int | None is a union of leaves
    assert unpack(WithOptional(value=None, name="n")) == (None, "n")
    assert unpack(WithOptional(value=7, name="n")) == (7, "n")
    smuggled = Point(x=1, y=2)
    result = unpack(WithOptional(value=smuggled, name="n"))  # type: ignore[arg-type]
    assert result[0] is smuggled


@_needs_310
def test_local_classes_resolution() -> None:
    # Local class with only builtin annotations resolves: fields are leaves.
    @dataclasses.dataclass
    class LocalConfig:
        x: int
        y: int

    assert unpack(LocalConfig(x=1, y=2)) == (1, 2)
    smuggled = LocalConfig(x=5, y=6)
    result = unpack(LocalConfig(x=smuggled, y=2))  # type: ignore[arg-type]
    assert result[0] is smuggled

    # Local class referring to another local class cannot be resolved by
    # get_type_hints, so *every* field falls back to dynamic dispatch:
    # even the int-annotated field gets a dataclass in it unpacked.
    @dataclasses.dataclass
    class LocalNested:
        val: int
        cfg: LocalConfig

    assert unpack(LocalNested(val=1, cfg=LocalConfig(x=2, y=3))) == (1, (2, 3))
    result = unpack(LocalNested(val=LocalConfig(x=7, y=8), cfg=LocalConfig(x=2, y=3)))  # type: ignore[arg-type]
    assert result == ((7, 8), (2, 3))


# ---------------------------------------------------------------------------
# extra: named tuples (installed 0.1.15.post2 behaviour)
# ---------------------------------------------------------------------------


def _tvm_ffi_keeps_namedtuples() -> bool:
    Pair = collections.namedtuple("Pair", ["first", "second"])
    try:
        return unpack(Pair(1, 2)) == Pair(1, 2) and type(unpack(Pair(1, 2))) is Pair
    except Exception:
        return False


@pytest.mark.skipif(
    not _tvm_ffi_keeps_namedtuples(),
    reason="kwcall uses tvm-ffi's unpack_dataclass_to_tuple, which keeps named tuples only "
    "from apache-tvm-ffi 0.1.15",
)
def test_namedtuple_preserves_type() -> None:
    Pair = collections.namedtuple("Pair", ["first", "second"])
    result = unpack(Pair(Point(x=1, y=2), [Point(x=3, y=4)]))
    assert type(result) is Pair
    assert result == Pair((1, 2), [(3, 4)])
    assert result.first == (1, 2)
