#!/usr/bin/env bash
# kwcall's tests under sanitizers, each part in a build folder of its own (the main build and
# .venv are not touched), with a PASS/FAIL line and the time of each part at the end:
#   asan    the C++ tests (tests/cpp), libkwcall included, built with gcc
#           -fsanitize=address,undefined into build/asan and run, leak checking on
#   tsan    the same built with -fsanitize=thread into build/tsan and run; test_threads.cc has
#           eight threads share one kwcall function
#   python  libkwcall and the extension built with -fsanitize=address into build/asan-python,
#           installed into a staging folder there (build/asan-python/site, put first on
#           PYTHONPATH; .venv keeps its own kwcall), then pytest tests/python with the ASan
#           runtime preloaded into the venv's (uninstrumented) Python
#
#   bash scripts/sanitize.sh                  # all three parts
#   bash scripts/sanitize.sh asan tsan        # some of them
# Full output of each part: build/logs/sanitize-<part>.log. Exits non-zero when a part fails.
# About 17 minutes on a 2-core machine from clean: asan 6, tsan 3, python 9 (mostly pytest).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$KWCALL_ROOT"

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(asan tsan python)
venv=$(venv_path)
[ -x "$venv/bin/python" ] || bash scripts/setup.sh --no-cpp
cmake_base=(-G Ninja -DCMAKE_MAKE_PROGRAM="$venv/bin/ninja" -DPython_EXECUTABLE="$venv/bin/python"
  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo)

# cpp_tests DIR FLAGS LOG: configure and build the C++ tests with FLAGS, then run them all.
cpp_tests() {
  local dir=$1 flags=$2 log=$3
  apt_install "$log" libgtest-dev
  logged "$log" "$venv/bin/cmake" -S . -B "$dir" "${cmake_base[@]}" -DKWCALL_BUILD_TESTS=ON \
    -DCMAKE_CXX_FLAGS="$flags -fno-omit-frame-pointer"
  logged "$log" "$venv/bin/cmake" --build "$dir" --target kwcall_tests kwcall_test_kernels
  echo "    running $dir/tests/cpp/kwcall_tests"
  logged "$log" "$dir/tests/cpp/kwcall_tests"
  grep -E '^\[  (PASSED|FAILED)  \]' "$log" | tail -1 | sed 's/^/    /'
}

part_asan() {
  local log=$KWCALL_LOGS/sanitize-asan.log
  export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # -fno-sanitize-recover: a UBSan report fails the run instead of scrolling past.
  cpp_tests build/asan "-fsanitize=address,undefined -fno-sanitize-recover=all" "$log"
}

part_tsan() {
  local log=$KWCALL_LOGS/sanitize-tsan.log
  # libtvm_ffi.so is not instrumented: TSan sees its locks (pthread calls are intercepted)
  # but not its own memory accesses, so races inside tvm-ffi go unseen; kwcall's code and the
  # tvm-ffi header code it inlines (reference counts, Any, Array) are instrumented.
  export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
  # -Wno-tsan: tvm-ffi's Object::DecRef uses atomic_thread_fence, which TSan does not model
  # (gcc warns at every use); a report there would need reading with that in mind.
  cpp_tests build/tsan "-fsanitize=thread -Wno-tsan" "$log"
}

part_python() {
  local log=$KWCALL_LOGS/sanitize-python.log dir=$KWCALL_ROOT/build/asan-python
  local site=$dir/site asan_lib
  asan_lib=$(gcc -print-file-name=libasan.so)
  echo "    build and stage kwcall (-fsanitize=address) into $site"
  rm -rf "$site"
  logged "$log" "$venv/bin/python" -m pip install --disable-pip-version-check \
    --no-build-isolation --no-deps --target "$site" \
    -C build-dir="$dir/build" -C cmake.build-type=RelWithDebInfo \
    -C cmake.define.CMAKE_CXX_FLAGS="-fsanitize=address -fno-omit-frame-pointer" .
  # tvm_ffi beside it, as in site-packages: kwcall's CMake package and run paths find it there.
  ln -s "$("$venv/bin/python" -c 'import tvm_ffi, os; print(os.path.dirname(tvm_ffi.__file__))')" \
    "$site/tvm_ffi"
  # Python itself is not instrumented: ASan must come first in the process (LD_PRELOAD), and
  # PYTHONMALLOC=malloc sends Python's objects through the malloc ASan watches. CPython frees
  # far from everything at exit (interned strings, static types, module state), so leak
  # reports would be its own: detect_leaks=0. C++ leaks are the asan part's business.
  # libstdc++ is preloaded too: ASan looks up the real __cxa_throw when it starts, and Python
  # does not link libstdc++, so C++ exceptions (kwcall's, matplotlib's) would hit its CHECK.
  local env=(env LD_PRELOAD="$asan_lib $(gcc -print-file-name=libstdc++.so.6)"
    PYTHONPATH="$site" PYTHONMALLOC=malloc ASAN_OPTIONS=detect_leaks=0:strict_string_checks=1)
  local where
  where=$("${env[@]}" "$venv/bin/python" -c 'import kwcall._kwcall as m; print(m.__file__)')
  case $where in
    "$site"/*) echo "    kwcall imports from $where" ;;
    *) echo "    kwcall imports from $where, not from $site" >&2; return 1 ;;
  esac
  if ! nm -D "$where" | grep __asan_report >/dev/null; then
    echo "    $where is not instrumented" >&2
    return 1
  fi
  echo "    pytest tests/python under ASan (log: $log)"
  printf '$ pytest tests/python (ASan)\n' >>"$log"
  local status=0
  # test_refcounts.py also checks that a million calls leave the process's RSS flat; ASan's
  # quarantine of freed memory (256 MB) grows it by design, so that file runs on its own with
  # the quarantine off (its reference-count and allocated-block checks are unaffected).
  # Tests whose point is another program (make, the mirror's fetch, a chroot's checks): ASan,
  # preloaded, would run inside it too and judge it (make's own overflow), print its warnings
  # into what the test reads, or slow a network fetch past its timeout. They run in pytest's
  # ordinary runs; kwcall's code in them runs under ASan in the tests beside them.
  local others=(
    tests/python/test_dispatch_cute.py::test_the_example_runs_from_a_cpp_program_without_python
    tests/python/test_roots_script.py::test_a_root_that_is_no_mount_point_is_a_skip_that_says_why
    tests/python/test_script_guards.py::test_the_source_is_the_highest_version_from_apt_s_mirror
    tests/python/test_script_guards.py::test_a_404_from_the_mirror_is_said
  )
  "${env[@]}" "$venv/bin/python" -m pytest tests/python -p no:cacheprovider -q \
    --ignore=tests/python/test_refcounts.py "${others[@]/#/--deselect=}" >>"$log" 2>&1 ||
    status=$?
  tail -1 "$log" | sed 's/^/    /'
  "${env[@]}" ASAN_OPTIONS=detect_leaks=0:quarantine_size_mb=0:thread_local_quarantine_size_kb=0 \
    "$venv/bin/python" -m pytest tests/python/test_refcounts.py -p no:cacheprovider -q \
    >>"$log" 2>&1 || status=$?
  tail -1 "$log" | sed 's/^/    test_refcounts.py, quarantine off: /'
  if grep -q 'ERROR: AddressSanitizer' "$log"; then
    grep -A12 'ERROR: AddressSanitizer' "$log" | head -30 | sed 's/^/    | /'
    return 1
  fi
  return $status
}

declare -A result seconds
for part in "${parts[@]}"; do
  case $part in
    asan | tsan | python) ;;
    *) echo "unknown part: $part (asan, tsan, python)" >&2; exit 2 ;;
  esac
  step "$part (log: $KWCALL_LOGS/sanitize-$part.log)"
  : >"$KWCALL_LOGS/sanitize-$part.log"
  start=$SECONDS
  if (set -e; "part_$part"); then result[$part]=PASS; else result[$part]=FAIL; fi
  seconds[$part]=$((SECONDS - start))
done

step "summary"
status=0
for part in "${parts[@]}"; do
  printf '    %-4s  %-6s  %4ds\n' "${result[$part]}" "$part" "${seconds[$part]}"
  [ "${result[$part]}" = PASS ] || status=1
done
exit $status
