#!/usr/bin/env bash
# kwcall's Python extension under ThreadSanitizer on free-threaded CPython, where Python
# threads really run at once: what test_thread_stress.py and test_function.py do, checked for
# data races.
#   1. CPython 3.13 built with --disable-gil --with-thread-sanitizer into build/tsan-python/
#      (once; reused while it runs), from Debian trixie's upstream tarball (the one
#      scripts/source_python.sh fetches; KWCALL_CPYTHON_TARBALL names a local copy instead)
#   2. a virtual environment from it (build/tsan-python/venv) with apache-tvm-ffi built from
#      its sdist ($TSAN_TVM_FFI: the newest release that builds on 3.13t), pytest, hypothesis
#   3. libkwcall and the extension built with -fsanitize=thread, installed into that venv
#   4. pytest on the stress test, the kwcall.Function tests and the no-GIL and free-threading
#      tests, with PYTHON_GIL unset (kwcall's declaration keeps the GIL off) and the thread
#      sanitizer's reports counted from the log
#
#   bash scripts/sanitize_free_threaded.sh
# Full output: build/logs/sanitize-free-threaded.log (pytest's: sanitize-free-threaded-pytest.log).
# Exits non-zero on a failed test or any
# ThreadSanitizer report not suppressed by scripts/tsan_suppressions.txt (each entry says why
# it is not kwcall's).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$KWCALL_ROOT/scripts/source_python.sh"
cd "$KWCALL_ROOT"

TSAN_TVM_FFI=${TSAN_TVM_FFI:-apache-tvm-ffi==0.1.12}
TSAN_TESTS=(tests/python/test_thread_stress.py tests/python/test_function.py
  tests/python/test_no_gil.py tests/python/test_free_threaded.py)
dir=$KWCALL_ROOT/build/tsan-python
prefix=$dir/install
python=$prefix/bin/python3.13t
venv=$dir/venv
log=$KWCALL_LOGS/sanitize-free-threaded.log
: >"$log"
start=$SECONDS

# The interpreter: built once, kept while it runs and is the build this script asks for.
tsan_python_works() {
  "$python" -c 'import sys, sysconfig, ssl, ctypes
sys.exit(not sysconfig.get_config_var("Py_GIL_DISABLED")
         or "-fsanitize=thread" not in sysconfig.get_config_var("CONFIG_ARGS") + sysconfig.get_config_var("PY_CFLAGS"))' \
    2>/dev/null
}

if ! tsan_python_works; then
  tarball=${KWCALL_CPYTHON_TARBALL:-$dir/python3.13.orig.tar}
  if [ ! -f "$tarball" ]; then
    apt_install "$log" curl xz-utils ca-certificates  # what reads Debian's source index
    path=$(debian_upstream_tarball trixie python3.13) || exit 1
    [ -n "$path" ] || { echo "Debian trixie lists no source for python3.13" >&2; exit 1; }
    step "fetch $(basename "$path") from Debian's mirror ($(debian_mirror))"
    mkdir -p "$dir"
    mirror_fetch "$path" "$tarball" || exit 1
  fi
  step "build CPython 3.13 --disable-gil --with-thread-sanitizer into $prefix (log: $log)"
  # As root (sudo for a plain user), as every script installs what it needs.
  apt_install "$log" "${PYTHON_BUILD_PACKAGES[@]}"
  rm -rf "$dir/src" "$prefix" "$venv"
  mkdir -p "$dir/src"
  logged "$log" tar xf "$tarball" --strip-components=1 -C "$dir/src"
  # CPython's own tests need no optimised build: -O1 keeps TSan's stacks readable.
  logged "$log" bash -c "cd '$dir/src' && ./configure --prefix='$prefix' --disable-gil \
    --with-thread-sanitizer CFLAGS='-O1 -g' && nice make -j$(nproc) && make install"
  # CPython's list of its own known races in the free-threaded build, kept beside it.
  cp "$dir/src/Tools/tsan/suppressions_free_threading.txt" "$prefix/cpython_suppressions.txt"
  rm -rf "$dir/src"
  tsan_python_works || { echo "the built interpreter is not a TSan free-threaded one" >&2; exit 1; }
fi
echo "    $("$python" -VV)"
# Every step below runs under this interpreter, so under ThreadSanitizer: CPython's suppressions
# for its own known races, and ours for what is not kwcall's (each entry says why).
suppressions=$dir/suppressions.txt
cat "$prefix/cpython_suppressions.txt" "$KWCALL_ROOT/scripts/tsan_suppressions.txt" \
  >"$suppressions"
export TSAN_OPTIONS="suppressions=$suppressions second_deadlock_stack=1 history_size=4"

step "virtual environment $venv: $TSAN_TVM_FFI (from its sdist), pytest, hypothesis"
[ -x "$venv/bin/python" ] || logged "$log" "$python" -m venv "$venv"
# hypothesis' newest releases need a native part with no cp313t wheel: --prefer-binary
# picks one that installs. tvm-ffi builds with its own pinned build requirements.
logged "$log" "$venv/bin/python" -m pip install --disable-pip-version-check --prefer-binary \
  "$TSAN_TVM_FFI" pytest hypothesis packaging scikit-build-core cmake ninja
echo "    $("$venv/bin/python" -c 'import tvm_ffi; print("apache-tvm-ffi", tvm_ffi.__version__)')"

step "build kwcall with -fsanitize=thread into $venv (log: $log)"
logged "$log" "$venv/bin/python" -m pip install --disable-pip-version-check --no-build-isolation \
  --no-deps -C build-dir="$dir/build" -C cmake.build-type=RelWithDebInfo \
  -C cmake.define.CMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" .
where=$("$venv/bin/python" -c 'import kwcall._kwcall as m; print(m.__file__)')
# grep reads all of nm's output: `grep -q` would stop early, and pipefail would then see nm
# killed by SIGPIPE on an extension that is instrumented.
if ! nm -D "$where" | grep __tsan_ >/dev/null; then
  echo "    $where is not instrumented" >&2
  exit 1
fi
echo "    $where (instrumented)"

step "pytest ${TSAN_TESTS[*]} under ThreadSanitizer, GIL left to kwcall (log: $log)"
status=0
# The run's own log: the steps above (pip, under this interpreter) are not what is checked.
pytest_log=$KWCALL_LOGS/sanitize-free-threaded-pytest.log
printf '$ pytest %s (TSan)\n' "${TSAN_TESTS[*]}" >"$pytest_log"
# An instrumented interpreter is 5-15 times slower: time-bound tests get that much longer.
env -u PYTHON_GIL KWCALL_TEST_TIME_SCALE=10 "$venv/bin/python" -m pytest "${TSAN_TESTS[@]}" -p no:cacheprovider -q >>"$pytest_log" 2>&1 ||
  status=$?
cat "$pytest_log" >>"$log"
tail -1 "$pytest_log" | sed 's/^/    /'
reports=$(grep -c '^WARNING: ThreadSanitizer' "$pytest_log" || true)
if [ "$reports" != 0 ]; then
  echo "    $reports ThreadSanitizer reports (log: $pytest_log); the first:"
  grep -m1 -A30 '^WARNING: ThreadSanitizer' "$pytest_log" | sed 's/^/    | /'
  status=1
fi
echo "    ThreadSanitizer reports: $reports; $(elapsed "$start")"
exit $status
