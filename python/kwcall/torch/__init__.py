"""kwcall functions as PyTorch operators with a C++ kernel.

``kwcall.torch.register(f, "ns::name", mutates_args=("out",))`` makes the kwcall function ``f``
(a CuTeDSL kernel compiled by ``kwcall.cute``, or any kwcall function) the operator
``torch.ops.ns.name``; its schema comes from ``f``'s signature (``schema_of``). Eager PyTorch,
``torch.compile`` and C++ callers of the dispatcher reach ``f`` through kwcall's C++ kernel,
never through Python. See docs/torch.md.
"""

from __future__ import annotations

from ._version import MINIMUM_TORCH, require_torch

require_torch()

from ._outputs import like  # noqa: E402
from ._register import register, registered, unregister  # noqa: E402
from ._schema import schema_of  # noqa: E402

__all__ = ["MINIMUM_TORCH", "like", "register", "registered", "schema_of", "unregister"]
