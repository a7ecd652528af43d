#!/usr/bin/env bash
# GPU host, one call: kwcall before (98ccf85) and after (.gpu/after-commit: the pipeline with
# the inlined shape bind and kwcall::Call), built from source for Python 3.12 with
# apache-tvm-ffi 0.1.15.post2; `python -m kwcall.bench --reps 11` as after1, before1, after2.
set -uo pipefail
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
commit=$(cat .gpu/after-commit)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
mkdir -p /tmp/before /tmp/after && tar xzf .gpu/before-98ccf85.tar.gz -C /tmp/before && tar xzf .gpu/after.tar.gz -C /tmp/after
for side in before after; do
  ( PYTHONPATH=/tmp/site python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/k-$side /tmp/$side \
    >/tmp/build-$side.log 2>&1 || { tail -20 /tmp/build-$side.log; echo "build $side failed"; } ) &
done
wait
run() {
  local c=98ccf85ef496cdc380f866d43551eab600c6c041; [ $1 = after ] && c=$commit
  PYTHONPATH=/tmp/k-$1:/tmp/site KWCALL_SOURCE_COMMIT=$c timeout 140 python3 -m kwcall.bench \
    --no-progress --reps 11 --out /tmp/res/$1$2 | tail -1
  for f in /tmp/res/$1$2/*/results.md /tmp/res/$1$2/*/results.json; do cp "$f" "$OUT/$1$2.${f##*.}"; done
  date
}
run after 1; run before 1; run after 2
