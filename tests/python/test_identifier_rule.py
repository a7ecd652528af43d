"""kwcall's parameter-name rule (C++, src/identifier.cc) against Python's own, codepoint by
codepoint.

A name is accepted in C++ when it is a Python identifier (``str.isidentifier()``) that is
NFKC-normalized (``unicodedata.is_normalized("NFKC", name)``), because the Python parser
NFKC-normalizes every identifier it reads: a name that normalization changes could never be
passed by keyword from source code. The C++ verdict comes from the testing global
``kwcall.testing.CheckName(name) -> ""`` when the name is accepted, else the reason.

For every assigned codepoint ``c`` the verdicts on ``c`` and on ``"a" + c`` must be Python's,
with one documented exception: after the first character kwcall refuses every character that
NFKC may compose with the character before it (NFKC_Quick_Check=Maybe, e.g. U+0301 COMBINING
ACUTE ACCENT), since telling whether it does needs the full normalization algorithm; so it
refuses ``"a" + c`` where Python finds the name normalized ("b\\u0301" is, "e\\u0301" is not).
Those refusals must say so ("may not be NFKC-normalized"). As the first character such a
character has nothing to compose with, and the verdict is exact.

The C++ tables are made from Unicode 15.1 (Python 3.13, scripts/gen_identifier_table.py).
Under another Python the comparison skips:

* codepoints unassigned in the running Python (``unicodedata.category(c) == "Cn"``), which
  covers every codepoint assigned after an older running Unicode version;
* codepoints assigned in both versions whose properties changed in between, listed in
  ``CHANGED_BY_15_1`` for each older version kwcall supports (found by running the
  generator's definitions under Python 3.9 to 3.12 and comparing with 3.13);
* under a Python newer than the tables, which cannot say which codepoints were assigned (or
  became identifier characters) after 15.1: C++ refusing a character as no identifier
  character where Python finds it one.

Marks of nonzero canonical combining class must also be in canonical order; that is checked
with pairs of marks.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from helpers import internals_global

#: The Unicode version of src/identifier_table.inc.
TABLE_UNICODE_VERSION = "15.1.0"

#: Codepoints assigned in an older Unicode version whose identifier or normalization
#: properties differ in 15.1: ZERO WIDTH NON-JOINER and JOINER, KATAKANA MIDDLE DOT and its
#: halfwidth form became XID_Continue in 15.1.
_ID_CONTINUE_15_1 = frozenset({0x200C, 0x200D, 0x30FB, 0xFF65})
CHANGED_BY_15_1 = {
    "13.0.0": _ID_CONTINUE_15_1,  # Python 3.9, 3.10
    "14.0.0": _ID_CONTINUE_15_1,  # Python 3.11
    "15.0.0": _ID_CONTINUE_15_1,  # Python 3.12
    "15.1.0": frozenset(),  # Python 3.13
}

_check_name = internals_global("kwcall.testing.CheckName")

ID_PROBLEM = "is not a valid Python identifier"
NFKC_PROBLEM = "is not NFKC-normalized"
MAYBE_PROBLEM = "may not be NFKC-normalized"


def check_name(name: str) -> str:
    return str(_check_name(name))


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


RUNNING = unicodedata.unidata_version
NEWER_THAN_TABLES = version_tuple(RUNNING) > version_tuple(TABLE_UNICODE_VERSION)


def assigned_codepoints():
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF or unicodedata.category(chr(cp)) == "Cn":
            continue
        yield cp


def composes_with_previous() -> frozenset[int]:
    """Characters NFKC may compose with the character before them: the second character d1
    of each two-character canonical decomposition d0 d1 of a codepoint x that NFC composes
    back into x (Hangul syllables, whose mappings unicodedata computes, included)."""
    result = set()
    for cp in assigned_codepoints():
        x = chr(cp)
        mapping = unicodedata.decomposition(x)
        if mapping:
            if mapping.startswith("<"):
                continue
            pair = "".join(chr(int(field, 16)) for field in mapping.split())
        else:
            full = unicodedata.normalize("NFD", x)
            if full == x:
                continue
            pair = full if len(full) == 2 else unicodedata.normalize("NFC", full[:2]) + full[2:]
        if len(pair) == 2 and unicodedata.normalize("NFC", pair) == x:
            result.add(ord(pair[1]))
    return frozenset(result)


MAYBE = composes_with_previous()


def python_verdict(name: str) -> str:
    """Python's verdict on `name` as a parameter name, keywords aside: the empty string when
    it is accepted, else ID_PROBLEM or NFKC_PROBLEM."""
    if not name.isidentifier():
        return ID_PROBLEM
    if not unicodedata.is_normalized("NFKC", name):
        return NFKC_PROBLEM
    return ""


def compare(name: str, cp: int, *, allow_maybe: bool) -> str | None:
    """None when C++ agrees with Python on `name`, else a line describing the difference.
    `cp` is the character under test; `allow_maybe` permits the conservative refusal."""
    want = python_verdict(name)
    got = check_name(name)
    if want == "" and got == "":
        return None
    if want and got.startswith(want):
        return None
    if want == NFKC_PROBLEM and got.startswith(MAYBE_PROBLEM):
        return None  # normalization does change it; the conservative rule said "may"
    if allow_maybe and want == "" and got.startswith(MAYBE_PROBLEM) and cp in MAYBE:
        return None
    if NEWER_THAN_TABLES and want != ID_PROBLEM and got.startswith(ID_PROBLEM):
        return None  # possibly assigned, or made an identifier character, after the tables
    return f"U+{cp:04X} {unicodedata.name(chr(cp), '?')}: {name!r}: Python {want!r}, C++ {got!r}"


def report(mismatches: list[str]) -> str:
    return f"{len(mismatches)} differences, first ones:\n" + "\n".join(mismatches[:40])


@pytest.fixture(scope="module")
def changed() -> frozenset[int]:
    if RUNNING not in CHANGED_BY_15_1 and not NEWER_THAN_TABLES:
        pytest.skip(
            f"this Python's Unicode {RUNNING} is older than the tables' {TABLE_UNICODE_VERSION} "
            "and its property changes are not listed in CHANGED_BY_15_1"
        )
    return CHANGED_BY_15_1.get(RUNNING, frozenset())


def test_the_tables_are_the_version_this_test_expects():
    table = Path(__file__).resolve().parents[2] / "src" / "identifier_table.inc"
    if not table.exists():
        pytest.skip("no source tree next to the tests")
    found = re.search(r'kUnicodeVersion\[\] = "([0-9.]+)"', table.read_text())
    assert found is not None
    assert found.group(1) == TABLE_UNICODE_VERSION, (
        "src/identifier_table.inc was regenerated: update TABLE_UNICODE_VERSION and "
        "CHANGED_BY_15_1 in this test"
    )


def test_every_codepoint_alone_and_after_a_letter(changed):
    mismatches = []
    conservative = 0
    for cp in assigned_codepoints():
        if cp in changed:
            continue
        c = chr(cp)
        for name, allow_maybe in ((c, False), ("a" + c, True)):
            line = compare(name, cp, allow_maybe=allow_maybe)
            if line is not None:
                mismatches.append(line)
        if cp in MAYBE and python_verdict("a" + c) == "" and check_name("a" + c):
            conservative += 1
    assert not mismatches, report(mismatches)
    # The exception stays the small set it is documented to be (95 codepoints in 15.1).
    assert conservative <= len(MAYBE) < 200


def test_the_conservative_refusal_explains_itself():
    text = check_name("b\u0301")
    assert text.startswith(MAYBE_PROBLEM + " (U+0301 at byte 1 can compose"), text
    assert "unicodedata.normalize('NFKC', name)" in text
    assert check_name("\u1161") == ""  # a Hangul vowel as the first character is exact
    assert check_name("\u1100\u1161").startswith(MAYBE_PROBLEM)  # U+AC00 decomposed


def test_combining_marks_in_both_orders(changed):
    """Every mark that can follow a letter, before and after one mark of each combining
    class: Python finds the name normalized only when the classes are in canonical order."""
    marks = [
        cp
        for cp in assigned_codepoints()
        if unicodedata.combining(chr(cp))
        and cp not in MAYBE
        and cp not in changed
        and python_verdict("a" + chr(cp)) == ""
    ]
    by_class = {}
    for cp in marks:
        by_class.setdefault(unicodedata.combining(chr(cp)), cp)
    assert len(by_class) > 40
    mismatches = []
    for cp in marks:
        for other in by_class.values():
            for name in ("a" + chr(cp) + chr(other), "a" + chr(other) + chr(cp)):
                line = compare(name, cp, allow_maybe=False)
                if line is not None:
                    mismatches.append(line)
    assert not mismatches, report(mismatches)
