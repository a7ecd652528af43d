"""kwcall's parameter-name rule against the running Python's own, code point by code point.

A name is accepted iff ``name.isidentifier()``, ``unicodedata.normalize("NFKC", name) ==
name`` and ``not keyword.iskeyword(name)`` all hold for this interpreter and the name is not
``__debug__`` (the Python parser NFKC-normalizes every identifier it reads, so a name that
normalization changes could never be passed by keyword; its compiler refuses to bind
``__debug__``). C++ (src/identifier.cc, with src/unicode_tables.cc's data) has tables for each
Unicode version of a supported Python (scripts/gen_identifier_table.py) and kwcall selects this
Python's at import.

Three routes are compared with that oracle:

* C++'s check alone, through the testing global ``kwcall.testing.CheckName(name)`` (``""``
  when accepted, else the reason);
* the Python path, ``kwcall.Signature([name])``, and the C++ path, the FFI global
  ``kwcall.Signature`` on the map form (no Python checks): every accepted name, and a
  sample of the refused ones (each costs a C++ exception with a traceback).

The names: every code point alone and after a letter; every precomposed character's
decomposition, partly composed forms, and the same with marks of every combining class put
between (the cases where NFKC's quick check says "maybe" and composition decides); marks of
every class in both orders; the keywords; and ``__debug__``, by every route that makes a
signature.
"""

from __future__ import annotations

import inspect
import keyword
import unicodedata

import kwcall
import pytest
import tvm_ffi
from helpers import internals_global

RUNNING = unicodedata.unidata_version
ID_PROBLEM = "is not a valid Python identifier"
NFKC_PROBLEM = "is not NFKC-normalized"
KEYWORD_PROBLEM = "is a Python keyword"
DEBUG_PROBLEM = "is Python's built-in constant"

_check_name = internals_global("kwcall.testing.CheckName")
_tables_version = tvm_ffi.get_global_func("kwcall.IdentifierUnicodeVersion")
_make_signature = tvm_ffi.get_global_func("kwcall.Signature")

#: The most parameters one signature may have (kwcall::kMaxParams).
MAX_PARAMS = int(tvm_ffi.get_global_func("kwcall.Limits")()["max_params"])


def python_verdict(name: str) -> str:
    """The oracle: "" when this Python accepts `name` as a parameter name, else the start of
    the reason kwcall must give."""
    if not name.isidentifier():
        return ID_PROBLEM
    if unicodedata.normalize("NFKC", name) != name:
        return NFKC_PROBLEM
    if keyword.iskeyword(name):
        return KEYWORD_PROBLEM
    if name == "__debug__":
        return DEBUG_PROBLEM
    return ""


def code_points() -> range:
    return range(0x110000)


def is_surrogate(cp: int) -> bool:
    return 0xD800 <= cp <= 0xDFFF


def shown(name: str) -> str:
    return " ".join(f"U+{ord(c):04X}" for c in name)


def report(mismatches: list[str]) -> str:
    return f"{len(mismatches)} differences, first ones:\n" + "\n".join(mismatches[:40])


def every_code_point_alone_and_after_a_letter() -> list[str]:
    names = []
    for cp in code_points():
        if not is_surrogate(cp):
            names += [chr(cp), "a" + chr(cp)]
    return names


def marks_by_class() -> dict[int, str]:
    """One mark of each nonzero combining class that may follow a letter."""
    marks = {}
    for cp in code_points():
        c = chr(cp)
        ccc = unicodedata.combining(c)
        if ccc and python_verdict("a" + c) == "":
            marks.setdefault(ccc, c)
    return marks


def composition_cases() -> list[str]:
    """Names where canonical composition decides: for each character x with a canonical
    decomposition d, the decomposition itself, after a letter, x's partly composed form
    followed by d's last character, x followed by that character again, and d with a mark of
    each class put before its last character or after its first (blocked or not)."""
    marks = marks_by_class()
    names = []
    for cp in code_points():
        x = chr(cp)
        if is_surrogate(cp):
            continue
        d = unicodedata.normalize("NFD", x)
        if len(d) < 2:
            continue
        names += [d, "a" + d, unicodedata.normalize("NFC", d[:-1]) + d[-1], x + d[-1]]
        if not 0xAC00 <= cp <= 0xD7A3:  # Hangul: no marks (11,172 syllables of two jamo kinds)
            for m in marks.values():
                names += ["a" + d[:-1] + m + d[-1], d[0] + m + d[1:]]
    return names


def marks_in_both_orders() -> list[str]:
    """Every mark that can follow a letter, before and after one mark of each class."""
    by_class = marks_by_class()
    assert len(by_class) > 40
    names = []
    for cp in code_points():
        c = chr(cp)
        if not is_surrogate(cp) and unicodedata.combining(c) and python_verdict("a" + c) == "":
            for other in by_class.values():
                names += ["a" + c + other, "a" + other + c]
    return names


def compare_check_name(names: list[str]) -> list[str]:
    mismatches = []
    for name in names:
        want = python_verdict(name)
        if want in (KEYWORD_PROBLEM, DEBUG_PROBLEM):
            want = ""  # CheckName leaves keywords and __debug__ to the signature
        got = str(_check_name(name))
        if want != got[: len(want)] or (want == "") != (got == ""):
            mismatches.append(f"{shown(name)}: Python {want!r}, C++ {got!r}")
    return mismatches


def signature_paths(accepted: list[str], refused: list[str]) -> list[str]:
    """Names through kwcall.Signature and the C++ global: `accepted` in batches of the most
    parameters a signature may have, `refused` one by one (a refusal costs an exception
    with a traceback, about 0.2 ms)."""
    mismatches = []
    for i in range(0, len(accepted), MAX_PARAMS):
        batch = accepted[i : i + MAX_PARAMS]
        for route in (python_route, cpp_route):
            problem = route(batch)
            if problem:
                bad = next(n for n in batch if route([n]))
                mismatches.append(f"{shown(bad)}: Python accepts it, {route.__name__} {problem!r}")
    for name in refused:
        want = python_verdict(name)
        for route in (python_route, cpp_route):
            got = route([name])
            if want not in got:
                mismatches.append(f"{shown(name)}: Python {want!r}, {route.__name__} {got!r}")
    return mismatches


def refused_at_edges(names: list[str]) -> list[str]:
    """The names Python refuses whose neighbour in `names` gets another verdict: one at each
    end of every run of refusals, so each edge of every table range is met."""
    verdicts = [python_verdict(n) for n in names]
    return [
        name
        for i, name in enumerate(names)
        if verdicts[i]
        and (verdicts[i - 1 : i] != [verdicts[i]] or verdicts[i + 1 : i + 2] != [verdicts[i]])
    ]


def python_route(names: list[str]) -> str:
    try:
        kwcall.Signature(names, name="f")
    except ValueError as error:
        return str(error)
    return ""


def cpp_route(names: list[str]) -> str:
    params = [{"name": n, "kind": "POSITIONAL_OR_KEYWORD"} for n in names]
    try:
        _make_signature({"version": 1, "name": "f", "params": params})
    except ValueError as error:
        return str(error)
    return ""


@pytest.fixture(scope="module")
def everything() -> list[str]:
    return every_code_point_alone_and_after_a_letter()


def test_the_tables_follow_this_python():
    assert str(_tables_version()) == RUNNING, (
        f"kwcall ships no identifier tables for this Python's Unicode {RUNNING}: regenerate "
        "src/identifier_table.inc with it (scripts/gen_identifier_table.py says how)"
    )


def test_every_code_point_alone_and_after_a_letter(everything):
    mismatches = compare_check_name(everything)
    assert not mismatches, report(mismatches)


def test_composition_decides_where_the_quick_check_says_maybe():
    names = composition_cases()
    # The point of these cases: many are normalized although the quick check says "maybe"
    # ('a\u030b' and the like), many are not.
    verdicts = [python_verdict(n) for n in names if "\u0301" in n or "\u030b" in n]
    assert verdicts.count("") > 100 and verdicts.count(NFKC_PROBLEM) > 100
    mismatches = compare_check_name(names)
    assert not mismatches, report(mismatches)


def test_combining_marks_in_both_orders():
    mismatches = compare_check_name(marks_in_both_orders())
    assert not mismatches, report(mismatches)


def test_examples():
    assert check("a\u030b") == ""  # a + double acute: nothing composes it
    assert check("b\u0301") == ""
    assert check("e\u0301").startswith(NFKC_PROBLEM + " (U+0301 at byte 1 composes")
    assert check("\u1100\u1161").startswith(NFKC_PROBLEM)  # U+AC00 decomposed
    assert check("\u1161") == ""  # a Hangul vowel alone composes with nothing
    assert check("\uac00\u11a8").startswith(NFKC_PROBLEM)  # LV + T is an LVT syllable
    assert check("b\u0316\u0301") == ""  # marks in canonical order (220, 230)
    assert check("a\u0301\u0316").startswith(NFKC_PROBLEM + " (U+0316 at byte 3, a mark")
    assert check("e\u0316\u0301").startswith(NFKC_PROBLEM)  # é + 0316: 0316 does not block
    assert check("\ufb01").startswith(NFKC_PROBLEM + " (U+FB01 at byte 0 is replaced")


def check(name: str) -> str:
    return str(_check_name(name))


def test_keywords_and_soft_keywords():
    for name in keyword.kwlist:
        for route in (python_route, cpp_route):
            assert KEYWORD_PROBLEM in route([name]), (name, route.__name__)
    for name in keyword.softkwlist:
        for route in (python_route, cpp_route):
            assert route([name]) == "", (name, route.__name__)


def test_python_and_cpp_signature_paths(everything):
    """Both signature routes accept every name Python accepts among all the names above
    (C++'s check alone meets each refused one), and refuse, with Python's reason, the names
    at the edges of each run of refusals, every NFKC refusal of a single character, and one
    in 20 of the refused composition cases."""
    cases = composition_cases()
    names = everything + cases
    accepted = [n for n in dict.fromkeys(names) if python_verdict(n) == ""]
    refused = refused_at_edges(everything[0::2]) + refused_at_edges(everything[1::2])
    refused += [n for n in everything if python_verdict(n) == NFKC_PROBLEM]
    refused += [n for n in cases if python_verdict(n)][::20]
    assert len(accepted) > 250_000 and len(refused) > 5_000
    mismatches = signature_paths(accepted, sorted(set(refused)))
    assert not mismatches, report(mismatches)


DEBUG_REFUSED = (
    "Invalid parameter name: '__debug__' is Python's built-in constant and cannot be used as "
    "a parameter name (Python refuses it: cannot assign to __debug__); rename the parameter"
)


def cpython_refuses(source: str) -> str:
    """CPython's own verdict on `source`: the SyntaxError message, or "" when it compiles."""
    try:
        compile(source, "<oracle>", "exec")
    except SyntaxError as error:
        return str(error.msg)
    return ""


def test_debug_is_refused_as_cpython_and_stock_tvm_ffi_refuse_it():
    # The oracles: CPython refuses __debug__ as a parameter of every kind (it is no keyword),
    # and tvm-ffi's own make_kwargs_wrapper fails compiling the wrapper it generates.
    from tvm_ffi.utils.kwargs_wrapper import make_kwargs_wrapper as stock_make_kwargs_wrapper

    assert not keyword.iskeyword("__debug__") and "__debug__".isidentifier()
    for source in (
        "def f(__debug__): pass",
        "def f(a, /, __debug__): pass",
        "def f(*, __debug__): pass",
    ):
        assert cpython_refuses(source) == "cannot assign to __debug__", source
    assert cpython_refuses("def f(__debug__x, _debug__, __DEBUG__): pass") == ""
    target = tvm_ffi.convert(lambda *args: args)
    with pytest.raises(SyntaxError, match="cannot assign to __debug__"):
        stock_make_kwargs_wrapper(target, ["__debug__"])
    with pytest.raises(SyntaxError, match="cannot assign to __debug__"):
        stock_make_kwargs_wrapper(target, [], kwonly_names=["__debug__"])

    # kwcall refuses it with one message by every route that makes a signature.
    P = inspect.Parameter
    json_text = (
        '{"version": 1, "name": "f", "params": [{"name": "__debug__", "kind": "KEYWORD_ONLY"}]}'
    )

    def prototype(x):
        return x

    prototype.__signature__ = inspect.Signature([P("__debug__", P.POSITIONAL_OR_KEYWORD)])
    routes = {
        "Signature": lambda: kwcall.Signature(["a", "__debug__"]),
        "Signature kwonly": lambda: kwcall.Signature(["a"], kwonly_names=["__debug__"]),
        "Signature posonly": lambda: kwcall.Signature(["__debug__"], posonly_count=1),
        "from_inspect": lambda: kwcall.Signature.from_inspect(inspect.signature(prototype)),
        "from_callable": lambda: kwcall.Signature.from_callable(prototype),
        "from_json": lambda: kwcall.Signature.from_json(json_text),
        "make_kwargs_wrapper": lambda: kwcall.make_kwargs_wrapper(target, ["__debug__"], (1,)),
        "make_kwargs_wrapper kwonly": lambda: kwcall.make_kwargs_wrapper(
            target, [], kwonly_names=["__debug__"]
        ),
        "make_kwargs_wrapper_from_signature": lambda: kwcall.make_kwargs_wrapper_from_signature(
            target, inspect.signature(prototype)
        ),
        "wrap": lambda: kwcall.wrap(target, prototype),
        "global kwcall.Signature (map)": lambda: _make_signature(
            {"version": 1, "params": [{"name": "__debug__", "kind": "POSITIONAL_ONLY"}]}
        ),
        "global kwcall.Signature (JSON)": lambda: _make_signature(json_text),
        "global kwcall.MakeFunction (JSON)": lambda: tvm_ffi.get_global_func("kwcall.MakeFunction")(
            target, json_text
        ),
    }
    for route, make in routes.items():
        with pytest.raises(ValueError) as error:
            make()
        assert str(error.value) == DEBUG_REFUSED, route
    assert python_route(["__debug__x", "_debug__", "__DEBUG__"]) == ""
