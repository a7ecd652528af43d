#!/usr/bin/env bash
# Benchmarks two commits side by side on this machine: each is checked out and built into
# build/compare/<commit>/ (its own .venv, by its own scripts/setup.sh), then
# `python -m kwcall.bench` runs alternately (before, after, before, after, ...) and
# `python -m kwcall.bench.compare` prints the ×A table of both.
#
#   bash scripts/bench_compare.sh BEFORE AFTER [RUNS] [BENCH ARGS...]   # RUNS: each side (2)
#   e.g. bash scripts/bench_compare.sh a8ecddf HEAD 2 --device cpu --reps 21
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$KWCALL_ROOT"
before=$(git rev-parse --short "${1:?usage: bench_compare.sh BEFORE AFTER [RUNS] [ARGS...]}")
after=$(git rev-parse --short "${2:?usage: bench_compare.sh BEFORE AFTER [RUNS] [ARGS...]}")
runs=${3:-2}
shift $(($# < 3 ? $# : 3))
bench_args=("$@")
[ ${#bench_args[@]} -gt 0 ] || bench_args=(--device cpu)
root=$KWCALL_ROOT/build/compare
out=$root/results-$before-$after-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"

for rev in "$before" "$after"; do
  tree=$root/$rev
  if [ ! -d "$tree" ]; then
    step "check out $rev into $tree"
    git worktree add --detach "$tree" "$rev" >/dev/null
  fi
  step "set up $rev (log: $tree/build/logs)"
  (cd "$tree" && bash scripts/setup.sh --no-cpp) | sed 's/^/    /'
done

for run in $(seq 1 "$runs"); do
  for rev in "$before" "$after"; do
    step "run $run of $runs: $rev: python -m kwcall.bench ${bench_args[*]}"
    dir=$out/$rev-run$run
    (cd "$root/$rev" && KWCALL_SOURCE_COMMIT=$(git rev-parse HEAD) .venv/bin/python -m kwcall.bench \
      --no-progress --out "$dir" "${bench_args[@]}" | tail -1)
    # Older commits' benchmarks do not record what they measured: add it.
    "$root/$rev/.venv/bin/python" - "$dir" "$(git rev-parse "$rev")" "${bench_args[*]}" <<'PY'
import json, sys
from pathlib import Path
(result,) = Path(sys.argv[1]).glob("*/results.json")
data = json.loads(result.read_text())
data.setdefault("commit", sys.argv[2])
data.setdefault("command", "python -m kwcall.bench --no-progress " + sys.argv[3])
result.write_text(json.dumps(data, indent=1))
PY
  done
done

step "compare (also in $out/compare.md)"
"$root/$after/.venv/bin/python" -m kwcall.bench.compare \
  --before "$out"/"$before"-run*/*/ --after "$out"/"$after"-run*/*/ --out "$out/compare.md"
