"""A kwcall.Function made from a prototype keeps what functools.wraps keeps on this Python:
every attribute of functools.WRAPPER_ASSIGNMENTS (``__annotations__`` up to 3.13,
``__annotate__`` from 3.14) and ``__wrapped__``, with ``__annotations__`` readable on every
Python as on a wrapper function."""

from __future__ import annotations

import functools
import inspect
import sys

import kwcall
import pytest
import tvm_ffi


def prototype(x: int, y: float = 2.0, *, scale: str = "s") -> list:
    """Document the function."""
    return [x, y, scale]


def reference_wrapper(wrapped):
    """What functools.wraps makes of a plain wrapper function."""

    @functools.wraps(wrapped, updated=())
    def wrapper(*args, **kwargs):
        return wrapped(*args, **kwargs)

    return wrapper


def target() -> tvm_ffi.Function:
    return tvm_ffi.convert(lambda *args: sum(1 for _ in args))


def made_by_make_kwargs_wrapper_from_signature(proto):
    return kwcall.make_kwargs_wrapper_from_signature(
        target(), inspect.signature(proto), prototype=proto
    )


def made_by_wrap(proto):
    return kwcall.wrap(target(), proto)


MAKERS = [made_by_make_kwargs_wrapper_from_signature, made_by_wrap]


@pytest.mark.parametrize("make", MAKERS)
def test_keeps_what_functools_wraps_keeps(make):
    f = make(prototype)
    reference = reference_wrapper(prototype)
    for attr in functools.WRAPPER_ASSIGNMENTS:
        assert getattr(f, attr) == getattr(reference, attr), attr
    assert f.__annotations__ == reference.__annotations__ == prototype.__annotations__
    assert f.__wrapped__ is prototype
    assert f(1, 2.0, scale="t") == 3  # still the kwcall function
    assert list(inspect.signature(f).parameters) == ["x", "y", "scale"]  # kwcall.Signature's


def made_by_make_kwargs_wrapper(proto):
    return kwcall.make_kwargs_wrapper(target(), ["x"], prototype=proto)


@pytest.mark.skipif(sys.version_info < (3, 14), reason="deferred annotations are 3.14's")
@pytest.mark.parametrize("make", [made_by_make_kwargs_wrapper, made_by_wrap])
def test_annotations_that_cannot_be_evaluated_yet(make):
    import annotationlib

    namespace = {}
    # Annotations are evaluated when first asked for (PEP 649); Later is not defined yet.
    # (compiled without this module's `from __future__ import annotations`)
    exec(
        compile("def later(x: Later) -> None: pass", "<later>", "exec", dont_inherit=True),
        namespace,
    )
    f = make(namespace["later"])
    assert f.__annotate__ is namespace["later"].__annotate__
    forward = annotationlib.get_annotations(f, format=annotationlib.Format.FORWARDREF)
    assert forward["x"].__forward_arg__ == "Later"
    namespace["Later"] = int
    assert annotationlib.get_annotations(f) == {"x": int, "return": None}


def test_wrap_with_a_signature_keeps_its_name_only():
    sig = kwcall.Signature(["x"], name="named")
    f = kwcall.wrap(target(), sig)
    assert f.__name__ == f.__qualname__ == "named"
    assert not hasattr(f, "__wrapped__")
