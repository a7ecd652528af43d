"""For the tests that run the repository's shell scripts (tests/python/test_*script*.py): commands
replaced on PATH by stubs that record how they were called, a copy of the scripts in a fake
tree (so that what a script writes beside itself, build/, is the test's), a tiny root to enter,
and a way to run a script as a plain user. Nothing here touches the machine's own files."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from helpers import REPOSITORY

SCRIPTS = REPOSITORY / "scripts"
#: The user a script runs as where the test needs a plain one (nobody, on Debian).
PLAIN_UID = 65534
#: What tiny_root's command may run besides bash's builtins.
TINY_TOOLS = ("bash", "env", "sleep", "mountpoint", "mkdir", "ln", "unshare")


def stub(folder: Path, name: str, body: str) -> Path:
    """An executable ``folder/name`` running ``body`` (bash)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/bash\n{body}\n")
    path.chmod(0o755)
    return path


def with_stubs(folder: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment (os.environ's by default) with ``folder``'s stubs first on PATH."""
    env = dict(os.environ if env is None else env)
    env["PATH"] = f"{folder}:{env['PATH']}"
    return env


def sourcing(script: str, *files: str) -> list[str]:
    """bash running ``script`` with scripts/lib.sh and then ``files`` (of scripts/) sourced."""
    sources = " && ".join(f"source {SCRIPTS / name}" for name in ("lib.sh", *files))
    return ["bash", "-c", f"{sources} && {script}"]


def fake_tree(parent: Path) -> Path:
    """parent/clone: a copy of scripts/ and requirements/, where a script's KWCALL_ROOT is."""
    clone = parent / "clone"
    for folder in ("scripts", "requirements"):
        shutil.copytree(REPOSITORY / folder, clone / folder)
    return clone


def tiny_root(roots: Path) -> Path:
    """roots/tiny: this machine's TINY_TOOLS with their libraries (no debootstrap)."""
    root = roots / "tiny"
    for folder in ("proc", "dev", "run", "tmp", "etc"):
        (root / folder).mkdir(parents=True)
    binaries = [shutil.which(tool) for tool in TINY_TOOLS] + ["/bin/bash", "/usr/bin/env"]
    for binary in binaries:
        libraries = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
        for path in [binary, *(w for w in libraries.split() if w.startswith("/"))]:
            target = root / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(os.path.realpath(path), target)
    (root / ".kwcall-root").write_text("tiny\n")  # what in_root checks before going in
    return root


def tools_for_tiny_root() -> bool:
    return all(shutil.which(tool) for tool in (*TINY_TOOLS, "findmnt", "ldd"))


def mount_namespace_problem(prefix: tuple[str, ...] = ()) -> str | None:
    """Why no private mount namespace can be made here (roots.sh's in_root and debootstrap_root
    need one), None when it can: it needs root, util-linux, and a "/" that is a mount point (in
    a plain chroot or an unprivileged container unshare cannot make the mounts private).
    ``prefix`` runs the probe elsewhere (["chroot", ROOT])."""
    if os.geteuid() != 0:
        return "mount namespaces need root; scripts/test_fresh.sh runs this as root"
    if not tools_for_tiny_root():
        return f"needs {', '.join(TINY_TOOLS)}, findmnt and ldd (util-linux, coreutils)"
    done = subprocess.run(
        [*prefix, "unshare", "--mount", "--propagation", "private", "true"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return (
            f"no private mount namespace here ({done.stderr.strip()}): / is no mount point "
            "(a plain chroot) or this is a container without the capability"
        )
    return None


def plain_user_folder() -> Path:
    """A fresh folder outside pytest's (whose parents only root may enter) that PLAIN_UID owns,
    when this is root; a plain folder of the caller's otherwise. The caller removes it."""
    folder = Path(tempfile.mkdtemp(prefix="kwcall-test-"))
    folder.chmod(0o755)
    if os.geteuid() == 0:
        os.chown(folder, PLAIN_UID, PLAIN_UID)
    return folder


def as_plain_user(command: list[str]) -> list[str]:
    """``command`` run as PLAIN_UID when this is root (setpriv), as it is otherwise."""
    if os.geteuid() != 0:
        return command
    return ["setpriv", f"--reuid={PLAIN_UID}", f"--regid={PLAIN_UID}", "--clear-groups", *command]


def chown_tree(path: Path, uid: int) -> None:
    """Gives a folder the test made, and everything in it, to ``uid``."""
    for folder, names, files in os.walk(path):
        os.chown(folder, uid, uid)
        for name in names + files:
            os.chown(os.path.join(folder, name), uid, uid, follow_symlinks=False)
