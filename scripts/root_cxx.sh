#!/usr/bin/env bash
# A C++ compiler for CMake that is the g++ of a Debian root (KWCALL_CXX_ROOT, a folder made by
# scripts/roots.sh): binaries it links need only that root's glibc, so wheels built with it
# run on systems as old as that root. It runs in the current directory inside the root, in a
# private mount namespace with the clone and each folder of KWCALL_CXX_MOUNTS (colon-separated:
# the Python headers) mounted at their own paths; nothing stays mounted after it.
set -euo pipefail
root=${KWCALL_CXX_ROOT:?the Debian root whose g++ to run}
clone=$(cd "$(dirname "$0")/.." && pwd)
# Inside another root (in_root's namespace, already private) "/" is no mount point to change.
propagation=private
mountpoint -q / || propagation=unchanged
exec unshare --mount --propagation $propagation bash -c '
  root=$1 mounts=$2
  shift 2
  IFS=: read -r -a dirs <<<"$mounts"
  for dir in "${dirs[@]}"; do
    [ -n "$dir" ] || continue
    mkdir -p "$root$dir"
    mount --bind "$dir" "$root$dir"
  done
  exec chroot "$root" /bin/sh -c "cd \"\$0\" && exec g++ \"\$@\"" "$PWD" "$@"
' root_cxx "$root" "$clone:${KWCALL_CXX_MOUNTS:-}" "$@"
