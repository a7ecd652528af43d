#!/usr/bin/env bash
# kwcall's torch tests against several torch releases: one kwcall wheel (built against the pinned
# apache-tvm-ffi, as tvm-ffi's matrix does) installed beside each release in an environment of its
# own, build/torch/<version>/, with the tested tools. In each: the Python torch tests
# (tests/python/test_torch_*.py and test_export_torch_op.py; examples/torch_aot among them, built
# against that torch) and the C++ ones (kwcall_tests' Torch* and RegisterExported* tests, one
# build pointed at that release's libtorch_cpu.so through KWCALL_TORCH_LIBRARY). Logs go to
# build/logs/. Prints a table. CI tests one torch (requirements/torch.txt); this is the rest.
#
#   bash scripts/test_torch_matrix.sh                     # 2.10.0 2.13.0+cpu 2.14.1 2.15.0
#   bash scripts/test_torch_matrix.sh 2.11.0 2.12.1       # others
#   KEEP=1 PYTEST_ARGS="-x" bash scripts/test_torch_matrix.sh 2.10.0
#
# Each version is installed as asked, with any pip constraint file set aside (one that caps
# torch below a version would refuse it). Releases without a "+cpu" build here are CUDA wheels:
# with their nvidia-* packages several GB each, downloaded once into pip's cache; they need no
# GPU and no CUDA toolkit. Slow: run it niced (nice bash scripts/test_torch_matrix.sh).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
cd "$KWCALL_ROOT"

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(2.10.0 2.13.0+cpu 2.14.1 2.15.0)
refuse_unless_releases "$(basename "$0")" torch "${versions[@]}" || exit 1
python=${PYTHON:-python3}

# The test tools and the other packages the torch tests use, at the tested pins.
tools=()
for name in apache-tvm-ffi ninja cmake pytest hypothesis numpy nvidia-cutlass-dsl; do
  while read -r line; do tools+=("$line"); done < <(grep -E "^${name}==" requirements/tested.txt)
done

bash scripts/setup.sh --torch || exit 1  # the C++ tests in build/cpp
log=$KWCALL_LOGS/torch-matrix.log
: >"$log"
step "build the kwcall wheel against the pinned apache-tvm-ffi (log: $log)"
rm -rf build/wheels
(logged "$log" "$(venv_path)/bin/python" -m pip wheel --no-build-isolation --no-deps -w build/wheels .) || exit 1
wheel=$(ls "$KWCALL_ROOT"/build/wheels/kwcall-*.whl)
cpp_tests=$KWCALL_ROOT/build/cpp/tests/cpp/kwcall_tests

# summary FILE: pytest's count line ("12 passed, 1 skipped in 60.2s").
summary() { grep -E '[0-9]+ (passed|failed|errors?|skipped)' "$1" | tail -1 | sed -E 's/^=+ //; s/ =+$//'; }

declare -A python_result cpp_result
status=0
for version in "${versions[@]}"; do
  dir=$KWCALL_ROOT/build/torch/$version
  vlog=$KWCALL_LOGS/torch-$version.log
  : >"$vlog"
  step "torch $version: environment $dir/venv (log: $vlog)"
  rm -rf "$dir"
  mkdir -p "$dir"
  if ! (logged "$vlog" "$python" -m venv "$dir/venv" &&
    logged "$vlog" env PIP_CONSTRAINT=/dev/null "$dir/venv/bin/python" -m pip install \
      --disable-pip-version-check "torch==$version" "${tools[@]}" "$wheel"); then
    python_result[$version]="setup failed ($vlog)"; cpp_result[$version]="setup failed"; status=1
    continue
  fi

  step "torch $version: the Python torch tests"
  out=$KWCALL_LOGS/torch-$version.pytest.txt
  # shellcheck disable=SC2086
  if PATH="$dir/venv/bin:$PATH" "$dir/venv/bin/python" -m pytest tests/python/test_torch_*.py \
    tests/python/test_export_torch_op.py -p no:cacheprovider -q ${PYTEST_ARGS:-} >"$out" 2>&1; then
    python_result[$version]="passed ($(summary "$out"))"
  else
    python_result[$version]="FAILED ($(summary "$out"); $out)"; status=1
  fi
  echo "    ${python_result[$version]}"

  step "torch $version: the C++ torch tests, with its libtorch_cpu.so"
  out=$KWCALL_LOGS/torch-$version.gtest.txt
  library=$("$dir/venv/bin/python" -c \
    'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))')
  if KWCALL_TORCH_LIBRARY=$library "$cpp_tests" --gtest_filter='Torch*:RegisterExported*' >"$out" 2>&1; then
    cpp_result[$version]="passed ($(grep -E '^\[==========\] .* ran' "$out" | sed -E 's/^\[=+\] //'))"
  else
    cpp_result[$version]="FAILED ($out)"; status=1
  fi
  echo "    ${cpp_result[$version]}"
  [ -n "${KEEP:-}" ] || rm -rf "$dir/venv"
done

step "torch releases"
printf '    %-12s | %-52s | %s\n' "torch" "Python torch tests" "C++ torch tests"
for version in "${versions[@]}"; do
  printf '    %-12s | %-52s | %s\n' "$version" "${python_result[$version]}" "${cpp_result[$version]}"
done
exit $status
