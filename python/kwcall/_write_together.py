"""Write several files where ``open(path, "wb")`` would, all or nothing (kwcall.cute's export).

Each path is written where ``open(path, "wb")`` writes: through symlinks to their target, into
an existing file's own inode (so its mode, owner, hard links and ACLs stay), or as a new file
with the permissions the umask gives. Three steps, and nothing changes until the second:

1. open every destination (an existing file for reading and writing, keeping its old bytes; a
   new one as a short-named temporary in its folder): a path that cannot be written fails here;
2. write every file (in place, or into its temporary);
3. rename the temporaries of the new files onto their names.

A failure in step 2 or 3 (a full disk) puts back every file written so far. An existing file
that may be written but not read (mode 0200) is opened for writing alone, as ``open(path, "wb")``
opens it: its old bytes cannot be kept, so it is written after every other file is written and
renamed, and a failure while it is written puts back every other file but leaves it as far as
it was written. Special files
(FIFOs, devices, sockets) are refused: a write to them cannot be undone. Writers to one folder
take turns (an ``flock`` on the folder), so concurrent exports leave one writer's files, whole.
Every error names the caller's path, never a temporary.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
from collections.abc import Iterator

# A new file's temporary: short, so that no caller's name length (up to NAME_MAX) affects it.
_TEMPORARY_NAME = ".kwcall-{}.tmp"
_SPECIAL_FILES = {
    stat.S_IFIFO: "FIFO",
    stat.S_IFCHR: "character device",
    stat.S_IFBLK: "block device",
    stat.S_IFSOCK: "socket",
}


def _naming(error: OSError, path: str) -> OSError:
    """``error`` again (the same errno, so the same OSError subclass), naming ``path``."""
    return OSError(error.errno, error.strerror, path)


def _require_regular(path: str, mode: int) -> None:
    """A folder is IsADirectoryError, as ``open`` gives; a special file is refused."""
    if stat.S_ISDIR(mode):
        raise OSError(errno.EISDIR, os.strerror(errno.EISDIR), path)  # IsADirectoryError
    kind = _SPECIAL_FILES.get(stat.S_IFMT(mode))
    if kind is not None:
        raise ValueError(
            f"{path!r} is a {kind}, not a regular file: export_to_c writes regular files only "
            f"(it must be able to undo a failed export); export to a file and copy it from there"
        )


def _read_all(fd: int) -> bytes:
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _overwrite(fd: int, data: bytes) -> None:
    view, offset = memoryview(data), 0
    while offset < len(data):
        offset += os.pwrite(fd, view[offset:], offset)
    os.ftruncate(fd, len(data))


class _Existing:
    """A regular file that is there: written in place, its old bytes kept to put back (None
    when it may be written but not read: then it cannot be put back)."""

    def __init__(self, path: str, real: str) -> None:
        self.path = path
        # A special file swapped in since the stat neither blocks this open (O_NONBLOCK) nor
        # becomes our terminal (O_NOCTTY); the fstat then refuses it.
        flags = os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
        try:
            self.fd = os.open(real, os.O_RDWR | flags)
            readable = True
        except PermissionError:  # write-only: where open(path, "wb") still writes
            self.fd = os.open(real, os.O_WRONLY | flags)
            readable = False
        try:
            _require_regular(path, os.fstat(self.fd).st_mode)
            self.old = _read_all(self.fd) if readable else None
        except BaseException:
            os.close(self.fd)
            raise

    @property
    def undoable(self) -> bool:
        return self.old is not None

    def write(self, data: bytes) -> None:
        _overwrite(self.fd, data)

    def publish(self) -> None:
        pass

    def restore(self) -> None:
        if self.old is not None:
            _overwrite(self.fd, self.old)

    def close(self) -> None:
        os.close(self.fd)


class _New:
    """A file that is not there yet: written to a temporary beside it and renamed onto it."""

    undoable = True

    def __init__(self, path: str, real: str) -> None:
        self.path, self.real, self.published = path, real, False
        folder = os.path.dirname(real)
        while True:
            self.temporary = os.path.join(folder, _TEMPORARY_NAME.format(secrets.token_hex(6)))
            try:
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
                self.fd = os.open(self.temporary, flags, 0o666)  # open(path, "wb")'s mode
                return
            except FileExistsError:
                continue

    def write(self, data: bytes) -> None:
        _overwrite(self.fd, data)

    def publish(self) -> None:
        os.rename(self.temporary, self.real)
        self.published = True

    def restore(self) -> None:
        if self.published:
            os.unlink(self.real)

    def close(self) -> None:
        os.close(self.fd)
        if not self.published:
            with contextlib.suppress(OSError):
                os.unlink(self.temporary)


def _open(path: str) -> _Existing | _New:
    real = os.path.realpath(path)  # where open(path, "wb") writes, through every symlink
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return _New(path, real)
    _require_regular(path, mode)
    return _Existing(path, real)


@contextlib.contextmanager
def _folder_lock(path: str) -> Iterator[None]:
    """Exports to one folder take turns; where the folder cannot be locked (it is missing,
    unreadable, or on a file system without ``flock``), the writes go on unlocked."""
    try:
        fd = os.open(os.path.dirname(os.path.realpath(path)), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX)  # released when fd closes
        yield
    finally:
        os.close(fd)


def write_together(files: list[tuple[str, bytes]]) -> None:
    """Write each ``(path, data)`` of ``files`` (see the module's docstring): either every file
    is written, or none is changed and the error names the path that failed."""
    opened: list[_Existing | _New] = []
    with _folder_lock(files[0][0]):
        try:
            for path, _ in files:
                try:
                    opened.append(_open(path))
                except OSError as error:
                    raise _naming(error, path) from None
            _write_and_publish(opened, [data for _, data in files])
        finally:
            for destination in opened:
                destination.close()


def _write_and_publish(opened: list[_Existing | _New], contents: list[bytes]) -> None:
    touched: list[_Existing | _New] = []
    pairs = list(zip(opened, contents, strict=True))
    current = opened[0]
    try:
        # What can be put back first; a file whose old bytes are unknown once all else is done.
        for current, data in [pair for pair in pairs if pair[0].undoable]:
            touched.append(current)
            current.write(data)
        for current in opened:
            current.publish()
        for current, data in [pair for pair in pairs if not pair[0].undoable]:
            current.write(data)
    except BaseException as error:
        for destination in reversed(touched):
            with contextlib.suppress(OSError):
                destination.restore()
        if isinstance(error, OSError):
            raise _naming(error, current.path) from None
        raise
