"""Hostile and unusual input: every case gets CPython's outcome or a clear error, never a
crash, a leak or a silently different call. Each test reproduces a defect found by an external
adversarial run (docs/DESIGN.md describes the paths involved)."""

from __future__ import annotations

import dataclasses
import gc
import inspect
import itertools
import time

import kwcall
import pytest
import tvm_ffi
from helpers import (
    KWARGS,
    TIME_SCALE,
    collect,
    cpp_handle,
    needs_unpack,
    plain,
    py_collect,
    vectorcall,
)

get_signature = tvm_ffi.get_global_func("kwcall.GetSignature")


def same_object(a, b) -> bool:
    """FFI objects are the same when their handles are (Python wrappers may differ)."""
    return a.__chandle__() == b.__chandle__()


# -- argument counts ----------------------------------------------------------------------
def test_many_positional_arguments_are_counted_not_truncated():
    # The count reaches the message as CPython prints it (C++ checks 2**31 + 1 directly:
    # tests/cpp/test_binding.cc, PositionalCountsBeyondInt32AreReportedNotTruncated).
    f = kwcall.wrap(collect, kwcall.Signature(["a", "b"], name="f"))
    n = 1_000_003

    def reference(a, b):
        pass

    reference.__qualname__ = "f"
    with pytest.raises(TypeError) as expected:
        reference(*(None,) * n)
    with pytest.raises(TypeError) as got:
        f(*(None,) * n)
    assert str(got.value) == str(expected.value)
    assert "1000003 were given" in str(got.value)


# -- the KWARGS sentinel among a call's values, with any release_gil setting ---------------
def _packed(pos: tuple, kws: dict) -> tuple:
    """The same call as a C++ caller packs it: `[pos..., KWARGS, k0, v0, ...]`."""
    return (*pos, KWARGS, *itertools.chain.from_iterable(kws.items())) if kws else pos


@pytest.mark.parametrize("release", [False, True])
@pytest.mark.parametrize(
    ("pos", "kws"),
    [
        ((2,), {"b": KWARGS}),
        ((), {"a": KWARGS, "b": 2}),
        ((1, 2), {"c": KWARGS}),
        ((KWARGS, 2), {"c": 3}),
        ((1, KWARGS, "b"), {"c": 3}),
        ((1, KWARGS), {"b": 2}),
    ],
)
def test_sentinel_beside_keywords_is_refused_like_in_cpp(release, pos, kws):
    # Issue 31.7: the target never gets the sentinel as a value (a KWARGS-aware target would
    # read it as a tail of its own); the error is the one C++ gives for the same values.
    target = tvm_ffi.get_global_func("ffi.Array")  # a wrapper of its own: its own setting
    target.release_gil = not release
    f = kwcall.wrap(target, kwcall.Signature(["a", "b", "c"], (7,), name="f"))
    f.release_gil = release
    with pytest.raises(TypeError) as from_python:
        f(*pos, **kws)
    with pytest.raises(TypeError) as from_cpp:
        cpp_handle(f)(*_packed(pos, kws))
    # Same words; the type of a non-string key is named in each language's terms.
    assert str(from_python.value).split(", got")[0] == str(from_cpp.value).split(", got")[0]
    with pytest.raises(TypeError) as from_vectorcall:
        vectorcall(f, pos, tuple(kws.items()))
    assert str(from_vectorcall.value) == str(from_python.value)


def test_an_empty_kwnames_is_a_call_without_keywords():
    # Issue 31.7: a C caller may pass an empty kwnames tuple for no keywords; the sentinel
    # still starts a tail, at full arity too.
    f = kwcall.wrap(collect, kwcall.Signature(["a", "b", "c"], (7, 8), name="f"))
    assert plain(vectorcall(f, (1, KWARGS, "c", 3), (), kwnames=())) == (1, 7, 3)
    with pytest.raises(TypeError, match="KWARGS must be followed by name/value pairs"):
        vectorcall(f, (1, KWARGS, "c"), (), kwnames=())
    assert plain(vectorcall(f, (1, 2, 3), (), kwnames=())) == (1, 2, 3)


def test_a_kwargs_aware_target_never_reads_a_sentinel_value_as_its_tail():
    inner = kwcall.wrap(collect, kwcall.Signature(["a", "b", "c"], (7, 8), name="inner"))
    outer = kwcall.wrap(inner, kwcall.Signature(["a", "b", "c"], name="outer"))
    with pytest.raises(TypeError, match="cannot be the value of keyword 'c'"):
        outer(5, 6, c=KWARGS)


def test_sentinel_in_a_python_kwargs_tail_is_refused_like_in_cpp():
    f = kwcall.wrap(collect, kwcall.Signature(["a", "b"], (7,), name="f"))
    h = cpp_handle(f)
    calls = [
        (1, KWARGS, "b"),
        (1, KWARGS, 5, 3),
        (1, KWARGS, KWARGS, 3),
        (1, KWARGS, "b", KWARGS),
    ]
    for call in calls:
        with pytest.raises(TypeError) as from_python:
            f(*call)
        with pytest.raises(TypeError) as from_cpp:
            h(*call)
        # Same words; the type of a non-string key is named in each language's terms.
        assert str(from_python.value).split(", got")[0] == str(from_cpp.value).split(", got")[0]


@needs_unpack
def test_kwargs_tail_from_python_unpacks_dataclasses():
    @dataclasses.dataclass
    class P:
        x: int
        y: int

    f = kwcall.make_kwargs_wrapper(collect, ["p", "z"], (0,), map_dataclass_to_tuple=["p"])
    assert plain(f(P(1, 2), KWARGS, "z", 3)) == ((1, 2), 3)
    assert plain(f(KWARGS, "p", P(1, 2))) == ((1, 2), 0)
    assert plain(f(P(1, 2), z=3)) == ((1, 2), 3)


# -- signature specs --------------------------------------------------------------------
def test_posonly_count_out_of_range_is_refused_not_truncated():
    with pytest.raises(ValueError, match=r"posonly_count must be between 0 and 2, got 4294967297"):
        kwcall.Signature(["a", "b"], posonly_count=2**32 + 1)


def test_json_with_huge_or_odd_numbers_is_refused():
    with pytest.raises(ValueError, match="Signature version 4294967297 is not supported"):
        kwcall.Signature.from_json('{"version": 4294967297, "params": []}')
    with pytest.raises(TypeError, match="field 'version' must be an integer"):
        kwcall.Signature.from_json('{"version": 1.5, "params": []}')


def test_deep_json_is_refused_before_parsing():
    with pytest.raises(ValueError, match="nest deeper than the limit"):
        kwcall.Signature.from_json("[" * 20000 + "]" * 20000)
    with pytest.raises(ValueError, match="nest deeper than the limit"):
        kwcall.Signature.from_json('{"a": ' * 20000 + "1" + "}" * 20000)


def test_deep_defaults_are_refused_before_conversion():
    deep = 1
    for _ in range(20000):
        deep = [deep]
    with pytest.raises(ValueError, match=r"deeper than the limit \(kwcall::kMaxNestingDepth\)"):
        kwcall.Signature(["a"], (deep,))
    ok = 1
    for _ in range(kwcall._signature.MAX_NESTING_DEPTH):
        ok = [ok]
    sig = kwcall.Signature(["a"], (ok,))
    assert kwcall.Signature.from_json(sig.to_json()) == sig
    with pytest.raises(ValueError, match="deeper than the limit"):
        kwcall.Signature(["a"], ([ok],))


def test_limits_are_explicit():
    limits = tvm_ffi.get_global_func("kwcall.Limits")()
    assert dict(limits) == {
        "max_params": 1024,
        "max_name_bytes": 1024,
        "max_nesting_depth": 64,
        "max_default_elements": 65536,
        "max_json_bytes": 4 * 1024 * 1024,
    }
    names = [f"p{i}" for i in range(1025)]
    with pytest.raises(ValueError, match=r"1025 parameters; the limit \(kwcall::kMaxParams\)"):
        kwcall.Signature(names)
    assert len(kwcall.Signature(names[:1024]).arg_names) == 1024
    with pytest.raises(ValueError, match=r"1025 bytes long; the limit \(kwcall::kMaxNameBytes\)"):
        kwcall.Signature(["x" * 1025])


def test_default_elements_are_bounded_before_conversion():
    # Issue 18.6: all defaults together hold at most kwcall::kMaxDefaultElements items.
    limit = kwcall._signature.MAX_DEFAULT_ELEMENTS
    assert len(kwcall.Signature(["a"], ([0] * limit,)).arg_defaults[0]) == limit
    with pytest.raises(ValueError, match=r"the limit is kwcall::kMaxDefaultElements") as e:
        kwcall.Signature(["a", "b"], ([0] * limit, {"k": 1}), name="f")
    assert "The defaults of f() hold more than 65536" in str(e.value)
    assert "(at parameter 'b')" in str(e.value)
    # Refused before tvm-ffi converts it: 50 million items, and a list shared at every level
    # (2**64 items to walk), each in well under a second.
    start = time.perf_counter()
    with pytest.raises(ValueError, match="kMaxDefaultElements"):
        kwcall.Signature(["a"], ([0] * 50_000_000,))
    shared = [0]
    for _ in range(kwcall._signature.MAX_NESTING_DEPTH - 1):  # as deep as allowed
        shared = [shared, shared]
    with pytest.raises(ValueError, match="kMaxDefaultElements"):
        kwcall.Signature(["a"], (shared,))
    assert time.perf_counter() - start < 5 * TIME_SCALE


def test_json_is_bounded_and_read_strictly():
    # Issue 18.6 and 18.7: text past kwcall::kMaxJsonBytes is refused before it is parsed;
    # "unpack" must be a JSON boolean and "version" an integer; reserved names are refused.
    huge = '{"version": 1, "params": [], "name": "' + "x" * (4 * 1024 * 1024) + '"}'
    with pytest.raises(ValueError, match=r"bytes; the limit \(kwcall::kMaxJsonBytes\)"):
        kwcall.Signature.from_json(huge)

    def text(version: str = "1", unpack: str | None = None) -> str:
        param = '{"name": "x", "kind": "KEYWORD_ONLY", "unpack": ' + unpack + "}" if unpack else ""
        return '{"version": ' + version + ', "params": [' + param + "]}"

    for lax in ("1", "2", "0", '"true"', "null"):
        with pytest.raises(TypeError, match="field 'unpack' must be a bool"):
            kwcall.Signature.from_json(text(unpack=lax))
    assert kwcall.Signature.from_json(text(unpack="true")).unpack == ("x",)
    for lax in ("true", "false", "1.0"):
        with pytest.raises(TypeError, match="field 'version' must be an integer"):
            kwcall.Signature.from_json(text(version=lax))
    reserved = '{"version": 1, "params": [{"name": "__i_target_func", "kind": "KEYWORD_ONLY"}]}'
    with pytest.raises(ValueError, match=r"'__i_target_func' is reserved by tvm-ffi"):
        kwcall.Signature.from_json(reserved)
    with pytest.raises(ValueError, match=r"'__i_MISSING' is reserved by tvm-ffi"):
        kwcall.Signature.from_inspect(
            inspect.Signature([inspect.Parameter("__i_MISSING", inspect.Parameter.KEYWORD_ONLY)])
        )


# -- the call-shape cache -----------------------------------------------------------------
def test_cache_survives_a_key_that_calls_the_function_when_released():
    # The shape cache keeps parameter indices, not the caller's kwnames: a key whose __del__
    # calls the function again dies when the caller drops it, and re-enters a function whose
    # cache must stay consistent while other shapes replace the last one.
    f = kwcall.wrap(collect, kwcall.Signature(["a"], (), ["c"], {"c": 0}, name="f"))
    seen = []

    class Key(str):
        def __del__(self):
            seen.append(plain(f(5, c=6)))  # re-enters the function as the key dies

    for i in range(50):
        kwnames = (Key("c"),)
        assert plain(vectorcall(f, (i,), (("c", 2),), kwnames=kwnames)) == (i, 2)
        del kwnames  # the last reference: Key.__del__ runs here
        assert plain(f(3, c=4)) == (3, 4)
        assert plain(f(i, **{"".join(["c"]): 7})) == (i, 7)  # a key that is not interned
    gc.collect()
    assert seen == [(5, 6)] * 50


# -- error paths stay cheap ---------------------------------------------------------------
def test_positional_only_parameters_by_keyword_error_is_not_cubic():
    # A complexity guard, not a timing claim: with one lookup per keyword this takes about
    # a millisecond; the old cubic search took ~4 s for 1,000 parameters.
    n = 1024
    names = [f"p{i}" for i in range(n)]
    f = kwcall.wrap(collect, kwcall.Signature(names, posonly_count=n, name="wide"))
    ns: dict = {}
    exec(f"def wide({', '.join(names)}, /): pass", ns)
    kwargs = {name: 0 for name in names}
    with pytest.raises(TypeError) as expected:
        ns["wide"](**kwargs)
    start = time.perf_counter()
    with pytest.raises(TypeError) as got:
        f(**kwargs)
    with pytest.raises(TypeError) as from_cpp:
        cpp_handle(f)(KWARGS, *[x for name in names for x in (name, 0)])
    assert time.perf_counter() - start < 1.0 * TIME_SCALE
    assert str(got.value) == str(expected.value) == str(from_cpp.value)


# -- messages -----------------------------------------------------------------------------
def test_display_name_with_nul_is_kept_in_messages():
    f = kwcall.wrap(collect, kwcall.Signature(["a"], name="x\0y"))
    want = "x\0y() missing 1 required positional argument: 'a'"
    with pytest.raises(TypeError) as from_python:
        f()
    with pytest.raises(TypeError) as from_cpp:
        cpp_handle(f)()
    assert str(from_python.value) == want
    assert str(from_cpp.value) == want


def test_keyword_with_lone_surrogate_is_reported_as_cpython_does():
    f = kwcall.wrap(collect, kwcall.Signature(["a"], name="f"))

    def reference(a):
        pass

    reference.__qualname__ = "f"
    key = "b\udcff"
    with pytest.raises(TypeError) as expected:
        reference(1, **{key: 2})
    with pytest.raises(TypeError) as got:
        f(1, **{key: 2})
    assert str(got.value) == str(expected.value)


def test_preprocess_step_with_non_string_keys():
    sig = kwcall.Signature(["a"], name="f")
    f = kwcall._function.make(kwcall.Function, collect, sig, lambda args, kwargs: (args, {1: 2}))
    with pytest.raises(TypeError, match="^keywords must be strings$"):
        f(1)
    assert plain(kwcall._function.make(kwcall.Function, collect, sig)(1)) == (1,)  # no step


# -- defaults -----------------------------------------------------------------------------
def test_mutable_default_changes_are_seen_by_python_callers_only():
    # Decided and documented (docs/DESIGN.md): Python callers get the default object itself,
    # as with a def; C++ callers get the FFI value made when the signature was.
    items = [1]
    f = kwcall.wrap(collect, kwcall.Signature(["a", "b"], (items,), name="f"))
    p = kwcall.wrap(py_collect, kwcall.Signature(["a", "b"], (items,), name="p"))
    items.append(2)
    assert plain(f(0)) == (0, (1, 2))
    assert p(0)[1] is items
    assert plain(cpp_handle(f)(0)) == (0, (1,))
