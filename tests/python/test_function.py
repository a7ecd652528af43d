"""Behaviour of kwcall.Function: a tvm_ffi.Function whose handle is the C++ kwcall
function, its attributes, Signature validation, and the Python call path (the one-entry
call-shape cache, KWARGS pass-through, default identity, unpacking, threads)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
import threading

import kwcall
import pytest
import tvm_ffi
import tvm_ffi.testing  # noqa: F401  # registers the testing.* globals
from helpers import (
    KWARGS,
    collect,
    needs_unpack,
    plain,
    py_collect,
    unique,
    unreadable_dataclass,
    vectorcall,
)

get_signature = tvm_ffi.get_global_func("kwcall.GetSignature")
get_target = tvm_ffi.get_global_func("kwcall.GetTarget")
# A C++ target that returns its first argument.
echo = tvm_ffi.get_global_func("testing.echo")


@pytest.fixture
def f():
    """def g(a, b=2, *, c, d=4) around a C++ target that returns its arguments."""
    sig = kwcall.Signature(["a", "b"], (2,), ["c", "d"], {"d": 4}, name="g")
    return kwcall.wrap(collect, sig)


# -- a real tvm_ffi.Function ------------------------------------------------------------
def test_isinstance(f):
    assert isinstance(f, tvm_ffi.Function)
    assert isinstance(f, kwcall.Function)
    assert type(f) is kwcall.Function


def test_weak_references():
    # Issue 37.13: the object stock CuTeDSL and tvm-ffi's make_kwargs_wrapper return can be
    # weakly referenced (caches keyed by weak references hold them); kwcall.Function too.
    import copy
    import gc
    import weakref

    from tvm_ffi.utils import kwargs_wrapper

    stock = kwargs_wrapper.make_kwargs_wrapper(collect, ["a"])
    assert weakref.ref(stock)() is stock
    f = kwcall.wrap(collect, kwcall.Signature(["a", "b"], (2,), name="g"))
    gone: list[object] = []
    ref = weakref.ref(f, gone.append)
    assert ref() is f
    cache = weakref.WeakValueDictionary({"g": f})
    g = copy.copy(f)
    assert weakref.ref(g)() is g
    del f
    gc.collect()
    assert ref() is None
    assert gone == [ref]
    assert "g" not in cache
    assert plain(g(1)) == (1, 2)


def test_register_global_keeps_native_handle(f):
    name = unique("g")
    tvm_ffi.register_global_func(name, f, override=True)
    g = tvm_ffi.get_global_func(name)
    assert type(g) is tvm_ffi.Function
    assert g.__chandle__() == f.__chandle__()
    sig = get_signature(g)
    assert isinstance(sig, kwcall.Signature)
    assert sig == f.signature
    assert sig.arg_names == ("a", "b")
    assert sig.kwonly_names == ("c", "d")
    assert get_target(g).__chandle__() == collect.__chandle__()
    # Called from the handle only: the C++ function binds, Python is not involved.
    assert plain(g(1, 2, 3, 4)) == (1, 2, 3, 4)
    assert plain(g(1, KWARGS, "c", 3)) == (1, 2, 3, 4)
    assert plain(g(KWARGS, "d", 40, "c", 30, "a", 10)) == (10, 2, 30, 40)
    with pytest.raises(TypeError, match=r"g\(\) got an unexpected keyword argument 'x'"):
        g(1, KWARGS, "c", 3, "x", 0)


def test_python_callback_global_has_no_signature():
    name = unique("py")
    tvm_ffi.register_global_func(name, py_collect, override=True)
    assert get_signature(tvm_ffi.get_global_func(name)) is None
    assert get_signature(collect) is None


def test_convert_keeps_handle(f):
    # tvm-ffi turns a plain tvm_ffi.Function into a new Python callback here; kwcall's
    # functions are ObjectConvertible and come back as themselves.
    assert tvm_ffi.convert(f) is f


def test_kwargs_sentinel_forwarded_through_python(f):
    sentinel = echo(KWARGS)  # the same FFI object, a new Python wrapper
    assert sentinel.__chandle__() == KWARGS.__chandle__()
    assert plain(f(1, sentinel, "c", 3)) == (1, 2, 3, 4)


def test_argument_to_cpp_keeps_signature(f):
    back = echo(f)
    assert isinstance(back, tvm_ffi.Function)
    assert back.__chandle__() == f.__chandle__()
    assert get_signature(back) is not None
    assert plain(back(1, KWARGS, "c", 3)) == (1, 2, 3, 4)
    # An FFI container holding it keeps the native handle too.
    inner = collect(f)[0]
    assert get_signature(inner) is not None


# -- attributes -------------------------------------------------------------------------
def test_attributes(f):
    assert isinstance(f.signature, kwcall.Signature)
    assert f.signature.param_names == ("a", "b", "c", "d")
    assert f.target.__chandle__() == collect.__chandle__()
    assert str(inspect.signature(f)) == "(a, b=2, *, c, d=4)"
    assert repr(f) == "<kwcall.Function g(a, b=2, *, c, d=4)>"
    assert f.__name__ == "g"
    with pytest.raises(AttributeError):
        f.signature = None
    with pytest.raises(AttributeError):
        f.target = None


def test_release_gil_settable(f):
    assert f.release_gil in (True, False)
    f.release_gil = False
    assert f.release_gil is False
    assert plain(f(1, c=3)) == (1, 2, 3, 4)
    f.release_gil = True
    assert f.release_gil is True
    assert plain(f(1, c=3)) == (1, 2, 3, 4)


def test_release_gil_is_honoured_when_it_differs_from_the_target(gil_probe):
    # The C++ target reports whether its caller held the GIL: kwcall.Function's setting
    # decides, whatever the target's own is, on every path (native positional, defaults,
    # keywords, KWARGS).
    target = gil_probe.gil_held
    g = kwcall.wrap(target, kwcall.Signature(["a", "b"], (2,), name="h"))
    for release in (False, True):
        g.release_gil = release
        for target_release in (False, True):
            target.release_gil = target_release
            held = 0 if release else 1
            assert plain(g(1, 5)) == (held, 1, 5)
            assert plain(g(1)) == (held, 1, 2)
            assert plain(g(b=3, a=1)) == (held, 1, 3)
            assert plain(g(1, KWARGS, "b", 4)) == (held, 1, 4)


def test_direct_construction_rejected():
    with pytest.raises(TypeError, match="cannot be created directly"):
        kwcall.Function()
    with pytest.raises(TypeError, match="cannot be created directly"):
        kwcall.Function.__new__(kwcall.Function)


# -- wrap -------------------------------------------------------------------------------
def test_wrap_with_signature():
    sig = kwcall.Signature(["x", "y"], (), ["alpha"], {"alpha": 1.0}, name="scale")
    fn = kwcall.wrap(collect, sig)
    assert fn.signature is sig
    assert plain(fn(1.0, 2.0)) == (1.0, 2.0, 1.0)
    assert plain(fn(y=2.0, x=1.0, alpha=3.0)) == (1.0, 2.0, 3.0)


def test_wrap_with_callable():
    def proto(a, b=2, /, c=3, *, d, e=5):
        pass

    fn = kwcall.wrap(collect, proto)
    assert fn.signature == kwcall.Signature.from_callable(proto)
    assert fn.signature.posonly_count == 2
    assert str(inspect.signature(fn)) == str(inspect.signature(proto))
    assert plain(fn(1, d=4)) == (1, 2, 3, 4, 5)
    with pytest.raises(TypeError, match="positional-only arguments passed as keyword"):
        fn(1, b=2, d=4)


def test_wrap_python_target():
    fn = kwcall.wrap(py_collect, kwcall.Signature(["a", "b"], (2,)))
    assert plain(fn(1)) == (1, 2)
    with pytest.raises(TypeError, match="target must be a tvm_ffi.Function or callable"):
        kwcall.wrap(42, kwcall.Signature(["a"]))
    with pytest.raises(TypeError, match="signature must be a kwcall.Signature or a callable"):
        kwcall.wrap(collect, 42)


def test_from_callable_exclude():
    class K:
        def method(self, x, *, y=1):
            pass

    sig = kwcall.Signature.from_callable(K.method, exclude=("self",))
    assert sig.arg_names == ("x",)
    assert sig.kwonly_names == ("y",)
    assert sig.name == "test_from_callable_exclude.<locals>.K.method"
    assert plain(kwcall.wrap(collect, sig)(7)) == (7, 1)


def test_from_callable_rejects_var_args():
    def star(a, *args):
        pass

    def star_star(a, **kwargs):
        pass

    with pytest.raises(ValueError, match=r"^\*args not supported in wrapper generation"):
        kwcall.Signature.from_callable(star)
    with pytest.raises(ValueError, match=r"^\*\*kwargs not supported in wrapper generation"):
        kwcall.Signature.from_callable(star_star)
    with pytest.raises(ValueError):
        kwcall.wrap(collect, star)
    # Excluding them is fine.
    assert kwcall.Signature.from_callable(star, exclude=("args",)).arg_names == ("a",)


# -- Signature validation ---------------------------------------------------------------
# tvm-ffi's make_kwargs_wrapper messages first (kwcall.Signature takes the same fields), then
# kwcall's own for what tvm-ffi does not check.
@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (
            {"arg_names": ["1a"]},
            ValueError,
            "Invalid argument name: '1a' is not a valid Python identifier",
        ),
        ({"arg_names": ["a b"]}, ValueError, "not a valid Python identifier"),
        ({"arg_names": [""]}, ValueError, "not a valid Python identifier"),
        ({"arg_names": [1]}, TypeError, "Argument name must be a string, got int: 1"),
        ({"arg_names": "ab"}, TypeError, "Argument names must be a sequence of strings"),
        ({"arg_names": ["a", "a"]}, ValueError, "Duplicate argument names found in: ['a', 'a']"),
        (
            {"arg_names": ["a"], "kwonly_names": ["a"]},
            ValueError,
            "Arguments cannot be both positional and keyword-only: {'a'}",
        ),
        (
            {"arg_names": [], "kwonly_names": ["k", "k"]},
            ValueError,
            "Duplicate keyword-only argument names found in: ['k', 'k']",
        ),
        ({"arg_names": ["class"]}, ValueError, "'class' is a Python keyword"),
        ({"arg_names": [], "kwonly_names": ["None"]}, ValueError, "is a Python keyword"),
        (
            {"arg_names": ["__i_target_func"]},
            ValueError,
            "Argument names conflict with internal names: {'__i_target_func'}",
        ),
        ({"arg_names": ["a"], "arg_defaults": (1, 2)}, ValueError, "arg_defaults has 2 values"),
        ({"arg_names": ["a"], "arg_defaults": [1]}, TypeError, "arg_defaults must be a tuple"),
        (
            {"arg_names": ["a"], "kwonly_names": ["k"], "kwonly_defaults": {"z": 1}},
            ValueError,
            "Default provided for 'z' which is not in kwonly_names: ['k']",
        ),
        (
            {"arg_names": ["a"], "kwonly_defaults": [("a", 1)]},
            TypeError,
            "kwonly_defaults must be a mapping",
        ),
        ({"arg_names": ["a"], "unpack": ["b"]}, ValueError, "Cannot unpack 'b'"),
        ({"arg_names": ["a"], "posonly_count": 2}, ValueError, "posonly_count must be between"),
        ({"arg_names": ["a"], "posonly_count": -1}, ValueError, "posonly_count must be between"),
        ({"arg_names": ["a"], "posonly_count": True}, TypeError, "posonly_count must be an int"),
        ({"arg_names": ["a"], "name": 3}, TypeError, "name must be a string"),
        # Python accepts it, but no source code can pass it by keyword: NFKC makes it 'fi'.
        ({"arg_names": ["\ufb01"]}, ValueError, "is not NFKC-normalized"),
    ],
)
def test_signature_validation(kwargs, error, message):
    with pytest.raises(error) as info:
        kwcall.Signature(**kwargs)
    assert message in str(info.value)


def test_signature_validation_names_the_function():
    with pytest.raises(ValueError, match=r"myfn\(\) has no such parameter"):
        kwcall.Signature(["a"], unpack=["q"], name="myfn")


def test_tvm_ffi_prefix_is_allowed_apart_from_its_internal_names():
    # tvm-ffi rejects exactly its generated code's names, not every "__i_" name.
    assert kwcall.Signature(["__i_x"]).arg_names == ("__i_x",)


@needs_unpack
def test_signature_json_round_trip():
    sig = kwcall.Signature(
        ["p", "a", "b"],
        (1.5, [1, "two", None]),
        ["k", "m"],
        {"m": {"x": [True, False]}},
        posonly_count=1,
        unpack=["a"],
        name="full",
    )
    text = sig.to_json()
    fields = json.loads(text)
    assert fields["version"] == 1
    assert [p["name"] for p in fields["params"]] == ["p", "a", "b", "k", "m"]
    assert fields["params"][0] == {"name": "p", "kind": "POSITIONAL_ONLY"}
    assert fields["params"][1] == {
        "name": "a",
        "kind": "POSITIONAL_OR_KEYWORD",
        "default": 1.5,
        "unpack": True,
    }
    back = kwcall.Signature.from_json(text)
    assert back == sig
    assert back.to_json() == text
    assert (
        str(back) == str(sig) == "(p, /, a=1.5, b=[1, 'two', None], *, k, m={'x': [True, False]})"
    )
    # A kwcall function made from the JSON form behaves the same.
    assert plain(kwcall.wrap(collect, back)(0, k=3)[:2]) == (0, 1.5)


def test_signature_json_rejects_non_json_defaults():
    sig = kwcall.Signature(["a", "b"], (object(),), name="opaque")
    with pytest.raises(ValueError, match=r"default of parameter 'b' of opaque\(\)"):
        sig.to_json()
    sig = kwcall.Signature([], (), ["k"], {"k": collect}, name="fn_default")
    with pytest.raises(ValueError, match="JSON cannot represent"):
        sig.to_json()


def test_signature_from_json_rejects_bad_input():
    with pytest.raises(ValueError, match="Invalid signature JSON"):
        kwcall.Signature.from_json("{not json")
    with pytest.raises(TypeError, match="must be an object"):
        kwcall.Signature.from_json("[1, 2]")
    with pytest.raises(ValueError, match="Signature has an unknown field 'extra'"):
        kwcall.Signature.from_json('{"version": 1, "params": [], "extra": 1}')
    with pytest.raises(ValueError, match="nest deeper than the limit"):
        kwcall.Signature.from_json("[" * 20000 + "]" * 20000)
    with pytest.raises(TypeError, match="from_json\\(\\) needs a str"):
        kwcall.Signature.from_json(b"{}")


# -- the call-shape cache ---------------------------------------------------------------
def test_cache_same_site_different_values(f):
    for i in range(200):
        assert plain(f(i, c=-i)) == (i, 2, -i, 4)


def test_cache_alternating_sites(f):
    for i in range(200):
        assert plain(f(i, c=i + 1)) == (i, 2, i + 1, 4)
        assert plain(f(c=i, a=i + 1, d=i + 2)) == (i + 1, 2, i, i + 2)
        assert plain(f(i, i + 1, c=i + 2)) == (i, i + 1, i + 2, 4)
        assert plain(f(i, b=i + 1, c=i + 2, d=i + 3)) == (i, i + 1, i + 2, i + 3)


def _vectorcall(fn, args, kwnames):
    """fn called at the C level with exactly this kwnames tuple object (its values last)."""
    n = len(kwnames) if kwnames is not None else 0
    pos, values = args[: len(args) - n], args[len(args) - n :]
    return vectorcall(
        fn, tuple(pos), tuple(zip(kwnames or (), values, strict=False)), kwnames=kwnames
    )


def test_cache_same_kwnames_different_nargs(f):
    kwnames = ("c",)
    for i in range(50):
        assert plain(_vectorcall(f, (i, 30), kwnames)) == (i, 2, 30, 4)
        assert plain(_vectorcall(f, (i, 20, 30), kwnames)) == (i, 20, 30, 4)
        with pytest.raises(TypeError, match=r"g\(\) missing 1 required positional argument: 'a'"):
            _vectorcall(f, (30,), kwnames)
        with pytest.raises(TypeError, match=r"g\(\) takes from 1 to 2 positional arguments"):
            _vectorcall(f, (1, 2, 3, 30), kwnames)


def test_cache_same_kwnames_different_nargs_code_constant(f):
    def site(i):
        # Both calls use the one ('c',) constant of this code object.
        return plain(f(i, c=i)), plain(f(i, i, c=i))

    assert site.__code__.co_consts.count(("c",)) == 1
    for i in range(50):
        assert site(i) == ((i, 2, i, 4), (i, i, i, 4))


def test_cache_positional_nargs_change():
    fn = kwcall.wrap(collect, kwcall.Signature(["a", "b", "c"], (20, 30)))
    for i in range(50):
        assert plain(fn(i)) == (i, 20, 30)
        assert plain(fn(i, i)) == (i, i, 30)
        assert plain(fn(i, i, i)) == (i, i, i)


def test_cache_error_between_good_calls(f):
    for i in range(50):
        assert plain(f(i, c=1)) == (i, 2, 1, 4)
        with pytest.raises(TypeError, match=r"g\(\) got an unexpected keyword argument 'x'"):
            f(i, c=1, x=2)
        assert plain(f(i, c=1)) == (i, 2, 1, 4)
        with pytest.raises(TypeError, match=r"g\(\) missing 1 required keyword-only argument"):
            f(i)
        assert plain(f(i, c=1)) == (i, 2, 1, 4)
        with pytest.raises(TypeError, match=r"g\(\) got multiple values for argument 'a'"):
            f(i, a=i, c=1)
        assert plain(f(i, d=5, c=1)) == (i, 2, 1, 5)


def test_keys_not_interned():
    fn = kwcall.wrap(collect, kwcall.Signature(["alpha"], (), ["beta"], {"beta": 9}, name="h"))
    alpha = "".join(["a", "lpha"])
    beta = "".join(["be", "ta"])
    assert alpha == "alpha" and alpha is not sys.intern("alpha")
    for i in range(50):
        assert plain(fn(**{alpha: i})) == (i, 9)
        assert plain(fn(**{alpha: i, beta: -i})) == (i, -i)
        assert plain(_vectorcall(fn, (i, i), (beta,))) == (i, i)
    gamma = "".join(["gam", "ma"])
    with pytest.raises(TypeError, match=r"h\(\) got an unexpected keyword argument 'gamma'"):
        fn(1, **{gamma: 1})


# -- KWARGS, defaults, unpacking --------------------------------------------------------
def test_kwargs_tail_from_python(f):
    assert plain(f(1, KWARGS, "c", 3)) == (1, 2, 3, 4)
    assert plain(f(KWARGS, "c", 3, "a", 1, "b", 5)) == (1, 5, 3, 4)
    # Exactly the full arity, sentinel included: still bound, not forwarded.
    assert plain(f(1, KWARGS, "c", 3, "d", 8)) == (1, 2, 3, 8)
    with pytest.raises(TypeError, match=r"g\(\) got an unexpected keyword argument 'zz'"):
        f(1, KWARGS, "c", 3, "zz", 5)
    with pytest.raises(TypeError, match=r"g\(\) got multiple values for argument 'a'"):
        f(1, KWARGS, "a", 1, "c", 3)
    with pytest.raises(TypeError, match="KWARGS must be followed by name/value pairs"):
        f(1, KWARGS, "c")
    # Plain positional signatures too (their full-arity calls skip binding in Python).
    pos = kwcall.wrap(collect, kwcall.Signature(["a", "b"], (7,), name="p"))
    assert plain(pos(1, KWARGS)) == (1, 7)
    assert plain(pos(KWARGS, "b", 2, "a", 1)) == (1, 2)


@pytest.mark.parametrize("arity", [1, 2, 3, 4, 5])
def test_full_arity_call_with_the_sentinel_anywhere_is_bound(arity):
    # A sentinel at any position starts a tail, well formed or not: a native full-arity call
    # that carries one is bound (and its errors are the tail's), never forwarded.
    names = [f"p{i}" for i in range(arity)]
    fn = kwcall.wrap(collect, kwcall.Signature(names, name="p"))
    for at in range(arity):
        args = [7] * arity
        args[at] = KWARGS
        tail = arity - at - 1
        if tail % 2:
            expected = f"KWARGS must be followed by name/value pairs, got {tail} values after it"
        elif tail == 0:
            expected = rf"missing 1 required positional argument: 'p{arity - 1}'"
        else:
            expected = "keyword 0 after KWARGS must be a string, got int"
        with pytest.raises(TypeError, match=expected):
            fn(*args)


def test_defaults_are_the_same_objects():
    target = tvm_ffi.convert(py_collect)
    marker, kw_marker = object(), object()
    sig = kwcall.Signature(["a", "b"], (marker,), ["k"], {"k": kw_marker}, name="ident")
    fn = kwcall.wrap(target, sig)
    arg = object()
    out = fn(arg)
    assert out[0] is arg
    assert out[1] is marker
    assert out[2] is kw_marker
    out = fn(arg, k=arg)
    assert out[1] is marker and out[2] is arg
    # The C++ binder (a C++ caller's path) fills the same objects.
    name = unique("ident")
    tvm_ffi.register_global_func(name, fn, override=True)
    out = tvm_ffi.get_global_func(name)(arg)
    assert out[0] is arg and out[1] is marker and out[2] is kw_marker


@dataclasses.dataclass
class Point:
    x: int
    y: float


@dataclasses.dataclass
class Box:
    lo: Point
    hi: Point
    tag: str = "box"


@needs_unpack
def test_unpack_dataclass():
    from tvm_ffi.utils.unpack_dataclass import unpack_dataclass_to_tuple

    sig = kwcall.Signature(["a", "box"], (), ["p"], {"p": Point(0, 0.5)}, unpack=["box", "p"])
    fn = kwcall.wrap(collect, sig)
    box = Box(Point(1, 2.0), Point(3, 4.0))
    expected_box = plain(unpack_dataclass_to_tuple(box))
    assert expected_box == ((1, 2.0), (3, 4.0), "box")
    assert plain(fn(7, box)) == (7, expected_box, (0, 0.5))
    assert plain(fn(7, box=box, p=Point(5, 6.0))) == (7, expected_box, (5, 6.0))
    assert plain(fn(7, box, p=Point(5, 6.0))) == (7, expected_box, (5, 6.0))
    # Parameters not named in unpack are passed through (here: converted by tvm-ffi).
    raw = kwcall.wrap(tvm_ffi.convert(py_collect), kwcall.Signature(["a"]))
    assert raw(box)[0] is box
    # Non-dataclass values of an unpacked parameter are left alone.
    assert plain(fn(7, (1, 2))) == (7, (1, 2), (0, 0.5))


@needs_unpack
def test_unpack_error_propagates():
    fn = kwcall.wrap(collect, kwcall.Signature(["v"], unpack=["v"]))
    with pytest.raises(RuntimeError, match="field read failed"):
        fn(unreadable_dataclass(1, "field read failed"))
    assert plain(fn(Point(1, 2.0))) == ((1, 2.0),)


def test_binding_errors_match_cpython(f):
    def g(a, b=2, *, c, d=4):
        pass

    g.__qualname__ = "g"
    calls = [((), {}), ((1, 2, 3), {"c": 1}), ((1,), {"x": 1, "c": 1}), ((1,), {"a": 1})]
    for args, kwargs in calls:
        with pytest.raises(TypeError) as expected:
            g(*args, **kwargs)
        with pytest.raises(TypeError) as got:
            f(*args, **kwargs)
        assert str(got.value) == str(expected.value)


# -- threads ----------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["cpp", "python"])
def test_threads(target):
    sig = kwcall.Signature(["a", "b"], (2,), ["c", "d"], {"d": 4}, name="g")
    fn = kwcall.wrap(collect if target == "cpp" else py_collect, sig)
    num_threads, num_calls = 8, 1500 if target == "cpp" else 400
    barrier = threading.Barrier(num_threads)
    errors: list = []

    def work(t):
        try:
            barrier.wait()
            for i in range(num_calls):
                v = t * 100000 + i
                assert plain(fn(v, v + 1, c=v + 2, d=v + 3)) == (v, v + 1, v + 2, v + 3)
                assert plain(fn(v, c=-v)) == (v, 2, -v, 4)
                assert plain(fn(c=v, a=-v, d=t)) == (-v, 2, v, t)
                if i % 2 == t % 2:  # threads disagree on the last call shape
                    assert plain(fn(v, t, c=i)) == (v, t, i, 4)
                else:
                    assert plain(fn(**{"a": v, "c": t})) == (v, 2, t, 4)
                assert plain(fn(v, KWARGS, "c", t)) == (v, 2, t, 4)
                if i % 97 == 0:
                    with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
                        fn(v, c=1, x=t)
        except BaseException as err:  # reported in the main thread
            errors.append(err)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(t,)) for t in range(num_threads)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors[0]
