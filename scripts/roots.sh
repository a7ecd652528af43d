# Debian roots for what this machine's own system cannot give: newer Pythons (sid), an older
# glibc (bullseye), another architecture (arm64 under qemu). Each is made once with debootstrap
# from Debian's mirror (debian_mirror: DEBIAN_MIRROR, or this machine's) into build/roots/NAME and reused; in_root runs a command inside one with
# the clone mounted at its own path. Making and entering a root needs root: as_root (lib.sh)
# uses sudo when the caller is not root. Every mount is made in a private mount namespace, so
# none is ever seen outside it, and a root is removed only when nothing is mounted below it.
# Source it after lib.sh.
KWCALL_ROOTS=${KWCALL_ROOTS:-$KWCALL_ROOT/build/roots}

# What each root is: suite, architecture, packages.
declare -A ROOT_SUITE=([sid]=sid [bullseye]=bullseye [arm64]=trixie [arm64-bullseye]=bullseye)
declare -A ROOT_ARCH=([sid]=amd64 [bullseye]=amd64 [arm64]=arm64 [arm64-bullseye]=arm64)
declare -A ROOT_PACKAGES=(
  [sid]=python3.14-dev,python3.14-venv,python3.15-dev,python3.15-venv,g++,cmake,ninja-build,ca-certificates
  # The old-glibc toolchain the wheels are built with, and its Python to test them on.
  [bullseye]=g++,python3-venv,ca-certificates
  [arm64]=python3-dev,python3-venv,g++,ca-certificates
  # The old-glibc toolchain of the aarch64 wheel (its Python comes from the arm64 root).
  [arm64-bullseye]=g++
)

# Where a supported Python this machine lacks comes from: the root that packages it.
declare -A PYTHON_ROOT=([3.14]=sid [3.15]=sid)

# python_root VERSION: the root to run Python VERSION in, when this machine has no such Python.
python_root() {
  ! find_python "$1" >/dev/null && [ -n "${PYTHON_ROOT[$1]:-}" ] && echo "${PYTHON_ROOT[$1]}"
}

# enable_binfmt ARCH LOG: lets this kernel run ARCH's binaries through qemu-user-static.
# The registration lives only as long as binfmt_misc stays mounted, so the caller runs in a
# private mount namespace (in_private_mounts): the mount goes when the namespace does.
enable_binfmt() {
  local qemu=qemu-$1 log=$2 dir=/proc/sys/fs/binfmt_misc
  mountpoint -q $dir || logged "$log" as_root mount -t binfmt_misc binfmt_misc $dir
  [ -e "$dir/$qemu" ] && return 0
  step "register $qemu with binfmt_misc (log: $log)"
  # qemu-user-static's entry has the fix-binary flag, so it also works inside chroots.
  logged "$log" as_root update-binfmts --import $qemu
  [ -e "$dir/$qemu" ] || logged "$log" as_root update-binfmts --enable $qemu
}

# in_private_mounts "$0" "$@": re-runs the calling script in a private mount namespace (made
# as root; the script itself goes on as the user who ran it).
in_private_mounts() {
  [ -z "${KWCALL_PRIVATE_MOUNTS:-}" ] || return 0
  refuse_unless_root_is_mount_point || exit 1
  if [ "$(id -u)" -eq 0 ]; then
    KWCALL_PRIVATE_MOUNTS=1 exec unshare --mount --propagation private bash "$@"
  fi
  exec sudo --preserve-env unshare --mount --propagation private \
    setpriv --reuid="$(id -u)" --regid="$(id -g)" --init-groups \
    env PATH="$PATH" HOME="$HOME" KWCALL_PRIVATE_MOUNTS=1 bash "$@"
}

# refuse_unless_root_is_mount_point: a private mount namespace needs "/" to be a mount point;
# in a plain chroot it is not, and mounts made there could reach the parent namespace.
refuse_unless_root_is_mount_point() {
  mountpoint -q / && return 0
  echo "/ is not a mount point here (a plain chroot?): the mounts this script makes could not" \
    "be kept private. Run it on the machine itself, or inside a root entered with" \
    "scripts/roots.sh's in_root, where / is a mount point." >&2
  return 1
}

# mounts_below DIR: the mount points at or below DIR in this mount namespace, one a line.
mounts_below() {
  local dir
  dir=$(realpath -m "$1")
  # findmnt -r writes a space in a path as \x20.
  findmnt -rn -o TARGET | awk -v dir="${dir// /\\x20}" '$0 == dir || index($0, dir "/") == 1'
}

# remove_tree DIR...: rm -rf DIR (as root: a root's files are root's), refused when anything is
# mounted at or below it: rm would go on into what is mounted there (the clone, /dev, the
# host's own files) and delete that too.
remove_tree() {
  local dir mounted
  for dir in "$@"; do
    [ -e "$dir" ] || [ -L "$dir" ] || continue
    mounted=$(mounts_below "$dir")
    if [ -n "$mounted" ]; then
      echo "refusing to remove $dir: mounted below it:" $mounted >&2
      echo "unmount those first (umount -R MOUNT_POINT as root), then run this again" >&2
      return 1
    fi
    as_root rm -rf --one-file-system "$dir"
  done
}

# ensure_root NAME LOG: build/roots/NAME, made when absent or when its definition changed.
ensure_root() {
  local name=$1 log=$2 dir=$KWCALL_ROOTS/$1 spec
  spec="${ROOT_SUITE[$name]} ${ROOT_ARCH[$name]} ${ROOT_PACKAGES[$name]}"
  if [ "${ROOT_ARCH[$name]}" != amd64 ]; then
    apt_install "$log" qemu-user-static binfmt-support
    enable_binfmt aarch64 "$log"
  fi
  if [ "$(cat "$dir/.kwcall-root" 2>/dev/null)" != "$spec" ]; then
    debootstrap_root "$dir" "${ROOT_SUITE[$name]}" "${ROOT_ARCH[$name]}" "${ROOT_PACKAGES[$name]}" \
      "$log"
    echo "$spec" | as_root tee "$dir/.kwcall-root" >/dev/null
  fi
  root_network_files "$dir"
  # Earlier versions of this script copied the pip configuration in; root_exec passes it now.
  as_root rm -f "$dir/etc/pip.conf" "$dir/root/.config/pip/pip.conf"
}

# debootstrap_root DIR SUITE ARCH PACKAGES LOG [MIRROR]: a minimal Debian (debootstrap's
# minbase) with PACKAGES (comma-separated) made into DIR, as root, from MIRROR (debian_mirror
# when empty) through this machine's apt proxy, if it has one. A previous DIR is removed first
# (remove_tree).
debootstrap_root() {
  local dir=$1 suite=$2 arch=$3 packages=$4 log=$5 mirror=${6:-}
  [ -n "$mirror" ] || mirror=$(debian_mirror) || exit 1
  apt_install "$log" debootstrap
  step "debootstrap $suite ($arch) into $dir from $mirror (as root; log: $log)"
  refuse_unless_root_is_mount_point || exit 1
  remove_tree "$dir" "$dir.new" || exit 1
  mkdir -p "$(dirname "$dir")"
  # debootstrap mounts /proc and /sys inside the new root while it works; in a private
  # namespace those go when it ends, even when it fails halfway. The apt proxy (it may hold a
  # password) is read by that root process itself, from apt's configuration: it never reaches
  # a command line or the log.
  logged "$log" as_root env ${APT_CONFIG:+APT_CONFIG="$APT_CONFIG"} \
    unshare --mount --propagation private bash -c "$WITH_APT_PROXY" with_apt_proxy \
    debootstrap --variant=minbase --arch "$arch" --include="$packages" "$suite" "$dir.new" \
    "$mirror"
  as_root mv "$dir.new" "$dir"
}

# bash -c "$WITH_APT_PROXY" NAME COMMAND...: COMMAND with http_proxy set to apt's proxy, when
# apt has one.
# shellcheck disable=SC2016 # expanded by that bash
WITH_APT_PROXY='eval "$(apt-config shell http_proxy Acquire::http::Proxy 2>/dev/null)"
[ -z "${http_proxy:-}" ] || export http_proxy
exec "$@"'


# root_network_files DIR: DNS, host names (sudo inside looks up this machine's name) and the
# CA bundle as this machine has them, for apt and pip inside.
root_network_files() {
  as_root cp -L /etc/resolv.conf "$1/etc/resolv.conf"
  as_root cp -L /etc/hosts "$1/etc/hosts"
  [ ! -f /etc/ssl/certs/ca-certificates.crt ] ||
    as_root cp -L /etc/ssl/certs/ca-certificates.crt "$1/etc/ssl/certs/ca-certificates.crt"
}

# in_root NAME COMMAND...: runs COMMAND as root inside build/roots/NAME, in the clone (mounted
# at its own path); see root_exec. Files COMMAND makes in the clone are the caller's.
in_root() {
  local dir=$KWCALL_ROOTS/$1
  if [ ! -f "$dir/.kwcall-root" ]; then
    echo "in_root: $dir is not a Debian root made by ensure_root (ensure_root $1 first)" >&2
    return 1
  fi
  shift
  root_exec "$dir" "$KWCALL_ROOT" "$@"
}

# root_exec DIR CLONE COMMAND...: COMMAND as root inside the Debian root DIR, in CLONE (or in
# "/" when CLONE is empty), with a clean environment, through scripts/root_exec.sh: in a
# private mount namespace of its own, so no mount is seen outside it and all go when it ends.
# The caller's pip configuration (it may hold index tokens) reaches COMMAND on a read-only
# tmpfs, never written into DIR, and so do this machine's apt proxy settings (root_exec.sh reads
# them itself: no secret is on a command line); when the caller is not root, the files COMMAND
# wrote in CLONE (outside the roots) are given back to the caller.
root_exec() {
  local dir=$1 clone=$2 file pip_files=()
  shift 2
  # The pip configuration files the caller's pip reads, in its order (the later wins): the
  # machine's, then the user's, or PIP_CONFIG_FILE instead of the user's when it exists (in a
  # root, the one root_exec passed). /etc/xdg/pip is left out: a file there may name files of
  # this machine (constraints) by paths a root does not have.
  local user_files=("$HOME/.pip/pip.conf" "$HOME/.config/pip/pip.conf")
  [ ! -f "${PIP_CONFIG_FILE:-}" ] || user_files=("$PIP_CONFIG_FILE")
  for file in /etc/pip.conf "${user_files[@]}"; do
    [ -f "$file" ] && pip_files+=("$file")
  done
  refuse_unless_root_is_mount_point || return 1
  as_root env TERM="${TERM:-dumb}" CI="${CI:-}" ${APT_CONFIG:+APT_CONFIG="$APT_CONFIG"} \
    unshare --mount --propagation private \
    bash "$KWCALL_ROOT/scripts/root_exec.sh" "$dir" "$clone" "$(id -u):$(id -g)" \
    "$KWCALL_ROOTS" "$(printf '%s\n' "${pip_files[@]}")" "$(debian_mirror 2>/dev/null)" "$@"
}
