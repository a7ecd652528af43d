"""What kwcall reads of torch's private API, probed one name at a time on the installed torch (a
release that renames one fails the test named after it), and nothing else in kwcall spelling
one."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from torch_helpers import kwtorch, torch  # noqa: F401  (skips without torch)

_privates = importlib.import_module("kwcall.torch._privates")  # after torch_helpers' skip

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("private", _privates.PRIVATE_NAMES, ids=lambda p: p.name)
def test_torch_private_name(private):
    assert private.probe(), f"torch {torch.__version__} changed {private.name}"


def test_only_the_private_module_spells_torch_private_names():
    # torch._C..., torch._ops..., a torch.ops namespace's vars(): nowhere but _privates.py, in
    # kwcall.torch and in the export's schema check.
    spelled = re.compile(r"\btorch\._(?!_|privates\b)\w+|vars\(")
    package = ROOT / "python" / "kwcall"
    paths = [*sorted((package / "torch").glob("*.py")), package / "_export_torch_op.py"]
    for path in paths:
        if path.name == "_privates.py":
            continue
        code = path.read_text(encoding="utf-8")
        for match in spelled.finditer(code):
            line = code[: match.start()].count("\n") + 1
            raise AssertionError(f"{path.relative_to(ROOT)}:{line} spells {match.group()!r}")


def test_a_renamed_private_name_fails_its_own_probe(monkeypatch):
    # What a torch release without torch._C.parse_schema would look like to its probe.
    monkeypatch.delattr(torch._C, "parse_schema")
    failing = []
    for private in _privates.PRIVATE_NAMES:
        try:
            ok = private.probe()
        except AttributeError:
            ok = False
        if not ok:
            failing.append(private.name)
    assert failing == ["torch._C.parse_schema"]
