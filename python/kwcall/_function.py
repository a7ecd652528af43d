"""kwcall.Function construction: wrap, make_kwargs_wrapper and friends."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any

import tvm_ffi

from ._kwcall import Function
from ._kwcall import make as _make
from ._signature import Signature

try:  # apache-tvm-ffi 0.1.12 and later
    from tvm_ffi.utils.unpack_dataclass import unpack_dataclass_to_tuple

    HAS_UNPACK = True
except ImportError:  # pragma: no cover - older tvm-ffi
    HAS_UNPACK = False

    def unpack_dataclass_to_tuple(x: Any) -> Any:
        raise NotImplementedError(_NO_UNPACK)


_NO_UNPACK = (
    "unpacking dataclass parameters needs tvm_ffi.utils.unpack_dataclass "
    f"(apache-tvm-ffi 0.1.12 or later; this is {tvm_ffi.__version__})"
)


def _checked(signature: Any) -> Signature:
    if not isinstance(signature, Signature):
        raise TypeError(f"signature must be a kwcall.Signature, got {type(signature).__name__}")
    if signature.unpack and not HAS_UNPACK:
        raise NotImplementedError(_NO_UNPACK)
    return signature


def make(
    cls: type[Function],
    target: Any,
    signature: Signature,
    preprocess: Callable[[tuple, dict], tuple[Any, dict]] | None = None,
) -> Function:
    """A new instance of ``cls`` (``kwcall.Function`` or a type made by
    ``_kwcall.derive_type``), whole: calling ``target`` with ``signature``, each Python call's
    ``(args, kwargs)`` passed through ``preprocess`` first when there is one. Nothing changes
    it after."""
    signature = _checked(signature)
    return _make(cls, target, signature, signature.param_defaults(), signature.name, preprocess)


def copy_metadata(fn: Function, prototype: Callable) -> None:
    """Give ``fn`` what ``functools.wraps(prototype)`` gives a wrapper function on this Python:
    ``functools.WRAPPER_ASSIGNMENTS`` (``__annotations__`` up to 3.13, ``__annotate__`` from
    3.14) and ``__wrapped__``; like tvm-ffi's wrapper, not the prototype's ``__dict__``."""
    functools.update_wrapper(fn, prototype, updated=())
    if "__annotations__" not in functools.WRAPPER_ASSIGNMENTS:
        # A function computes __annotations__ from its __annotate__ when first asked; a
        # kwcall.Function is no function, so it gets them now, unless they cannot be
        # evaluated yet (names defined later), when __annotate__ alone stays, as
        # annotationlib.get_annotations() uses it.
        try:
            annotations = prototype.__annotations__
        except (AttributeError, NameError):
            return
        fn.__annotations__ = annotations


def signature_of(signature: Signature | Callable) -> tuple[Signature, Callable | None]:
    """A kwcall.Signature as given, or a callable's signature and the callable (whose metadata
    the result keeps)."""
    if isinstance(signature, Signature):
        return signature, None
    if not callable(signature):
        raise TypeError(
            f"signature must be a kwcall.Signature or a callable, got {type(signature).__name__}"
        )
    return Signature.from_callable(signature), signature


def wrap(target: Any, signature: Signature | Callable) -> Function:
    """Bind ``target`` (a tvm_ffi.Function, or a Python callable that tvm-ffi converts) to
    ``signature``: a kwcall.Signature, or a Python callable whose signature is used and whose
    metadata the result keeps, as ``functools.wraps`` would.

    Register the result (``tvm_ffi.register_global_func``) once, before C++ threads look it up:
    tvm-ffi's registry is not safe against a registration or ``remove_global_func`` racing a
    C++ ``Function::GetGlobal``. Once registered, any number of threads may look it up and
    call it."""
    signature, prototype = signature_of(signature)
    fn = make(Function, target, signature)
    if prototype is not None:
        copy_metadata(fn, prototype)
    return fn


def make_kwargs_wrapper(
    target_func: Callable,
    arg_names: list[str],
    arg_defaults: tuple = (),
    kwonly_names: list[str] | None = None,
    kwonly_defaults: dict[str, Any] | None = None,
    prototype: Callable | None = None,
    map_dataclass_to_tuple: list[str] | None = None,
) -> Function:
    """Drop-in for ``tvm_ffi.utils.kwargs_wrapper.make_kwargs_wrapper`` that returns a
    kwcall.Function: the same parameters and behaviour, bound in C++."""
    name = getattr(prototype, "__qualname__", None) or "wrapper"
    signature = Signature(
        list(arg_names),
        arg_defaults,
        list(kwonly_names or ()),
        kwonly_defaults,
        unpack=[
            n
            for n in (map_dataclass_to_tuple or ())
            if n in set(arg_names) | set(kwonly_names or ())
        ],
        name=name,
    )
    fn = wrap(target_func, signature)
    if prototype is not None:
        copy_metadata(fn, prototype)
    return fn


def make_kwargs_wrapper_from_signature(
    target_func: Callable,
    signature: inspect.Signature,
    prototype: Callable | None = None,
    exclude_arg_names: Iterable[str] | None = None,
    map_dataclass_to_tuple: list[str] | None = None,
) -> Function:
    """Drop-in for tvm-ffi's function of the same name, returning a kwcall.Function."""
    sig = Signature.from_inspect(signature, exclude=exclude_arg_names or ())
    return make_kwargs_wrapper(
        target_func,
        list(sig.arg_names),
        sig.arg_defaults,
        list(sig.kwonly_names),
        sig.kwonly_defaults,
        prototype=prototype,
        map_dataclass_to_tuple=map_dataclass_to_tuple,
    )
