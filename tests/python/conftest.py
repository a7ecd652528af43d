"""Shared test markers."""

import importlib.util

import pytest

#: tvm-ffi releases before 0.1.12 have no tvm_ffi.utils.unpack_dataclass, which kwcall
#: uses to flatten dataclass parameters.
HAS_UNPACK = importlib.util.find_spec("tvm_ffi.utils.unpack_dataclass") is not None
needs_unpack = pytest.mark.skipif(
    not HAS_UNPACK, reason="this apache-tvm-ffi has no tvm_ffi.utils.unpack_dataclass"
)
