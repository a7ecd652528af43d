"""kwcall: keyword arguments for tvm-ffi kernel functions, bound in C++.

A ``kwcall.Function`` is a real ``tvm_ffi.Function`` whose handle is a C++ function that binds
keywords against a ``kwcall.Signature``: C++ gets a direct call, Python keywords at C speed.
"""

from __future__ import annotations

import tvm_ffi  # loads libtvm_ffi before the extension

from ._tvm_ffi_version import check_tvm_ffi

check_tvm_ffi(tvm_ffi)  # before any native code: tvm-ffi's config mode, unsupported releases

from ._dispatch import DispatchTable, load_dispatch_table  # noqa: E402  # and kwcall.key
from ._function import (  # noqa: E402
    Function,
    make_kwargs_wrapper,
    make_kwargs_wrapper_from_signature,
    unpack_dataclass_to_tuple,
    wrap,
)
from ._kwcall import __version__ as __version__  # noqa: E402  # the one version: CMakeLists.txt
from ._load import load_function  # noqa: E402
from ._signature import Signature  # noqa: E402

__all__ = [
    "DispatchTable",
    "Function",
    "Signature",
    "key",
    "load_dispatch_table",
    "load_function",
    "make_kwargs_wrapper",
    "make_kwargs_wrapper_from_signature",
    "unpack_dataclass_to_tuple",
    "wrap",
]
