"""kwcall's keyword-name suggestion against CPython 3.13's own.

From 3.13 on, CPython ends ``f() got an unexpected keyword argument 'alhpa'`` with
``. Did you mean 'alpha'?`` when a parameter name is close enough. kwcall picks that name in
C++ (``kwcall::SuggestName``, src/binding/suggest.cc), reached here through the testing global
``kwcall.testing.SuggestName(key, candidates) -> index or -1``.

The oracle is the interpreter itself: each generated signature becomes a ``def`` compiled with
``exec``, which is called with the unknown keyword (through ``**{key: 1}``, so that the key is
any string, never normalized); the TypeError text must be exactly the one built from the
candidate kwcall picks. CPython's candidates are the parameters that may be passed by keyword,
in declaration order (positional-or-keyword, then keyword-only); they are read back from the
code object, since the compiler NFKC-normalizes names written in source.

Generated names aim at the edges of CPython's rule: one or a few edits away (insertions,
deletions, substitutions, transpositions, case flips), long common prefixes and suffixes around
a difference (the differing middle is compared only up to 40 bytes), non-ASCII letters
(compared as UTF-8 bytes), ties between equally close names, and signatures around the
750-candidate limit.
"""

from __future__ import annotations

import keyword
import sys
import unicodedata

import pytest

if sys.version_info < (3, 13):
    pytest.skip(
        "CPython suggests keyword names only from 3.13 on; earlier versions have no oracle",
        allow_module_level=True,
    )

from helpers import internals_global  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

N_SIGNATURES = 1500
N_ANY_STRINGS = 500
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

_suggest = internals_global("kwcall.testing.SuggestName")


def suggest(key: str, candidates: list[str]) -> int:
    return int(_suggest(key, list(candidates)))


# --------------------------------------------------------------------------
# the oracle
# --------------------------------------------------------------------------


def build(names: list[str], posonly: int, kwonly_at: int, star_args: bool):
    """``def f(<posonly>, /, <positional-or-keyword>, *[args], <keyword-only>)``."""
    parts = list(names[:posonly]) + (["/"] if posonly else []) + list(names[posonly:kwonly_at])
    if kwonly_at < len(names):
        parts.append("*args" if star_args else "*")
        parts += names[kwonly_at:]
    elif star_args:
        parts.append("*args")
    ns: dict = {}
    exec(f"def f({', '.join(parts)}):\n    pass\n", ns)  # the oracle is generated source
    return ns["f"]


def keyword_names(fn) -> list[str]:
    """The names CPython suggests among: those a keyword may bind, as compiled."""
    code = fn.__code__
    first, end = code.co_posonlyargcount, code.co_argcount + code.co_kwonlyargcount
    return list(code.co_varnames[first:end])


def cpython_message(fn, key: str) -> str:
    with pytest.raises(TypeError) as info:
        fn(**{key: 1})
    return str(info.value)


def check(fn, key: str) -> int:
    """Assert that kwcall's pick reproduces CPython's message; return the pick."""
    candidates = keyword_names(fn)
    index = suggest(key, candidates)
    assert -1 <= index < len(candidates)
    expected = f"f() got an unexpected keyword argument '{key}'"
    if index >= 0:
        expected += f". Did you mean '{candidates[index]}'?"
    assert cpython_message(fn, key) == expected, (candidates, key)
    return index


# --------------------------------------------------------------------------
# strategies
# --------------------------------------------------------------------------

ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
DIGITS = "0123456789"
# Letters valid in identifiers, of two, three and four UTF-8 bytes; "ﬁ" becomes "fi" once
# compiled (NFKC), which is why candidates are read back from the code object.
NON_ASCII = "éèßñøÉÀαβλΩжДÿ中文日ﬁ𝔸"
# Characters no identifier has, reachable only as a **kwargs key: ASCII punctuation that shares
# its low five bits with a letter ("@" and "`", "[" and "{"), controls, a symbol, an emoji.
KEY_ONLY = "@`[{-. \x00\x7f€😀"

FIRST_CHARS = ASCII_LETTERS + NON_ASCII
NAME_CHARS = FIRST_CHARS + DIGITS


# Strategies are built once: hypothesis validates each new strategy object on first use, which
# would dominate the cost of these small draws.
FIRST_CHAR = st.sampled_from(FIRST_CHARS)
NAME_CHAR = st.sampled_from(NAME_CHARS)
KEY_CHAR = st.sampled_from(NAME_CHARS + KEY_ONLY)
INDEX = st.integers(0, 63)  # taken modulo the size of what it indexes
N_EDITS = st.sampled_from([1, 1, 1, 2, 3])
EDIT = st.sampled_from(["insert", "delete", "replace", "swap", "case", "all_case"])
NAME_KIND = st.sampled_from(["near", "near", "padded", "fresh"])
KEY_KIND = st.sampled_from(["name", "name", "name", "base", "padded", "random"])
ANY_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12)

# Short names drawn character by character; long ones come from padding (below), which keeps
# generation cheap.
base_names = st.builds(
    lambda first, rest: first + rest, FIRST_CHAR, st.text(alphabet=NAME_CHARS, max_size=11)
)
# A long common prefix and suffix put around a name.
pads = st.builds(lambda c, n: c * n, st.sampled_from("xY_é"), st.integers(15, 45))


def pick(draw, items):
    return items[draw(INDEX) % len(items)]


def near_miss(draw, name: str, char) -> str:
    """``name`` after a few small edits, inserting or replacing with ``char`` draws."""
    chars = list(name)
    for _ in range(draw(N_EDITS)):
        op = draw(EDIT)
        at = draw(INDEX) % (len(chars) + 1)
        if op == "insert":
            chars.insert(at, draw(char))
        elif not chars:
            continue
        elif op == "delete":
            del chars[min(at, len(chars) - 1)]
        elif op == "replace":
            chars[min(at, len(chars) - 1)] = draw(char)
        elif op == "swap" and len(chars) > 1:
            at = min(at, len(chars) - 2)
            chars[at], chars[at + 1] = chars[at + 1], chars[at]
        elif op == "case":
            at = min(at, len(chars) - 1)
            chars[at] = chars[at].swapcase()
        elif op == "all_case":
            chars = list("".join(chars).swapcase())
    return "".join(chars)


@st.composite
def cases(draw):
    """(names, posonly, kwonly_at, star_args, key).

    The names are valid and distinct once compiled, and none is "args", the name of the
    optional ``*args``; the key may be any string, a parameter's name included.
    """
    bases = draw(st.lists(base_names, min_size=1, max_size=3))
    pad = draw(pads)
    names: list[str] = []
    for _ in range(draw(st.integers(0, 7))):
        kind = draw(NAME_KIND)
        if kind == "fresh":
            name = draw(base_names)
        else:
            name = near_miss(draw, pick(draw, bases), NAME_CHAR)
            if kind == "padded":
                name = pad + name + pad
        name = unicodedata.normalize("NFKC", name)
        if name.isidentifier() and not keyword.iskeyword(name) and name not in names + ["args"]:
            names.append(name)
    posonly = draw(st.integers(0, len(names)))
    kwonly_at = draw(st.integers(posonly, len(names)))
    star_args = draw(st.booleans())

    kind = draw(KEY_KIND)
    if kind == "random":
        key = draw(ANY_TEXT)
    elif kind == "name" and names:
        key = near_miss(draw, pick(draw, names), KEY_CHAR)
    else:
        key = near_miss(draw, pick(draw, bases + ["args"]), KEY_CHAR)
        if kind == "padded":
            key = pad + key + pad
    return names, posonly, kwonly_at, star_args, key


# --------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------


@settings(max_examples=N_SIGNATURES, **SETTINGS)
@given(case=cases())
def test_random_signatures_match_cpython(case):
    names, posonly, kwonly_at, star_args, key = case
    fn = build(names, posonly, kwonly_at, star_args)
    assert keyword_names(fn) == names[posonly:]
    if key in names:  # it binds (or, positional-only, fails with another message)
        return
    check(fn, key)


def _edge(names, key, posonly=0):
    return pytest.param(names, key, posonly, id=f"{key[:24]}|{','.join(n[:12] for n in names)}")


EDGE_CASES = [
    _edge(["alpha"], "alhpa"),  # a transposition costs two substitutions
    _edge(["alpha", "beta"], "alpah", posonly=1),  # positional-only names are never suggested
    _edge(["abc"], "ABC"),  # three case flips, 3 <= (3 + 3 + 3) * 2 // 6
    _edge(["abcd"], "ABCD"),  # four case flips, 4 > (4 + 4 + 3) * 2 // 6
    _edge(["ab", "ba"], "aa"),  # a tie: the first candidate wins
    _edge(["ba", "ab"], "aa"),
    _edge(["xe"], "xé"),  # UTF-8 bytes: "é" is two bytes away from "e", not one character
    _edge(["aé"], "aè"),  # ...and differs from "è" in one byte
    _edge(["p" + "x" * 38 + "s"], "q" + "x" * 38 + "r"),  # differing middle of 40 bytes
    _edge(["p" + "x" * 39 + "s"], "q" + "x" * 39 + "r"),  # 41 bytes: never compared
    _edge(["x" * 100], "x" * 101),  # nothing left after the common prefix: no length limit
    _edge(["x" * 100], "x" * 50),
    _edge(["ab"], "a\x00"),
    _edge(["ab"], "a b"),
    _edge(["ab"], ""),
    _edge(["self", "a"], "sel"),
]


@pytest.mark.parametrize("names, key, posonly", EDGE_CASES)
def test_edge_cases_match_cpython(names, key, posonly):
    check(build(names, posonly, len(names), False), key)


def test_edge_cases_expected_picks():
    """The edge cases above do exercise both outcomes (guards the oracle's setup)."""
    picks = [check(build(n, p, len(n), False), k) for n, k, p in (c.values for c in EDGE_CASES)]
    assert picks == [0, -1, 0, -1, 0, 0, -1, 0, 0, -1, 0, -1, 0, 0, -1, 0]


@pytest.mark.parametrize(
    "n_keyword, n_posonly", [(749, 0), (750, 0), (751, 0), (749, 20), (750, 20)]
)
def test_candidate_count_limit(n_keyword, n_posonly):
    """750 keyword-capable parameters or more: no suggestion; positional-only ones don't count."""
    names = [f"p{i}" for i in range(n_posonly + n_keyword)]
    fn = build(names, n_posonly, len(names), False)
    index = check(fn, "p7490")
    assert (index >= 0) == (n_keyword < 750)


# CPython 3.13 exposes the same routine for any list of strings (traceback.py uses it); with it,
# candidates equal to the key (skipped) and names no `def` can declare are checked too.
try:
    import _suggestions  # noqa: E402
except ImportError:  # pragma: no cover - a build of CPython without the module
    _suggestions = None


@st.composite
def any_strings(draw):
    """(names, key): any strings, the key sometimes among the names."""
    text = st.text(alphabet=NAME_CHARS + KEY_ONLY, max_size=12)
    names = draw(st.lists(st.one_of(text, base_names), max_size=8))
    if names and draw(st.booleans()):
        key = near_miss(draw, pick(draw, names), KEY_CHAR)
    else:
        key = draw(text)
    if draw(st.booleans()):
        names.insert(draw(INDEX) % (len(names) + 1), key)  # equal to the key: skipped
    return names, key


@pytest.mark.skipif(_suggestions is None, reason="this CPython has no _suggestions module")
@settings(max_examples=N_ANY_STRINGS, **SETTINGS)
@given(case=any_strings())
def test_any_strings_match_cpython_routine(case):
    names, key = case
    expected = _suggestions._generate_suggestions(names, key)
    index = suggest(key, names)
    assert (names[index] if index >= 0 else None) == expected, (names, key)
