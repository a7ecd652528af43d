"""Differential tests: kwcall's binder against CPython itself.

For every generated signature an equivalent ``def`` is built with ``exec`` and
used as the oracle.  Each generated call is made on the oracle and on kwcall,
and both must agree on the outcome: the same bound tuple, or a ``TypeError``
with the identical message.

Paths checked:

* Python path: ``kwcall.Function`` called from Python (vectorcall), with
  interned and non-interned keyword names.
* C++ path: the same function registered as a global and fetched back as a
  plain ``tvm_ffi.Function``, whose handle is the C++ kwcall function, called
  with tvm-ffi's KWARGS convention (no Python binding involved).  The one
  documented difference is the native convention: a packed call with no KWARGS
  sentinel and exactly ``len(all parameters)`` positional arguments is
  forwarded to the target untouched.
* Duplicate keyword names, which Python call syntax cannot express.  The
  oracle is CPython's own binder reached through ``PyObject_Vectorcall`` with a
  ``kwnames`` tuple that repeats a name; the same C-level call is also made on
  ``kwcall.Function``.

Errors from the C++ path reach Python as ``TypeError`` whose ``str()`` is the
bare message (tvm-ffi keeps its traceback context in ``__traceback__``), so
messages are compared with ``==``.
"""

from __future__ import annotations

import dataclasses
import keyword
from typing import Any

import kwcall
import pytest
import tvm_ffi
from helpers import cpp_handle, not_interned, outcome, vectorcall
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

KWARGS = tvm_ffi.core.KWARGS

# Roughly 3000 generated cases in total; well under a minute on 2 cores.
N_PYTHON = 1200
N_CPP = 1200
N_DUPLICATES = 600

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --------------------------------------------------------------------------
# model of a signature and of a call
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Spec:
    """A Python signature ``def name(pos..., *, kwonly...)``."""

    name: str
    pos_names: tuple[str, ...]
    posonly_count: int
    pos_defaults: tuple[int, ...]  # right-aligned over pos_names
    kwonly_names: tuple[str, ...] = ()
    kwonly_defaults: tuple[tuple[str, int], ...] = ()  # (name, value), subset of kwonly_names

    @property
    def all_names(self) -> tuple[str, ...]:
        return self.pos_names + self.kwonly_names

    def source(self, def_name: str) -> str:
        n_required = len(self.pos_names) - len(self.pos_defaults)
        parts: list[str] = []
        for i, n in enumerate(self.pos_names):
            d = i - n_required
            parts.append(f"{n}={self.pos_defaults[d]!r}" if d >= 0 else n)
            if self.posonly_count and i == self.posonly_count - 1:
                parts.append("/")
        if self.kwonly_names:
            parts.append("*")
            kwd = dict(self.kwonly_defaults)
            for n in self.kwonly_names:
                parts.append(f"{n}={kwd[n]!r}" if n in kwd else n)
        ret = ", ".join(self.all_names)
        return f"def {def_name}({', '.join(parts)}):\n    return ({ret}{',' if ret else ''})\n"


@dataclasses.dataclass(frozen=True)
class Case:
    spec: Spec
    pos: tuple[int, ...] = ()
    kws: tuple[tuple[str, int], ...] = ()  # ordered; may repeat names in duplicate tests


def build_oracle(spec: Spec):
    """Compile the equivalent Python function; its qualname is the display name."""
    def_name = spec.name if spec.name.isidentifier() else "_oracle_fn"
    if keyword.iskeyword(def_name):
        def_name = "_oracle_fn"
    ns: dict[str, Any] = {}
    exec(spec.source(def_name), ns)  # the oracle is generated source
    fn = ns[def_name]
    fn.__qualname__ = spec.name  # CPython's TypeError texts use the qualname
    return fn


def build_kwcall(spec: Spec) -> kwcall.Function:
    sig = kwcall.Signature(
        arg_names=list(spec.pos_names),
        arg_defaults=tuple(spec.pos_defaults),
        kwonly_names=list(spec.kwonly_names),
        kwonly_defaults=dict(spec.kwonly_defaults),
        posonly_count=spec.posonly_count,
        name=spec.name,
    )
    return kwcall.wrap(_ECHO, sig)


_ECHO = tvm_ffi.convert(lambda *a: tuple(a))


def cpp_kwargs_tail(kws) -> list[Any]:
    tail: list[Any] = []
    for k, v in kws:
        tail += [k, v]
    return tail


# --------------------------------------------------------------------------
# strategies
# --------------------------------------------------------------------------

NAME_POOL = [
    "a",
    "b",
    "c",
    "p",
    "q",
    "k",
    "m",
    "x1",
    "self",
    "value",  # 5 chars
    "seven_c",  # exactly 7: still inline in tvm-ffi
    "eight_ch",  # 8: heap-allocated in tvm-ffi
    "a_rather_long_parameter_name",
]
UNKNOWN_POOL = ["zz", "x", "unknown", "not_a_parameter_name", "A", "b_"]

_FIRST = "abcdefghijklmnopqrstuvwxyz_"
identifiers = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from(_FIRST),
    st.text(alphabet=_FIRST + "0123456789", max_size=11),
).filter(lambda s: not keyword.iskeyword(s))
# kwcall reserves tvm-ffi's "__i_" prefix for parameter names (see Signature).
param_names = st.one_of(
    st.sampled_from(NAME_POOL), identifiers.filter(lambda s: not s.startswith("__i_"))
)
display_names = st.one_of(
    st.sampled_from(["f", "g", "kernel", "my_function_name", "Outer.method", "<lambda>"]),
    identifiers,
    st.builds(lambda a, b: f"{a}.<locals>.{b}", identifiers, identifiers),
)
small_ints = st.integers(-(2**40), 2**40)


@st.composite
def specs(draw) -> Spec:
    n_pos = draw(st.integers(0, 6))
    n_kwonly = draw(st.integers(0, 4))
    names = draw(
        st.lists(param_names, min_size=n_pos + n_kwonly, max_size=n_pos + n_kwonly, unique=True)
    )
    pos_names, kwonly_names = tuple(names[:n_pos]), tuple(names[n_pos:])
    posonly = draw(st.integers(0, n_pos))
    n_defaults = draw(st.integers(0, n_pos))
    pos_defaults = tuple(draw(st.lists(small_ints, min_size=n_defaults, max_size=n_defaults)))
    has_default = draw(st.lists(st.booleans(), min_size=n_kwonly, max_size=n_kwonly))
    kwonly_defaults = tuple(
        (n, draw(small_ints)) for n, d in zip(kwonly_names, has_default, strict=False) if d
    )
    return Spec(
        draw(display_names), pos_names, posonly, pos_defaults, kwonly_names, kwonly_defaults
    )


@st.composite
def cases(draw, duplicates: bool = False) -> Case:
    spec = draw(specs())
    n_all = len(spec.all_names)
    # Bias the count towards the interesting region around the parameter count.
    n_pos = draw(st.one_of(st.integers(0, 8), st.integers(max(0, n_all - 2), min(8, n_all + 1))))
    pos = tuple(draw(st.lists(small_ints, min_size=n_pos, max_size=n_pos)))
    # Known names about three times as often as unknown ones.
    pool = spec.all_names * 3 + tuple(UNKNOWN_POOL) if spec.all_names else tuple(UNKNOWN_POOL)
    key_names = st.integers(0, len(pool) - 1).map(pool.__getitem__)
    if not duplicates and draw(st.integers(0, 2)) == 0:
        # Mostly well-formed: a positional prefix, then a shuffled subset of the
        # remaining (non-positional-only) names by keyword.
        n_given = draw(st.integers(0, len(spec.pos_names)))
        pos = tuple(draw(st.lists(small_ints, min_size=n_given, max_size=n_given)))
        rest = [n for i, n in enumerate(spec.all_names) if i >= max(n_given, spec.posonly_count)]
        chosen = draw(st.permutations(rest))[: draw(st.integers(0, len(rest)))]
        return Case(spec, pos, tuple((n, draw(small_ints)) for n in chosen[:6]))
    if duplicates:
        kws = draw(st.lists(st.tuples(key_names, small_ints), min_size=1, max_size=6))
        # Make sure a name repeats.
        i = draw(st.integers(0, len(kws) - 1))
        kws.insert(draw(st.integers(i + 1, len(kws))), (kws[i][0], draw(small_ints)))
    else:
        kws = draw(
            st.lists(st.tuples(key_names, small_ints), max_size=6, unique_by=lambda kv: kv[0])
        )
    return Case(spec, pos, tuple(kws))


# --------------------------------------------------------------------------
# explicit cases: one or more per CPython error kind
# --------------------------------------------------------------------------

S_MAIN = Spec("f", ("p", "a", "b"), 1, (10,), ("k", "m"), (("m", 20),))
S_ABC = Spec("f", ("a", "b", "c"), 0, ())
S_KW2 = Spec("f", ("a",), 0, (), ("k", "eight_ch", "m"), (("m", 3),))
S_DEFAULTS = Spec("f", ("a", "b", "c"), 0, (1, 2))
S_KWONLY_ONE = Spec("f", ("a",), 0, (), ("k",))
S_EMPTY = Spec("g", (), 0, ())
S_POSONLY = Spec(
    "Outer.method", ("p", "q", "a_rather_long_parameter_name"), 2, (), ("k",), (("k", 1),)
)

EXAMPLES = [
    Case(S_MAIN, (1, 2), (("k", 3),)),  # success with defaults
    Case(S_MAIN, (1, 2, 3), (("m", 4), ("k", 5))),  # success, keywords out of order
    Case(S_MAIN, (1,), (("k", 3),)),  # missing 1 positional
    Case(S_ABC, (1,)),  # missing 2 positional: 'b' and 'c'
    Case(S_ABC, ()),  # missing 3 positional: 'a', 'b', and 'c'
    Case(S_ABC, (), (("b", 1),)),  # missing 2 positional around a keyword
    Case(S_MAIN, (1, 2)),  # missing keyword-only 'k'
    Case(S_KW2, (1,)),  # missing 2 keyword-only: 'k' and 'eight_ch'
    Case(S_ABC, (1, 2, 3, 4)),  # takes 3 positional arguments but 4 were given
    Case(S_KWONLY_ONE, (1, 2), (("k", 3),)),  # ... (and 1 keyword-only argument) ...
    Case(S_KW2, (1, 2), (("k", 3), ("eight_ch", 4))),  # ... (and 2 keyword-only arguments)
    Case(S_DEFAULTS, (1, 2, 3, 4)),  # takes from 1 to 3 positional arguments
    Case(S_MAIN, (1, 2, 3, 4), (("k", 3),)),  # takes from 2 to 3 ... (and 1 keyword-only)
    Case(S_EMPTY, (1,)),  # takes 0 positional arguments but 1 was given
    Case(S_EMPTY, (1, 2), (("zz", 1),)),  # unexpected wins over too many
    Case(S_MAIN, (1, 2), (("k", 3), ("zz", 4))),  # unexpected keyword argument
    Case(S_MAIN, (1, 2), (("a", 3), ("k", 3))),  # multiple values for argument 'a'
    Case(S_MAIN, (), (("p", 1), ("a", 2), ("k", 3))),  # positional-only passed as keyword
    Case(S_POSONLY, (), (("q", 1), ("p", 2))),  # several positional-only names: 'p, q'
    Case(S_POSONLY, (1, 2), (("a_rather_long_parameter_name", 3),)),  # long name by keyword
    Case(S_POSONLY, (1,), (("a_rather_long_parameter_name", 3),)),  # missing posonly 'q'
]

DUPLICATE_EXAMPLES = [
    Case(S_MAIN, (1,), (("a", 1), ("a", 2), ("k", 3))),  # multiple values for 'a'
    Case(S_MAIN, (1, 2, 3), (("k", 1), ("k", 2))),  # duplicate keyword-only
    Case(S_POSONLY, (), (("p", 1), ("p", 2))),  # posonly names repeat: 'p, p'
    Case(S_MAIN, (1,), (("zz", 1), ("zz", 2))),  # unexpected comes first
    Case(S_MAIN, (1, 2, 3, 4, 5, 6), (("m", 1), ("m", 2))),  # duplicate beats too many
]


def with_examples(examples):
    def deco(fn):
        for c in reversed(examples):
            fn = example(case=c)(fn)
        return fn

    return deco


def test_examples_cover_every_error_kind():
    """The explicit examples really produce each CPython error wording."""
    messages = [outcome(lambda c=c: build_oracle(c.spec)(*c.pos, **dict(c.kws))) for c in EXAMPLES]
    texts = [m for kind, m in messages if kind == "TypeError"]
    expected = [
        "f() missing 1 required positional argument: 'a'",
        "f() missing 2 required positional arguments: 'b' and 'c'",
        "f() missing 3 required positional arguments: 'a', 'b', and 'c'",
        "f() missing 1 required keyword-only argument: 'k'",
        "f() missing 2 required keyword-only arguments: 'k' and 'eight_ch'",
        "f() takes 3 positional arguments but 4 were given",
        "f() takes 1 positional argument but 2 positional arguments "
        "(and 1 keyword-only argument) were given",
        "f() takes 1 positional argument but 2 positional arguments "
        "(and 2 keyword-only arguments) were given",
        "f() takes from 1 to 3 positional arguments but 4 were given",
        "f() takes from 2 to 3 positional arguments but 4 positional arguments "
        "(and 1 keyword-only argument) were given",
        "g() takes 0 positional arguments but 1 was given",
        "g() got an unexpected keyword argument 'zz'",
        "f() got an unexpected keyword argument 'zz'",
        "f() got multiple values for argument 'a'",
        "f() got some positional-only arguments passed as keyword arguments: 'p'",
        "Outer.method() got some positional-only arguments passed as keyword arguments: 'p, q'",
        "Outer.method() missing 1 required positional argument: 'q'",
    ]
    for text in expected:
        assert text in texts, text


# --------------------------------------------------------------------------
# differential tests
# --------------------------------------------------------------------------


@settings(max_examples=N_PYTHON, **SETTINGS)
@given(case=cases())
@with_examples(EXAMPLES)
def test_python_path_matches_cpython(case: Case):
    oracle = build_oracle(case.spec)
    f = build_kwcall(case.spec)
    kw = dict(case.kws)
    expected = outcome(lambda: oracle(*case.pos, **kw))

    assert outcome(lambda: f(*case.pos, **kw)) == expected

    # Keyword names that are equal to, but not the same object as, the
    # signature's (interned) names must bind identically.
    kw_fresh = {not_interned(k): v for k, v in case.kws}
    assert outcome(lambda: f(*case.pos, **kw_fresh)) == expected

    # Explicit vectorcall with a kwnames tuple (the C-level entry point).
    assert outcome(lambda: vectorcall(f, case.pos, case.kws)) == expected


@settings(max_examples=N_CPP, **SETTINGS)
@given(case=cases())
@with_examples(EXAMPLES)
def test_cpp_kwargs_path_matches_cpython(case: Case):
    oracle = build_oracle(case.spec)
    h = cpp_handle(build_kwcall(case.spec), "cpp")
    expected = outcome(lambda: oracle(*case.pos, **dict(case.kws)))

    if case.kws:
        got = outcome(lambda: h(*case.pos, KWARGS, *cpp_kwargs_tail(case.kws)))
        assert got == expected
    elif len(case.pos) == len(case.spec.all_names):
        # Native convention: exactly every parameter, no KWARGS sentinel ->
        # forwarded untouched, even where CPython would reject the call
        # (too many positional arguments because of keyword-only params).
        assert outcome(lambda: h(*case.pos)) == ("ok", case.pos)
    else:
        assert outcome(lambda: h(*case.pos)) == expected

    # A KWARGS sentinel with an empty tail is a keyword call: always bound by
    # CPython's rules, never the native forward.
    if not case.kws:
        assert outcome(lambda: h(*case.pos, KWARGS)) == expected


@settings(max_examples=N_DUPLICATES, **SETTINGS)
@given(case=cases(duplicates=True))
@with_examples(DUPLICATE_EXAMPLES)
def test_duplicate_keywords_match_cpython(case: Case):
    names = [k for k, _ in case.kws]
    assert len(set(names)) < len(names)
    oracle = build_oracle(case.spec)
    f = build_kwcall(case.spec)
    h = cpp_handle(f, "dup")
    # CPython's own binder, reached with a kwnames tuple that repeats a name.
    expected = outcome(lambda: vectorcall(oracle, case.pos, case.kws))
    assert expected[0] == "TypeError"

    assert outcome(lambda: h(*case.pos, KWARGS, *cpp_kwargs_tail(case.kws))) == expected
    assert outcome(lambda: vectorcall(f, case.pos, case.kws)) == expected


def test_duplicate_keyword_literal_message():
    """The C++ KWARGS path reports a repeated name with CPython's exact wording."""
    spec = Spec("f", ("a", "b"), 0, (5,))
    h = cpp_handle(build_kwcall(spec), "literal")
    with pytest.raises(TypeError) as info:
        h(KWARGS, "a", 1, "a", 2)
    assert str(info.value) == "f() got multiple values for argument 'a'"
    # Same text CPython gives when 'a' is bound twice (positionally, then by keyword).
    with pytest.raises(TypeError) as ref:
        build_oracle(spec)(1, a=2)
    assert str(ref.value) == str(info.value)


def test_non_interned_keyword_names():
    spec = Spec("f", ("ab", "long_parameter"), 0, (), ("kw_only",))
    f = build_kwcall(spec)
    kw = {
        "".join(["a", "b"]): 1,
        "".join(["long_", "parameter"]): 2,
        "".join(["kw", "_only"]): 3,
    }
    assert all(
        k is not sys_k for k, sys_k in zip(kw, ("ab", "long_parameter", "kw_only"), strict=False)
    )
    assert tuple(f(**kw)) == (1, 2, 3)
    with pytest.raises(TypeError) as info:
        f(1, **{"".join(["a", "b"]): 2}, kw_only=3)
    assert str(info.value) == "f() got multiple values for argument 'ab'"
