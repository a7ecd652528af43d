"""scripts/roots.sh's safety rules, on a tiny root (bash and a few tools of this machine, not a
Debian root, so no debootstrap): every mount is made in a private namespace and never seen
outside it, the pip configuration reaches the command but is never written into the root, and
a root is removed only when nothing is mounted below it. Mount namespaces need root."""

from __future__ import annotations

import configparser
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from helpers import TIME_SCALE, wait_until
from script_stubs import SCRIPTS, mount_namespace_problem, stub, tiny_root, with_stubs

MOUNT_NAMESPACE_PROBLEM = mount_namespace_problem()
pytestmark = pytest.mark.skipif(
    MOUNT_NAMESPACE_PROBLEM is not None, reason=MOUNT_NAMESPACE_PROBLEM or ""
)
#: A pip index token that must reach the command in the root and never the root's files.
TOKEN = "kwcall-test-secret-3f9c"


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


#: What a command inside the root ends with: it says it started, then waits (bounded) for the
#: test to look from outside.
PAUSE = ": >/tmp/started; for i in {1..1200}; do [ -e /tmp/go ] && break; sleep 0.05; done"


def run_paused_in_root(root: Path, inside: str, env: dict[str, str], while_paused):
    """Runs ``inside`` and then PAUSE in the root ``tiny`` at ``root``, calls ``while_paused()``
    once it waits, then lets it finish; (what while_paused returned, its stdout), after
    asserting that it succeeded."""
    proc = subprocess.Popen(
        with_roots_sh(f"in_root tiny bash -c {shlex.quote(inside + '; ' + PAUSE)}"),
        env=env,
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
        seen = while_paused()
        (root / "tmp" / "go").write_text("")
        out, err = proc.communicate(timeout=60 * TIME_SCALE)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    return seen, out


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
    # Inside: say what it sees, then wait for the test to look from outside.
    inside = (
        'echo "root is a mount point: $(mountpoint -q / && echo yes)"; '
        'echo "$(<"$PIP_CONFIG_FILE")"'
    )
    # While it runs, its mounts (the root on itself, /proc, /dev, the clone, the configuration)
    # are seen in its own namespace only.
    seen, out = run_paused_in_root(
        root, inside, roots_env(roots, home), lambda: mounts_under(roots)
    )
    assert seen == []
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


#: An apt proxy whose password must reach the root's apt and never a command line or a log.
APT_SECRET = "kwcall-apt-secret-77e1"
APT_PROXY = f"http://kw:{APT_SECRET}@proxy.example:3128"
#: apt-config as a machine behind that proxy answers (`dump`, and `shell VARIABLE KEY`).
APT_CONFIG_STUB = f"""case $1 in
  dump) echo 'Acquire::http::Proxy "{APT_PROXY}";' ;;
  shell) [ "$3" = Acquire::http::Proxy ] && echo "$2='{APT_PROXY}'" ;;
esac"""


def command_lines_holding(secret: str) -> list[str]:
    """The command lines of this machine's processes that hold ``secret``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # the process ended
            continue
        if secret in text:
            found.append(text)
    return found


def test_the_apt_proxy_reaches_the_command_and_no_command_line(tmp_path):
    roots, home = tmp_path / "roots", tmp_path / "home"
    root = tiny_root(roots)
    stubs = tmp_path / "stubs"
    stub(stubs, "apt-config", APT_CONFIG_STUB)
    seen, out = run_paused_in_root(
        root,
        'echo "$(<"$APT_CONFIG")"',
        with_stubs(stubs, roots_env(roots, home)),
        lambda: command_lines_holding(APT_SECRET),
    )
    assert seen == []  # /proc/*/cmdline is world-readable
    assert out.strip() == f'Acquire::http::Proxy "{APT_PROXY}";'
    found = subprocess.run(["grep", "-rl", APT_SECRET, str(root)], capture_output=True, text=True)
    assert found.stdout == ""


def test_debootstrap_gets_the_apt_proxy_and_its_log_does_not(tmp_path):
    stubs, logs = tmp_path / "stubs", tmp_path / "logs"
    stub(stubs, "apt-config", APT_CONFIG_STUB)
    stub(stubs, "dpkg-query", "echo 'install ok installed'")  # debootstrap is "installed"
    # What debootstrap got, then the root it makes (its target is the last but one argument).
    stub(
        stubs,
        "debootstrap",
        f'echo "proxy=${{http_proxy:-}} $*" >{tmp_path}/debootstrap.txt; mkdir -p "${{@: -2:1}}"',
    )
    env = with_stubs(stubs, roots_env(tmp_path / "roots", tmp_path))
    env["KWCALL_LOGS"] = str(logs)
    done = subprocess.run(
        with_roots_sh(
            f"debootstrap_root {tmp_path}/roots/x sid amd64 g++ {logs}/root.log "
            "http://mirror.example/debian"
        ),
        env=env,
        capture_output=True,
        text=True,
        timeout=60 * TIME_SCALE,
    )
    assert done.returncode == 0, done.stderr
    got = (tmp_path / "debootstrap.txt").read_text().split()
    assert got[0] == f"proxy={APT_PROXY}"
    assert got[-3:] == ["sid", f"{tmp_path}/roots/x.new", "http://mirror.example/debian"]
    assert (tmp_path / "roots" / "x").is_dir()
    assert "debootstrap" in (logs / "root.log").read_text()
    assert APT_SECRET not in (logs / "root.log").read_text() + done.stdout + done.stderr


def test_files_go_back_to_the_caller_only_where_the_command_wrote_them(tmp_path):
    """The clone's path holds glob characters and the roots folder is named with a trailing
    slash (neither may stop the walk from pruning the roots); the root's /dev is the machine's
    (never to be chowned); a root-owned setuid file that was there before stays root's; a hard
    link the command makes to a root's file leaves that file root's. chown is a stub that
    changes only files under the clone and records every path it is given."""
    owner = 4242
    clone = tmp_path / "clone[1]"
    roots = clone / "build" / "roots"
    root = tiny_root(roots)
    (root / "etc" / "shadow").write_text("root's\n")
    kept = clone / "build" / "fresh" / "root" / "usr" / "bin" / "sudo"
    kept.parent.mkdir(parents=True)
    kept.write_text("")
    kept.chmod(0o4755)
    for folder in (clone, clone / "build"):
        os.chown(folder, owner, owner)
    stubs = tmp_path / "stubs"
    stub(stubs, "id", f'[ "$1" = -u ] || [ "$1" = -g ] && echo {owner} || exec /usr/bin/id "$@"')
    stub(stubs, "sudo", 'exec "$@"')  # this is root already: the caller "is" the owner above
    stub(
        stubs,
        "chown",
        f"""printf '%s\\n' "$@" >>{tmp_path}/chowned.txt
for path in "${{@:3}}"; do [[ $path == "{clone}"/* && $path != "{roots}"/* ]] || exit 1; done
exec /bin/chown "$@\"""",
    )
    shadow = shlex.quote(f"{root}/etc/shadow")
    made = f"mkdir -p build/made && : >build/made/file && ln {shadow} build/linked && echo ran"
    env = with_stubs(stubs, roots_env(roots, tmp_path))
    env["KWCALL_ROOTS"] = f"{roots}/"
    done = subprocess.run(
        with_roots_sh(f"root_exec {root} {shlex.quote(str(clone))} bash -c {shlex.quote(made)}"),
        env=env,
        capture_output=True,
        text=True,
        timeout=60 * TIME_SCALE,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ran"
    chowned = (tmp_path / "chowned.txt").read_text().splitlines()
    assert chowned[:2] == ["-h", f"{owner}:{owner}"]
    assert sorted(chowned[2:]) == [f"{clone}/build/made", f"{clone}/build/made/file"]
    assert (clone / "build" / "made" / "file").stat().st_uid == owner
    assert kept.stat().st_uid == 0 and kept.stat().st_mode & 0o4000
    assert (root / "etc" / "shadow").stat().st_uid == 0
    assert (root / "dev").stat().st_uid == 0


def test_a_root_that_is_no_mount_point_is_a_skip_that_says_why(tmp_path):
    """In a plain chroot (the tiny root's "/" is a folder, no mount point) the probe that
    decides this module's skip names the problem instead of letting the tests fail there."""
    root = tiny_root(tmp_path / "roots")
    problem = mount_namespace_problem(prefix=("chroot", str(root)))
    assert problem is not None
    assert problem.startswith("no private mount namespace here (unshare: cannot change root ")
    assert problem.endswith(
        "/ is no mount point (a plain chroot) or this is a container without the capability"
    )
