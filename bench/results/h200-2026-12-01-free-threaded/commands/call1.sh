#!/usr/bin/env bash
# GPU host, call 1: start building free-threaded CPython 3.13 in the background; build kwcall
# before (98ccf85) and after (this tree) for the host's Python 3.12; run the benchmark once each.
set -uo pipefail
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
tree=$PWD
commit=$(cat .gpu/after-commit)
nproc; python3 --version; ldd --version | head -1
# 1. free-threaded 3.13 in the background (its own session: it outlives this call).
mkdir -p /tmp/ft && cp .gpu-py/python3.13_3.13.5.orig.tar.xz .whl-ft/*.whl /tmp/ft/
setsid bash -c '
  cd /tmp/ft && tar xf python3.13_3.13.5.orig.tar.xz && cd Python-3.13.5 &&
  ./configure --disable-gil --prefix=/tmp/py313t >/tmp/ft/configure.log 2>&1 &&
  make -j12 >/tmp/ft/make.log 2>&1 && make install >/tmp/ft/install.log 2>&1 &&
  /tmp/py313t/bin/python3.13t -m pip install -q --no-index /tmp/ft/*.whl >/tmp/ft/pip.log 2>&1 &&
  echo done >/tmp/ft/READY || echo failed >/tmp/ft/READY' </dev/null >/dev/null 2>&1 &
# 2. kwcall before and after for Python 3.12, with tvm-ffi 0.1.15.post2.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
mkdir -p /tmp/before /tmp/after && tar xzf .gpu/before-98ccf85.tar.gz -C /tmp/before && tar xzf .gpu/after.tar.gz -C /tmp/after
for side in before after; do
  src=/tmp/$side
  PYTHONPATH=/tmp/site python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/k-$side "$src" \
    >/tmp/build-$side.log 2>&1 || { tail -20 /tmp/build-$side.log; exit 1; }
done
run() {  # run SIDE N: results.md and .json as $OUT/SIDE-N.*
  local c=98ccf85ef496cdc380f866d43551eab600c6c041; [ $1 = after ] && c=$commit
  PYTHONPATH=/tmp/k-$1:/tmp/site KWCALL_SOURCE_COMMIT=$c timeout 280 python3 -m kwcall.bench \
    --no-progress --out /tmp/res/$1$2 | tail -3
  for f in /tmp/res/$1$2/*/results.md /tmp/res/$1$2/*/results.json; do cp "$f" "$OUT/$1$2.${f##*.}"; done
}
run before 1; run after 1
cat /tmp/ft/READY 2>/dev/null; tail -2 /tmp/ft/make.log
