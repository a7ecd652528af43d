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
# A named root must be one folder in $KWCALL_ROOTS: "..", "/", a path or a missing name would
# have rm reach beyond it.
for name in "${names[@]}"; do
  if [[ ! $name =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] || [ -L "$KWCALL_ROOTS/$name" ] ||
    [ ! -d "$KWCALL_ROOTS/$name" ]; then
    echo "remove_roots.sh: '$name' is not a root in $KWCALL_ROOTS (the roots there:" \
      "$(find "$KWCALL_ROOTS" -mindepth 1 -maxdepth 1 -printf '%f ' 2>/dev/null)); name one of" \
      "those, or none to remove them all" >&2
    exit 1
  fi
done
if [ ${#names[@]} = 0 ] && [ -d "$KWCALL_ROOTS" ]; then
  mapfile -t names < <(ls -A "$KWCALL_ROOTS")
fi
for name in "${names[@]}"; do
  step "remove $KWCALL_ROOTS/$name"
  remove_tree "$KWCALL_ROOTS/$name"
done
