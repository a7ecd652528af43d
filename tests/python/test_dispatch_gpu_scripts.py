"""The dispatch-table GPU scripts (bench/dispatch_fa4.py, bench/dispatch_quack_rmsnorm.py) where
they cannot run: without CUDA they say "skipped" and exit 0; the manifest they write for
call_table has one line an argument, in the kinds call_table reads."""

from __future__ import annotations

import subprocess
import sys
from collections import namedtuple

import pytest
from helpers import REPOSITORY, TIME_SCALE

torch = pytest.importorskip("torch")

SCRIPTS = ["dispatch_fa4.py", "dispatch_quack_rmsnorm.py"]


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA device: the scripts run for real")
@pytest.mark.parametrize("script", SCRIPTS)
def test_skips_without_cuda(script):
    done = subprocess.run(
        [sys.executable, str(REPOSITORY / "bench" / script)],
        capture_output=True,
        text=True,
        timeout=120 * TIME_SCALE,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("skipped, no CUDA device")


def test_manifest_lists_every_argument_kind(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(REPOSITORY / "bench" / "dispatch_gpu"))
    import common

    aux = namedtuple("AuxData", ["tensors", "scalars"])(None, None)
    x = torch.arange(6, dtype=torch.float16).reshape(2, 3)
    out = torch.empty(2, 3, dtype=torch.bfloat16)
    manifest = common.write_manifest(tmp_path, [x, out, None, 0.125, 7, True, aux], outputs={1})
    assert manifest.read_text().splitlines() == [
        f"tensor {tmp_path / 'arg0.bin'} float16 2 3",
        f"output {tmp_path / 'arg1.bin'} bfloat16 2 3",
        "none",
        "float 0.125",
        "int 7",
        "bool 1",
        "nones 2",
    ]
    (tmp_path / "arg1.bin").write_bytes(x.to(torch.bfloat16).view(torch.uint8).numpy().tobytes())
    assert torch.equal(common.read_output(tmp_path, 1, out), x.to(torch.bfloat16))
    assert (tmp_path / "arg0.bin").read_bytes() == x.view(torch.uint8).numpy().tobytes()
