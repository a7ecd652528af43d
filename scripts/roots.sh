# Debian roots for what this machine's own system cannot give: newer Pythons (sid), an older
# glibc (bullseye), another architecture (arm64 under qemu). Each is made once with debootstrap
# from Debian's mirror into build/roots/NAME and reused; in_root runs a command inside one with
# the clone mounted at its own path. Source it after lib.sh.
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

# apt_install LOG PACKAGE...: installs the host packages that are missing.
apt_install() {
  local log=$1 missing=() pkg sudo=""
  shift
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  ((${#missing[@]})) || return 0
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  step "apt-get install ${missing[*]} (log: $log)"
  logged "$log" $sudo apt-get update
  logged "$log" env DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "${missing[@]}"
}

# enable_binfmt ARCH LOG: lets this kernel run ARCH's binaries through qemu-user-static.
# The registration lives only as long as binfmt_misc stays mounted, so the caller runs in a
# private mount namespace (in_private_mounts): the mount goes when the namespace does.
enable_binfmt() {
  local qemu=qemu-$1 log=$2 dir=/proc/sys/fs/binfmt_misc
  mountpoint -q $dir || logged "$log" mount -t binfmt_misc binfmt_misc $dir
  [ -e "$dir/$qemu" ] && return 0
  step "register $qemu with binfmt_misc (log: $log)"
  # qemu-user-static's entry has the fix-binary flag, so it also works inside chroots.
  logged "$log" update-binfmts --import $qemu
  [ -e "$dir/$qemu" ] || logged "$log" update-binfmts --enable $qemu
}

# in_private_mounts "$0" "$@": re-runs the calling script in a private mount namespace.
in_private_mounts() {
  if [ -z "${KWCALL_PRIVATE_MOUNTS:-}" ]; then
    KWCALL_PRIVATE_MOUNTS=1 exec unshare --mount --propagation private bash "$@"
  fi
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
    apt_install "$log" debootstrap
    step "debootstrap ${ROOT_SUITE[$name]} (${ROOT_ARCH[$name]}) into $dir (log: $log)"
    rm -rf "$dir" "$dir.new"
    mkdir -p "$KWCALL_ROOTS"
    logged "$log" debootstrap --variant=minbase --arch "${ROOT_ARCH[$name]}" \
      --include="${ROOT_PACKAGES[$name]}" "${ROOT_SUITE[$name]}" "$dir.new" ${DEBIAN_MIRROR:-}
    echo "$spec" >"$dir.new/.kwcall-root"
    mv "$dir.new" "$dir"
  fi
  # pip inside reaches PyPI as the host's does: its configuration and CA bundle, and DNS.
  local file
  for file in /etc/pip.conf "$HOME/.config/pip/pip.conf" /etc/ssl/certs/ca-certificates.crt \
    /etc/resolv.conf; do
    if [ -f "$file" ]; then
      mkdir -p "$dir/$(dirname "${file/#$HOME//root}")"
      cp -L "$file" "$dir/${file/#$HOME//root}"
    fi
  done
}

# in_root NAME COMMAND...: runs COMMAND as root inside build/roots/NAME, in the clone (mounted
# at its own path), with /proc and /dev, and a clean environment. The mounts are made in a
# private mount namespace and unmounted on exit, so none outlives the command.
in_root() {
  local dir=$KWCALL_ROOTS/$1
  shift
  unshare --mount --propagation private bash -c '
    dir=$1 clone=$2
    shift 2
    trap "umount -R \"$dir$clone\" \"$dir/dev\" \"$dir/proc\" 2>/dev/null" EXIT
    mount -t proc proc "$dir/proc"
    mount --rbind /dev "$dir/dev"
    mkdir -p "$dir$clone"
    mount --bind "$clone" "$dir$clone"
    chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_DEFAULT_TIMEOUT=180 \
      /bin/bash -c "cd \"\$0\" && exec \"\$@\"" "$clone" "$@"
  ' in_root "$dir" "$KWCALL_ROOT" "$@"
}
