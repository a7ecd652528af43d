#!/usr/bin/env bash
# Runs every test: GoogleTest through ctest, then pytest. Sets everything up first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
VENV=${KWCALL_VENV:-$PWD/.venv}

printf '\n==> ctest\n'
"$VENV/bin/ctest" --test-dir build/cpp --output-on-failure

printf '\n==> pytest\n'
"$VENV/bin/python" -m pytest tests/python "$@"
