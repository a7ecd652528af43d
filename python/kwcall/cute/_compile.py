"""``kwcall.cute.compile``: a stock ``--enable-tvm-ffi`` compile, built into kwcall's object.
CuTeDSL is left as it is: other threads' compiles return what they always do."""

from __future__ import annotations

import threading
from typing import Any

from . import _construct, _cutedsl_versions

_TVM_FFI_OPTION = "--enable-tvm-ffi"

# CuTeDSL's compile keeps its state on one shared DSL object and is not safe to run from two
# threads at once: kwcall's own compiles take turns.
_compile_lock = threading.RLock()


def compile(fn: Any, *args: Any, options: str | None = None, **kwargs: Any) -> Any:
    """``cute.compile`` with ``--enable-tvm-ffi`` that returns kwcall's object, whether or not
    ``install()`` is in effect."""
    _cutedsl_versions.require_supported("compile")
    import cutlass.cute as cute

    if not options or _TVM_FFI_OPTION not in options.split():
        options = f"{options} {_TVM_FFI_OPTION}" if options else _TVM_FFI_OPTION
    with _compile_lock:
        stock = cute.compile(fn, *args, options=options, **kwargs)
    return _construct.from_stock(stock, fn, args, kwargs)
