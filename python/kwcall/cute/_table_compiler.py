"""``kwcall.cute.table_compiler``: the compile function of a ``kwcall.DispatchTable`` whose
entries are one ``@cute.jit`` function compiled per key.

The table calls ``compile(key, *args)`` with the key and the bound arguments in declaration
order, tensors as tvm-ffi passes them (``tvm_ffi.Tensor``); ``compile_args(key, *args)`` maps
them to the arguments ``cute.compile`` takes (constexpr values from the key, fake or marked
tensors); by default they go to the ``@cute.jit`` function's parameters in order (keyword-only
ones by keyword), each tensor through DLPack and everything else as it is.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import tvm_ffi

from . import _compile


def dlpack_tensor(value: Any) -> Any:
    """A ``tvm_ffi.Tensor`` as a CuTeDSL tensor (``cute.runtime.from_dlpack``); any other value
    as it is."""
    if not isinstance(value, tvm_ffi.Tensor):
        return value
    from cutlass.cute.runtime import from_dlpack

    return from_dlpack(value)


def table_compiler(
    jit_function: Any,
    compile_args: Callable[..., tuple[tuple, dict]] | None = None,
    *,
    options: str | None = None,
) -> Callable[..., Any]:
    """A ``compile`` for ``kwcall.DispatchTable``: ``kwcall.cute.compile(jit_function, *args,
    options=options, **kwargs)`` where ``(args, kwargs) = compile_args(key, *call_args)`` (by
    default the call's arguments for the function's parameters in order, keyword-only ones by
    keyword, tensors through ``dlpack_tensor``). The compiled function's parameters (constexpr
    ones aside) must be the table's, in order."""

    params = list(inspect.signature(jit_function).parameters.values())

    def by_parameter(key: tuple, *args: Any) -> tuple[tuple, dict]:
        if len(args) != len(params):
            raise TypeError(
                f"kwcall.cute.table_compiler: the table passes {len(args)} arguments, but "
                f"{getattr(jit_function, '__name__', jit_function)} has {len(params)} parameters "
                "(constexpr ones among them?): pass compile_args to map one to the other"
            )
        positional, keywords = [], {}
        for param, value in zip(params, args, strict=True):
            if param.kind is inspect.Parameter.KEYWORD_ONLY:
                keywords[param.name] = dlpack_tensor(value)
            else:
                positional.append(dlpack_tensor(value))
        return tuple(positional), keywords

    def compile(key: tuple, *args: Any) -> Any:
        if compile_args is None:
            positional, keywords = by_parameter(key, *args)
        else:
            positional, keywords = compile_args(key, *args)
        return _compile.compile(jit_function, *positional, options=options, **keywords)

    return compile
