"""Where kwcall.cute's export writes (issue 24): where ``open(path, "wb")`` would, all or nothing.

An existing file is written in place (its mode, owner, inode and hard links stay), symlinks
are followed, special files are refused and left as they were, names up to the file system's
limit work, and a failure anywhere leaves the object and its sidecar as they were, with an
error naming the caller's path. Host-only @cute.jit functions, so no GPU is needed."""

# No `from __future__ import annotations`: CuTeDSL reads the annotations at compile time.
import contextlib
import errno
import os
import stat
import subprocess
import sys

import kwcall
import pytest

cute = pytest.importorskip("cutlass.cute")
np = pytest.importorskip("numpy")
kwcute = pytest.importorskip("kwcall.cute")

from cutlass import Float32, Int32  # noqa: E402
from cutlass.cute.runtime import from_dlpack  # noqa: E402
from test_cute_export import folder_listing, has_kernel_and_signature  # noqa: E402

SIDECAR = ".kwcall.json"
NAME_MAX = 255  # every file system the tests run on (ext4, overlayfs, tmpfs)
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (mknod, chown, mount)")
both_ways = pytest.mark.parametrize("how", ["function", "method"])


@cute.jit
def scale(out: cute.Tensor, a: Int32, *, factor: Int32 = Int32(3)):  # noqa: B008
    out[0] = Float32(a) * Float32(factor)


@pytest.fixture(scope="module")
def compiled():
    return kwcute.compile(scale, from_dlpack(np.zeros(4, np.float32)), Int32(1))


def sidecar_of(path):
    return path.with_name(path.name + SIDECAR)


def files_of(how, obj):
    """What an export to ``obj`` writes: kwcall.cute.export_to_c adds the sidecar."""
    return [obj, sidecar_of(obj)] if how == "function" else [obj]


def write(how, compiled, obj, function_name="scale"):
    if how == "function":
        kwcute.export_to_c(compiled, str(obj), function_name=function_name)
    else:
        compiled.export_to_c(str(obj), function_name=function_name)


def assert_exported(how, compiled, obj):
    assert has_kernel_and_signature(obj, "scale")
    if how == "function":
        text = sidecar_of(obj).read_text(encoding="utf-8")
        assert kwcall.Signature.from_json(text) == compiled.signature


@both_ways
def test_an_existing_file_keeps_its_mode_owner_and_inode(compiled, tmp_path, how):
    obj = tmp_path / "k.o"
    for file in files_of(how, obj):
        file.write_bytes(b"old")
        file.chmod(0o600)
        if os.geteuid() == 0:
            os.chown(file, 4321, 4322)
    before = {file: file.stat() for file in files_of(how, obj)}
    write(how, compiled, obj)
    assert_exported(how, compiled, obj)
    for file, old in before.items():
        new = file.stat()
        assert stat.S_IMODE(new.st_mode) == 0o600, file
        assert (new.st_ino, new.st_uid, new.st_gid) == (old.st_ino, old.st_uid, old.st_gid)
    assert folder_listing(tmp_path) == sorted(file.name for file in before)


@both_ways
def test_a_new_file_gets_the_permissions_of_the_umask(compiled, tmp_path, how):
    obj = tmp_path / "k.o"
    umask = os.umask(0o027)
    try:
        write(how, compiled, obj)
    finally:
        os.umask(umask)
    assert_exported(how, compiled, obj)
    for file in files_of(how, obj):
        assert stat.S_IMODE(file.stat().st_mode) == 0o640, file


@both_ways
@pytest.mark.parametrize("target", ["existing", "dangling"])
def test_a_symlink_stays_and_its_target_is_written(compiled, tmp_path, how, target):
    (tmp_path / "targets").mkdir()
    obj = tmp_path / "k.o"
    links = {}
    for index, file in enumerate(files_of(how, obj)):
        relative = os.path.join("targets", f"file{index}")  # resolved from the link's folder
        if target == "existing":
            (tmp_path / relative).write_bytes(b"old")
        file.symlink_to(relative)
        links[file] = tmp_path / relative
    write(how, compiled, obj)
    for link, target_file in links.items():
        assert link.is_symlink() and os.readlink(link) == os.path.relpath(target_file, tmp_path)
        assert target_file.is_file() and target_file.read_bytes() != b"old"
    assert_exported(how, compiled, obj)  # read through the links
    assert folder_listing(tmp_path / "targets") == sorted(f.name for f in links.values())


@both_ways
def test_hard_links_are_kept(compiled, tmp_path, how):
    obj = tmp_path / "k.o"
    for file in files_of(how, obj):
        file.write_bytes(b"old")
        os.link(file, tmp_path / f"{file.name}.other")
    write(how, compiled, obj)
    assert_exported(how, compiled, obj)
    for file in files_of(how, obj):
        assert file.stat().st_nlink == 2
        assert (tmp_path / f"{file.name}.other").read_bytes() == file.read_bytes()


def make_special(path, kind):
    """A FIFO, or a character device with /dev/null's numbers (so a write to it by mistake
    would go nowhere)."""
    if kind == "FIFO":
        os.mkfifo(path)
    elif os.geteuid() != 0:
        pytest.skip("mknod needs root")
    else:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)


def assert_special(path, kind):
    st = os.lstat(path)
    if kind == "FIFO":
        assert stat.S_ISFIFO(st.st_mode)
    else:
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.stat("/dev/null").st_rdev


@pytest.mark.parametrize("kind", ["FIFO", "character device"])
@pytest.mark.parametrize(
    "how, where", [("function", "object"), ("method", "object"), ("function", "sidecar")]
)
def test_a_special_file_is_refused_and_left_as_it_was(compiled, tmp_path, kind, how, where):
    obj = tmp_path / "k.o"
    if where == "sidecar":
        write(how, compiled, obj)
        old_object = obj.read_bytes()
        sidecar_of(obj).unlink()
    special = sidecar_of(obj) if where == "sidecar" else obj
    make_special(special, kind)
    listing = folder_listing(tmp_path)
    with pytest.raises(ValueError, match=rf"is a {kind}, not a regular file: export_to_c"):
        write(how, compiled, obj, function_name="other")
    assert_special(special, kind)
    if where == "sidecar":
        assert obj.read_bytes() == old_object
    assert folder_listing(tmp_path) == listing


@pytest.mark.parametrize("length", [236, 250, NAME_MAX])
def test_the_method_exports_names_up_to_the_limit(compiled, tmp_path, length):
    obj = tmp_path / ("k" * (length - 2) + ".o")
    compiled.export_to_c(str(obj), function_name="scale")
    assert_exported("method", compiled, obj)
    assert folder_listing(tmp_path) == [obj.name]


def test_the_function_exports_names_up_to_the_limit_less_the_sidecar_suffix(compiled, tmp_path):
    longest = tmp_path / ("k" * (NAME_MAX - len(SIDECAR) - 2) + ".o")
    kwcute.export_to_c(compiled, str(longest), function_name="scale")
    assert_exported("function", compiled, longest)
    (tmp_path / "longer").mkdir()
    longer = tmp_path / "longer" / ("k" * 248 + ".o")
    with pytest.raises(OSError) as error:
        kwcute.export_to_c(compiled, str(longer), function_name="scale")
    assert (error.value.errno, error.value.filename) == (errno.ENAMETOOLONG, f"{longer}{SIDECAR}")
    assert "name the object 12 bytes under the file system's limit" in str(error.value)
    assert folder_listing(tmp_path / "longer") == []


@pytest.mark.parametrize("folder_at", ["object", "sidecar"])
def test_a_folder_in_the_way_fails_before_anything_changes(compiled, tmp_path, folder_at):
    obj = tmp_path / "k.o"
    write("function", compiled, obj)
    before = obj.read_bytes(), sidecar_of(obj).read_bytes()
    in_the_way = obj if folder_at == "object" else sidecar_of(obj)
    in_the_way.unlink()
    in_the_way.mkdir()
    with pytest.raises(IsADirectoryError) as error:
        write("function", compiled, obj, function_name="other")
    assert error.value.filename == str(in_the_way)
    if folder_at == "object":
        assert sidecar_of(obj).read_bytes() == before[1]
    else:
        assert obj.read_bytes() == before[0]
    assert folder_listing(tmp_path) == ["k.o", "k.o.kwcall.json"]


@both_ways
def test_an_error_names_the_callers_path_not_a_temporary(compiled, tmp_path, how):
    obj = tmp_path / "missing" / "k.o"
    with pytest.raises(FileNotFoundError) as error:
        write(how, compiled, obj)
    assert error.value.filename == str(obj) and error.value.filename2 is None
    assert folder_listing(tmp_path) == []


@contextlib.contextmanager
def small_file_system(folder):
    """A 1 MiB tmpfs mounted at ``folder`` (root only; skips where mounting is refused)."""
    folder.mkdir()
    mount = ["mount", "-t", "tmpfs", "-o", "size=1m", "kwcall-test", str(folder)]
    done = subprocess.run(mount, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def leave_free(folder, blocks):
    """Fill ``folder``'s file system up to its last ``blocks`` blocks."""
    block = os.statvfs(folder).f_frsize
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        with contextlib.suppress(OSError):  # ENOSPC: full
            while True:
                os.write(fd, bytes(block))
        size = os.fstat(fd).st_size
        os.ftruncate(fd, size - (blocks - os.statvfs(folder).f_bavail) * block)
    finally:
        os.close(fd)
    assert os.statvfs(folder).f_bavail == blocks


@as_root
@pytest.mark.parametrize("runs_out", ["object", "sidecar"])
def test_a_full_disk_puts_back_what_was_written(compiled, tmp_path, runs_out):
    write("function", compiled, tmp_path / "probe.o")
    block = os.statvfs(tmp_path).f_frsize
    object_blocks = -(-(tmp_path / "probe.o").stat().st_size // block)
    assert object_blocks > 1
    with small_file_system(tmp_path / "small") as small:
        obj = small / "k.o"
        obj.write_bytes(b"old")  # one block, written over in place
        # An empty sidecar takes no block: the object fits and the sidecar does not, or the
        # object does not fit.
        sidecar_of(obj).write_bytes(b"" if runs_out == "sidecar" else b"old")
        before = obj.read_bytes(), sidecar_of(obj).read_bytes()
        leave_free(small, object_blocks - 1 if runs_out == "sidecar" else 0)
        with pytest.raises(OSError) as error:
            write("function", compiled, obj)
        assert error.value.errno == errno.ENOSPC
        assert error.value.filename == str(obj if runs_out == "object" else sidecar_of(obj))
        assert (obj.read_bytes(), sidecar_of(obj).read_bytes()) == before
        assert folder_listing(small) == ["filler", "k.o", "k.o.kwcall.json"]


RACE_SCRIPT = """
import os, sys, time
import numpy as np, cutlass.cute as cute, kwcall.cute as kwcute
from cutlass import Float32, Int32
from cutlass.cute.runtime import from_dlpack

@cute.jit
def kern(out: cute.Tensor, {param}: Int32):
    out[0] = Float32({param})

shared, own, go = sys.argv[1:]
f = kwcute.compile(kern, from_dlpack(np.zeros(4, np.float32)), Int32(1))
kwcute.export_to_c(f, own, function_name="kern")
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.01)
for _ in range(10):
    kwcute.export_to_c(f, shared, function_name="kern")
"""


def test_concurrent_exports_to_one_path_leave_one_whole_pair(tmp_path):
    shared = tmp_path / "shared" / "k.o"
    shared.parent.mkdir()
    go = tmp_path / "go"
    writers = []
    for param in ["alpha", "beta", "gamma"]:  # three signatures, so a mixed pair shows
        (tmp_path / param).mkdir()
        script = tmp_path / param / "race.py"
        script.write_text(RACE_SCRIPT.format(param=param), encoding="utf-8")
        own = tmp_path / param / "k.o"
        command = [sys.executable, str(script), str(shared), str(own), str(go)]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        writers.append((own, process))
    for _, process in writers:
        assert process.stdout.readline() == b"ready\n", process.communicate()[1].decode()
    go.touch()
    for _, process in writers:
        _, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr.decode()
    pairs = [(own.read_bytes(), sidecar_of(own).read_bytes()) for own, _ in writers]
    assert len(set(pairs)) == 3
    assert (shared.read_bytes(), sidecar_of(shared).read_bytes()) in pairs
    assert folder_listing(shared.parent) == ["k.o", "k.o.kwcall.json"]
