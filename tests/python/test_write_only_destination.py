"""kwcall.cute's export writes where ``open(path, "wb")`` would (kwcall._write_together): also
into a file that may be written but not read (mode 0200), whose old bytes cannot be kept.

Root reads any file whatever its mode, so as root the checks run in a child without the
capabilities that let it (setpriv drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import TIME_SCALE


def without_reading_rights(code: str, *args: str) -> subprocess.CompletedProcess:
    """Python ``code`` run where a file's mode is obeyed (as root: without DAC override)."""
    command = [sys.executable, "-c", code, *args]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("as root, a mode is obeyed only without DAC override: needs setpriv")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=120 * TIME_SCALE)


WRITE = """
import sys
from kwcall._write_together import write_together
paths = sys.argv[1:]
try:
    open(paths[0], "rb")
except PermissionError:
    pass
else:
    sys.exit("the mode is not obeyed here")
write_together([(path, f"new {i}".encode()) for i, path in enumerate(paths)])
"""


def write_only(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o200)
    return path


def test_a_write_only_file_is_written_in_place(tmp_path):
    target = write_only(tmp_path / "k.o", "old")
    readable = tmp_path / "k.o.kwcall.json"
    readable.write_text("old sidecar")
    inode = target.stat().st_ino
    done = without_reading_rights(WRITE, str(target), str(readable), str(tmp_path / "new.o"))
    if "the mode is not obeyed here" in done.stderr:
        pytest.skip("this process reads files whatever their mode (a capability setpriv kept)")
    assert done.returncode == 0, done.stderr
    target.chmod(0o600)  # for this test to read it
    assert target.read_text() == "new 0"
    assert target.stat().st_ino == inode  # in place: its mode, owner and links stay
    assert readable.read_text() == "new 1"
    assert (tmp_path / "new.o").read_text() == "new 2"


def test_a_failure_before_any_write_leaves_a_write_only_file_as_it_was(tmp_path):
    target = write_only(tmp_path / "k.o", "old")
    missing = tmp_path / "no-such-folder" / "k.o.kwcall.json"
    done = without_reading_rights(WRITE, str(target), str(missing))
    if "the mode is not obeyed here" in done.stderr:
        pytest.skip("this process reads files whatever their mode (a capability setpriv kept)")
    assert done.returncode != 0
    assert f"FileNotFoundError: [Errno 2] No such file or directory: '{missing}'" in done.stderr
    target.chmod(0o600)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.o"]  # no temporary left


def test_a_write_only_file_is_written_last(tmp_path, monkeypatch):
    """The files that can be put back are written and renamed first: a failure before the
    write-only one is reached leaves it as it was."""
    from kwcall import _write_together

    target = write_only(tmp_path / "k.o", "old")
    readable = tmp_path / "k.o.kwcall.json"
    readable.write_text("old sidecar")
    order = []
    real_overwrite = _write_together._overwrite

    def recording(fd, data):
        order.append(data)
        if data == b"sidecar":
            raise OSError(28, "No space left on device")
        real_overwrite(fd, data)

    monkeypatch.setattr(_write_together, "_overwrite", recording)
    real_open = os.open

    def refuse_reading(path, flags, *mode):  # as the mode 0200 would without root's rights
        if os.fspath(path) == str(target) and flags & os.O_ACCMODE == os.O_RDWR:
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, flags, *mode)

    monkeypatch.setattr(_write_together.os, "open", refuse_reading)
    with pytest.raises(OSError) as raised:
        _write_together.write_together([(str(target), b"object"), (str(readable), b"sidecar")])
    assert raised.value.filename == str(readable)
    assert order[:1] == [b"sidecar"]  # the write-only object never reached
    monkeypatch.undo()
    target.chmod(0o600)
    assert target.read_text() == "old"
    assert readable.read_text() == "old sidecar"
