#!/usr/bin/env bash
# The README's commands on a fresh machine, as a new user would run them. Two copies of a
# minimal Debian 12 made with debootstrap (minbase with git, python3, ca-certificates and sudo,
# nothing else), each with a clone of COMMIT made inside:
#   1. build/fresh/root, as root: bash scripts/demo.sh, then bash scripts/test.sh;
#   2. build/fresh/user, as a plain user with passwordless sudo: the same two commands, then
#      bash scripts/test.sh --all-pythons (the sid root made inside this one), and a check that
#      the user's clone holds no file of root's outside build/roots;
# then, on this machine, in a fresh clone where no root was ever made:
#   3. bash scripts/build_dist.sh, and a check that dist/ has a wheel for every supported
#      CPython (from this machine's Pythons: a fresh Debian 12 has only its 3.11).
# Each command's result and time are printed as it ends, and all of them at the end. A step
# runs only when the steps before it passed.
#
#   bash scripts/test_fresh.sh [COMMIT [REPO]]    # COMMIT of REPO (default: HEAD of this clone)
#
# Needs root (sudo otherwise), Debian's mirror and PyPI. The roots reach them as this machine
# does: its Debian mirror (DEBIAN_MIRROR, or the one its apt sources name) and apt proxy, and its pip configuration for each command only
# (scripts/roots.sh's root_exec: nothing of it is written into a root). Logs:
# build/logs/fresh-*.log. build/fresh is removed when every step passed and kept otherwise.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/roots.sh"

# All of it in braces: bash reads the whole before running any, so editing this file while it
# runs (it takes an hour or more) changes nothing in that run.
{
commit=${1:-HEAD}
repo=$(cd "${2:-$KWCALL_ROOT}" && pwd)
sha=$(git -C "$repo" rev-parse --verify "$commit^{commit}")
work=$KWCALL_ROOT/build/fresh
user=kwfresh
mirror=$(debian_mirror) || exit 1
start_all=$SECONDS
results=()
status=0

# timed NAME LABEL COMMAND...: runs COMMAND with its output in build/logs/fresh-NAME.log and
# records LABEL's result and time.
timed() {
  local name=$1 label=$2 log=$KWCALL_LOGS/fresh-$1.log start=$SECONDS outcome=passed
  shift 2
  step "$label (log: $log)"
  : >"$log"
  # In a subshell: a step that exits on failure (logged) ends itself, not this script.
  logged_ok "$log" in_subshell "$@" || { outcome="FAILED (exit $?)"; status=1; }
  results+=("$(printf '%-62s %-16s %s' "$label" "$outcome" "$(elapsed "$start")")")
  echo "    $outcome after $(elapsed "$start")"
  [ "$outcome" = passed ]
}

in_subshell() { ("$@"); }

# as_root_inside COMMAND...: COMMAND as root in root's clone in build/fresh/root.
as_root_inside() { root_exec "$work/root" "" bash -c 'cd /root/kwcall && exec "$@"' as_root "$@"; }
# as_plain_user COMMAND...: COMMAND as the plain user in build/fresh/user, in the user's home.
as_plain_user() {
  root_exec "$work/user" "" setpriv --reuid="$user" --regid="$user" --init-groups \
    env HOME="/home/$user" USER="$user" LOGNAME="$user" \
    bash -c 'cd ~ && exec "$@"' as_plain_user "$@"
}

# make_fresh_roots: build/fresh/root with the commit's repository in /srv/kwcall.git, and
# build/fresh/user, a copy of it with the plain user added (the repository is the user's: git
# refuses to read a repository of another user's).
make_fresh_roots() {
  debootstrap_root "$work/root" bookworm amd64 git,python3,ca-certificates,sudo \
    "$KWCALL_LOGS/fresh-root.log" "$mirror" &&
    root_network_files "$work/root" &&
    as_root cp -a "$work/kwcall.git" "$work/root/srv/kwcall.git" &&
    as_root cp -a "$work/root" "$work/user" &&
    root_exec "$work/user" "" bash -c "useradd --create-home --shell /bin/bash $user &&
      echo '$user ALL=(ALL) NOPASSWD: ALL' >/etc/sudoers.d/$user &&
      chmod 440 /etc/sudoers.d/$user && chown -R $user: /srv/kwcall.git"
}

step "commit $sha of $repo; Debian mirror $mirror"
git -C "$repo" log -1 --format='    %h %s' "$sha"
remove_tree "$work"
mkdir -p "$work"
git init -q --bare "$work/kwcall.git"
git -C "$work/kwcall.git" fetch -q "$repo" "$sha:refs/heads/fresh"

timed root "debootstrap Debian 12 (minbase, git python3 ca-certificates sudo)" make_fresh_roots &&
  timed root-clone "as root: git clone" root_exec "$work/root" "" \
    git clone -q -b fresh /srv/kwcall.git /root/kwcall &&
  timed root-demo "as root: bash scripts/demo.sh" as_root_inside bash scripts/demo.sh &&
  timed root-test "as root: bash scripts/test.sh" as_root_inside bash scripts/test.sh &&
  timed user-clone "as $user (passwordless sudo): git clone" as_plain_user \
    git clone -q -b fresh /srv/kwcall.git kwcall &&
  timed user-demo "as $user: bash scripts/demo.sh" as_plain_user bash -c 'cd kwcall && bash scripts/demo.sh' &&
  timed user-test "as $user: bash scripts/test.sh" as_plain_user bash -c 'cd kwcall && bash scripts/test.sh' &&
  timed user-all "as $user: bash scripts/test.sh --all-pythons" \
    as_plain_user bash -c 'cd kwcall && bash scripts/test.sh --all-pythons' &&
  timed user-owner "as $user: no file of root's in the clone outside build/roots" \
    as_plain_user bash -c 'cd kwcall && ! find . -path ./build/roots -prune -o -uid 0 -print | grep .' ||
  true

# build_dist.sh on this machine, in a fresh clone (no roots, no environments).
# wheels_for_every_python CLONE: names the wheel in CLONE/dist for each supported CPython.
wheels_for_every_python() {
  local version wheel missing=0
  for version in "${SUPPORTED_PYTHONS[@]}"; do
    wheel=$(ls "$1"/dist/kwcall-*-cp${version/./}-cp${version/./}-*manylinux*.whl 2>/dev/null) ||
      wheel=""
    if [ -n "$wheel" ]; then echo "    $(basename "$wheel")"; else echo "    none for Python $version"; missing=1; fi
  done
  return $missing
}
if [ "$status" = 0 ]; then
  git clone -q -b fresh "$work/kwcall.git" "$work/dist-clone"
  timed dist "on this machine, in a fresh clone: bash scripts/build_dist.sh" \
    bash -c 'cd "$0" && bash scripts/build_dist.sh' "$work/dist-clone" &&
    timed dist-wheels "dist/ has a wheel for each of ${SUPPORTED_PYTHONS[*]}" \
      wheels_for_every_python "$work/dist-clone" || true
  wheels_for_every_python "$work/dist-clone" || true
fi

step "summary: commit $sha, $(elapsed "$start_all") in all"
printf '    %s\n' "${results[@]}"
if [ "$status" = 0 ]; then
  remove_tree "$work"
else
  echo "    kept for a look: $work (remove it with: bash -c 'source scripts/lib.sh; source scripts/roots.sh; remove_tree $work')"
fi
exit $status
}
