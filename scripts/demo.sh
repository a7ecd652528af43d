#!/usr/bin/env bash
# Runs the demo: sets everything up, then registers a C++ target and its kwcall function
# as globals and calls them from C++ and from Python, positionally and with keywords.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
VENV=${KWCALL_VENV:-$PWD/.venv}
"$VENV/bin/python" examples/demo.py

printf '\n==> python -m kwcall.bench --quick (the regression and the fix, side by side)\n'
"$VENV/bin/python" -m kwcall.bench --quick --out results
