"""kwcall.key: the terms of a dispatch table's key, each read in C++ from one bound argument.

``kwcall.DispatchTable(signature, [key.dtype("x"), key.shape("x", -1)])`` chooses an entry by
the dtype and the last extent of the argument bound to ``x``. Tensor terms read a tensor
argument (a torch tensor, a tvm_ffi.Tensor, a DLTensor from C++); a tensor term of a None
argument gives None. A term's text is what a saved table stores: ``str(key.shape("x", -1))`` is
``'shape(x, -1)'``.

========================  =====================================================================
term                      its value
========================  =====================================================================
``dtype(p)``              the dtype as tvm-ffi spells it: ``'bfloat16'``
``ndim(p)``               the number of dimensions
``shape(p, i)``           dimension ``i``'s extent (negative ``i`` from the end)
``stride(p, i)``          dimension ``i``'s stride, in elements
``zero_strides(p)``       the dimensions whose stride is 0, a tuple: ``(0, 2)``
``contiguous(p)``         row-major and compact, as torch's ``is_contiguous()``
``divisible(p, i, n)``    ``shape(p, i) % n == 0``
``aligned(p, n)``         the data pointer is a multiple of ``n`` bytes (a power of two)
``device(p)``             ``'cuda:0'``, ``'cpu:0'``
``arch(p)``               the CUDA compute capability of the tensor's device (``90``); 0 on CPU
``is_none(p)``            whether the argument is None (any argument)
``value(p)``              a bool, int or str argument's value (None for None)
========================  =====================================================================
"""

from __future__ import annotations

from typing import Any

import tvm_ffi

__all__ = [
    "Term",
    "aligned",
    "arch",
    "contiguous",
    "device",
    "divisible",
    "dtype",
    "is_none",
    "ndim",
    "shape",
    "stride",
    "value",
    "zero_strides",
]


class Term:
    """One term of a key, as its text (``'divisible(x, -1, 16)'``); C++ checks it."""

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"a key term is written as text, got {type(text).__name__}")
        # libkwcall's global (loaded with kwcall) checks the term and writes it as C++ does.
        self._text = str(tvm_ffi.get_global_func("kwcall.KeyTermText")(text))

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"kwcall.key.{self._text}"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Term) and other._text == self._text

    def __hash__(self) -> int:
        return hash(self._text)


def _term(name: str, param: Any, *numbers: Any) -> Term:
    if not isinstance(param, str) or not param.isidentifier():
        raise TypeError(f"kwcall.key.{name}: the parameter is named by a str, got {param!r}")
    for number in numbers:
        if type(number) is not int:
            raise TypeError(f"kwcall.key.{name}({param!r}, ...): {number!r} is not an int")
    return Term(f"{name}({', '.join([param, *map(str, numbers)])})")


def dtype(p: str) -> Term:
    """The tensor's dtype as tvm-ffi spells it (``'float16'``)."""
    return _term("dtype", p)


def ndim(p: str) -> Term:
    """The tensor's number of dimensions."""
    return _term("ndim", p)


def shape(p: str, i: int) -> Term:
    """Dimension ``i``'s extent (negative ``i`` counts from the end)."""
    return _term("shape", p, i)


def stride(p: str, i: int) -> Term:
    """Dimension ``i``'s stride in elements (negative ``i`` counts from the end)."""
    return _term("stride", p, i)


def zero_strides(p: str) -> Term:
    """The dimensions whose stride is 0 (broadcast), as a tuple of indices."""
    return _term("zero_strides", p)


def contiguous(p: str) -> Term:
    """Whether the tensor is row-major and compact (torch's ``is_contiguous()``)."""
    return _term("contiguous", p)


def divisible(p: str, i: int, n: int) -> Term:
    """Whether dimension ``i``'s extent is a multiple of ``n``."""
    return _term("divisible", p, i, n)


def aligned(p: str, n: int) -> Term:
    """Whether the data pointer is a multiple of ``n`` bytes (a power of two)."""
    return _term("aligned", p, n)


def device(p: str) -> Term:
    """The tensor's device as tvm-ffi spells it (``'cuda:0'``)."""
    return _term("device", p)


def arch(p: str) -> Term:
    """The compute capability of the tensor's CUDA device (``90`` for sm_90), read once per
    device through the CUDA driver; 0 for a CPU tensor."""
    return _term("arch", p)


def is_none(p: str) -> Term:
    """Whether the argument is None (any parameter)."""
    return _term("is_none", p)


def value(p: str) -> Term:
    """A bool, int or str argument's value."""
    return _term("value", p)
