#!/usr/bin/env bash
# Produces every checked-in GPU result on a CUDA host where kwcall, CuTeDSL and PyTorch import
# in $PYTHON (default: python3): the GPU test run, the CuTeDSL examples, the dispatch tables of
# quack and flash-attn-4 (where those import) and the CUDA benchmark.
# Each text file starts with the command that made it and the commit it measured.
#
#   bash scripts/gpu_results.sh OUT_DIR [BENCH_RUNS]     # BENCH_RUNS: kwcall.bench runs (2)
#
# KWCALL_SOURCE_COMMIT names the commit when the tree is not a git checkout (a copied tree).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: gpu_results.sh OUT_DIR [BENCH_RUNS]}
runs=${2:-2}
python=${PYTHON:-python3}
commit=${KWCALL_SOURCE_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
export KWCALL_SOURCE_COMMIT=$commit PYTHONUNBUFFERED=1
mkdir -p "$out"
status=0

# record FILE COMMAND...: FILE gets a header naming COMMAND and the commit, then its output.
record() {
  local file=$1
  shift
  printf '# command: %s\n# commit: %s\n\n' "$*" "$commit" >"$out/$file"
  echo "==> $* > $out/$file"
  "$@" >>"$out/$file" 2>&1 || { echo "    FAILED (see $out/$file)"; status=1; }
  tail -3 "$out/$file"
}

record pytest_gpu.txt "$python" -m pytest tests/python -q -p no:cacheprovider
record cute_example.txt "$python" examples/cute_from_cpp/run.py
record cute_aot_4096.txt "$python" examples/cpp_only/cute_aot.py --size 4096
for extra in examples/cute_cache/run.py; do
  [ -f "$extra" ] && record "$(basename "$(dirname "$extra")").txt" "$python" "$extra"
done
record dispatch_quack_rmsnorm.txt "$python" bench/dispatch_quack_rmsnorm.py
record dispatch_fa4.txt "$python" bench/dispatch_fa4.py
for run in $(seq 1 "$runs"); do
  echo "==> $python -m kwcall.bench --device cuda --no-progress --out $out/bench$run"
  "$python" -m kwcall.bench --device cuda --no-progress --out "$out/bench$run" || status=1
done
exit $status
