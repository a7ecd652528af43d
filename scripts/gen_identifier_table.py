#!/usr/bin/env python3
"""Generates src/identifier_table.inc, the Unicode tables behind kwcall::CheckIdentifier.

Every table is derived from the running Python's own ``str.isidentifier`` and
``unicodedata``, so C++ accepts exactly the parameter names that this Python accepts.
Run it with the Python whose Unicode version the library should follow (3.13: Unicode
15.1) from the repository root:

    python3.13 scripts/gen_identifier_table.py            # writes src/identifier_table.inc
    python3.13 scripts/gen_identifier_table.py --check    # fails if the file is stale

Tables (sorted, non-overlapping, inclusive ``{lo, hi}`` codepoint ranges):

``kIdStart``
    ``c.isidentifier()`` for the one-character string: XID_Start plus ``_``.
``kIdContinue``
    ``("a" + c).isidentifier()``: XID_Continue. It contains kIdStart.
``kNfkcChanges``
    ``unicodedata.normalize("NFKC", c) != c`` (NFKC_Quick_Check=No): a name holding such a
    character is never NFKC-normalized, wherever the character stands.
``kComposesWithPrevious``
    The second character ``d1`` of the two-character canonical decomposition ``d0 d1`` of
    some codepoint ``x`` with ``NFC(d0 + d1) == x`` (primary composites, Hangul syllables
    included): NFKC_Quick_Check=Maybe. After another character such a character may or may
    not compose with what precedes it ("e" + U+0301 does, "b" + U+0301 does not); telling
    which needs the full normalization algorithm, so kwcall refuses these characters
    anywhere but at the start. That is conservative: real identifiers almost never contain
    them, and a name kwcall refuses for this reason is spelled with precomposed characters
    when it can be. As the first character, where nothing precedes it, it is exact.
``kCombiningClass``
    ``{lo, hi, ccc}``: the canonical combining class of the characters that have a nonzero
    one. Marks must appear in canonical order (a nonzero class never follows a higher class)
    or NFKC reorders them.

With no kNfkcChanges character, no kComposesWithPrevious character after the first, and
the marks in canonical order, a name passes the NFKC quick check with the answer YES, so it
is NFKC-normalized: the only names refused although normalized are the "maybe" ones above.

The last three tables are consulted only for characters already found in kIdContinue, so
their ranges also swallow the gaps between them made of characters outside kIdContinue;
that keeps them small. Do not look a character up in them that is not an identifier
character.
"""

from __future__ import annotations

import argparse
import difflib
import pathlib
import platform
import sys
import unicodedata

MAX_CODEPOINT = 0x10FFFF
OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "src" / "identifier_table.inc"
LINE_LIMIT = 100


def is_surrogate(cp: int) -> bool:
    return 0xD800 <= cp <= 0xDFFF


def codepoints():
    return (cp for cp in range(MAX_CODEPOINT + 1) if not is_surrogate(cp))


def canonical_pair(x: str) -> tuple[str, str] | None:
    """The two-character canonical decomposition of x, if it has one, else None."""
    mapping = unicodedata.decomposition(x)
    if mapping:
        if mapping.startswith("<"):  # a compatibility mapping, never composed back
            return None
        parts = [chr(int(field, 16)) for field in mapping.split()]
        return (parts[0], parts[1]) if len(parts) == 2 else None
    # unicodedata.decomposition() leaves out the mappings that are computed rather than
    # listed (Hangul syllables); recover the first step from the full decomposition.
    full = unicodedata.normalize("NFD", x)
    if full == x:
        return None
    if len(full) == 2:
        return (full[0], full[1])
    if len(full) == 3:  # LVT = LV + T
        return (unicodedata.normalize("NFC", full[:2]), full[2])
    raise AssertionError(f"unexpected computed decomposition of U+{ord(x):04X}")


def composes_with_previous() -> set[int]:
    """Characters that can combine canonically with the character before them."""
    result = set()
    for cp in codepoints():
        x = chr(cp)
        pair = canonical_pair(x)
        if pair is not None and unicodedata.normalize("NFC", pair[0] + pair[1]) == x:
            result.add(ord(pair[1]))
    return result


def to_ranges(members, domain=None):
    """Sorted inclusive ranges covering `members`.

    With `domain`, a range may also cover codepoints outside the domain (never looked up),
    so that ranges separated only by such codepoints merge.
    """
    members = set(members)
    ranges = []
    open_range = False  # whether the last range may still grow
    for cp in codepoints():
        if cp in members:
            if open_range:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
                open_range = True
        elif domain is None or cp in domain:
            open_range = False
    return ranges


def to_class_ranges(classes, domain):
    """Ranges {lo, hi, value} of equal nonzero `classes[cp]`, merged over codepoints
    outside `domain`."""
    ranges = []
    open_range = False
    for cp in codepoints():
        value = classes.get(cp, 0)
        if value:
            if open_range and ranges[-1][2] == value:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp, value])
                open_range = True
        elif cp in domain:
            open_range = False
    return ranges


def format_table(kind: str, name: str, comment: str, rows) -> list[str]:
    lines = [f"// {line}" for line in comment.splitlines()]
    lines.append(f"constexpr {kind} {name}[] = {{")
    line = "   "
    for row in rows:
        item = " {" + ", ".join(f"0x{v:X}" if i < 2 else str(v) for i, v in enumerate(row)) + "},"
        if len(line) + len(item) > LINE_LIMIT:
            lines.append(line)
            line = "   "
        line += item
    if line.strip():
        lines.append(line)
    lines.append("};")
    lines.append("")
    return lines


def generate() -> str:
    start = {cp for cp in codepoints() if chr(cp).isidentifier()}
    cont = {cp for cp in codepoints() if ("a" + chr(cp)).isidentifier()}
    assert start <= cont, "every start character must be a continue character"
    changes = {cp for cp in cont if unicodedata.normalize("NFKC", chr(cp)) != chr(cp)}
    maybe = composes_with_previous() & cont
    # A character can be accepted somewhere when it is an identifier character that NFKC
    # keeps, and not a "maybe" character, unless it can start a name.
    usable = {cp for cp in cont - changes if cp not in maybe or cp in start}
    ccc = {cp: unicodedata.combining(chr(cp)) for cp in usable if unicodedata.combining(chr(cp))}

    version = unicodedata.unidata_version
    tables = [
        (
            "CodepointRange",
            "kIdStart",
            "Characters that may start an identifier.",
            to_ranges(start),
        ),
        ("CodepointRange", "kIdContinue", "Characters that may follow the first.", to_ranges(cont)),
        (
            "CodepointRange",
            "kNfkcChanges",
            "Identifier characters that NFKC normalization replaces (NFKC_Quick_Check=No).",
            to_ranges(changes, cont),
        ),
        (
            "CodepointRange",
            "kComposesWithPrevious",
            "Identifier characters that may compose with the one before them\n"
            "(NFKC_Quick_Check=Maybe): refused after the first character.",
            to_ranges(maybe, cont),
        ),
        (
            "CombiningClassRange",
            "kCombiningClass",
            "Nonzero canonical combining classes of the characters the tables above let through.",
            to_class_ranges(ccc, usable),
        ),
    ]
    out = [
        f"// Generated by scripts/gen_identifier_table.py from the unicodedata of Python "
        f"{platform.python_version()}",
        f"// (unicodedata.unidata_version {version}). Do not edit; regenerate with:",
        "//   python3.13 scripts/gen_identifier_table.py",
        "// Included by src/identifier.cc, which defines CodepointRange and",
        "// CombiningClassRange. The script's docstring defines each table.",
        "//",
        "// Ranges: " + ", ".join(f"{name} {len(rows)}" for _, name, _, rows in tables[:3]) + ",",
        "// " + ", ".join(f"{name} {len(rows)}" for _, name, _, rows in tables[3:]) + ".",
        "",
        "// clang-format off",
        f'constexpr char kUnicodeVersion[] = "{version}";',
        "",
    ]
    for kind, name, comment, rows in tables:
        out += format_table(kind, name, comment, rows)
    out.append("// clang-format on")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=pathlib.Path, default=OUTPUT)
    parser.add_argument(
        "--check", action="store_true", help="compare with the file instead of writing it"
    )
    args = parser.parse_args()
    text = generate()
    if args.check:
        old = args.output.read_text() if args.output.exists() else ""
        if old != text:
            sys.stdout.writelines(
                difflib.unified_diff(
                    old.splitlines(True), text.splitlines(True), str(args.output), "generated"
                )
            )
            print(f"{args.output} is out of date (Unicode {unicodedata.unidata_version})")
            return 1
        return 0
    args.output.write_text(text)
    print(f"wrote {args.output} (Unicode {unicodedata.unidata_version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
