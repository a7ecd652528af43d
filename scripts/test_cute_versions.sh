#!/usr/bin/env bash
# Runs kwcall.cute's host-only tests (tests/python/test_cute*.py but the GPU one) against other
# nvidia-cutlass-dsl releases (the default environment has the pinned one), each in an
# environment of its own under build/cute/, with kwcall installed from a wheel built once from
# this clone. Prints a table.
#
#   bash scripts/test_cute_versions.sh                  # 4.6.0, 4.7.1 and 4.8.1
#   bash scripts/test_cute_versions.sh 4.6.0            # what CI runs besides the pin
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$KWCALL_ROOT"

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(4.6.0 4.7.1 4.8.1)
refuse_unless_releases "$(basename "$0")" nvidia-cutlass-dsl "${versions[@]}" || exit 1
python=${PYTHON:-python3}
main_venv=$(venv_path)
bash scripts/setup.sh --no-cpp

log=$KWCALL_LOGS/cute-versions.log
: >"$log"
step "build a kwcall wheel from this clone (log: $log)"
rm -rf build/wheels
logged "$log" "$main_venv/bin/python" -m pip wheel --no-build-isolation --no-deps -w build/wheels .
wheel=$(ls build/wheels/kwcall-*.whl)

# The test tools and tvm-ffi at the tested pins.
pins=()
for name in apache-tvm-ffi pytest hypothesis numpy; do
  while read -r line; do pins+=("$line"); done < <(grep -E "^${name}==" requirements/tested.txt)
done

tests=(tests/python/test_cute{,_privates,_export,_cache,_install_race,_load_function,_companion_errors}.py)
declare -A result
status=0
for version in "${versions[@]}"; do
  venv=$KWCALL_ROOT/build/cute/$version
  vlog=$KWCALL_LOGS/cute-$version.log
  : >"$vlog"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip show -q "nvidia-cutlass-dsl" 2>/dev/null |
    grep -q "Version: $version"; then
    step "environment for nvidia-cutlass-dsl $version: $venv (log: $vlog)"
    rm -rf "$venv"
    logged "$vlog" "$python" -m venv "$venv"
    logged "$vlog" "$venv/bin/python" -m pip install --disable-pip-version-check "${pins[@]}" \
      "nvidia-cutlass-dsl==$version"
  fi
  logged "$vlog" "$venv/bin/python" -m pip install --disable-pip-version-check --no-deps \
    --force-reinstall "$wheel"
  step "pytest ${tests[*]} with nvidia-cutlass-dsl $version"
  if "$venv/bin/python" -m pytest "${tests[@]}" -p no:cacheprovider -q; then
    result[$version]=passed
  else
    result[$version]=FAILED
    status=1
  fi
done

step "nvidia-cutlass-dsl versions"
for version in "${versions[@]}"; do printf '    %-8s %s\n' "$version" "${result[$version]}"; done
exit $status
