#!/usr/bin/env bash
# kwcall against several apache-tvm-ffi releases, two ways each: built from source against that
# release, and the wheel built against the pinned release installed beside it (what a user
# who upgrades or downgrades tvm-ffi gets). Each release gets build/tvm-ffi/<version>/ (an
# environment, a build folder); logs go to build/logs/. Prints a table.
#
#   bash scripts/test_tvm_ffi_matrix.sh                          # 0.1.10 0.1.12 0.1.13.post3 0.1.15.post2
#   bash scripts/test_tvm_ffi_matrix.sh 0.1.12                   # others
#   PYTEST_ARGS="-x -q" PYTHON=python3.12 bash scripts/test_tvm_ffi_matrix.sh
set -uo pipefail
source "$(dirname "$0")/lib.sh"
cd "$KWCALL_ROOT"

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(0.1.10 0.1.12 0.1.13.post3 0.1.15.post2)
refuse_unless_releases "$(basename "$0")" apache-tvm-ffi "${versions[@]}" || exit 1
python=${PYTHON:-python3}

# The build and test tools at the tested pins.
tools=()
for name in scikit-build-core ninja cmake pytest hypothesis numpy; do
  while read -r line; do tools+=("$line"); done < <(grep -E "^${name}==" requirements/tested.txt)
done

bash scripts/setup.sh --no-cpp || exit 1
log=$KWCALL_LOGS/tvm-ffi-matrix.log
: >"$log"
step "build the kwcall wheel against the pinned apache-tvm-ffi (log: $log)"
rm -rf build/wheels
(logged "$log" "$(venv_path)/bin/python" -m pip wheel --no-build-isolation --no-deps -w build/wheels .) || exit 1
wheel=$(ls "$KWCALL_ROOT"/build/wheels/kwcall-*.whl)

# test_in VENV LABEL: pytest tests/python in VENV; echoes "passed (...)" or "failed (...)".
test_in() {
  local venv=$1 out=$KWCALL_LOGS/tvm-ffi-$2.pytest.txt
  # shellcheck disable=SC2086
  PATH="$venv/bin:$PATH" "$venv/bin/python" -m pytest tests/python -p no:cacheprovider -q \
    ${PYTEST_ARGS:-} >"$out" 2>&1
  local rc=$? summary
  summary=$(grep -E '[0-9]+ (passed|failed|errors?|skipped)' "$out" | tail -1 | sed -E 's/^=+ //; s/ =+$//')
  if [ $rc -eq 0 ]; then echo "passed ($summary)"; else echo "FAILED ($summary; $out)"; fi
}

declare -A source_result wheel_result
status=0
for version in "${versions[@]}"; do
  dir=$KWCALL_ROOT/build/tvm-ffi/$version
  vlog=$KWCALL_LOGS/tvm-ffi-$version.log
  : >"$vlog"
  step "apache-tvm-ffi $version: environment $dir/venv (log: $vlog)"
  rm -rf "$dir"
  mkdir -p "$dir"
  if ! (logged "$vlog" "$python" -m venv "$dir/venv" &&
    logged "$vlog" "$dir/venv/bin/python" -m pip install --disable-pip-version-check \
      "apache-tvm-ffi==$version" "${tools[@]}"); then
    source_result[$version]="setup failed"; wheel_result[$version]="setup failed"; status=1
    continue
  fi

  step "apache-tvm-ffi $version: kwcall built from source"
  if (logged "$vlog" env PATH="$dir/venv/bin:$PATH" "$dir/venv/bin/python" -m pip install \
    --no-build-isolation --no-deps -C "build-dir=$dir/build" .); then
    source_result[$version]=$(test_in "$dir/venv" "$version-source")
  else
    source_result[$version]="build failed ($vlog)"
  fi
  echo "    ${source_result[$version]}"

  step "apache-tvm-ffi $version: the wheel built against the pin"
  logged "$vlog" "$dir/venv/bin/python" -m pip uninstall -y kwcall
  if (logged "$vlog" "$dir/venv/bin/python" -m pip install --no-deps "$wheel"); then
    imported=$(cd /tmp && "$dir/venv/bin/python" -c "import kwcall; print('imports')" 2>&1 | tail -1)
    if [ "$imported" = imports ]; then
      wheel_result[$version]=$(test_in "$dir/venv" "$version-wheel")
    else
      wheel_result[$version]="import: $imported"
    fi
  else
    wheel_result[$version]="install failed ($vlog)"
  fi
  echo "    ${wheel_result[$version]}"
  [[ ${source_result[$version]} == passed* && ${wheel_result[$version]} == passed* ]] || status=1
  [ -n "${KEEP:-}" ] || rm -rf "$dir/venv" "$dir/build"
done

step "apache-tvm-ffi versions"
printf '    %-14s | %-44s | %s\n' "apache-tvm-ffi" "built from source" "wheel built against the pin"
for version in "${versions[@]}"; do
  printf '    %-14s | %-44s | %s\n' "$version" "${source_result[$version]}" "${wheel_result[$version]}"
done
exit $status
