#!/usr/bin/env bash
# A C++ compiler for CMake that is the g++ of a Debian root (KWCALL_CXX_ROOT, a folder made by
# scripts/roots.sh): binaries it links need only that root's glibc, so wheels built with it
# run on systems as old as that root. It runs in the current directory inside the root, in a
# private mount namespace with the clone and each folder of KWCALL_CXX_MOUNTS (colon-separated:
# the Python headers) mounted at their own paths; nothing stays mounted after it. The namespace
# and chroot need root (sudo when the caller is not root); g++ itself runs as the caller, so
# what it writes is the caller's.
set -euo pipefail
root=${KWCALL_CXX_ROOT:?the Debian root whose g++ to run}
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/roots.sh"
refuse_unless_root_is_mount_point || exit 1
as_root unshare --mount --propagation private bash -c '
  set -euo pipefail
  root=$1 owner=$2 mounts=$3
  shift 3
  IFS=: read -r -a dirs <<<"$mounts"
  for dir in "${dirs[@]}"; do
    [ -n "$dir" ] || continue
    mkdir -p "$root$dir"
    mount --bind "$dir" "$root$dir"
  done
  exec chroot --userspec="$owner" --groups="${owner#*:}" "$root" \
    /bin/sh -c "cd \"\$0\" && exec g++ \"\$@\"" "$PWD" "$@"
' root_cxx "$root" "$(id -u):$(id -g)" "$KWCALL_ROOT:${KWCALL_CXX_MOUNTS:-}" "$@"
