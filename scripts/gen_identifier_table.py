#!/usr/bin/env python3
"""Generates src/identifier_table.inc, the Unicode tables behind kwcall::CheckIdentifier.

kwcall accepts a parameter name when the running Python would: ``name.isidentifier()`` and
``unicodedata.normalize("NFKC", name) == name`` (keywords are checked elsewhere). Every table
here comes from the ``str.isidentifier`` and ``unicodedata`` of real Pythons, one per Unicode
version kwcall ships, so that C++ can follow whichever Python loads it.

How to regenerate (from the repository root; it needs one Python per Unicode version, each
run on the script itself through a pipe, so nothing is written where they live):

    python3 scripts/gen_identifier_table.py \\
        --python python3.10 --python python3.11 --python python3.12 --python python3.13 \\
        --python "chroot build/roots/sid python3.14" \\
        --python "chroot build/roots/sid python3.15"
    python3 scripts/gen_identifier_table.py --check --python ...   # same list: fails if stale

Each ``--python`` is a command line that starts an interpreter (pyenv's
``~/.pyenv/versions/3.1x.*/bin/python3.1x`` or a Debian sid root's ``python3.14``/
``python3.15`` both work; ``bash scripts/test.sh --python 3.14`` makes that root in
build/roots/sid); it is run as ``COMMAND - --dump`` with this file on stdin and
prints its Unicode data as JSON. Pythons sharing a Unicode version give one table set. The
versions shipped today: 13.0.0 (3.10), 14.0.0 (3.11), 15.0.0 (3.12), 15.1.0 (3.13),
16.0.0 (3.14), 17.0.0 (3.15). tests/python/test_identifier_rule.py checks the tables
against the running Python, code point by code point.

Tables (sorted, non-overlapping, inclusive ``{lo, hi}`` code point ranges):

``kIdStart``, ``kIdContinue``  ``{lo, hi, mask}``
    ``c.isidentifier()`` (XID_Start and ``_``) and ``("a" + c).isidentifier()``
    (XID_Continue); bit i of ``mask`` says the range belongs in kUnicodeVersions[i]. These
    are the only per-version tables: identifier properties may change between versions.
``kNfkcChanges``
    Identifier characters with ``normalize("NFKC", c) != c`` (NFKC_Quick_Check=No).
``kComposesWithPrevious``
    The second character of each primary composite's canonical pair, Hangul vowels and
    trailing consonants included (NFKC_Quick_Check=Maybe), and the characters whose
    decomposition starts with one (U+113C5 is U+113C2 U+113C2). Any other character of
    class 0 starts a segment of the name that normalizes on its own.
``kCombiningClass``  ``{lo, hi, ccc}``
    Nonzero canonical combining classes.
``kCompositions``  ``{composite, first, second}``, sorted by composite
    Every primary composite but the Hangul syllables (whose mappings are computed), and
    ``kCompositionsByPair``: their indices sorted by ``(first, second)``.

The last five are the union over all versions, which is exact for each version because of
Unicode's stability policies (assigned characters never change their decomposition,
combining class or composition, and a new composite never composes characters that existed
before it); the generator asserts each of those facts for the Pythons it runs. kNfkcChanges
and kComposesWithPrevious are consulted only for identifier characters, so their ranges also
swallow the gaps of code points no version finds an identifier character.

Why these suffice (asserted below for each Python): an identifier character that NFKC keeps
decomposes under NFKD exactly as under NFD, into its canonical pair recursively; so for a
name of such characters NFKC is NFC, computed from kCompositions and kCombiningClass alone.
"""

from __future__ import annotations

import argparse
import difflib
import json
import pathlib
import shlex
import subprocess
import sys

MAX_CODEPOINT = 0x10FFFF
OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "src" / "identifier_table.inc"
LINE_LIMIT = 100

# Hangul syllables and conjoining jamo: composed and decomposed by arithmetic (Unicode 3.12).
HANGUL_S, HANGUL_L, HANGUL_V, HANGUL_T = 0xAC00, 0x1100, 0x1161, 0x11A7
HANGUL_V_COUNT, HANGUL_T_COUNT, HANGUL_S_COUNT = 21, 28, 11172


def codepoints():
    return (cp for cp in range(MAX_CODEPOINT + 1) if not 0xD800 <= cp <= 0xDFFF)


def to_ranges(members, domain=None):
    """Sorted inclusive ranges [lo, hi] covering `members`. With `domain`, a range may also
    cover code points outside it (never looked up), so that ranges separated only by such
    code points merge."""
    ranges = []
    open_range = False
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


def from_ranges(ranges) -> set[int]:
    return {cp for lo, hi in ranges for cp in range(lo, hi + 1)}


# ---------------------------------------------------------------------------------------
# --dump: run under each Python (3.10 and later), prints its data as JSON.
# ---------------------------------------------------------------------------------------


def dump() -> dict:
    import platform
    import unicodedata

    def nfd(s):
        return unicodedata.normalize("NFD", s)

    start = {cp for cp in codepoints() if chr(cp).isidentifier()}
    cont = {cp for cp in codepoints() if ("a" + chr(cp)).isidentifier()}
    assert start <= cont, "every start character must be a continue character"
    changes = {cp for cp in cont if unicodedata.normalize("NFKC", chr(cp)) != chr(cp)}
    ccc = {cp: unicodedata.combining(chr(cp)) for cp in codepoints()}
    ccc = {cp: value for cp, value in ccc.items() if value}

    pairs = {}  # composite -> (first, second): the primary composites, Hangul left out
    for cp in codepoints():
        if HANGUL_S <= cp < HANGUL_S + HANGUL_S_COUNT:
            continue  # computed in C++ (and listed by unicodedata.decomposition since 3.14)
        mapping = unicodedata.decomposition(chr(cp))
        if not mapping or mapping.startswith("<"):
            continue
        parts = [int(field, 16) for field in mapping.split()]
        if len(parts) == 2 and unicodedata.normalize("NFC", chr(parts[0]) + chr(parts[1])) == chr(
            cp
        ):
            pairs[cp] = tuple(parts)
    seconds = {second for _, second in pairs.values()}
    maybe = seconds | set(range(HANGUL_V, HANGUL_V + HANGUL_V_COUNT))
    maybe |= set(range(HANGUL_T + 1, HANGUL_T + HANGUL_T_COUNT))

    def decompose(cp):  # what kwcall's C++ computes
        if HANGUL_S <= cp < HANGUL_S + HANGUL_S_COUNT:
            index = cp - HANGUL_S
            out = [HANGUL_L + index // (HANGUL_V_COUNT * HANGUL_T_COUNT)]
            out.append(HANGUL_V + index % (HANGUL_V_COUNT * HANGUL_T_COUNT) // HANGUL_T_COUNT)
            if index % HANGUL_T_COUNT:
                out.append(HANGUL_T + index % HANGUL_T_COUNT)
            return out
        if cp in pairs:
            return decompose(pairs[cp][0]) + [pairs[cp][1]]
        return [cp]

    # Characters whose decomposition starts with such a character (U+113C5 TULU-TIGALARI
    # VOWEL SIGN AI is U+113C2 U+113C2) compose with what precedes them too.
    maybe |= {cp for cp in pairs if ord(nfd(chr(cp))[0]) in maybe}

    for cp in cont - changes:
        c = chr(cp)
        assert unicodedata.normalize("NFKD", c) == nfd(c), f"U+{cp:04X}: NFKD is not NFD"
        assert [ord(d) for d in nfd(c)] == decompose(cp), f"U+{cp:04X}: not its pairs' NFD"
        first = ord(nfd(c)[0])
        if cp not in maybe and not unicodedata.combining(c):
            # kwcall splits names before such characters: nothing before them can compose
            # with or reorder around what follows.
            assert first not in maybe and not unicodedata.combining(chr(first)), f"U+{cp:04X}"
    for second in seconds:
        assert nfd(chr(second)) == chr(second), f"U+{second:04X} decomposes"
    return {
        "python": platform.python_version(),
        "unicode": unicodedata.unidata_version,
        "assigned": to_ranges({cp for cp in codepoints() if unicodedata.category(chr(cp)) != "Cn"}),
        "start": to_ranges(start),
        "cont": to_ranges(cont),
        "changes": to_ranges(changes),
        "maybe": to_ranges(maybe),
        "ccc": sorted(ccc.items()),
        "pairs": sorted([x, a, b] for x, (a, b) in pairs.items()),
    }


# ---------------------------------------------------------------------------------------
# Combining the dumps into the .inc
# ---------------------------------------------------------------------------------------


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def run_dump(command: str) -> dict:
    source = pathlib.Path(__file__).read_text()
    result = subprocess.run(
        [*shlex.split(command), "-", "--dump"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"{command}: exit {result.returncode}\n{result.stderr}")
    return json.loads(result.stdout)


class Version:
    def __init__(self, data: dict):
        self.python = data["python"]
        self.unicode = data["unicode"]
        self.assigned = from_ranges(data["assigned"])
        self.start = from_ranges(data["start"])
        self.cont = from_ranges(data["cont"])
        self.changes = from_ranges(data["changes"])
        self.maybe = from_ranges(data["maybe"])
        self.ccc = dict(map(tuple, data["ccc"]))
        self.pairs = {x: (a, b) for x, a, b in data["pairs"]}


def check_stability(versions: list[Version]) -> None:
    """The facts that make one union table right for every version."""
    for old in versions:
        for new in versions:
            both = old.assigned & new.assigned
            for cp in both:
                assert old.ccc.get(cp, 0) == new.ccc.get(cp, 0), f"ccc of U+{cp:04X} changed"
            for cp in old.cont & new.cont:
                assert (cp in old.changes) == (cp in new.changes), f"NFKC of U+{cp:04X}"
            for x, (a, b) in new.pairs.items():
                if a in old.assigned and b in old.assigned:
                    assert old.pairs.get(x) == (a, b), f"U+{a:04X} U+{b:04X} compose anew"


def masked_ranges(sets: list[set[int]]) -> list[list[int]]:
    """Ranges [lo, hi, mask] of code points with the same nonzero membership mask."""
    ranges = []
    previous = 0
    for cp in codepoints():
        mask = sum(1 << i for i, members in enumerate(sets) if cp in members)
        if mask and mask == previous:
            ranges[-1][1] = cp
        elif mask:
            ranges.append([cp, cp, mask])
        previous = mask
    return ranges


def class_ranges(classes: dict[int, int]) -> list[list[int]]:
    ranges = []
    for cp in sorted(classes):
        value = classes[cp]
        if ranges and ranges[-1][1] == cp - 1 and ranges[-1][2] == value:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp, value])
    return ranges


def format_table(kind: str, name: str, comment: str, rows, hex_columns: int) -> list[str]:
    lines = [f"// {line}" for line in comment.splitlines()]
    lines.append(f"constexpr {kind} {name}[] = {{")
    line = "   "
    for row in rows:
        if isinstance(row, int):
            item = f" {row},"
        else:
            cells = [f"0x{v:X}" if i < hex_columns else str(v) for i, v in enumerate(row)]
            item = " {" + ", ".join(cells) + "},"
        if len(line) + len(item) > LINE_LIMIT:
            lines.append(line)
            line = "   "
        line += item
    if line.strip():
        lines.append(line)
    lines.append("};")
    lines.append("")
    return lines


def generate(dumps: list[dict]) -> str:
    by_version = {}
    for data in dumps:
        by_version.setdefault(data["unicode"], data)
    versions = [Version(by_version[v]) for v in sorted(by_version, key=version_key)]
    check_stability(versions)
    any_cont = set().union(*(v.cont for v in versions))
    ccc = {}
    pairs = {}
    for v in versions:
        ccc.update(v.ccc)
        pairs.update(v.pairs)
    compositions = sorted([x, a, b] for x, (a, b) in pairs.items())

    by_pair = sorted(range(len(compositions)), key=lambda i: compositions[i][1:])
    assert len(compositions) < 1 << 16
    tables = [
        (
            "VersionedRange",
            "kIdStart",
            "Characters that may start an identifier; bit i of the mask: in kUnicodeVersions[i].",
            masked_ranges([v.start for v in versions]),
            2,
        ),
        (
            "VersionedRange",
            "kIdContinue",
            "Characters that may follow the first; the mask as above.",
            masked_ranges([v.cont for v in versions]),
            2,
        ),
        (
            "CodepointRange",
            "kNfkcChanges",
            "Identifier characters that NFKC normalization replaces (NFKC_Quick_Check=No).",
            to_ranges(set().union(*(v.changes for v in versions)), any_cont),
            2,
        ),
        (
            "CodepointRange",
            "kComposesWithPrevious",
            "Identifier characters that may compose with one before them (NFKC_Quick_Check=Maybe).",
            to_ranges(set().union(*(v.maybe for v in versions)) & any_cont, any_cont),
            2,
        ),
        (
            "CombiningClassRange",
            "kCombiningClass",
            "Nonzero canonical combining classes.",
            class_ranges(ccc),
            2,
        ),
        (
            "Composition",
            "kCompositions",
            "Primary composites and their canonical pairs, Hangul syllables aside, by composite.",
            compositions,
            3,
        ),
        (
            "uint16_t",
            "kCompositionsByPair",
            "Indices into kCompositions, sorted by (first, second).",
            by_pair,
            0,
        ),
    ]
    out = [
        "// Generated by scripts/gen_identifier_table.py from the unicodedata of these Pythons:",
        *(f"//   Unicode {v.unicode}: Python {v.python}" for v in versions),
        "// Do not edit; the script's docstring says how to regenerate it and defines each table.",
        "// Included by src/unicode_tables.cc, which defines the row types.",
        "//",
        "// Rows: " + ", ".join(f"{name} {len(rows)}" for _, name, _, rows, _ in tables[:4]) + ",",
        "// " + ", ".join(f"{name} {len(rows)}" for _, name, _, rows, _ in tables[4:]) + ".",
        "",
        "// clang-format off",
        f"constexpr int kUnicodeVersionCount = {len(versions)};",
        "// Oldest first; the last is the default.",
        "constexpr const char* kUnicodeVersions[kUnicodeVersionCount] = {",
        "    " + ", ".join(f'"{v.unicode}"' for v in versions) + "};",
        "",
    ]
    for kind, name, comment, rows, hex_columns in tables:
        out += format_table(kind, name, comment, rows, hex_columns)
    out.append("// clang-format on")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", action="store_true", help="print this Python's data as JSON")
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        help="a command that starts one Python (repeat for each Unicode version)",
    )
    parser.add_argument("-o", "--output", type=pathlib.Path, default=OUTPUT)
    parser.add_argument(
        "--check", action="store_true", help="compare with the file instead of writing it"
    )
    args = parser.parse_args()
    if args.dump:
        json.dump(dump(), sys.stdout)
        return 0
    if not args.python:
        parser.error("name the Pythons with --python (see the docstring)")
    text = generate([run_dump(command) for command in args.python])
    if args.check:
        old = args.output.read_text() if args.output.exists() else ""
        if old != text:
            sys.stdout.writelines(
                difflib.unified_diff(
                    old.splitlines(True), text.splitlines(True), str(args.output), "generated"
                )
            )
            print(f"{args.output} is out of date")
            return 1
        return 0
    args.output.write_text(text)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
