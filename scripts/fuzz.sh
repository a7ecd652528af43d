#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ with clang (ASan + UBSan, against the venv's tvm-ffi)
# into build/fuzz and runs each for SECONDS from the checked-in seed corpus, all at once on a
# machine with two cores or more. Any finding (a crash, a sanitizer report, a leak, a mismatch
# with the reference binder, a timeout) fails the script; the input that caused it is left in
# build/fuzz/findings/<fuzzer>/ and the run's output in build/logs/fuzz-<fuzzer>.log.
#
#   bash scripts/fuzz.sh            # 60 s each: CI's short run (scripts/test.sh --ci runs 45 s)
#   bash scripts/fuzz.sh 1800       # the long run: 30 minutes each
#   bash scripts/fuzz.sh 600 --update-corpus   # then add what the run found (minimized) to
#                                              # fuzz/corpus/ for committing
# Replay one input: build/fuzz/fuzz/fuzz_binder build/fuzz/findings/binder/crash-...
#
# The fuzzers start from a copy of fuzz/corpus/<name> in build/fuzz/corpus/<name> (kept between
# runs, so later runs go on from there); the checked-in corpus is only read.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$KWCALL_ROOT"

seconds=60
update_corpus=0
for arg in "$@"; do
  case $arg in
    --update-corpus) update_corpus=1 ;;
    '' | *[!0-9]*) echo "usage: fuzz.sh [SECONDS] [--update-corpus]" >&2; exit 2 ;;
    *) seconds=$arg ;;
  esac
done
log=$KWCALL_LOGS/fuzz-build.log
: >"$log"
venv=$(venv_path)

# clang with libFuzzer and the sanitizer runtimes (Debian: clang, libclang-rt-dev).
fuzzer_works() {
  command -v clang++ >/dev/null &&
    echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) {return 0;}' |
    clang++ -x c++ -fsanitize=fuzzer,address,undefined - -o /dev/null >/dev/null 2>&1
}
if ! fuzzer_works; then
  apt_install "$log" clang libclang-rt-dev
  fuzzer_works || { echo "clang++ still cannot build a libFuzzer target" >&2; exit 1; }
fi
ensure_venv "${PYTHON:-python3}" "$venv" "$log"

step "build fuzz_binder, fuzz_signature_json and fuzz_companion into build/fuzz with $(clang++ --version | head -1)"
echo "    log: $log"
logged "$log" env CC=clang CXX=clang++ "$venv/bin/cmake" -S . -B build/fuzz -G Ninja \
  -DCMAKE_MAKE_PROGRAM="$venv/bin/ninja" -DPython_EXECUTABLE="$venv/bin/python" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKWCALL_BUILD_FUZZERS=ON
logged "$log" "$venv/bin/cmake" --build build/fuzz --target fuzz_binder fuzz_signature_json fuzz_companion

# Leak checking stays on. No suppressions are needed today: what tvm-ffi and kwcall keep for
# the life of the process (the type registry, the KWARGS sentinel kwcall never frees) is
# reachable from globals, which LeakSanitizer does not report. A suppression, should one
# become necessary, goes in fuzz/lsan.supp with the reason beside it.
# detect_stack_use_after_return is off: it slows the fuzzers 2.5-fold (the C++ tests under
# scripts/sanitize.sh have it on).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
[ -f fuzz/lsan.supp ] && export LSAN_OPTIONS="suppressions=$KWCALL_ROOT/fuzz/lsan.supp"

fuzzers=(binder signature_json companion)
declare -A extra=([binder]="" [signature_json]="-dict=fuzz/signature_json.dict"
  [companion]="-dict=fuzz/signature_json.dict")
run_one() {
  local name=$1 corpus=build/fuzz/corpus/$1 findings=build/fuzz/findings/$1
  mkdir -p "$corpus" "$findings"
  cp -n fuzz/corpus/"$name"/* "$corpus"/ 2>/dev/null || true
  # -timeout: one input taking this long is a finding (a hang); -rss_limit_mb likewise.
  build/fuzz/fuzz/fuzz_"$name" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$findings/" ${extra[$name]} "$corpus" \
    >"$KWCALL_LOGS/fuzz-$name.log" 2>&1
}

step "run each fuzzer for ${seconds}s (logs: $KWCALL_LOGS/fuzz-*.log)"
declare -A pid status
start=$SECONDS
if [ "$(nproc)" -ge 2 ]; then
  for name in "${fuzzers[@]}"; do run_one "$name" & pid[$name]=$!; done
  for name in "${fuzzers[@]}"; do
    if wait "${pid[$name]}"; then status[$name]=0; else status[$name]=$?; fi
  done
else
  for name in "${fuzzers[@]}"; do
    if run_one "$name"; then status[$name]=0; else status[$name]=$?; fi
  done
fi

failed=0
step "summary ($((SECONDS - start))s)"
for name in "${fuzzers[@]}"; do
  flog=$KWCALL_LOGS/fuzz-$name.log
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$flog" | tail -1 || true)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$flog" | tail -1)
  if [ "${status[$name]}" = 0 ]; then
    printf '    PASS  fuzz_%-15s %s executions  (%s)\n' "$name" "${runs:-?}" "$done_line"
  else
    failed=1
    printf '    FAIL  fuzz_%-15s exit %s after %s runs; input in build/fuzz/findings/%s/\n' \
      "$name" "${status[$name]}" "${runs:-?}" "$name"
    grep -E 'fuzz_(binder|signature_json|companion): |ERROR: |SUMMARY: |Test unit written' "$flog" |
      head -8 | sed 's/^/        | /'
  fi
done

if [ "$update_corpus" = 1 ] && [ "$failed" = 0 ]; then
  # Inputs cut to 128 bytes keep the checked-in corpus small (about 150 KB in all).
  step "add what the runs found to fuzz/corpus/ (only inputs that reach new coverage)"
  for name in "${fuzzers[@]}"; do
    before=$(ls fuzz/corpus/"$name" | wc -l)
    build/fuzz/fuzz/fuzz_"$name" -merge=1 -max_len=128 ${extra[$name]} fuzz/corpus/"$name" \
      build/fuzz/corpus/"$name" >>"$KWCALL_LOGS/fuzz-$name.log" 2>&1
    printf '    fuzz/corpus/%-15s %d -> %d files, %s\n' "$name" "$before" \
      "$(ls fuzz/corpus/"$name" | wc -l)" "$(du -sh --apparent-size fuzz/corpus/"$name" | cut -f1)"
  done
fi
exit $failed
