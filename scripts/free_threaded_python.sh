# Free-threaded CPython ("3.13t": built with --disable-gil), which neither Debian 12 nor pyenv's
# builds here provide: built once on this machine from the upstream tarball of Debian's source
# package for that version (scripts/source_python.sh finds it), installed into
# build/pythons/VERSION (KWCALL_PYTHONS, scripts/lib.sh) and reused while it works. Source it
# after lib.sh; it sources roots.sh and source_python.sh.
source "$(dirname "${BASH_SOURCE[0]}")/roots.sh"
source "$(dirname "${BASH_SOURCE[0]}")/source_python.sh"

# build_python_from_debian VERSION PREFIX LOG [CONFIGURE ARGUMENTS...]: CPython VERSION ("3.13")
# from the upstream tarball of Debian's python<VERSION> source package, configured with those
# arguments, built with this machine's compiler and installed into PREFIX (made anew).
build_python_from_debian() {
  local version=$1 prefix=$2 log=$3 suite=${PYTHON_SOURCE_SUITE[$1]:-} path src start=$SECONDS
  shift 3
  [ -n "$suite" ] || { echo "no Debian source for Python $version" >&2; return 1; }
  apt_install "$log" g++ curl "${PYTHON_BUILD_PACKAGES[@]}"
  path=$(debian_upstream_tarball "$suite" "python$version") || return 1
  [ -n "$path" ] || { echo "Debian $suite lists no source for python$version" >&2; return 1; }
  step "CPython $version ($*) from Debian $suite's $(basename "$path") into $prefix (log: $log)"
  src=$prefix.src
  rm -rf "$prefix" "$src" && mkdir -p "$src"
  mirror_fetch "$path" "$src.tar" || return 1
  logged "$log" tar xf "$src.tar" --strip-components=1 -C "$src"
  logged "$log" bash -c "cd '$src' && ./configure --prefix='$prefix' $* && make -j$(nproc) &&
    make install"
  rm -rf "$src" "$src.tar"
  echo "    built in $(elapsed "$start")"
}

# ensure_free_threaded_python VERSION LOG: free-threaded CPython VERSION ("3.13t") in
# build/pythons/VERSION, built when it is missing or does not run with what pip and the tests
# need (ssl, zlib, ctypes) and without the GIL.
ensure_free_threaded_python() {
  local version=$1 log=$2 python
  python=$KWCALL_PYTHONS/$version/bin/python$version
  if [ "$(python_version "$python" 2>/dev/null)" = "$version" ] &&
    "$python" -c "import ssl, zlib, ctypes" 2>/dev/null; then
    return 0
  fi
  build_python_from_debian "${version%t}" "$KWCALL_PYTHONS/$version" "$log" --disable-gil
  [ "$(python_version "$python")" = "$version" ]
}
