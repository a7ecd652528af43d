"""Reference counts and memory stay flat over many calls of every kwcall.Function path,
and over creating and destroying many kwcall.Functions.

Each case warms up, then makes CALLS calls (fewer where each call is slow: a target that
raises builds a C++ traceback, a Python target takes the GIL back) and checks:

- ``sys.getrefcount`` of the function, its defaults and every argument is unchanged;
- ``testing.object_use_count`` (the C++ reference count) of FFI-object arguments and
  defaults is unchanged;
- ``sys.getallocatedblocks()`` (live pymalloc blocks) grew by less than a small bound;
- the resident set size (``/proc/self/statm``) grew by less than ``RSS_SLACK``: one
  leaked 16-byte allocation per call would be 16 MB at a million calls.

Set ``KWCALL_LEAK_CALLS`` to change the number of calls (default 1,000,000).
"""

from __future__ import annotations

import dataclasses
import gc
import os
import sys
import sysconfig
import weakref
from collections.abc import Callable
from typing import Any

import kwcall
import pytest
import tvm_ffi
import tvm_ffi.testing  # noqa: F401  # registers the testing.* globals
from helpers import cpp_handle, needs_unpack, unreadable_dataclass
from tvm_ffi.core import KWARGS

CALLS = int(os.environ.get("KWCALL_LEAK_CALLS", "1000000"))
SLOW_CALLS = max(CALLS // 50, 1000)  # targets that raise, Python targets
FUNCTIONS = max(CALLS // 10, 1000)  # kwcall.Functions created and destroyed
RSS_SLACK = 6 << 20
BLOCK_SLACK = 2000
#: Free-threaded CPython 3.14 and later: kwcall.Functions use deferred reference counting
#: (python/ext/function_type.cc), so the collector frees them, not the `del` of the last
#: reference. Every check of what a function kept alive collects first.
DEFERRED = bool(sysconfig.get_config_var("Py_GIL_DISABLED")) and sys.version_info >= (3, 14)

pytestmark = pytest.mark.skipif(
    not os.path.exists("/proc/self/statm"), reason="needs /proc/self/statm"
)

echo = tvm_ffi.get_global_func("testing.echo")  # C++: returns its first argument
raise_error = tvm_ffi.get_global_func("testing.test_raise_error")  # C++: (kind, message)
use_count = tvm_ffi.get_global_func("testing.object_use_count")
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


class Opaque:
    """A Python object that tvm-ffi passes as an opaque object."""


# Arguments and defaults of every kind a call converts: opaque Python objects, FFI
# objects (C++ reference counts too), floats and strings.
X = Opaque()
Y = tvm_ffi.convert([1, 2, 3])
Z = 2.5
S = "".join(["not ", "interned"])
D_OPAQUE = Opaque()
D_FFI = tvm_ffi.convert({"k": 1})
D_KW = Opaque()


@dataclasses.dataclass
class Point:
    x: Any
    y: Any


P = Point(X, Y)


def snapshot(watched: tuple) -> tuple:
    return (
        # A deferred object's count leaves out some of the interpreter's references to it,
        # which ones changing as the code that holds them is specialized: not compared.
        [
            None if DEFERRED and isinstance(o, kwcall.Function) else sys.getrefcount(o)
            for o in watched
        ],
        [use_count(o) for o in watched if isinstance(o, tvm_ffi.Object)],
    )


def assert_flat(
    run: Callable[[int], None], calls: int, watched: tuple, warmup: int | None = None
) -> None:
    """Warms up (`warmup` calls, a tenth of `calls` unless given), then checks that `calls`
    more calls leak neither references nor memory."""
    run(max(calls // 10, 100) if warmup is None else warmup)
    gc.collect()
    before = snapshot(watched)
    blocks, memory = sys.getallocatedblocks(), rss()
    run(calls)
    gc.collect()
    assert snapshot(watched) == before
    assert sys.getallocatedblocks() - blocks < BLOCK_SLACK
    grown = rss() - memory
    assert grown < RSS_SLACK, f"RSS grew by {grown / 2**20:.1f} MiB over {calls} calls"


def calls_of(call: Callable[[], Any]) -> Callable[[int], None]:
    def run(n: int) -> None:
        for _ in range(n):
            call()

    return run


def failing_calls_of(call: Callable[[], Any], error: type, message: str) -> Callable[[int], None]:
    def run(n: int) -> None:
        for _ in range(n):
            try:
                call()
            except error as err:
                last = err
        assert message in str(last)
        del last

    return run


# def g(a, b=D_OPAQUE, c=D_FFI, *, k, m=D_KW) around a C++ target.
SIG = kwcall.Signature(["a", "b", "c"], (D_OPAQUE, D_FFI), ["k", "m"], {"m": D_KW}, name="g")
# def h(a, b, c): the full-arity positional call skips binding.
SIG_POS = kwcall.Signature(["a", "b", "c"], name="h")
# Parameter names that are not interned strings in the caller's kwargs.
SIG_LONG = kwcall.Signature(["alpha"], (), ["beta", "gamma"], {"gamma": D_KW}, name="u")
BETA, GAMMA = "".join(["be", "ta"]), "".join(["gam", "ma"])


def fn(sig: kwcall.Signature = SIG, target: Any = echo) -> kwcall.Function:
    return kwcall.wrap(target, sig)


def watched(f: kwcall.Function, *extra: Any) -> tuple:
    return (f, f.signature, X, Y, Z, S, D_OPAQUE, D_FFI, D_KW, *extra)


# -- successful calls -------------------------------------------------------------------
def test_positional_full_arity():
    f = fn(SIG_POS)
    assert f(X, Y, Z) is X
    assert_flat(calls_of(lambda: f(X, Y, Z)), CALLS, watched(f))


def test_positional_with_kwonly_bound():
    f = fn()
    assert f(X, Y, Z, k=S) is X
    assert_flat(calls_of(lambda: f(X, Y, Z, k=S)), CALLS, watched(f))


def test_defaults_filled():
    f = fn(kwcall.Signature(["a", "b", "c"], (D_OPAQUE, D_FFI), name="d"))
    assert f(X) is X
    assert_flat(calls_of(lambda: f(X)), CALLS, watched(f))


def test_keywords():
    f = fn()
    assert f(X, k=Y, c=Z) is X
    assert_flat(calls_of(lambda: f(X, k=Y, c=Z)), CALLS, watched(f))


def test_keywords_alternating_shapes():
    f = fn()

    def call():
        f(X, k=Y)
        f(k=Z, a=X, m=S)

    assert_flat(calls_of(call), CALLS // 2, watched(f))


def test_keywords_not_interned():
    f = fn(SIG_LONG)
    kwargs = {BETA: Y, GAMMA: S}
    assert f(X, **kwargs) is X
    assert_flat(calls_of(lambda: f(X, **kwargs)), CALLS, watched(f, BETA, GAMMA, kwargs))


def test_kwargs_sentinel_pass_through():
    f = fn()
    assert f(X, KWARGS, "k", Y) is X
    assert_flat(calls_of(lambda: f(X, KWARGS, "k", Y, "c", S)), CALLS, watched(f, KWARGS))


@needs_unpack
def test_unpack():
    f = fn(kwcall.Signature(["a", "p"], (), ["q"], {"q": P}, unpack=["p", "q"], name="up"))
    assert f(X, P) is X
    assert_flat(calls_of(lambda: f(X, P)), CALLS, watched(f, P))


def test_python_target():
    f = fn(target=lambda *args: args[1])
    assert f(X, k=Y) is D_OPAQUE
    assert_flat(calls_of(lambda: f(X, k=Y)), SLOW_CALLS, watched(f))


# -- failing calls ----------------------------------------------------------------------
def test_missing_argument():
    f = fn()
    run = failing_calls_of(lambda: f(), TypeError, "missing 1 required positional argument")
    assert_flat(run, CALLS, watched(f))


def test_missing_keyword_only():
    f = fn()
    run = failing_calls_of(lambda: f(X, Y), TypeError, "missing 1 required keyword-only")
    assert_flat(run, CALLS, watched(f))


def test_unexpected_keyword():
    f = fn()
    run = failing_calls_of(lambda: f(X, k=Y, zz=Z), TypeError, "unexpected keyword argument 'zz'")
    assert_flat(run, CALLS, watched(f))


def test_unexpected_keyword_not_interned():
    f = fn(SIG_LONG)
    kwargs = {BETA: Y, "".join(["del", "ta"]): Z}
    run = failing_calls_of(lambda: f(X, **kwargs), TypeError, "unexpected keyword argument")
    assert_flat(run, CALLS, watched(f, kwargs))


def test_bad_kwargs_tail():
    # Bound by the C++ binder, which raises a C++ error (with a traceback): slow.
    f = fn()
    run = failing_calls_of(lambda: f(X, KWARGS, "zz", Y), TypeError, "argument 'zz'")
    assert_flat(run, SLOW_CALLS, watched(f, KWARGS))


@needs_unpack
def test_unpack_raising():
    bad = unreadable_dataclass(X, "no fields")
    f = fn(kwcall.Signature(["a", "p"], unpack=["p"], name="up"))
    run = failing_calls_of(lambda: f(X, bad), RuntimeError, "no fields")
    assert_flat(run, SLOW_CALLS, watched(f, bad))


def test_cpp_target_raising():
    f = fn(kwcall.Signature(["kind", "message"], (S,), name="r"), raise_error)
    run = failing_calls_of(lambda: f("ValueError"), ValueError, S)
    assert_flat(run, SLOW_CALLS, watched(f))


def test_python_target_raising():
    def target(*args):
        raise KeyError(f"{len(args)} arguments")

    f = fn(target=target)
    run = failing_calls_of(lambda: f(X, k=Y), KeyError, "5 arguments")
    assert_flat(run, SLOW_CALLS, watched(f))


# -- creating and destroying functions --------------------------------------------------
def test_create_destroy():
    def run(n: int) -> None:
        for i in range(n):
            f = kwcall.wrap(echo, SIG)
            f(X, k=Y)  # fills the call-shape cache, which the function then owns
            if DEFERRED and i % 1000 == 999:
                gc.collect()  # deferred: the collector, not the next line, frees f

    assert_flat(run, FUNCTIONS, (SIG, echo, X, Y, D_OPAQUE, D_FFI, D_KW))


def test_freed_at_del_or_by_the_collector():
    """What a function holds is released when the function is freed: at `del` with the GIL (or
    on free-threaded 3.13), by the collector where functions defer their reference counts."""
    held = Opaque()
    f = kwcall.wrap(echo, kwcall.Signature(["a", "b"], (held,), name="h"))
    copied = f.__copy__()
    ref = weakref.ref(held)
    del f, copied, held
    if DEFERRED:
        gc.collect()
    assert ref() is None


class Holder(list):
    """A default that can point back at its function (and be weakly referenced)."""


def test_create_destroy_cycles():
    """Cycles through the function's __dict__ and through its defaults are collected."""
    alive: list = []

    def run(n: int) -> None:
        for i in range(n):
            holder = Holder()
            f = kwcall.wrap(echo, kwcall.Signature(["a", "b"], (holder,), name="cyc"))
            holder.append(f)  # f -> defaults -> holder -> f
            f.me = f  # f -> __dict__ -> f
            if i % 1000 == 0:
                alive.append(weakref.ref(holder))
            f(X)
        gc.collect()

    # Warmed up with a whole run: on free-threaded CPython the allocator keeps about 6 MiB more
    # pages after the first rounds of cyclic garbage, then stays flat (rounds of 25,000
    # functions: +6.07 MiB after the first, unchanged over the next five).
    assert_flat(run, FUNCTIONS // 4, (echo, X), warmup=FUNCTIONS // 4)
    assert alive and all(ref() is None for ref in alive)


def test_cycle_through_opaque_default():
    # The C++ signature holds the default too; kwcall.Function reports that reference to
    # the cycle collector while it is the C++ function's only owner.
    holder = Opaque()
    f = kwcall.wrap(echo, kwcall.Signature(["a", "b"], (holder,), name="cyc"))
    holder.f = f
    ref = weakref.ref(holder)
    del f, holder
    gc.collect()
    assert ref() is None


def test_cycle_kept_while_cpp_shares_the_function():
    # Registered as a global, the C++ function has another owner: the default must stay
    # alive and usable, cycle or not.
    holder = Opaque()
    second = tvm_ffi.convert(lambda a, b: b)
    f = kwcall.wrap(second, kwcall.Signature(["a", "b"], (holder,), name="cyc2"))
    holder.f = f
    tvm_ffi.register_global_func("kwcall_test.cycle_shared", f, override=True)
    ref = weakref.ref(holder)
    del f, holder
    gc.collect()
    assert ref() is not None and ref().f is not None
    shared = tvm_ffi.get_global_func("kwcall_test.cycle_shared")
    assert shared(1) is ref()  # the default, filled in by C++
    del shared
    tvm_ffi.get_global_func("ffi.FunctionRemoveGlobal")("kwcall_test.cycle_shared")
    gc.collect()
    assert ref() is None


def test_cycle_kept_while_a_plain_handle_holds_the_function():
    # A plain tvm_ffi.Function sharing the C++ function (what C++ callers fetch): a holder the
    # collector cannot see through. The default stays usable while it lives, and the cycle is
    # collected once it is gone.
    holder = Opaque()
    f = kwcall.wrap(tvm_ffi.convert(lambda a, b: b), kwcall.Signature(["a", "b"], (holder,)))
    holder.f = f
    handle = cpp_handle(f, "cycle_handle")
    ref = weakref.ref(holder)
    del f, holder
    gc.collect()
    assert ref() is not None and ref().f is not None
    assert handle(1) is ref()  # the default, filled in by C++
    del handle
    gc.collect()
    assert ref() is None


def test_cycle_kept_while_the_signature_has_another_holder():
    # kwcall.GetSignature hands out the C++ signature again: its defaults are the same objects
    # and must stay intact while that wrapper lives.
    holder = Opaque()
    f = kwcall.wrap(echo, kwcall.Signature(["a", "b"], (holder,), name="cyc3"))
    holder.f = f
    again = tvm_ffi.get_global_func("kwcall.GetSignature")(f)
    ref = weakref.ref(holder)
    del f, holder
    gc.collect()
    assert ref() is not None and ref().f is not None
    assert again.param_defaults()[1] is ref()
    del again
    gc.collect()
    assert ref() is None


def test_clear_by_gc_then_dealloc():
    """A function freed by the collector (tp_clear first) leaves its defaults intact."""
    default = Opaque()
    before = sys.getrefcount(default)
    for _ in range(1000):
        holder = Holder([default])
        f = kwcall.wrap(echo, kwcall.Signature(["a", "b"], (holder,), name="cyc"))
        holder.append(f)
        f(X)
    del f, holder
    gc.collect()
    assert sys.getrefcount(default) == before
