#!/usr/bin/env bash
# Builds kwcall from source against several apache-tvm-ffi releases, each in its own
# fresh virtual environment, runs pytest tests/python in each, and prints a table.
#
#   bash scripts/test_tvm_ffi_matrix.sh                   # 0.1.10 and 0.1.15.post2
#   bash scripts/test_tvm_ffi_matrix.sh 0.1.12 0.1.13     # other versions
#   PYTHON=python3.12 KEEP=1 bash scripts/test_tvm_ffi_matrix.sh
#
# Each version gets /tmp/kwcall-matrix/<version>/ (venv, CMake build folder, logs); the
# repository's own build/ and .venv are never touched. Set KEEP=1 to keep those folders.
# Extra arguments for pytest go in PYTEST_ARGS (e.g. PYTEST_ARGS="-x -q").
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
ROOT=${KWCALL_MATRIX_DIR:-/tmp/kwcall-matrix}
VERSIONS=("$@")
[ ${#VERSIONS[@]} -eq 0 ] && VERSIONS=(0.1.10 0.1.15.post2)

# The build and test tools at the versions kwcall was tested with.
TOOLS=()
for tool in scikit-build-core ninja cmake pytest hypothesis; do
  pin=$(grep -E "^${tool}==" "$REPO/requirements/tested.txt" || true)
  TOOLS+=("${pin:-$tool}")
done

declare -A RESULT
for version in "${VERSIONS[@]}"; do
  dir="$ROOT/$version"
  rm -rf "$dir"
  mkdir -p "$dir"
  log="$dir/log.txt"
  printf '\n==> apache-tvm-ffi %s (%s)\n' "$version" "$log"
  result=""
  {
    "$PYTHON" -m venv "$dir/venv" &&
      "$dir/venv/bin/pip" install -q --upgrade pip &&
      "$dir/venv/bin/pip" install -q "apache-tvm-ffi==$version" "${TOOLS[@]}"
  } >>"$log" 2>&1 || result="setup failed"

  if [ -z "$result" ]; then
    # The build folder lives beside the venv so that versions never share CMake caches.
    PATH="$dir/venv/bin:$PATH" "$dir/venv/bin/pip" install --no-build-isolation --no-deps \
      -C "build-dir=$dir/build" "$REPO" >>"$log" 2>&1 || result="build failed"
  fi
  if [ -z "$result" ]; then
    (cd "$dir" && "$dir/venv/bin/python" -c "import kwcall, tvm_ffi; print('kwcall imports with tvm_ffi', tvm_ffi.__version__)") \
      >>"$log" 2>&1 || result="import failed"
  fi
  if [ -z "$result" ]; then
    # shellcheck disable=SC2086
    (cd "$REPO" && PATH="$dir/venv/bin:$PATH" "$dir/venv/bin/python" -m pytest tests/python \
      -p no:cacheprovider -q ${PYTEST_ARGS:-}) >"$dir/pytest.txt" 2>&1
    rc=$?
    cat "$dir/pytest.txt" >>"$log"
    summary=$(grep -E '[0-9]+ (passed|failed|errors?|skipped)' "$dir/pytest.txt" | tail -1 |
      sed -E 's/^=+ //; s/ =+$//')
    if [ $rc -eq 0 ]; then result="passed ($summary)"; else result="failed ($summary)"; fi
  fi
  if [[ $result == *"failed"* && $result != failed\ \(* ]]; then
    printf 'last lines of %s:\n' "$log"
    tail -15 "$log" | sed 's/^/    /'
  fi
  RESULT[$version]=$result
  printf '%s\n' "$result"
  [ -n "${KEEP:-}" ] || rm -rf "$dir/venv" "$dir/build"
done

printf '\n%-16s | %s\n' "apache-tvm-ffi" "kwcall build + pytest tests/python"
printf '%-16s-+-%s\n' "----------------" "----------------------------------"
status=0
for version in "${VERSIONS[@]}"; do
  printf '%-16s | %s\n' "$version" "${RESULT[$version]}"
  [[ ${RESULT[$version]} == passed* ]] || status=1
done
exit $status
