"""Type stubs for kwcall's CPython extension (python/ext/*.cc)."""

from collections.abc import Callable
from typing import Any, TypeVar

import tvm_ffi

from ._signature import Signature

_F = TypeVar("_F", bound=Function)

#: kwcall's version (CMakeLists.txt's project version, compiled in).
__version__: str
#: ``KWCALL_SIGNATURE_FUNCTION_PREFIX`` of ``<kwcall/export.h>``, compiled in: the name of the
#: function carrying ``f``'s exported signature is this prefix + ``f``.
SIGNATURE_FUNCTION_PREFIX: str

class Function(tvm_ffi.Function):
    """A tvm_ffi.Function that binds keyword arguments in C++.

    Its handle is the C++ kwcall function; create one with ``kwcall.wrap`` or
    ``kwcall.make_kwargs_wrapper`` (calling the class directly raises TypeError).
    """

    __name__: str
    __qualname__: str
    def __new__(cls, *args: Any, **kwargs: Any) -> Function: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    def asobject(self) -> Function:
        """This function itself (tvm_ffi.convert hands it through unchanged)."""

    def __copy__(self) -> Function:
        """A copy sharing the native function."""

    def __deepcopy__(self, memo: Any) -> Function:
        """A copy sharing the native function."""

    def __setstate__(self, state: Any) -> None:
        """Refused (TypeError): a function keeps the native function it was made with."""

    def __move_handle_from__(self, other: Any) -> None:
        """Refused (TypeError): a function keeps the native function it was made with."""

    def __init_handle_by_constructor__(self, fconstructor: Any, *args: Any) -> None:
        """Refused (TypeError): a function keeps the native function it was made with."""

    @property
    def signature(self) -> Signature:
        """The kwcall.Signature this function binds."""

    @property
    def target(self) -> tvm_ffi.Function:
        """The function called with the bound arguments."""

def make(
    cls: type[_F],
    target: Any,
    signature: Signature,
    defaults: tuple,
    name: str,
    preprocess: Callable[[tuple, dict], tuple[Any, dict]] | None = None,
    /,
) -> _F:
    """A new instance of ``cls``, made whole from plain values and never changed after: its
    handle is the C++ kwcall function calling ``target`` (a tvm_ffi.Function, or tvm-ffi's
    conversion of a Python callable) with ``signature`` (read as its C++ object), its
    ``__name__`` and ``__qualname__`` ``name``. ``target`` is what ``.target`` returns; Python
    callers call a Python callable directly with the bound objects. ``defaults`` holds one entry
    per parameter: the object a Python caller gets where the signature gives the parameter a
    default. With ``preprocess``, each Python call's ``(args, kwargs)`` passes through it before
    binding (C++ callers never see it). Nothing calls back into the kwcall package."""

def derive_type(qualified_name: str, extra_bases: tuple[type, ...], /) -> type[Function]:
    """Create a type derived from kwcall.Function and ``extra_bases`` that keeps its
    vectorcall (a Python subclass would lose it)."""

def error_function(message: str, /) -> tvm_ffi.Function:
    """A tvm_ffi.Function that raises ``RuntimeError(message)`` when called, from Python and
    from C++ callers alike."""
