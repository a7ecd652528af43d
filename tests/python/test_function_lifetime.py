"""A kwcall.Function's life: made whole in one call (its target, signature and preprocess step),
never changed after, and owning what it binds with. tvm-ffi's methods that would give it
another handle are refused; where tvm-ffi's own base methods change the handle anyway (they
are not kwcall's to refuse), calls and the collector stay safe because the function holds its
C++ function itself. The preprocess step's keyword values are held by the call, whatever the
step's dict or its keys do meanwhile.

Each crash case runs in a child interpreter, so that a crash (the defect each reproduces, on
the code before the fix) fails its test instead of ending the test run.
"""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
import textwrap
import threading

import kwcall
import pytest
import tvm_ffi
from helpers import collect, cpp_handle, plain, py_collect, unique

make = kwcall._function.make
echo = tvm_ffi.get_global_func("testing.echo")  # C++: returns its first argument
# What a child interpreter starts with: a target, and a default C++ holds as an opaque object
# (the collector's traverse reads the C++ use counts behind such a default).
PRELUDE = """
import copy, gc, threading
import kwcall, tvm_ffi
from tvm_ffi.core import CObject
echo = tvm_ffi.get_global_func("testing.echo")
class Opaque:
    pass
def made():
    return kwcall.wrap(echo, kwcall.Signature(["a", "b"], (Opaque(),), ["k"], {"k": 6}, name="f"))
"""


def run_child(code: str) -> str:
    """Runs PRELUDE + code in a fresh interpreter (the environment as it is: every layout where
    kwcall imports); its stdout, after asserting it exited cleanly."""
    child = subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )
    assert child.returncode == 0, f"exit {child.returncode}\n{child.stdout}\n{child.stderr}"
    return child.stdout


# -- made whole --------------------------------------------------------------------------------
def test_make_gives_the_whole_function_in_one_call():
    seen = []

    def step(args, kwargs):
        seen.append((args, dict(kwargs)))
        return args, {**kwargs, "c": 9}

    f = make(kwcall.Function, py_collect, kwcall.Signature(["a", "b", "c"], (0,), name="g"), step)
    assert (f.__name__, f.__qualname__) == ("g", "g")
    assert f.target is py_collect and f.signature.name == "g"
    assert f(1, b=2) == (1, 2, 9)
    assert seen == [((1,), {"b": 2})]
    # C++ callers reach the C++ function, which never runs the Python step.
    assert plain(cpp_handle(f)(1, 2, 3)) == (1, 2, 3)
    with pytest.raises(TypeError, match="^preprocess must be callable or None$"):
        make(kwcall.Function, py_collect, f.signature, 5)
    with pytest.raises(TypeError, match="^cls must be kwcall.Function or derived from it$"):
        kwcall._kwcall.make(tvm_ffi.Function, py_collect, f.signature, (0, 0, 0), "g")
    plain_fn = make(kwcall.Function, py_collect, f.signature, None)  # None: no step
    assert plain_fn(1, 2) == (1, 2, 0)


def test_the_extension_makes_a_function_from_plain_values(monkeypatch):
    # Issue 39.2: _kwcall.make takes the default objects and the name as values, and asks the
    # kwcall.Signature nothing through Python (it read param_defaults() and .name).
    sig = kwcall.Signature(["a", "b"], (7,), name="g")
    given = object()

    def refused(*args):
        raise AssertionError("the extension called back into kwcall.Signature")

    monkeypatch.setattr(kwcall.Signature, "param_defaults", refused)
    monkeypatch.setattr(kwcall.Signature, "name", property(refused))
    f = kwcall._kwcall.make(kwcall.Function, py_collect, sig, (None, given), "made")
    assert (f.__name__, f.__qualname__) == ("made", "made")
    assert f(1)[1] is given  # the object handed in, not the signature's 7
    assert plain(cpp_handle(f)(1)) == (1, 7)  # C++ callers get the signature's FFI default
    with pytest.raises(TypeError, match="^defaults must be a tuple with one entry per parameter$"):
        kwcall._kwcall.make(kwcall.Function, py_collect, sig, (7,), "g")
    with pytest.raises(TypeError, match="^name must be a str, got int$"):
        kwcall._kwcall.make(kwcall.Function, py_collect, sig, (None, 7), 5)
    with pytest.raises(TypeError, match=r"^make\(cls"):
        kwcall._kwcall.make(kwcall.Function, py_collect, sig)


def test_a_copy_keeps_the_step_and_the_native_function():
    f = make(kwcall.Function, collect, kwcall.Signature(["a", "b"], (7,)), lambda a, k: (a, k))
    f.release_gil = False
    g = copy.copy(f)
    assert g.__chandle__() == f.__chandle__() and g.release_gil is False
    assert plain(g(1)) == (1, 7) and plain(g(b=2, a=1)) == (1, 2)


def test_an_error_target_raises_for_python_and_cpp_callers():
    # How kwcall.cute makes a function with no native code here: its signature, and a target
    # that says why (tests/python/test_cute.py, the no-engine case, checks the message).
    why = kwcall._kwcall.error_function("compiled for another architecture")
    f = make(kwcall.Function, why, kwcall.Signature(["a"], name="f"))
    for call in (lambda: f(1), lambda: tvm_ffi.Function.__call__(f, 1), lambda: why()):
        with pytest.raises(RuntimeError, match="^compiled for another architecture$"):
            call()
    g = kwcall.wrap(f, kwcall.Signature(["a"], name="g"))
    with pytest.raises(RuntimeError, match="^compiled for another architecture$"):
        g(a=1)
    name = unique("error_target")
    tvm_ffi.register_global_func(name, f)
    with pytest.raises(RuntimeError, match="^compiled for another architecture$"):
        tvm_ffi.get_global_func(name)(1)
    tvm_ffi.remove_global_func(name)


# -- the handle is the function's for life ------------------------------------------------------
def test_methods_that_replace_the_handle_are_refused():
    f = kwcall.wrap(echo, kwcall.Signature(["a"], name="f"))
    other = tvm_ffi.convert(lambda: 1)
    handle = f.__chandle__()
    refusals = [
        (lambda: f.__move_handle_from__(other), "__move_handle_from__"),
        (lambda: f.__init_handle_by_constructor__(echo, 1), "__init_handle_by_constructor__"),
    ]
    for call, method in refusals:
        with pytest.raises(TypeError) as refused:
            call()
        assert str(refused.value) == (
            f"'kwcall.Function' object keeps the native function it was made with: {method}() "
            "cannot give it another handle; make a new function with kwcall.wrap(target, "
            "signature), or share this one with copy.copy"
        )
    with pytest.raises(
        TypeError,
        match=r"^cannot unpickle into 'kwcall.Function' object: .*"
        r"kwcall.Signature.to_json",
    ):
        f.__setstate__({"handle": None})
    with pytest.raises(TypeError, match=r"make the function again with kwcall.wrap$"):
        pickle.dumps(f)
    assert f.__chandle__() == handle and other() == 1 and f(a=3) == 3


@pytest.mark.parametrize(
    "take",
    [
        "g = tvm_ffi.convert(lambda: None); g.__move_handle_from__(f)",
        "g = echo(tvm_ffi.core.ObjectRValueRef(f))",  # moved into the C++ callee's result
    ],
)
def test_keyword_calls_after_another_object_takes_the_handle(take):
    # Neither is f's method to refuse: g takes f's C++ function and frees it with itself. f
    # binds with the C++ function it holds (before: a read of the freed plan, a segfault once
    # the freed block was reused).
    out = run_child(f"""
        f = made()
        {take}
        assert f.__chandle__() == 0
        del g
        reuse = [kwcall.wrap(echo, kwcall.Signature([f"x{{i}}"])) for i in range(2000)]
        gc.collect()
        for i in range(1000):
            assert f(1, b=i) == 1 and f(a=2, k=3) == 2 and f(b=4, a=5) == 5
        h = copy.copy(f)  # a copy gets the C++ function f binds with as its handle
        assert tvm_ffi.Function.__call__(h, 7, 8, 9) == 7
        print("ok")
    """)
    assert out == "ok\n"


@pytest.mark.parametrize(
    ("clear", "raised"),
    [
        ('f.__setstate__({"handle": None})', "TypeError"),  # refused
        ("f.__init_handle_by_constructor__(raise_error, 'ValueError', 'no')", "TypeError"),
        ('CObject.__setstate__(f, {"handle": None})', None),  # tvm-ffi's own: cleared
        (
            "CObject.__init_handle_by_constructor__(f, raise_error, 'ValueError', 'no')",
            "ValueError",
        ),
    ],
)
def test_collector_after_the_handle_is_cleared(clear, raised):
    # tvm-ffi's pickle hook and a failing constructor leave the handle NULL; the collector then
    # traversed through it whenever C++ held a default as an opaque object (before: a
    # segfault in gc.collect()). kwcall.Function refuses its own methods; tvm-ffi's base
    # methods still clear the handle, and calls and the collector stay safe.
    out = run_child(f"""
        raise_error = tvm_ffi.get_global_func("testing.test_raise_error")
        f = made()
        try:
            {clear}
        except (TypeError, ValueError) as err:
            print(type(err).__name__)
        gc.collect()
        assert f(1) == 1 and f(a=2, k=3) == 2
        del f
        gc.collect()
        print("ok")
    """)
    assert out == (f"{raised}\n" if raised else "") + "ok\n"


# -- the preprocess step's keyword values --------------------------------------------------------
@pytest.mark.parametrize(
    "clear",
    [
        "kwargs.clear()",  # by the key's own __eq__ (on 3.11: a segfault before)
        # by another thread while the call is being bound (the key's __eq__ waits for it): the
        # case of a step whose dict other threads share
        "(t := threading.Thread(target=kwargs.clear), t.start(), t.join())",
    ],
)
def test_step_values_survive_a_key_whose_eq_clears_the_dict(clear):
    # The step's dict holds the only reference to its values; a str-subclass key makes the
    # binder run the key's __eq__, during which the dict is cleared (before: the target got a
    # freed object, its block reused by then).
    out = run_child(f"""
        class Key(str):
            __hash__ = str.__hash__
            def __eq__(self, other):
                if not state["cleared"]:
                    state["cleared"] = True
                    {clear}
                    reuse = [[9] * 3 for _ in range(1000)]
                return str.__eq__(self, other)
        state = {{}}
        def step(args, _):
            global kwargs
            state["cleared"] = False
            kwargs = {{Key("c"): [7, 7, 7]}}
            return args, kwargs
        f = kwcall._function.make(
            kwcall.Function, lambda *a: a, kwcall.Signature(["a", "c"], name="f"), step
        )
        for _ in range(200):
            assert f(1) == (1, [7, 7, 7])
        print("ok")
    """)
    assert out == "ok\n"


def test_step_sharing_a_dict_that_other_threads_change():
    # On free-threaded CPython the threads run at once: values replaced (and freed) while
    # calls bind them. Under the GIL the threads take turns, and every result is still checked.
    shared = {"c": [7]}
    stop = threading.Event()
    problems: list = []
    f = make(
        kwcall.Function,
        py_collect,
        kwcall.Signature(["a", "c"], name="f"),
        lambda args, _: (args, shared),
    )

    def replacer():
        while not stop.is_set():
            shared["c"] = [7]
            shared.pop("c", None)
            shared["c"] = [7]

    def caller():
        for i in range(20000):
            try:
                got = f(i)
            except TypeError as err:  # the dict was caught without its key: CPython's error
                if "missing 1 required positional argument: 'c'" not in str(err):
                    problems.append(err)
                continue
            if got != (i, [7]):
                problems.append(got)

    threads = [threading.Thread(target=replacer)] + [
        threading.Thread(target=caller) for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads[1:]:
        thread.join()
    stop.set()
    threads[0].join()
    assert problems == []
