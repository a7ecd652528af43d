#!/usr/bin/env bash
# The part of scripts/roots.sh's root_exec that runs as root, in the private mount namespace
# root_exec made for it (nothing mounted here is seen outside it, and all of it goes when the
# command ends):
#
#   [APT_CONFIG=FILE] root_exec.sh DIR CLONE OWNER ROOTS PIP_FILES MIRROR COMMAND...
#
# mounts DIR on itself (so that "/" is a mount point inside, and scripts there can make
# private namespaces of their own), /proc, /dev, CLONE (when not empty) at its own path, and a
# tmpfs at DIR/run/kwcall-host holding PIP_FILES (newline-separated) merged into one pip.conf
# and this machine's apt settings (apt-config's, read here: a proxy's password never passes
# through a command line), read-only; then runs COMMAND inside DIR with a clean environment
# pointing at them (PIP_CONFIG_FILE, APT_CONFIG). When OWNER (uid:gid) is not root's, the files
# COMMAND wrote in CLONE, outside ROOTS, are given back to OWNER (give_back).
set -euo pipefail
dir=$1 clone=$2 owner=$3 roots=$4 pip_files=$5 mirror=$6
shift 6

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

# host_apt_config: this machine's apt settings a Debian root needs to reach the mirror as this
# machine does (proxies; no Release-date checks where the mirror is a snapshot), as apt.conf.
host_apt_config() {
  command -v apt-config >/dev/null || return 0
  apt-config dump 2>/dev/null |
    grep -E '^Acquire::((https?|ftp)::Proxy|Check-Valid-Until|Check-Date)[ :]' || true
}

# give_back STAMP: the files in CLONE that are root's and that COMMAND wrote (changed since
# STAMP was made), OWNER's. Run once every mount made here is gone: the walk never crosses a
# mount (-xdev), never enters ROOTS (compared as a file, -samefile: no pattern of its path),
# and leaves alone a file with other hard links (one of a root's own files, linked in).
give_back() {
  local stamp=$1 skip=()
  [ ! -d "$roots" ] || skip=(-samefile "$roots" -prune -o)
  find "$clone" -xdev "${skip[@]}" -uid 0 -cnewer "$stamp" \( -type d -o -links 1 \) \
    -exec chown -h "$owner" {} +
}

# What COMMAND writes is newer than this: file times move in clock ticks (a few ms), so the
# command starts a few ticks later.
stamp=$(mktemp)
sleep 0.03
trap 'rm -f "$stamp"' EXIT

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
apt_config=$(host_apt_config)
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
  # Lazily: a process COMMAND left behind may still hold one.
  umount --recursive --lazy "$dir" || true  # give_back crosses no mount either way
  give_back "$stamp"
fi
exit $status
