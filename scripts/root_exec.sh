#!/usr/bin/env bash
# The part of scripts/roots.sh's root_exec that runs as root, in the private mount namespace
# root_exec made for it (nothing mounted here is seen outside it, and all of it goes when the
# command ends):
#
#   root_exec.sh DIR CLONE OWNER ROOTS PIP_FILES APT_CONFIG MIRROR COMMAND...
#
# mounts DIR on itself (so that "/" is a mount point inside, and scripts there can make
# private namespaces of their own), /proc, /dev, CLONE (when not empty) at its own path, and a
# tmpfs at DIR/run/kwcall-host holding PIP_FILES (newline-separated) merged into one pip.conf
# and APT_CONFIG (the caller's apt settings), read-only; then runs COMMAND inside DIR with a
# clean environment pointing at them (PIP_CONFIG_FILE, APT_CONFIG). When OWNER (uid:gid) is not
# root's, the files COMMAND made in CLONE, outside ROOTS, are given back to OWNER.
set -euo pipefail
dir=$1 clone=$2 owner=$3 roots=$4 pip_files=$5 apt_config=$6 mirror=$7
shift 7

# merge_ini FILE...: INI files read as pip (Python's configparser) reads several, a later
# file's value for a key replacing an earlier one's, written as one file; multi-line values
# (indented continuation lines) are kept.
merge_ini() {
  awk '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
    FNR == 1 { section = ""; key = "" }
    /^[ \t]*[#;]/ { next }
    /^[ \t]*$/ { key = ""; next }
    /^\[/ {
      section = trim(substr($0, 2, index($0, "]") - 2)); key = ""
      if (!(section in known)) { known[section] = 1; sections[++count] = section }
      next
    }
    /^[ \t]/ && key != "" { values[section, key] = values[section, key] "\n    " trim($0); next }
    section != "" && match($0, /[=:]/) {
      key = tolower(trim(substr($0, 1, RSTART - 1)))
      if (!((section, key) in values)) keys[section] = keys[section] SUBSEP key
      values[section, key] = trim(substr($0, RSTART + 1))
    }
    END {
      for (i = 1; i <= count; i++) {
        print "[" sections[i] "]"
        n = split(substr(keys[sections[i]], 2), names, SUBSEP)
        for (j = 1; j <= n; j++) print names[j] " = " values[sections[i], names[j]]
      }
    }' "$@"
}

mount --bind "$dir" "$dir"
mount -t proc proc "$dir/proc"
mount --rbind /dev "$dir/dev"
host=$dir/run/kwcall-host
mkdir -p "$host"
mount -t tmpfs -o size=1m,mode=0755 kwcall-host "$host"
env=()
if [ -n "$pip_files" ]; then
  mapfile -t files <<<"$pip_files"
  merge_ini "${files[@]}" >"$host/pip.conf"
  env+=(PIP_CONFIG_FILE=/run/kwcall-host/pip.conf)
fi
if [ -n "$apt_config" ]; then
  printf '%s\n' "$apt_config" >"$host/apt.conf"
  env+=(APT_CONFIG=/run/kwcall-host/apt.conf)
fi
chmod -R a+rX "$host"
mount -o remount,ro "$host"
[ -z "$mirror" ] || env+=(DEBIAN_MIRROR="$mirror")
if [ -n "$clone" ]; then
  mkdir -p "$dir$clone"
  mount --bind "$clone" "$dir$clone"
fi
status=0
chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="$TERM" CI="$CI" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_DEFAULT_TIMEOUT=180 "${env[@]}" \
  /bin/bash -c 'cd "$0" && exec "$@"' "${clone:-/}" "$@" || status=$?
if [ -n "$clone" ] && [ "$owner" != 0:0 ]; then
  find "$clone" -path "$roots" -prune -o -uid 0 -print0 | xargs -0r chown -h "$owner"
fi
exit $status
