"""kwcall.DispatchTable from Python: key terms on torch tensors, calls, entries, misses and
exported tables (docs/dispatch.md). Entries are real tvm-ffi functions: ffi.Array returns the
arguments it gets, so a test sees what the entry was called with."""

from __future__ import annotations

import inspect

import kwcall
import pytest
import tvm_ffi
from helpers import build_native, cpp_handle, plain, unique
from kwcall import key

torch = pytest.importorskip("torch")
collect = tvm_ffi.get_global_func("ffi.Array")


def _sig() -> kwcall.Signature:
    """def attn(q, k, out=None, *, causal=False, mode='fast')"""
    return kwcall.Signature(
        ["q", "k", "out"],
        (None,),
        ["causal", "mode"],
        {"causal": False, "mode": "fast"},
        name="attn",
    )


def _tagged(tag: str) -> tvm_ffi.Function:
    """An entry that returns its tag and how many arguments it got."""
    return tvm_ffi.convert(lambda *args: (tag, len(args)))


def test_each_term_reads_its_argument():
    every = [
        key.dtype("q"),
        key.ndim("q"),
        key.shape("q", -1),
        key.shape("q", 0),
        key.stride("q", 0),
        key.stride("q", -1),
        key.zero_strides("k"),
        key.contiguous("q"),
        key.contiguous("k"),
        key.divisible("q", -1, 8),
        key.divisible("q", -1, 3),
        key.aligned("q", 16),
        key.device("q"),
        key.arch("q"),
        key.is_none("out"),
        key.value("causal"),
        key.value("mode"),
        key.dtype("out"),
    ]
    table = kwcall.DispatchTable(_sig(), every, name="every")
    q = torch.zeros(2, 3, 16, dtype=torch.bfloat16)
    k = torch.zeros(3, 1).expand(3, 4)  # stride 0 in dimension 1
    assert table.key_of(q, k, causal=True, mode="exact") == (
        "bfloat16",
        3,
        16,
        2,
        48,
        1,
        (1,),
        True,
        False,
        True,
        False,
        True,
        "cpu:0",
        0,
        True,
        True,
        "exact",
        None,
    )
    qt = torch.zeros(16, 4, dtype=torch.float16).t()[:, 1:]  # transposed and offset
    key_ = table.key_of(qt, k, torch.zeros(1, dtype=torch.int8))
    assert key_[0] == "float16" and key_[2] == 15 and key_[7] is False
    assert key_[9] is False and key_[10] is True  # 15 % 8, 15 % 3
    assert key_[11] is False  # the data pointer is 2 bytes past an allocation's alignment
    assert key_[14] is False and key_[15] is False and key_[17] == "int8"
    assert [str(term) for term in table.key] == [str(term) for term in every]


def test_a_term_that_does_not_fit_its_argument_is_a_type_error():
    table = kwcall.DispatchTable(_sig(), [key.shape("q", 3), key.value("mode")], name="fit")
    table.add((4, "fast"), _tagged("a"))
    with pytest.raises(TypeError, match=r"key term shape\(q, 3\) reads a tensor, but 'q' is int"):
        table(1, 2)
    with pytest.raises(TypeError, match=r"reads dimension 3, but 'q' has 2 dimensions"):
        table(torch.zeros(2, 4), 2)
    with pytest.raises(
        TypeError, match=r"value\(mode\) reads a bool, int or str argument, but 'mode' is float"
    ):
        table(torch.zeros(2, 4, 4, 4), 2, mode=1.5)


def test_calls_bind_as_the_signature_says_and_reach_their_key():
    table = kwcall.DispatchTable(_sig(), [key.dtype("q"), key.value("causal")], name="attn")
    table.add(("float32", False), collect)
    table.add(("float32", True), _tagged("causal"))
    q = torch.zeros(4)
    got = plain(table(q, 7))
    assert got[1:] == (7, None, False, "fast")  # every parameter, in declaration order
    assert table(q, 7, causal=True) == ("causal", 5)
    assert table(k=1, q=q, causal=True) == ("causal", 5)
    # CPython's errors, with the table's name.
    with pytest.raises(TypeError, match=r"^attn\(\) missing 1 required positional argument: 'k'$"):
        table(q)
    with pytest.raises(TypeError, match=r"attn\(\) got an unexpected keyword argument 'x'"):
        table(q, 1, x=2)
    assert str(inspect.signature(table)) == "(q, k, out=None, *, causal=False, mode='fast')"
    # The plain function and the C++ handle dispatch alike, keywords through KWARGS.
    assert table.function(q, 1, causal=True) == ("causal", 5)
    handle = cpp_handle(table.function)
    assert handle(q, 1, tvm_ffi.core.KWARGS, "causal", True) == ("causal", 5)
    assert type(table.function) is kwcall.Function and isinstance(table, tvm_ffi.Function)


def test_a_table_is_registered_and_called_from_cpp_with_no_python_between():
    table = kwcall.DispatchTable(_sig(), [key.value("mode")], name="attn")
    table.add(("fast",), collect)
    name = unique("table")
    tvm_ffi.register_global_func(name, table)
    try:
        fetched = tvm_ffi.get_global_func(name)
        assert type(fetched) is tvm_ffi.Function  # the native handle, no Python callback
        assert plain(fetched(1, 2, None, False, "fast")) == (1, 2, None, False, "fast")
    finally:
        tvm_ffi.remove_global_func(name)


def test_add_get_keys_and_len():
    table = kwcall.DispatchTable(_sig(), [key.dtype("q"), key.zero_strides("k")], name="t")
    assert len(table) == 0 and table.keys() == []
    table.add(("float16", (2, 0)), collect)
    table.add((torch.bfloat16, ()), _tagged("b"))  # a torch dtype is spelled as tvm-ffi does
    assert table.keys() == [("float16", (0, 2)), ("bfloat16", ())]
    assert len(table) == 2 and ("float16", (0, 2)) in table
    assert table.get(("bfloat16", ())) is not None and table.get(("float32", ())) is None
    assert "2 entries" in repr(table)


@pytest.mark.parametrize(
    ("key_", "entry", "error", "match"),
    [
        (("float16",), collect, ValueError, r"one value for each of its 2 terms"),
        (("float16", (0,)), collect, ValueError, r"has an entry for the key .* already"),
        (("half-ish", ()), collect, ValueError, r"gives a dtype as tvm-ffi spells it"),
        (("float16", (1, 1)), collect, ValueError, r"gives a tuple of distinct dimensions"),
        (("float32", ()), lambda *a: a, TypeError, r"an entry is a tvm_ffi.Function"),
        ("float32", collect, TypeError, r"a key is a tuple of values"),
    ],
)
def test_add_refuses(key_, entry, error, match):
    table = kwcall.DispatchTable(_sig(), [key.dtype("q"), key.zero_strides("k")], name="t")
    table.add(("float16", (0,)), collect)
    with pytest.raises(error, match=match):
        table.add(key_, entry)
    assert len(table) == 1


def test_add_refuses_a_kwcall_function_of_other_parameters():
    table = kwcall.DispatchTable(_sig(), [key.dtype("q")], name="t")
    other = kwcall.wrap(collect, kwcall.Signature(["q", "k"], name="g"))
    with pytest.raises(TypeError, match=r"is a kwcall function of g\(q, k\), not of the table's"):
        table.add(("float32",), other)
    table.add(("float32",), kwcall.wrap(collect, _sig()))  # the table's parameters: accepted
    assert plain(table(torch.zeros(1), 3))[1] == 3


def test_a_miss_without_compile_names_the_key_and_the_nearest_keys():
    table = kwcall.DispatchTable(_sig(), [key.dtype("q"), key.shape("q", -1)], name="rmsnorm")
    for k in [("float16", 64), ("float16", 128), ("bfloat16", 256)]:
        table.add(k, collect)
    with pytest.raises(LookupError) as caught:
        table(torch.zeros(2, 128), 1)
    assert str(caught.value) == (
        "kwcall.DispatchTable 'rmsnorm' has no entry for the key dtype(q)='float32', "
        "shape(q, -1)=128 and no compile function; its nearest keys: ('float16', 128), "
        "('float16', 64), ('bfloat16', 256). Add one with add(key, function), or make the table "
        "with a compile function"
    )


def test_compile_is_called_with_the_key_and_the_bound_arguments_once():
    calls = []

    def compile(key_, *args):
        calls.append((key_, args))
        return collect

    table = kwcall.DispatchTable(_sig(), [key.dtype("q"), key.value("causal")], compile=compile)
    q = torch.ones(3)
    table(q, 5, causal=True)
    table(q, 6, causal=True)
    assert len(calls) == 1 and len(table) == 1
    key_, args = calls[0]
    assert key_ == ("float32", True)
    assert args[1:] == (5, None, True, "fast")
    assert torch.equal(torch.from_dlpack(args[0]), q)  # tensors as tvm-ffi passes them
    assert table.compile is compile


def test_a_compile_that_raises_leaves_no_entry_and_the_caller_gets_its_error():
    def compile(key_, *args):
        raise ValueError(f"no kernel for {key_}")

    table = kwcall.DispatchTable(_sig(), [key.value("mode")], compile=compile)
    with pytest.raises(ValueError, match=r"no kernel for \('fast',\)"):
        table(1, 2)
    assert len(table) == 0

    def returns_nothing(key_, *args):
        return None

    table = kwcall.DispatchTable(_sig(), [key.value("mode")], compile=returns_nothing, name="n")
    with pytest.raises(TypeError, match=r"an entry is a tvm_ffi.Function .* got NoneType"):
        table(1, 2)
    assert len(table) == 0


def test_compile_may_add_the_entry_itself():
    def compile(key_, *args):
        table.add(key_, _tagged("added"))
        return collect  # the entry the compile added wins

    table = kwcall.DispatchTable(_sig(), [key.value("mode")], compile=compile)
    assert table(1, 2) == ("added", 5)
    assert len(table) == 1


def test_a_compile_calling_the_table_with_its_own_key_is_an_error_not_a_hang():
    def compile(key_, *args):
        return table(args[0], args[1])  # the same key: mode keeps its default

    table = kwcall.DispatchTable(_sig(), [key.value("mode")], compile=compile, name="loop")
    with pytest.raises(RuntimeError, match=r"called the table with the same key"):
        table(1, 2)


def test_signature_from_a_callable_and_bad_arguments():
    def rms(x, w, *, eps=1e-6):
        """docs"""

    table = kwcall.DispatchTable(rms, [key.dtype("x")])
    assert table.__doc__ == "docs" and table.__name__ == "rms"
    with pytest.raises(ValueError, match=r"reads parameter 'z', which .*rms\(\) does not have"):
        kwcall.DispatchTable(rms, [key.dtype("z")])
    with pytest.raises(TypeError, match=r"the key is a list of kwcall.key terms"):
        kwcall.DispatchTable(rms, key.dtype("x"))
    with pytest.raises(ValueError, match=r"must be a power of two"):
        key.aligned("x", 12)
    with pytest.raises(TypeError, match=r"is not an int"):
        key.shape("x", 1.0)
    assert repr(key.divisible("x", -1, 16)) == "kwcall.key.divisible(x, -1, 16)"
    assert key.shape("x", 1) == kwcall.key.Term("shape( x, 1 )")


def test_load_an_exported_table(tmp_path):
    module = build_native("dispatch_kernels", "dispatch_kernels.cc", tmp_path, with_kwcall=True)
    table = kwcall.load_dispatch_table(module, "scale")
    assert table.keys() == [(2,), (3,)] and table.compile is None
    assert table(5) == 10 and table(5, times=3) == 15
    with pytest.raises(LookupError, match=r"value\(times\)=4"):
        table(5, times=4)
    with pytest.raises(AttributeError, match=r"exports no dispatch table for 'nothing'"):
        kwcall.load_dispatch_table(module, "nothing")
