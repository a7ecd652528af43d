#!/usr/bin/env bash
# Runs the demo: sets everything up (scripts/setup.sh, logs in build/logs/), then registers a
# C++ target and its kwcall function as globals and calls them from C++ and from Python,
# positionally and with keywords, and ends with the quick benchmark.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$KWCALL_ROOT"
bash scripts/setup.sh "$@"
venv=$(venv_path)
step "python examples/demo.py"
"$venv/bin/python" examples/demo.py
step "python -m kwcall.bench --quick (the regression and the fix, side by side; results/)"
"$venv/bin/python" -m kwcall.bench --quick --out results
