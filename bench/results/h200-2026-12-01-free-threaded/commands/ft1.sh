#!/usr/bin/env bash
# GPU host: free-threaded CPython 3.13 from Debian's tarball (libffi's headers carried: the
# host has libffi8 but not its headers), tvm-ffi 0.1.12's cp313t wheel, kwcall built on it.
set -uo pipefail
ls -l /usr/lib/x86_64-linux-gnu/libffi.so* || exit 1
mkdir -p /tmp/ffi/include /tmp/ffi/lib /tmp/ft && cp .gpu-ffi/*.h /tmp/ffi/include/
ln -sf /usr/lib/x86_64-linux-gnu/libffi.so.8 /tmp/ffi/lib/libffi.so
cp .whl-ft/*.whl /tmp/ft/ && tree=$PWD; cd /tmp/ft && tar xf "$tree/.gpu-py/python3.13_3.13.5.orig.tar.xz" && cd Python-3.13.5 || exit 1
start=$SECONDS
./configure --disable-gil --prefix=/tmp/py313t CPPFLAGS=-I/tmp/ffi/include LDFLAGS="-L/tmp/ffi/lib" \
  >/tmp/ft/configure.log 2>&1 && make -j16 >/tmp/ft/make.log 2>&1 && make install >/tmp/ft/install.log 2>&1 ||
  { tail -20 /tmp/ft/*.log; exit 1; }
echo "CPython 3.13t built in $((SECONDS - start)) s"; grep -A3 "missing" /tmp/ft/make.log | head -5
py=/tmp/py313t/bin/python3.13t
$py -c 'import ctypes, sysconfig; print("Py_GIL_DISABLED", sysconfig.get_config_var("Py_GIL_DISABLED"))' || exit 1
$py -m pip install -q --no-index /tmp/ft/*.whl 2>&1 | grep -v "root' user" ; mkdir -p /tmp/after && tar xzf "$tree/.gpu/after.tar.gz" -C /tmp/after
$py -m pip install -q --no-build-isolation --no-deps /tmp/after >/tmp/build-ft.log 2>&1 || { tail -20 /tmp/build-ft.log; exit 1; }
$py -c 'import sys, kwcall, tvm_ffi; print("kwcall", kwcall.__version__, "tvm-ffi", tvm_ffi.__version__, "GIL enabled after import:", sys._is_gil_enabled())'
