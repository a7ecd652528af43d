"""A benchmark script run again under callgrind, counting only between its own client requests
(``start()`` and ``stop(name)`` of bench/callgrind_toggle.cc, which dumps what it counted under
``name``), and each dump read back as instructions per call. Shared by bench/torch_eager.py and
bench/python_callgrind.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def per_call(script_args: list[str], number: int, keep: str | None = None) -> dict[str, float]:
    """Runs ``python SCRIPT_ARGS...`` under callgrind; {each dump's name: its instructions
    divided by ``number``, the calls the script made between start and stop}. The dumps stay
    in ``keep`` when given (for callgrind_annotate)."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = keep or scratch
        os.makedirs(folder, exist_ok=True)
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={os.path.join(folder, 'callgrind.out')}",
             sys.executable, *script_args],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            # One string hash seed: CPython's dict probes (keyword arguments) repeat exactly.
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )  # fmt: skip
        counted = {}
        for path in sorted(Path(folder).glob("callgrind.out*")):
            text = path.read_text(errors="replace")
            trigger = re.search(r"^desc: Trigger: Client Request: (.+)$", text, re.M)
            totals = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
            if trigger and totals:
                counted[trigger.group(1).strip()] = int(totals.group(1)) / number
    return counted
