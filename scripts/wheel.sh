# Wheels that run on old systems, for scripts/build_dist.sh (x86_64) and
# scripts/test_platform.sh (aarch64): built with the g++ and glibc of an old Debian root and
# libstdc++ linked statically, then repaired to the oldest manylinux tag they meet. Source it
# after lib.sh and roots.sh.

# What the static libstdc++ takes: kwcall's shared library and the extension module.
STATIC_LIBSTDCXX=(--config-settings=cmake.define.CMAKE_SHARED_LINKER_FLAGS=-static-libstdc++
  --config-settings=cmake.define.CMAKE_MODULE_LINKER_FLAGS=-static-libstdc++)

# old_glibc_wheel LOG OLD_ROOT PYTHON SOURCE OUTDIR [RUN...]: `pip wheel` of SOURCE (an unpacked
# sdist inside the clone, built in place: the old root sees the clone, not pip's /tmp) by
# PYTHON, run through RUN (a prefix such as `in_root sid`; nothing runs it here), compiled by
# OLD_ROOT's g++ (scripts/root_cxx.sh): the binaries need only OLD_ROOT's glibc and the
# system's libgcc_s, so one unwinder serves the process.
old_glibc_wheel() {
  local log=$1 old_root=$2 python=$3 source=$4 outdir=$5 headers
  shift 5
  # The Python headers the compiler inside the old root must see, at their own paths.
  headers=$("$@" "$python" "$KWCALL_ROOT/scripts/python_include_dirs.py")
  logged_ok "$log" "$@" env CXX="$KWCALL_ROOT/scripts/root_cxx.sh" \
    KWCALL_CXX_ROOT="$KWCALL_ROOTS/$old_root" KWCALL_CXX_MOUNTS="$headers" \
    "$python" -m pip wheel --no-build-isolation --no-deps -w "$outdir" "${STATIC_LIBSTDCXX[@]}" \
    "$source"
}

# repair_wheel LOG AUDITWHEEL WHEEL OUTDIR [RUN...]: `auditwheel repair` to the oldest tag WHEEL
# meets, libtvm_ffi.so left out (apache-tvm-ffi's wheel provides it), then what the tag rests
# on: `auditwheel show` (it says "linux_<arch>" for the excluded libtvm_ffi.so alone; the
# symbol versions it lists are what count) and the libraries each binary needs, on stdout.
repair_wheel() {
  local log=$1 auditwheel=$2 wheel=$3 outdir=$4 repaired probe so
  shift 4
  apt_install "$log" unzip binutils  # what reads the repaired wheel here: unzip, readelf
  logged_ok "$log" "$@" "$auditwheel" repair --exclude libtvm_ffi.so -w "$outdir" "$wheel" ||
    return 1
  repaired=$(ls "$outdir"/"$(basename "${wheel%%-linux_*}")"-*manylinux*.whl)
  "$@" "$auditwheel" show "$repaired" 2>&1 | sed 's/^/    /'
  probe=$(mktemp -d)
  unzip -q "$repaired" -d "$probe"
  for so in $(cd "$probe" && find . -name '*.so*' | sort); do
    printf '    %s needs %s\n' "${so#./}" "$(readelf -d "$probe/$so" |
      sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
  done
  rm -rf "$probe"
}
