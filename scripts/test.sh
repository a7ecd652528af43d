#!/usr/bin/env bash
# Runs every test: GoogleTest through ctest, then pytest. Sets everything up first
# (scripts/setup.sh), showing each step; full logs go to build/logs/.
#
#   bash scripts/test.sh                  # python3 from PATH (extra arguments go to pytest)
#   bash scripts/test.sh --python 3.12    # one supported Python, from PATH or pyenv, or made
#                                         # in a Debian root (3.14, 3.15: scripts/roots.sh)
#   bash scripts/test.sh --python 3.13t   # free-threaded CPython 3.13, built here the first time
#   bash scripts/test.sh --all-pythons    # every supported Python (3.10-3.15, and 3.13t)
#   bash scripts/test.sh --ci             # what CI runs: all Pythons, the distribution's own
#                                         # python3, CuTeDSL 4.6.0 and a short run of each fuzzer
#   bash scripts/test.sh --no-cpp ...     # pytest only: no C++ tests built or run
#   bash scripts/test.sh --torch ...      # PyTorch installed too, so the torch tests run
#                                         # (always with --ci; requirements/torch.txt)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/roots.sh"
cd "$KWCALL_ROOT"

mode=one
cpp=1
torch=()
python_version=""
pytest_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --python) python_version=$2; shift 2 ;;
    --all-pythons) mode=all; shift ;;
    --ci) mode=ci; torch=(--torch); shift ;;
    --torch) torch=(--torch); shift ;;
    --no-cpp) cpp=0; shift ;;
    *) pytest_args+=("$1"); shift ;;
  esac
done

# run_suite [VERSION] [--no-cpp]: set up that Python's environment (python3 by default), then
# pytest in it. A Python this machine lacks runs in its Debian root, with an environment of
# its own (.venv-ROOT-VERSION); the C++ tests do not depend on Python and run on the host.
run_suite() {
  local version=${1:-} venv root
  shift || true
  if [ -n "$version" ] && root=$(python_root "$version"); then
    ensure_root "$root" "$KWCALL_LOGS/root-$root.log"
    step "Python $version inside the Debian $root root (build/roots/$root)"
    in_root "$root" env KWCALL_VENV="$(venv_path "$root-$version")" \
      bash scripts/test.sh --python "$version" --no-cpp "${torch[@]}" "${pytest_args[@]}"
    return
  fi
  if [ -n "$version" ]; then bash scripts/setup.sh --python "$version" "${torch[@]}" "$@"
  else bash scripts/setup.sh "${torch[@]}" "$@"; fi
  venv=$(venv_path "$version")
  step "pytest tests/python with $("$venv/bin/python" --version 2>&1)"
  # A free-threaded Python: the GIL as kwcall's extension leaves it (never forced off here).
  if free_threaded "$version"; then "$venv/bin/python" scripts/gil_after_import.py; fi
  "$venv/bin/python" -m pytest tests/python -p no:cacheprovider "${pytest_args[@]}"
}

run_ctest() {
  step "ctest (build/cpp)"
  "$(venv_path "${1:-}")/bin/ctest" --test-dir build/cpp --output-on-failure
}

if [ "$mode" = one ]; then
  if [ "$cpp" = 1 ]; then
    run_suite "$python_version"
    if [ -n "$python_version" ] && python_root "$python_version" >/dev/null; then
      # That Python's root ran pytest only; the C++ tests build with this machine's python3.
      bash scripts/setup.sh "${torch[@]}"
      run_ctest
    else
      run_ctest "$python_version"
    fi
  else
    run_suite "$python_version" --no-cpp
  fi
  exit 0
fi

# Every supported Python this machine has; the C++ build (independent of Python) only once.
declare -A result
status=0
cpp_done=0
for version in "${SUPPORTED_PYTHONS[@]}"; do
  native=0  # this machine's own Python, not one in a Debian root
  # A free-threaded Python is built here when missing (scripts/free_threaded_python.sh).
  if find_python "$version" >/dev/null || free_threaded "$version"; then native=1; fi
  if [ "$native" = 0 ] && ! python_root "$version" >/dev/null; then
    result[$version]="not found on PATH or in pyenv"
    continue
  fi
  args=("$version")
  # The C++ tests are built once, by the first Python of this machine's own.
  if [ "$cpp_done" = 1 ] || [ "$native" = 0 ]; then args+=(--no-cpp); fi
  start=$SECONDS
  if (run_suite "${args[@]}"); then result[$version]=passed; else result[$version]=FAILED; status=1; fi
  result[$version]+=" ($(elapsed $start))"
  if [ "$cpp_done" = 0 ] && [ "$native" = 1 ]; then
    if (run_ctest "$version"); then result[ctest]=passed; else result[ctest]=FAILED; status=1; fi
    cpp_done=1
  fi
done

if [ "$mode" = ci ]; then
  # The distribution's own python3 too: a patch release can change what CPython does.
  if python=$(distribution_python); then
    start=$SECONDS
    step "the suite with the distribution's $("$python" --version 2>&1) ($python)"
    if PYTHON=$python KWCALL_VENV=$(venv_path distribution) bash scripts/test.sh --no-cpp \
      "${torch[@]}" "${pytest_args[@]}"; then
      result[distribution]=passed
    else
      result[distribution]=FAILED
      status=1
    fi
    result[distribution]+=" ($(elapsed $start))"
  else
    result[distribution]="none (no python3 from the package manager)"
  fi
  if bash scripts/test_cute_versions.sh 4.6.0; then result[cute]=passed; else result[cute]=FAILED; status=1; fi
  if bash scripts/fuzz.sh 45; then result[fuzz]=passed; else result[fuzz]=FAILED; status=1; fi
fi

step "summary"
for version in "${SUPPORTED_PYTHONS[@]}"; do printf '    Python %-5s %s\n' "$version" "${result[$version]}"; done
printf '    %-12s %s\n' "ctest" "${result[ctest]:-not run}"
if [ "$mode" = ci ]; then
  printf '    %-12s %s\n' "python3" "${result[distribution]}"
  printf '    %-12s %s\n' "CuTeDSL 4.6" "${result[cute]}"
  printf '    %-12s %s\n' "fuzzers" "${result[fuzz]}"
fi
exit $status
