#!/usr/bin/env bash
# GPU host, call 2 (the machine still warm from call 1): the benchmark's second run each side
# under the GIL, then kwcall on the free-threaded 3.13 (Python-thread scaling).
set -uo pipefail
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
tree=$PWD
commit=$(cat .gpu/after-commit)
source <(sed -n '/^run() {/,/^}/p' .gpu/call1.sh)
run before 2; run after 2
for i in $(seq 60); do [ -f /tmp/ft/READY ] && break; sleep 5; done
ls /tmp/py313t/bin/python3.13t || exit 1
py=/tmp/py313t/bin/python3.13t
$py -m pip install -q --no-index /tmp/ft/*.whl .whl-ft2/*.whl || exit 1
$py -m pip install -q --no-build-isolation --no-deps /tmp/after >/tmp/build-ft.log 2>&1 || { tail -20 /tmp/build-ft.log; exit 1; }
$py -c 'import sys, kwcall; print("GIL enabled after import kwcall:", sys._is_gil_enabled())'
KWCALL_SOURCE_COMMIT=$commit timeout 400 $py -m kwcall.bench --no-progress --device cpu ${FT_BENCH_ARGS:-} \
  --out /tmp/res/ft | tail -30
for f in /tmp/res/ft/*/results.md /tmp/res/ft/*/results.json; do cp "$f" "$OUT/ft.${f##*.}"; done
