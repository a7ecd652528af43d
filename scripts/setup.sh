#!/usr/bin/env bash
# Everything kwcall needs on a fresh Debian machine: system packages (GoogleTest, Google
# Benchmark), a virtual environment with the tested Python packages, kwcall itself, and the
# C++ test/benchmark build. Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=${KWCALL_VENV:-$ROOT/.venv}
PY=${PYTHON:-python3}

step() { printf '\n==> %s\n' "$*"; }

need_apt=()
for pkg in libgtest-dev libbenchmark-dev g++; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if ((${#need_apt[@]})); then
  step "apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
  step "create $VENV"
  "$PY" -m venv "$VENV"
fi
stamp="$VENV/.kwcall-requirements"
if ! cmp -s requirements/tested.txt "$stamp"; then
  step "pip install -r requirements/tested.txt"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements/tested.txt
  cp requirements/tested.txt "$stamp"
fi

# Rebuild the Python package when any source that goes into it changed.
src_hash=$(cat CMakeLists.txt pyproject.toml python/CMakeLists.txt \
  $(find cmake include src python -type f \( -name '*.h' -o -name '*.cc' -o -name '*.inc' -o -name '*.in' -o -name '*.py' -o -name '*.pyi' \) | sort) \
  | sha256sum | cut -d' ' -f1)
if [ "$(cat "$VENV/.kwcall-build" 2>/dev/null)" != "$src_hash" ]; then
  step "pip install kwcall (scikit-build-core + CMake)"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps .
  echo "$src_hash" >"$VENV/.kwcall-build"
fi

step "build the C++ tests and benchmarks (build/cpp)"
"$VENV/bin/cmake" -S . -B build/cpp -G Ninja -DCMAKE_MAKE_PROGRAM="$VENV/bin/ninja" \
  -DPython_EXECUTABLE="$VENV/bin/python" -DKWCALL_BUILD_TESTS=ON -DKWCALL_BUILD_BENCHMARKS=ON >/dev/null
"$VENV/bin/cmake" --build build/cpp
