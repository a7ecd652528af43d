"""The scripts' guards, run on fake trees and with stubs (never on this machine's own roots or
files): names and versions that would have `rm -rf` reach beyond its folder are refused; the
Debian mirror comes from apt's sources (or DEBIAN_MIRROR), read in both of their formats; a
CPython source is the highest version the suite's index lists, and a mirror's 404 is said;
sanitize_free_threaded.sh installs packages through sudo, as the other scripts do."""

from __future__ import annotations

import functools
import http.server
import lzma
import os
import shutil
import subprocess
import tarfile
import threading
from pathlib import Path

import pytest
from helpers import TIME_SCALE
from script_stubs import (
    PLAIN_UID,
    SCRIPTS,
    as_plain_user,
    chown_tree,
    fake_tree,
    plain_user_folder,
    sourcing,
    stub,
    with_stubs,
)

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="the scripts are bash")


def run(command: list[str], env: dict[str, str] | None = None, **kwargs):
    return subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=60 * TIME_SCALE, **kwargs
    )


# -- names and versions (issue 31.5) ---------------------------------------------------------


@pytest.fixture
def roots(tmp_path):
    """tmp/a/b/c/roots with two roots; a file beside each level tells what rm reached."""
    roots = tmp_path / "a" / "b" / "c" / "roots"
    for name in ("sid", "bullseye"):
        (roots / name / "etc").mkdir(parents=True)
    (roots.parent / "logs").mkdir()
    # The roots here are the test's own files: a plain user's sudo need do nothing more.
    stub(roots.parent / "stubs", "sudo", 'exec "$@"')
    for folder in (roots, *roots.parents[:3]):
        (folder.parent / f"kept-beside-{folder.name}").write_text("")
    return roots


def remove_roots(roots: Path, *names: str):
    env = with_stubs(roots.parent / "stubs")
    env.update(KWCALL_ROOTS=str(roots), KWCALL_LOGS=str(roots.parent / "logs"))
    return run(["bash", str(SCRIPTS / "remove_roots.sh"), *names], env)


def everything_under(path: Path) -> list[Path]:
    return sorted(path.rglob("*"))


@needs_bash
@pytest.mark.parametrize("name", ["..", "../..", "/", ".", "sid/..", "sid/etc", "gone", ""])
def test_remove_roots_refuses_what_is_no_root_of_its_folder(tmp_path, roots, name):
    before = everything_under(tmp_path)
    done = remove_roots(roots, "sid", name)
    assert done.returncode != 0
    assert f"remove_roots.sh: '{name}' is not a root in {roots} (the roots there:" in done.stderr
    assert "name one of those, or none to remove them all" in done.stderr
    assert everything_under(tmp_path) == before  # not even sid, named first


@needs_bash
def test_remove_roots_removes_the_roots_named(tmp_path, roots):
    done = remove_roots(roots, "sid")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in roots.iterdir()) == ["bullseye"]


@needs_bash
@pytest.mark.parametrize(
    ("script", "package"),
    [
        ("test_cute_versions.sh", "nvidia-cutlass-dsl"),
        ("test_tvm_ffi_matrix.sh", "apache-tvm-ffi"),
        ("test_torch_matrix.sh", "torch"),
    ],
)
@pytest.mark.parametrize("version", ["..", "../..", "/", "4.8.1/../..", "*", ""])
def test_version_scripts_refuse_what_is_no_version(tmp_path, script, package, version):
    clone = fake_tree(tmp_path)
    # setup.sh would come first: here it says that it ran.
    stub(clone / "scripts", "setup.sh", f"echo ran >{tmp_path}/setup-ran; exit 1")
    done = run(["bash", str(clone / "scripts" / script), "4.8.1", version])
    assert done.returncode != 0
    assert f"{script}: '{version}' is not a {package} release version" in done.stderr
    assert "pass versions only" in done.stderr
    assert not (tmp_path / "setup-ran").exists()


# -- the Debian mirror (issue 31.18) ---------------------------------------------------------

LIST = """# a comment, and a source apt would not use for the machine's own suite first
deb-src http://source.example/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/a key.gpg] http://list.example/debian bookworm main
deb http://list.example/debian-security bookworm-security main
"""
SOURCES = """Types: deb
URIs: http://off.example/debian
Suites: bookworm
Enabled: no

# the machine's own suite, one URI of several, a multi-line field before it
Types: deb deb-src
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 -----END PGP PUBLIC KEY BLOCK-----
URIs: http://stanza.example/debian/ http://second.example/debian
Suites: bookworm bookworm-updates
Components: main
"""


def apt_etc(tmp_path: Path, list_text: str | None, sources_text: str | None) -> dict[str, str]:
    """An environment whose apt sources and os-release are the test's (a Debian bookworm)."""
    etc = tmp_path / "apt"
    (etc / "sources.list.d").mkdir(parents=True)
    if list_text is not None:
        (etc / "sources.list").write_text(list_text)
    if sources_text is not None:
        (etc / "sources.list.d" / "debian.sources").write_text(sources_text)
    release = tmp_path / "os-release"
    release.write_text('ID=debian\nVERSION_CODENAME=bookworm\nPRETTY_NAME="Debian 12"\n')
    env = dict(os.environ, KWCALL_APT_ETC=str(etc), KWCALL_OS_RELEASE=str(release))
    env.pop("DEBIAN_MIRROR", None)
    env["KWCALL_LOGS"] = str(tmp_path / "logs")
    return env


def debian_mirror(env: dict[str, str]):
    return run(sourcing("debian_mirror"), env)


@needs_bash
@pytest.mark.parametrize(
    ("list_text", "sources_text", "mirror"),
    [
        (LIST, None, "http://list.example/debian"),
        (None, SOURCES, "http://stanza.example/debian"),
        (LIST, SOURCES, "http://list.example/debian"),  # sources.list is read first, as apt does
        ("deb http://only.example/debian sid main\n", None, "http://only.example/debian"),
    ],
)
def test_the_mirror_is_the_one_apt_uses_for_this_suite(tmp_path, list_text, sources_text, mirror):
    done = debian_mirror(apt_etc(tmp_path, list_text, sources_text))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == mirror


@needs_bash
def test_debian_mirror_wins_over_apt_sources(tmp_path):
    env = apt_etc(tmp_path, LIST, SOURCES)
    env["DEBIAN_MIRROR"] = "http://chosen.example/debian/"
    assert debian_mirror(env).stdout.strip() == "http://chosen.example/debian"


@needs_bash
def test_no_mirror_says_what_to_set(tmp_path):
    done = debian_mirror(apt_etc(tmp_path, "# nothing\n", None))
    assert done.returncode != 0 and done.stdout == ""
    assert "no Debian mirror: this machine's apt sources" in done.stderr
    assert "set DEBIAN_MIRROR to the URL of one (the folder that holds dists/ and pool/)" in (
        done.stderr
    )


# -- a CPython source from the mirror (issue 31.17, 31.18) ----------------------------------

STANZA = """Package: python3.13
Binary: python3.13, python3.13-dev
Version: {version}
Directory: pool/main/p/python3.13
Files:
 0123 1000 python3.13_{version}.dsc
 4567 2000 python3.13_{upstream}.orig.tar.xz
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def mirror(tmp_path):
    """A Debian mirror on this machine (http://127.0.0.1:PORT/debian) whose trixie index lists
    python3.13 twice, the higher version first, and holds only the lower one's tarball."""
    root = tmp_path / "www" / "debian"
    index = root / "dists" / "trixie" / "main" / "source"
    index.mkdir(parents=True)
    stanzas = [
        STANZA.format(version="3.13.9-1", upstream="3.13.9"),
        "Package: other\nVersion: 9\nDirectory: pool/main/o/other\nFiles:\n 1 2 o_9.orig.tar.gz\n",
        STANZA.format(version="3.13.5-2", upstream="3.13.5"),
    ]
    (index / "Sources.xz").write_bytes(lzma.compress("\n".join(stanzas).encode()))
    pool = root / "pool" / "main" / "p" / "python3.13"
    pool.mkdir(parents=True)
    with tarfile.open(pool / "python3.13_3.13.5.orig.tar.xz", "w:xz") as tar:
        tar.add(index / "Sources.xz", arcname="Python-3.13.5/README")
    handler = functools.partial(QuietHandler, directory=root.parent)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/debian"
    finally:
        server.shutdown()
        server.server_close()


needs_curl = pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("bash", "curl", "xz")), reason="needs curl and xz"
)


@needs_curl
def test_the_source_is_the_highest_version_from_apt_s_mirror(tmp_path, mirror):
    # No DEBIAN_MIRROR: the mirror is the one the (fake) apt sources name.
    env = apt_etc(tmp_path, f"deb {mirror} bookworm main\n", None)
    done = run(sourcing("debian_upstream_tarball trixie python3.13", "source_python.sh"), env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pool/main/p/python3.13/python3.13_3.13.9.orig.tar.xz"


@needs_curl
def test_a_404_from_the_mirror_is_said(tmp_path, mirror):
    env = apt_etc(tmp_path, None, None)
    env["DEBIAN_MIRROR"] = mirror
    path = "pool/main/p/python3.13/python3.13_3.13.9.orig.tar.xz"
    done = run(sourcing(f"mirror_fetch {path} {tmp_path}/got.tar"), env)
    assert done.returncode != 0
    assert done.stderr.strip() == (
        f"the Debian mirror {mirror} has no {path} (it answered HTTP 404: not found); "
        "set DEBIAN_MIRROR to a mirror that has it"
    )
    assert not (tmp_path / "got.tar").exists()
    # A suite the mirror does not have: its index is the 404.
    done = run(sourcing("debian_upstream_tarball forky python3.14", "source_python.sh"), env)
    assert done.returncode != 0
    assert "has no dists/forky/main/source/Sources.xz (it answered HTTP 404" in done.stderr
    # What is there arrives.
    lower = "pool/main/p/python3.13/python3.13_3.13.5.orig.tar.xz"
    done = run(sourcing(f"mirror_fetch {lower} {tmp_path}/got.tar"), env)
    assert done.returncode == 0, done.stderr
    assert tarfile.open(tmp_path / "got.tar").getnames() == ["Python-3.13.5/README"]


# -- sudo for a plain user (issue 31.13) -----------------------------------------------------


@needs_bash
@pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None,
    reason="as root, running the script as a plain user needs setpriv (util-linux)",
)
def test_sanitize_free_threaded_installs_through_sudo():
    """As a plain user, the CPython build's packages come through sudo (a stub that records
    what it is asked), never from apt-get run directly (which fails for such a user)."""
    folder = plain_user_folder()
    try:
        clone = fake_tree(folder)
        stubs = folder / "stubs"
        stub(stubs, "sudo", f'echo "sudo $*" >>{folder}/sudo.txt')
        stub(stubs, "apt-get", f'echo "apt-get as $(id -u)" >>{folder}/apt-get.txt; exit 100')
        for name in ("dpkg", "dpkg-query"):  # nothing is installed
            stub(stubs, name, "exit 1")
        # A CPython source whose configure stops the build once the packages are in.
        source = folder / "source"
        stub(source / "Python-3.13.0", "configure", "echo configure stops here; exit 1")
        tarball = folder / "python.tar"
        with tarfile.open(tarball, "w") as tar:
            tar.add(source / "Python-3.13.0", arcname="Python-3.13.0")
        if os.geteuid() == 0:
            chown_tree(folder, PLAIN_UID)
        env = with_stubs(stubs)
        env.update(HOME=str(folder), KWCALL_CPYTHON_TARBALL=str(tarball))
        env.pop("APT_CONFIG", None)  # a Debian root's suite sets it; it would join the commands
        done = run(
            as_plain_user(["bash", str(clone / "scripts" / "sanitize_free_threaded.sh")]), env
        )
        assert done.returncode != 0  # configure stopped it
        assert not (folder / "apt-get.txt").exists(), (folder / "apt-get.txt").read_text()
        sudo = (folder / "sudo.txt").read_text().splitlines()
        assert sudo[0].startswith("sudo env DEBIAN_FRONTEND=noninteractive apt-get update")
        assert sudo[1].startswith("sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y")
        assert "libssl-dev" in sudo[1].split()
        assert (
            "configure stops here"
            in (clone / "build" / "logs" / "sanitize-free-threaded.log").read_text()
        )
    finally:
        shutil.rmtree(folder)
