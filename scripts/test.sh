#!/usr/bin/env bash
# Runs every test: GoogleTest through ctest, then pytest. Sets everything up first
# (scripts/setup.sh), showing each step; full logs go to build/logs/.
#
#   bash scripts/test.sh                  # python3 from PATH (extra arguments go to pytest)
#   bash scripts/test.sh --python 3.12    # one supported Python, from PATH or pyenv
#   bash scripts/test.sh --all-pythons    # every supported Python this machine has
#   bash scripts/test.sh --ci             # what CI runs: all Pythons, CuTeDSL 4.6.0 too,
#                                         # and a short run of each fuzzer
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$KWCALL_ROOT"

SUPPORTED_PYTHONS=(3.10 3.11 3.12 3.13)
mode=one
python_version=""
pytest_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --python) python_version=$2; shift 2 ;;
    --all-pythons) mode=all; shift ;;
    --ci) mode=ci; shift ;;
    *) pytest_args+=("$1"); shift ;;
  esac
done

# run_suite [VERSION] [--no-cpp]: set up that Python's environment (python3 by default), then
# pytest in it.
run_suite() {
  local version=${1:-} venv
  shift || true
  if [ -n "$version" ]; then bash scripts/setup.sh --python "$version" "$@"; else bash scripts/setup.sh "$@"; fi
  venv=$(venv_path "$version")
  step "pytest tests/python with $("$venv/bin/python" --version 2>&1)"
  "$venv/bin/python" -m pytest tests/python -p no:cacheprovider "${pytest_args[@]}"
}

run_ctest() {
  step "ctest (build/cpp)"
  "$(venv_path "${1:-}")/bin/ctest" --test-dir build/cpp --output-on-failure
}

if [ "$mode" = one ]; then
  run_suite "$python_version"
  run_ctest "$python_version"
  exit 0
fi

# Every supported Python this machine has; the C++ build (independent of Python) only once.
declare -A result
status=0
cpp_done=0
for version in "${SUPPORTED_PYTHONS[@]}"; do
  if ! find_python "$version" >/dev/null; then
    result[$version]="not found on PATH or in pyenv"
    continue
  fi
  args=("$version")
  [ "$cpp_done" = 0 ] || args+=(--no-cpp)
  if (run_suite "${args[@]}"); then result[$version]=passed; else result[$version]=FAILED; status=1; fi
  if [ "$cpp_done" = 0 ]; then
    if (run_ctest "$version"); then result[ctest]=passed; else result[ctest]=FAILED; status=1; fi
    cpp_done=1
  fi
done

if [ "$mode" = ci ]; then
  if bash scripts/test_cute_versions.sh 4.6.0; then result[cute]=passed; else result[cute]=FAILED; status=1; fi
  if bash scripts/fuzz.sh 45; then result[fuzz]=passed; else result[fuzz]=FAILED; status=1; fi
fi

step "summary"
for version in "${SUPPORTED_PYTHONS[@]}"; do printf '    Python %-5s %s\n' "$version" "${result[$version]}"; done
printf '    %-12s %s\n' "ctest" "${result[ctest]:-not run}"
if [ "$mode" = ci ]; then
  printf '    %-12s %s\n' "CuTeDSL 4.6" "${result[cute]}"
  printf '    %-12s %s\n' "fuzzers" "${result[fuzz]}"
fi
exit $status
