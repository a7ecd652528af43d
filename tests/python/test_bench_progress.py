"""The benchmark's progress report (kwcall.bench.progress): tqdm's bar on a terminal only; off
a terminal (a log, CI, a pipe) a few plain lines, not a carriage-return update per sample."""

from __future__ import annotations

import fcntl
import os
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from helpers import TIME_SCALE

SAMPLES = 500
# The benchmark's own calls: one update per sample, then close.
RUN_PROGRESS = (
    "from kwcall.bench.progress import progress_bar\n"
    f"bar = progress_bar({SAMPLES}, disabled=False)\n"
    f"for _ in range({SAMPLES}):\n"
    "    bar.update(1)\n"
    "bar.close()\n"
)


def run_progress(stderr) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", RUN_PROGRESS],
        stdout=subprocess.PIPE,
        stderr=stderr,
        timeout=60 * TIME_SCALE,
        check=True,
    )


def test_off_a_terminal_a_few_plain_lines():
    report = run_progress(subprocess.PIPE).stderr.decode()
    assert "\r" not in report
    lines = report.splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        "kwcall.bench: 25%",
        "kwcall.bench: 50%",
        "kwcall.bench: 75%",
        "kwcall.bench: 100%",
    ]
    assert lines[-1].startswith(f"kwcall.bench: 100% ({SAMPLES}/{SAMPLES} samples, ")


def test_disabled_says_nothing():
    code = RUN_PROGRESS.replace("disabled=False", "disabled=True")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stderr == b""


def pseudo_terminal_problem() -> str | None:
    """Why this machine gives no pseudo-terminal (a root or container whose /dev has no devpts
    at /dev/pts), None when it gives one."""
    try:
        controller, terminal = os.openpty()
    except OSError as error:
        return f"no pseudo-terminal here (os.openpty(): {error}; is devpts mounted at /dev/pts?)"
    os.close(controller)
    os.close(terminal)
    return None


PSEUDO_TERMINAL_PROBLEM = pseudo_terminal_problem()


@pytest.mark.skipif(PSEUDO_TERMINAL_PROBLEM is not None, reason=PSEUDO_TERMINAL_PROBLEM or "")
def test_on_a_terminal_tqdm_bar():
    # The negative control: on a terminal the bar redraws itself in place.
    pytest.importorskip("tqdm")
    controller, terminal = os.openpty()
    # A terminal 100 columns wide (a new one has none, and tqdm would draw no bar in it).
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    try:
        run_progress(terminal)
        os.close(terminal)
        terminal = -1
        screen = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal's other end is closed: all was read
                break
            if not chunk:
                break
            screen += chunk
    finally:
        os.close(controller)
        if terminal >= 0:
            os.close(terminal)
    text = screen.decode(errors="replace")
    assert "\r" in text
    assert "kwcall.bench: 100%" in text and f"{SAMPLES}/{SAMPLES}" in text


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="hiding /dev/pts (a private mount namespace) needs root and unshare",
)
def test_no_pseudo_terminal_is_a_skip_that_says_why():
    """Where /dev/pts is no devpts (here: a tmpfs over it, in a mount namespace of the test's
    own), the probe names the problem, so the terminal test skips instead of failing."""
    probe = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
        "from test_bench_progress import PSEUDO_TERMINAL_PROBLEM; print(PSEUDO_TERMINAL_PROBLEM)"
    )
    done = subprocess.run(
        [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            'mount -t tmpfs kwcall-test /dev/pts && exec "$0" -c "$1"',
            sys.executable,
            probe,
        ],
        capture_output=True,
        text=True,
        timeout=60 * TIME_SCALE,
    )
    if done.returncode != 0 and "mount" in done.stderr:
        pytest.skip(f"cannot hide /dev/pts here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("no pseudo-terminal here (os.openpty(): [Errno 19]")
    assert PSEUDO_TERMINAL_PROBLEM is None or PSEUDO_TERMINAL_PROBLEM == done.stdout.strip()
