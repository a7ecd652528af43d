"""Writes the seed corpora of the fuzzers in fuzz/ (run from anywhere; deterministic).

    python fuzz/make_corpus.py

corpus/signature_json/ gets hand-written JSON texts: valid signatures with every parameter kind
and every JSON type of default, and texts just outside what FromJson accepts (nesting past the
limit, wrong types for "unpack" and "version", unknown fields, bad or reserved names, huge
numbers). corpus/companion/ gets one seed per kind of value a companion can return, with
payloads (valid JSON among them, and text at and past the byte limit). corpus/binder/ gets byte
strings from a fixed pseudo-random sequence: fuzz_binder decodes any bytes into a signature and
calls, so short random inputs of assorted lengths are good seeds. scripts/fuzz.sh
--update-corpus adds what a run found, minimized.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def param(name, kind="POSITIONAL_OR_KEYWORD", **extra):
    return {"name": name, "kind": kind, **extra}


def signature(params, name="f", version=1):
    return {"version": version, "name": name, "params": params}


def nested(levels: int) -> str:
    return "[" * levels + "1" + "]" * levels


def json_seeds() -> list[str]:
    every_kind = signature(
        [
            param("p", "POSITIONAL_ONLY"),
            param("a", default=1.5, unpack=True),
            param("abcdefgh", default=None),
            param("k", "KEYWORD_ONLY"),
            param("a_rather_long_parameter_name", "KEYWORD_ONLY", default="text"),
        ]
    )
    defaults = signature(
        [
            param("n", default=None),
            param("t", default=True),
            param("i", default=-7),
            param("x", default=1e300),
            param("s", default="a string"),
            param("l", default=[1, [2, [3, "x"]], []]),
            param("m", default={"k": {"j": [], "i": 0}}),
        ]
    )
    seeds = [json.dumps(every_kind), json.dumps(defaults, separators=(",", ":"))]
    seeds += [
        '{"version": 1, "params": []}',
        '{"version": 1, "name": "", "params": [{"name": "x", "kind": "KEYWORD_ONLY"}]}',
        json.dumps(
            signature([param("\u03b1\u03b2\u03b3\u03b4"), param("\u00e9", default=0)]),
            ensure_ascii=False,
        ),
        json.dumps(signature([param("\u00e9"), param("x", default="\U0001f600")])),  # \u escapes
        '{"version": 1, "params": [{"name": "x", "kind": "POSITIONAL_ONLY", "default": NaN},'
        ' {"name": "y", "default": Infinity, "kind": "POSITIONAL_ONLY"}]}',
        '{"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY", "default": '
        "[9223372036854775807, -9223372036854775808, 9223372036854775808, 1e-320, 1e400]}]}",
        # Nesting at and past the limit (kwcall::kMaxNestingDepth is 64).
        '{"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY", "default": '
        + nested(64)
        + "}]}",
        '{"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY", "default": '
        + nested(65)
        + "}]}",
        nested(80),
        # Refused: wrong version, missing or unknown fields, wrong types, bad names, order.
        '{"version": 2, "params": []}',
        '{"version": "1", "params": []}',
        '{"name": "f", "params": []}',
        '{"version": 1}',
        '{"version": 1, "params": [], "extra": 0}',
        '{"version": 1, "params": [{"name": "x", "kind": "VAR_POSITIONAL"}]}',
        '{"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY", "unpack": 1}]}',
        '{"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY", "color": 1}]}',
        '{"version": 1, "params": [{"name": "class", "kind": "KEYWORD_ONLY"}]}',
        '{"version": 1, "params": [{"name": "\ufb01", "kind": "KEYWORD_ONLY"}]}',
        '{"version": 1, "params": [{"name": "1x", "kind": "KEYWORD_ONLY"}]}',
        '{"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY"},'
        ' {"name": "x", "kind": "KEYWORD_ONLY"}]}',
        '{"version": 1, "params": [{"name": "k", "kind": "KEYWORD_ONLY"},'
        ' {"name": "p", "kind": "POSITIONAL_ONLY"}]}',
        '{"version": 1, "params": [{"name": "a", "kind": "POSITIONAL_ONLY", "default": 1},'
        ' {"name": "b", "kind": "POSITIONAL_ONLY"}]}',
        '{"version": 1, "params": [{"name": "' + "n" * 1024 + '", "kind": "KEYWORD_ONLY"}]}',
        '{"version": 1, "params": [{"name": "' + "n" * 1025 + '", "kind": "KEYWORD_ONLY"}]}',
        '{"version": 1, "version": 1, "params": [7]}',
        '{"version": 1, "params": []} trailing',
        '{"version": 1, "params": [{"name": "x\\u0000", "kind": "KEYWORD_ONLY"}]}',
        '{"version": 1, "name": "\\udc00", "params": []}',
        "[]",
        '"text"',
        "",
        # Read strictly (issue 18.7): "unpack" a JSON boolean, "version" an integer, no name
        # tvm-ffi reserves.
        '{"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY", "unpack": 2}]}',
        '{"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY", "unpack": "true"}]}',
        '{"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY", "unpack": null}]}',
        '{"version": 1, "params": [{"name": "x", "kind": "KEYWORD_ONLY", "unpack": false}]}',
        '{"version": true, "params": []}',
        '{"version": false, "params": []}',
        '{"version": 1.0, "params": []}',
        '{"version": null, "params": []}',
    ]
    seeds += [
        json.dumps(signature([param(name, "KEYWORD_ONLY")]))
        for name in ("__i_target_func", "__i_MISSING", "__i_arg_defaults", "__i_unpack", "__i_x")
    ]
    return seeds


def companion_seeds() -> list[bytes]:
    """fuzz_companion: the first byte picks the kind of value the companion returns (see
    MakeValue; 0xff makes it fail), the rest is the payload."""
    valid = json.dumps(signature([param("x"), param("y", "KEYWORD_ONLY", default=2)]))
    seeds = [bytes([kind]) + b"payload" for kind in range(16)]
    seeds += [bytes([kind]) + valid.encode() for kind in (4, 5, 6)]
    seeds += [bytes([7, choice]) for choice in (0, 1, 2, 3, 4)]  # at and past the byte limit
    seeds += [b"\xff", bytes([4]) + json_seeds()[0].encode()]
    return seeds


def binder_seeds() -> list[bytes]:
    rng = random.Random(20261130)
    lengths = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024]
    seeds = [bytes(rng.getrandbits(8) for _ in range(n)) for n in lengths for _ in range(3)]
    # Long runs of one byte decode to extremes: the widest signature, every name form at once.
    seeds += [bytes([b]) * 256 for b in (0x00, 0x7F, 0xFF)]
    return seeds


def write(folder: Path, seeds: list[bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        (folder / ("seed-" + hashlib.sha1(seed).hexdigest()[:16])).write_bytes(seed)


def main() -> None:
    write(HERE / "corpus" / "signature_json", [s.encode() for s in json_seeds()])
    write(HERE / "corpus" / "binder", binder_seeds())
    write(HERE / "corpus" / "companion", companion_seeds())


if __name__ == "__main__":
    main()
