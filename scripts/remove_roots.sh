#!/usr/bin/env bash
# Removes the Debian roots the scripts made (build/roots/*, or the ones named), as root (sudo
# when not root: their files are root's, so a plain user's `rm -rf build` cannot), each only
# when nothing is mounted below it (scripts/roots.sh's remove_tree).
#
#   bash scripts/remove_roots.sh               # every root in build/roots
#   bash scripts/remove_roots.sh sid bullseye  # those
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/roots.sh"
names=("$@")
if [ ${#names[@]} = 0 ] && [ -d "$KWCALL_ROOTS" ]; then
  mapfile -t names < <(ls -A "$KWCALL_ROOTS")
fi
for name in "${names[@]}"; do
  step "remove $KWCALL_ROOTS/$name"
  remove_tree "$KWCALL_ROOTS/$name"
done
