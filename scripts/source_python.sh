# CPython built from source inside an older Debian root: a supported Python on a glibc older
# than this machine's, to install the wheels on. Debian's mirror (scripts/debian_mirror.sh)
# serves the upstream tarballs of the Pythons its current suites package (3.11 in bookworm, 3.13
# in trixie), not of the others. Source it after lib.sh and roots.sh.

# The suite whose source package has CPython VERSION.
declare -A PYTHON_SOURCE_SUITE=([3.11]=bookworm [3.13]=trixie)
# What CPython's build needs beyond g++: make, and the headers of the modules pip and the tests
# use (ssl for PyPI, zlib for wheels, ctypes, bz2, lzma, sqlite3).
PYTHON_BUILD_PACKAGES=(make xz-utils libssl-dev zlib1g-dev libffi-dev libbz2-dev liblzma-dev
  libsqlite3-dev)

# source_python VERSION: where CPython VERSION is installed inside a root.
source_python() { echo "/opt/python$1/bin/python$1"; }

# source_python_works VERSION ROOT: that CPython runs in ROOT with what pip and the tests need.
source_python_works() { in_root "$2" "$(source_python "$1")" -c "import ssl, zlib, ctypes"; }

# debian_upstream_tarball SUITE PACKAGE: the mirror path of PACKAGE's upstream tarball in SUITE
# (from the suite's source index, so a new Debian revision is followed). Where the index lists
# the package more than once, the highest version's (Debian's order: sort -V, "~" first).
debian_upstream_tarball() {
  local index
  index=$(mktemp)
  mirror_fetch "dists/$1/main/source/Sources.xz" "$index" || return 1
  xz -dc "$index" | awk -v package="$2" '
      BEGIN { RS = "" }
      $0 ~ "(^|\n)Package: " package "\n" {
        directory = ""; tarball = ""; version = ""
        n = split($0, lines, "\n")
        for (i = 1; i <= n; i++) {
          if (lines[i] ~ /^Directory: /) directory = substr(lines[i], 12)
          if (lines[i] ~ /^Version: /) version = substr(lines[i], 10)
          m = split(lines[i], words, " ")
          if (words[m] ~ /\.orig\.tar\.(gz|xz|bz2)$/) tarball = words[m]
        }
        if (directory != "" && tarball != "") print version, directory "/" tarball
      }' | sort -V -k1,1 | tail -1 | cut -d' ' -f2
  rm -f "$index"
}

# ensure_source_python VERSION ROOT LOG: CPython VERSION built inside build/roots/ROOT (once;
# reused while its interpreter runs), from the upstream tarball of Debian's source package.
ensure_source_python() {
  local version=$1 root=$2 log=$3 dir=$KWCALL_ROOTS/$2 suite=${PYTHON_SOURCE_SUITE[$1]:-} path
  [ -n "$suite" ] || { echo "no Debian source for Python $version" >&2; return 1; }
  source_python_works "$version" "$root" 2>/dev/null && return 0
  apt_install "$log" curl xz-utils ca-certificates  # what reads Debian's source index here
  path=$(debian_upstream_tarball "$suite" "python$version") || return 1
  [ -n "$path" ] || { echo "Debian $suite lists no source for python$version" >&2; return 1; }
  step "CPython $version from Debian $suite's $(basename "$path"), built inside the $root root (log: $log)"
  local src=/opt/src/python$version tarball=$KWCALL_ROOT/build/python$version-source.tar
  mirror_fetch "$path" "$tarball" || return 1
  remove_tree "$dir$src" || return 1
  as_root mkdir -p "$dir$src"
  logged "$log" as_root tar xf "$tarball" --no-same-owner --strip-components=1 -C "$dir$src"
  rm -f "$tarball"
  logged "$log" in_root "$root" apt-get update
  logged "$log" in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
    --no-install-recommends "${PYTHON_BUILD_PACKAGES[@]}"
  logged "$log" in_root "$root" bash -c "cd $src && ./configure --prefix=/opt/python$version &&
    make -j$(nproc) && make install"
  remove_tree "${dir:?}$src" || return 1
  source_python_works "$version" "$root"
}
