#!/usr/bin/env bash
# GPU host, after ft1.sh (machine warm): the benchmark's packages, then the scaling benchmark.
set -uo pipefail
py=/tmp/py313t/bin/python3.13t
$py -m pip install -q --no-index .whl-ft2/*.whl 2>&1 | grep -v "root' user"
KWCALL_SOURCE_COMMIT=$(cat .gpu/after-commit) timeout 500 $py -m kwcall.bench --no-progress --device cpu \
  ${FT_BENCH_ARGS:-} --out /tmp/res/ft | tail -40
for f in /tmp/res/ft/*/results.md /tmp/res/ft/*/results.json; do cp "$f" "$OUT/ft.${f##*.}"; done
