"""Keyword names that are not plain strings, against CPython itself.

CPython binds a keyword by pointer against the interned parameter names, then compares any
other key with ``==`` (``PyObject_RichCompareBool``), so a ``str`` subclass's own ``__eq__``
decides: an always-equal key binds the first parameter a keyword may name, a never-equal key
names nothing, and a raising ``__eq__`` propagates. A key that is not a ``str`` at all (C API
callers: ``PyObject_Vectorcall`` with any ``kwnames``) is ``f() keywords must be strings``.
Each case calls the equivalent ``def`` and the kwcall.Function the same way and compares the
outcome: the bound values, or the exception's type and text.
"""

from __future__ import annotations

import itertools
from typing import Any

import kwcall
import pytest
import tvm_ffi
from helpers import plain, vectorcall

_ECHO = tvm_ffi.convert(lambda *a: tuple(a))


class AlwaysEqual(str):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


class NeverEqual(str):
    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = str.__hash__


class RaisingEqual(str):
    def __eq__(self, other: object) -> bool:
        raise LookupError(f"compared {str.__str__(self)} with {other}")

    __hash__ = str.__hash__


class PlainSubclass(str):
    """Compares as str does: binds by its text."""


class Shown(str):
    """Compares as str does, prints as something else."""

    def __str__(self) -> str:
        return "SHOWN"


class RaisingStr(str):
    def __str__(self) -> str:
        raise LookupError(f"str of {str.__str__(self)}")


KEY_TYPES = [AlwaysEqual, NeverEqual, RaisingEqual, PlainSubclass, str]

# Parameter lists of the equivalent defs: every kind, with and without defaults.
PARAMS = [
    "a, b=2, *, c=3",
    "p, /, a, *, k",
    "p, q=1, /",
    "p, /, a=1, *, k=2",
    "*, k=1, m=2",
    "a, b",
]


def oracle(params: str) -> Any:
    names = [n.split("=")[0].strip() for n in params.split(",") if n.strip() not in ("/", "*")]
    ns: dict[str, Any] = {}
    exec(f"def g({params}):\n    return ({', '.join(names)},)\n", ns)  # the oracle is generated
    return ns["g"]


def kwcall_function(fn: Any) -> kwcall.Function:
    return kwcall.wrap(_ECHO, kwcall.Signature.from_callable(fn))


def outcome(call: Any) -> tuple[str, Any]:
    try:
        return ("ok", plain(call()))
    except Exception as err:  # noqa: BLE001 - the outcome is what is compared
        return (type(err).__name__, str(err))


def cases() -> list[tuple[str, tuple, tuple]]:
    """(params, positional arguments, keyword (key, value) pairs)."""
    out = []
    for params in PARAMS:
        names = [n.split("=")[0].strip() for n in params.split(",") if n.strip() not in "/*"]
        for key_type, text, npos in itertools.product(KEY_TYPES, [*names, "zz"], (0, 1)):
            pos = tuple(range(100, 100 + npos))
            odd = key_type(text)
            out.append((params, pos, ((odd, 7),)))
            # Beside a plain keyword, before and after it.
            other = names[-1]
            if other != text:
                out.append((params, pos, ((other, 8), (odd, 7))))
                out.append((params, pos, ((odd, 7), (other, 8))))
    return out


CASES = cases()


@pytest.mark.parametrize(("params", "pos", "kws"), CASES)
def test_str_subclass_keys_bind_as_cpython_binds_them(params, pos, kws):
    fn = oracle(params)
    f = kwcall_function(fn)
    expected = outcome(lambda: vectorcall(fn, pos, kws))
    assert outcome(lambda: vectorcall(f, pos, kws)) == expected
    # Through **kwargs too, which keeps the dict's key objects.
    kwargs = dict(kws)
    assert outcome(lambda: f(*pos, **kwargs)) == outcome(lambda: fn(*pos, **kwargs)) == expected


def test_the_cases_cover_each_behaviour():
    kinds = ["ok", "LookupError", "unexpected", "multiple values", "positional-only", "missing"]
    seen = set()
    for params, pos, kws in CASES:
        kind, text = outcome(lambda: vectorcall(oracle(params), pos, kws))  # noqa: B023
        seen.update(k for k in kinds if k == kind or (kind == "TypeError" and k in text))
    assert seen == set(kinds)


@pytest.mark.parametrize("key_type", [Shown, RaisingStr])
@pytest.mark.parametrize(
    ("params", "pos", "keys"),
    [
        ("p, /, a", (1,), ("p",)),  # positional-only by keyword: the key's own text
        ("p, q=1, /, a=2", (1,), ("q", "p")),
        ("a, bravo=2", (1,), ("brave",)),  # unexpected: shown by str(); 3.13+ suggests 'bravo'
        ("a, b", (1,), ("a",)),  # multiple values: shown by str()
        ("a, *, kappa=1", (), ("a", "kapa")),
    ],
)
def test_keys_whose_str_is_not_their_text(key_type, params, pos, keys):
    # Issue 31.8: CPython joins the keys' own text into the positional-only message and
    # suggests from it, while "unexpected" and "multiple values" print str(key) (which may
    # raise, and then its error is the outcome; 3.10 replaces it with a bare TypeError).
    fn = oracle(params)
    f = kwcall_function(fn)
    kws = tuple((key_type(key), 7 + i) for i, key in enumerate(keys))
    expected = outcome(lambda: vectorcall(fn, pos, kws))
    assert expected[0] != "ok"
    assert outcome(lambda: vectorcall(f, pos, kws)) == expected


@pytest.mark.parametrize(
    "kws",
    [
        ((5, 1),),
        (("a", 1), (None, 2)),
        ((b"a", 1), ("a", 2)),
        (("a", 1), ("a", 2), (5, 3)),  # the repeated name is reported first
        ((AlwaysEqual("a"), 1), (3.0, 2)),
    ],
)
def test_keys_that_are_not_strings(kws):
    fn = oracle("a, b=2, *, c=3")
    f = kwcall_function(fn)
    expected = outcome(lambda: vectorcall(fn, (), kws))
    assert expected[0] == "TypeError"
    assert outcome(lambda: vectorcall(f, (), kws)) == expected


def test_interned_keys_stay_on_the_pointer_compare():
    # A repeated keyword call binds from the remembered shape; a str subclass of the same text
    # never matches it by pointer, so its own __eq__ still decides.
    fn = oracle("a, b=2, *, c=3")
    f = kwcall_function(fn)
    assert plain(f(1, c=5)) == fn(1, c=5)
    assert plain(f(1, c=5)) == fn(1, c=5)
    never = {NeverEqual("c"): 5}
    assert outcome(lambda: f(1, **never)) == outcome(lambda: fn(1, **never))
    assert outcome(lambda: f(1, **never))[0] == "TypeError"


@pytest.fixture
def suggestions_on():
    """CPython 3.13's "Did you mean" wording on whatever Python runs the test (the setting is
    libkwcall's: kwcall::SetKeywordSuggestions), restored afterwards."""
    import ctypes
    from pathlib import Path

    import kwcall.libinfo

    lib = ctypes.CDLL(str(Path(kwcall.libinfo.library_dir()) / "libkwcall.so"))
    get, put = lib._ZN6kwcall18KeywordSuggestionsEv, lib._ZN6kwcall21SetKeywordSuggestionsEb
    get.restype, put.argtypes = ctypes.c_bool, [ctypes.c_bool]
    was = get()
    put(True)
    yield
    put(was)


def test_the_suggestion_for_a_str_subclass_key_comes_from_its_text(suggestions_on):
    # Issue 31.8: CPython 3.13 suggests from the key's own text and prints str(key).
    f = kwcall_function(oracle("a, bravo=2"))
    with pytest.raises(TypeError) as err:
        vectorcall(f, (1,), ((Shown("brave"), 7),))
    assert str(err.value).endswith("unexpected keyword argument 'SHOWN'. Did you mean 'bravo'?")
