"""scripts/roots.sh's safety rules, on a tiny root (bash and a few tools of this machine, not a
Debian root, so no debootstrap): every mount is made in a private namespace and never seen
outside it, the pip configuration reaches the command but is never written into the root, and
a root is removed only when nothing is mounted below it. Mount namespaces need root."""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import TIME_SCALE, wait_until

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
TOOLS = ("bash", "env", "sleep", "mountpoint")
pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not all(shutil.which(tool) for tool in (*TOOLS, "unshare", "findmnt")),
    reason="mount namespaces need root (and util-linux); scripts/test_fresh.sh runs this as root",
)
#: A pip index token that must reach the command in the root and never the root's files.
TOKEN = "kwcall-test-secret-3f9c"


def tiny_root(roots: Path) -> Path:
    """roots/tiny: this machine's bash, env, sleep and mountpoint with their libraries."""
    root = roots / "tiny"
    for folder in ("proc", "dev", "run", "tmp", "etc"):
        (root / folder).mkdir(parents=True)
    binaries = [shutil.which(tool) for tool in TOOLS] + ["/bin/bash", "/usr/bin/env"]
    for binary in binaries:
        libraries = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
        for path in [binary, *(w for w in libraries.split() if w.startswith("/"))]:
            target = root / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(os.path.realpath(path), target)
    (root / ".kwcall-root").write_text("tiny\n")  # what in_root checks before going in
    return root


def with_roots_sh(script: str) -> list[str]:
    """bash running script with scripts/lib.sh and roots.sh sourced."""
    return ["bash", "-c", f"source {SCRIPTS}/lib.sh && source {SCRIPTS}/roots.sh && {script}"]


def roots_env(roots: Path, home: Path) -> dict[str, str]:
    env = dict(os.environ, KWCALL_ROOTS=str(roots), HOME=str(home))
    env.pop("PIP_CONFIG_FILE", None)
    return env


def mounts_under(path: Path) -> list[str]:
    targets = subprocess.run(["findmnt", "-rn", "-o", "TARGET"], capture_output=True, text=True)
    return [t for t in targets.stdout.split() if t == str(path) or t.startswith(f"{path}/")]


def test_in_root_mounts_and_pip_config_stay_in_its_namespace(tmp_path):
    roots, home = tmp_path / "roots", tmp_path / "home"
    root = tiny_root(roots)
    # The user's two pip files, the legacy one read first, as pip reads them.
    (home / ".pip").mkdir(parents=True)
    (home / ".pip" / "pip.conf").write_text(
        "[global]\nindex-url = https://old.invalid/simple\ntimeout = 7\n"
    )
    (home / ".config" / "pip").mkdir(parents=True)
    (home / ".config" / "pip" / "pip.conf").write_text(
        f"[global]\nindex-url = https://{TOKEN}@pypi.invalid/simple\n"
        "[install]\n# a comment\nfind-links =\n    /one\n    /two\n"
    )
    # Inside: say what it sees, then wait (bounded) for the test to look from outside.
    inside = (
        'echo "root is a mount point: $(mountpoint -q / && echo yes)"; '
        'echo "$(<"$PIP_CONFIG_FILE")"; : >/tmp/started; '
        "for i in {1..1200}; do [ -e /tmp/go ] && break; sleep 0.05; done"
    )
    proc = subprocess.Popen(
        with_roots_sh(f"in_root tiny bash -c {shlex.quote(inside)}"),
        env=roots_env(roots, home),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until(
            lambda: (root / "tmp" / "started").exists() or proc.poll() is not None,
            "the command inside the root to start",
        )
        assert proc.poll() is None, proc.communicate()
        # While it runs, its mounts (the root on itself, /proc, /dev, the clone, the
        # configuration) are seen in its own namespace only.
        assert mounts_under(roots) == []
        (root / "tmp" / "go").write_text("")
        out, err = proc.communicate(timeout=60 * TIME_SCALE)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    first_line, pip_conf = out.split("\n", 1)
    assert first_line == "root is a mount point: yes"  # so scripts inside can make namespaces
    # pip's own reading of what the command got: the user's files merged, the later winning.
    config = configparser.RawConfigParser()
    config.read_string(pip_conf)
    assert config["global"]["index-url"] == f"https://{TOKEN}@pypi.invalid/simple"
    assert config["global"]["timeout"] == "7"
    assert config["install"]["find-links"].split() == ["/one", "/two"]
    assert mounts_under(roots) == []
    # Nothing of the configuration was written into the root.
    found = subprocess.run(["grep", "-rl", TOKEN, str(root)], capture_output=True, text=True)
    assert found.stdout == ""
    assert not list(root.rglob("pip.conf"))


def test_in_root_refuses_a_folder_that_is_no_root(tmp_path):
    (tmp_path / "roots" / "sid").mkdir(parents=True)
    done = subprocess.run(
        with_roots_sh("in_root sid true"),
        env=roots_env(tmp_path / "roots", tmp_path),
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "is not a Debian root made by ensure_root (ensure_root sid first)" in done.stderr
    assert list((tmp_path / "roots" / "sid").iterdir()) == []  # nothing made inside


def test_remove_tree_refuses_while_something_is_mounted_below(tmp_path):
    roots = tmp_path / "roots"
    root = tiny_root(roots)
    mount = root / "tmp" / "mounted"
    mount.mkdir()
    # In a private namespace of the test's own: a tmpfs below the root, holding a file.
    script = (
        f"mount -t tmpfs kwcall-test {mount} && echo kept >{mount}/file && "
        f"if remove_tree {root}; then echo removed; fi; cat {mount}/file; "
        f"umount {mount} && remove_tree {root} && [ ! -e {root} ] && echo removed after umount"
    )
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", *with_roots_sh(script)],
        env=roots_env(roots, tmp_path),
        capture_output=True,
        text=True,
        timeout=60 * TIME_SCALE,
    )
    assert done.returncode == 0, done.stderr
    assert f"refusing to remove {root}: mounted below it: {mount}" in done.stderr
    assert done.stdout.splitlines() == ["kept", "removed after umount"]
