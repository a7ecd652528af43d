#!/usr/bin/env bash
# Everything kwcall needs on a fresh Debian machine, each step shown as it runs and logged in
# full to build/logs/: system packages (g++, GoogleTest, Google Benchmark and, for Debian's own
# Python, its -venv and -dev packages; through sudo when not root), a virtual environment
# with the tested Python packages (requirements/, through scripts/pins.py), kwcall built and installed into
# it, and the C++ tests and benchmarks in build/cpp. Safe to run again: each step is skipped
# when already done. Everything stays inside the clone.
#
#   bash scripts/setup.sh                  # python3 from PATH, into .venv
#   bash scripts/setup.sh --python 3.12    # that Python (PATH or pyenv), into .venv-3.12
#   bash scripts/setup.sh --python 3.13t   # free-threaded CPython 3.13, built into build/pythons
#                                          # the first time, into .venv-3.13t
#   bash scripts/setup.sh --no-cpp         # skip the C++ tests and benchmarks
#   bash scripts/setup.sh --torch          # PyTorch too, for the torch tests (requirements/torch.txt)
# PYTHON and KWCALL_VENV choose the interpreter and the environment folder instead.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$KWCALL_ROOT"

python=${PYTHON:-python3}
venv=$(venv_path)
cpp=1
torch=0
while [ $# -gt 0 ]; do
  case $1 in
    --python)
      if free_threaded "$2"; then  # none here: built once (scripts/free_threaded_python.sh)
        source "$(dirname "$0")/free_threaded_python.sh"
        ensure_free_threaded_python "$2" "$KWCALL_LOGS/python-$2.log"
      fi
      python=$(find_python "$2") || { echo "no Python $2 on PATH or in pyenv" >&2; exit 1; }
      venv=$(venv_path "$2")
      shift 2 ;;
    --no-cpp) cpp=0; shift ;;
    --torch) torch=1; shift ;;
    *) echo "usage: setup.sh [--python X.Y] [--no-cpp] [--torch]" >&2; exit 2 ;;
  esac
done
command -v "$python" >/dev/null ||
  { echo "no $python on PATH: install Debian's python3 (apt-get install python3) or pass --python X.Y" >&2; exit 1; }
tag=$(python_version "$python")
log=$KWCALL_LOGS/setup-$tag.log
: >"$log"

packages=(g++)
[ "$cpp" = 0 ] || packages+=(libgtest-dev libbenchmark-dev)
apt_install "$log" "${packages[@]}"

ensure_venv "$python" "$venv" "$log"
# PyTorch (a CPU build, where pip can get one for this Python), redone when its pin changes.
if [ "$torch" = 1 ] &&
  ! { "$venv/bin/python" --version; cat requirements/torch.txt; } 2>&1 | cmp -s - "$venv/.kwcall-torch"; then
  step "pip install -r requirements/torch.txt (log: $log)"
  logged "$log" "$venv/bin/python" -m pip install --disable-pip-version-check -r requirements/torch.txt
  { "$venv/bin/python" --version; cat requirements/torch.txt; } >"$venv/.kwcall-torch" 2>&1
fi

# Rebuild kwcall when anything that goes into it changed.
src_hash=$(cat CMakeLists.txt pyproject.toml python/CMakeLists.txt \
  $(find cmake include src python -type f \( -name '*.h' -o -name '*.cc' -o -name '*.inc' -o -name '*.cmake' \
    -o -name '*.in' -o -name '*.py' -o -name '*.pyi' \) | sort) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$venv/.kwcall-build" 2>/dev/null)" != "$src_hash" ]; then
  step "build and install kwcall into $venv (scikit-build-core + CMake, log: $log)"
  logged "$log" "$venv/bin/python" -m pip install --disable-pip-version-check \
    --no-build-isolation --no-deps .
  echo "$src_hash" >"$venv/.kwcall-build"
  "$venv/bin/python" -c "import kwcall, tvm_ffi; print('    kwcall', kwcall.__version__, 'with apache-tvm-ffi', tvm_ffi.__version__)"
fi

if [ "$cpp" = 1 ]; then
  step "build the C++ tests and benchmarks into build/cpp (log: $log)"
  logged "$log" "$venv/bin/cmake" -S . -B build/cpp -G Ninja \
    -DCMAKE_MAKE_PROGRAM="$venv/bin/ninja" -DPython_EXECUTABLE="$venv/bin/python" \
    -DKWCALL_BUILD_TESTS=ON -DKWCALL_BUILD_BENCHMARKS=ON
  logged "$log" "$venv/bin/cmake" --build build/cpp
fi
