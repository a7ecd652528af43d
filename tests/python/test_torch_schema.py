"""kwcall.torch.schema_of: the schema of each kind of parameter, default and mutation; the
refusals of what a schema cannot express; and torch reading back what register() defined."""

from __future__ import annotations

from typing import Optional

import kwcall
import pytest
import tvm_ffi
from torch_helpers import (
    TENSORS,
    axpy_function,
    kwtorch,
    op,
    op_name,
    register_axpy,
    targets,
    torch,
)

pytestmark = pytest.mark.usefixtures("registered_ops")


def wrapped(*names, defaults=(), kwonly=(), kwonly_defaults=None, posonly_count=0, unpack=()):
    """A kwcall function of that signature on the C++ recorder (it takes any arguments)."""
    signature = kwcall.Signature(
        list(names),
        defaults,
        list(kwonly),
        kwonly_defaults or {},
        posonly_count=posonly_count,
        unpack=unpack,
        name="f",
    )
    return kwcall.wrap(targets()["recorder"](), signature)


def test_axpy_schema_names_order_marker_defaults_and_mutation():
    assert (
        kwtorch.schema_of(axpy_function(), mutates_args=["out"], types=TENSORS)
        == "(Tensor x, Tensor y, Tensor(a!) out, *, float alpha=1.0) -> ()"
    )


@pytest.mark.parametrize(
    "default, expected",
    [
        (True, "bool p=True"),
        (False, "bool p=False"),
        (3, "int p=3"),
        (-7, "int p=-7"),
        (0.5, "float p=0.5"),
        (1e-05, "float p=1e-05"),
        ("hi", "str p='hi'"),
        ("it's \\", "str p='it\\'s \\\\'"),
    ],
)
def test_type_from_each_kind_of_default(default, expected):
    f = wrapped("x", "p", defaults=(default,))
    assert kwtorch.schema_of(f, types={"x": "Tensor"}) == f"(Tensor x, {expected}) -> ()"


def test_none_default_makes_the_type_optional():
    f = wrapped("x", "bias", "n", defaults=(None, None))
    assert (
        kwtorch.schema_of(f, types={"x": "Tensor", "bias": "Tensor", "n": "int?"})
        == "(Tensor x, Tensor? bias=None, int? n=None) -> ()"
    )


def test_types_override_the_default_s_type_and_ints_become_floats():
    f = wrapped("x", "alpha", defaults=(1,))
    assert kwtorch.schema_of(f, types={"x": "Tensor"}) == "(Tensor x, int alpha=1) -> ()"
    assert (
        kwtorch.schema_of(f, types={"x": "Tensor", "alpha": "float"})
        == "(Tensor x, float alpha=1.0) -> ()"
    )


def test_each_mutated_tensor_gets_its_own_alias_letter():
    f = wrapped("a", "b", "c", kwonly=("d",), kwonly_defaults={"d": None})
    types = dict.fromkeys("abcd", "Tensor")
    assert (
        kwtorch.schema_of(f, mutates_args=("a", "c", "d"), types=types)
        == "(Tensor(a!) a, Tensor b, Tensor(b!) c, *, Tensor(c!)? d=None) -> ()"
    )


def test_more_mutated_tensors_than_letters_get_longer_alias_names():
    # 27 or more raised a bare StopIteration.
    names = [f"t{i}" for i in range(60)]
    f = wrapped(*names)
    schema = kwtorch.schema_of(f, mutates_args=names, types=dict.fromkeys(names, "Tensor"))
    assert schema.startswith("(Tensor(a!) t0, Tensor(b!) t1, ")
    assert "Tensor(z!) t25, Tensor(aa!) t26, Tensor(ab!) t27, " in schema
    # 'as' is a keyword torch's lexer cannot take as an alias set: skipped.
    assert "Tensor(ar!) t43, Tensor(at!) t44, " in schema
    assert schema.endswith("Tensor(bi!) t59) -> ()")
    name = op_name("many")
    kwtorch.register(f, name, mutates_args=names, types=dict.fromkeys(names, "Tensor"))
    arguments = op(name).default._schema.arguments
    assert all(a.alias_info.is_write for a in arguments) and len(arguments) == 60
    op(name)(*(torch.zeros(1) for _ in names))
    assert len(targets()["last_record"]()) == 60


def annotated(
    x: torch.Tensor,
    out: torch.Tensor,
    bias: Optional[torch.Tensor] = None,  # noqa: UP045 - the spelling under test
    *,
    n: int,
    scale: float | None = None,
    flag: bool = False,
    tag: str = "t",
    other: list[int] = None,  # no schema type: the default's None alone says nothing
):
    pass


ANNOTATED = (
    "(Tensor x, Tensor(a!) out, Tensor? bias=None, *, int n, float? scale=None, bool flag=False, "
    "str tag='t', Tensor? other=None) -> ()"
)


def test_types_come_from_torch_and_python_annotations():
    # This module's annotations are text (`from __future__ import annotations`): evaluated.
    recorder = targets()["recorder"]()
    for f in (
        kwcall.wrap(recorder, annotated),
        kwcall.wrap(recorder, kwcall.Signature.from_callable(annotated)),
    ):
        assert f.signature.annotations["bias"] == Optional[torch.Tensor]  # noqa: UP045
        schema = kwtorch.schema_of(f, mutates_args=["out"], types={"other": "Tensor"})
        assert schema == ANNOTATED
    # types= still decides over an annotation.
    assert kwtorch.schema_of(
        kwcall.wrap(recorder, annotated),
        mutates_args=["out"],
        types={"other": "Tensor", "n": "float"},
    ) == ANNOTATED.replace("int n", "float n")
    # A signature made without annotations has none.
    assert kwcall.Signature(["x"]).annotations == {}
    assert kwcall.Signature.from_json(kwcall.Signature.from_callable(annotated).to_json()) == (
        kwcall.Signature.from_callable(annotated)
    )


def test_an_annotation_of_a_name_not_defined_yet_stays_text():
    def later(x: NotDefinedYet) -> None:  # noqa: F821
        pass

    assert kwcall.Signature.from_callable(later).annotations == {"x": "NotDefinedYet"}
    with pytest.raises(ValueError, match="parameter 'x' has no type a schema can use"):
        kwtorch.schema_of(kwcall.wrap(targets()["recorder"](), later))


def test_keyword_only_without_defaults_and_no_parameters():
    f = wrapped("x", kwonly=("k", "m"))
    assert (
        kwtorch.schema_of(f, types={"x": "Tensor", "k": "int", "m": "str"})
        == "(Tensor x, *, int k, str m) -> ()"
    )
    assert kwtorch.schema_of(wrapped()) == "() -> ()"


@pytest.mark.parametrize(
    "build, kwargs, message",
    [
        (
            lambda: wrapped("p", "x", posonly_count=1),
            {"types": {"p": "Tensor", "x": "Tensor"}},
            "parameter 'p' is positional-only, which a torch schema cannot express: bind the "
            "target to a signature without '/' (posonly_count=0)",
        ),
        (
            lambda: wrapped("x", "y"),
            {"types": {"x": "Tensor"}},
            "parameter 'y' has no type a schema can use: pass types={'y': 'Tensor'}",
        ),
        (
            lambda: wrapped("x"),
            {"types": {"x": "Tensor[]"}},
            "types['x'] is 'Tensor[]', not a type kwcall's kernel passes",
        ),
        (
            lambda: wrapped("x"),
            {"types": {"x": "Tensor", "z": "int"}},
            "'z' is not a parameter of f() (its parameters: x)",
        ),
        (
            lambda: wrapped("x", "n"),
            {"types": {"x": "Tensor", "n": "int"}, "mutates_args": ["n"]},
            "mutates_args names 'n', of type int: only tensors can be mutated",
        ),
        (
            lambda: wrapped("x", defaults=((1, 2),)),
            {"types": {"x": "int"}},
            "parameter 'x' of type int has the default (1, 2), which a schema cannot write",
        ),
        (
            lambda: wrapped("x", defaults=(float("inf"),)),
            {},
            "parameter 'x' of type float has the default inf",
        ),
        (
            lambda: wrapped("x", defaults=(1.0,)),
            {"types": {"x": "Tensor"}},
            "parameter 'x' of type Tensor has the default 1.0",
        ),
    ],
)
def test_refusals_name_the_parameter_and_what_to_pass(build, kwargs, message):
    with pytest.raises(ValueError) as error:
        kwtorch.schema_of(build(), **kwargs)
    assert message in str(error.value)


@pytest.mark.parametrize(
    "default, type_, why",
    [
        (2**63, "int", "outside int64, the range of a schema's int"),
        (-(2**63) - 1, "int", "outside int64, the range of a schema's int"),
        (10**400, "float", "too large for a float"),
        (5e-324, "float", "a subnormal float, which torch's reader refuses"),
        ("a\0b", "str", "whose character '\\x00' a schema's string cannot hold"),
        ("a\rb", "str", "whose character '\\r' a schema's string cannot hold"),
    ],
)
def test_defaults_torch_cannot_read_are_refused_naming_the_parameter(default, type_, why):
    # schema_of wrote each as text torch then refused, and register blamed a name clash.
    with pytest.raises(ValueError) as refused:
        kwtorch.schema_of(wrapped("x", "p", defaults=(default,)), types={"x": "Tensor", "p": type_})
    assert str(refused.value).startswith(
        f"kwcall.torch: parameter 'p' has the default {default!r}, {why}"
    )
    assert str(refused.value).endswith(
        ": drop the default (pass the value at each call) or give one a schema can write"
    )


def test_a_parameter_torch_cannot_read_is_refused_with_torch_s_reason():
    with pytest.raises(ValueError) as refused:
        kwtorch.schema_of(wrapped("NoneType"), types={"NoneType": "Tensor"})
    assert str(refused.value) == (
        "kwcall.torch: parameter 'NoneType' is the schema argument 'Tensor NoneType', which torch "
        "cannot read (expected ident but found 'NoneType' here): rename the parameter, or drop "
        "or change its default"
    )


@pytest.mark.parametrize("default", ["a\nb", "tab\there", "\a\b\f\v", "it's \\ 'quoted'", "héllo"])
def test_str_defaults_torch_reads_back_whole(default):
    f = wrapped("x", "s", defaults=(default,))
    name = op_name("str_default")
    kwtorch.register(f, name, mutates_args=["x"], types={"x": "Tensor"})
    assert op(name).default._schema.arguments[1].default_value == default
    op(name)(torch.zeros(1))
    assert list(targets()["last_record"]())[1] == "str:" + default


def test_unpacked_dataclass_parameter_is_refused():
    pytest.importorskip("tvm_ffi.utils.unpack_dataclass", reason="this tvm-ffi cannot unpack")
    with pytest.raises(ValueError, match="parameter 'p' is a dataclass or NamedTuple unpacked"):
        kwtorch.schema_of(wrapped("p", unpack=("p",)), types={"p": "Tensor"})


def test_a_function_without_a_kwcall_signature_is_refused():
    with pytest.raises(TypeError, match="is not a kwcall function"):
        kwtorch.schema_of(targets()["axpy"])


def test_torch_reads_back_the_schema_register_defined():
    name, _ = register_axpy()
    schema = op(name).default._schema
    assert [a.name for a in schema.arguments] == ["x", "y", "out", "alpha"]
    assert [a.kwarg_only for a in schema.arguments] == [False, False, False, True]
    assert schema.arguments[2].alias_info.is_write
    assert schema.arguments[3].default_value == 1.0
    assert schema.returns == []
    assert (
        kwtorch.registered()[name]
        == "(Tensor x, Tensor y, Tensor(a!) out, *, float alpha=1.0) -> ()"
    )


def test_registering_a_name_twice_or_one_torch_has_is_an_error():
    name, _ = register_axpy()
    with pytest.raises(RuntimeError, match="is registered already .by kwcall.torch.register"):
        kwtorch.register(axpy_function(), name, mutates_args=["out"], types=TENSORS)
    with pytest.raises(RuntimeError, match="torch has an operator aten::add already"):
        kwtorch.register(axpy_function(), "aten::add", types=TENSORS)
    with pytest.raises(ValueError, match="must be 'namespace::name'"):
        kwtorch.register(axpy_function(), "no_namespace", types=TENSORS)


def test_a_namespace_a_torch_library_defines_is_refused_on_every_route():
    # aten::add has overloads and no default one: torch itself let a new default join them.
    register_op = tvm_ffi.get_global_func("kwcall.torch.RegisterOp")
    schema = kwtorch.schema_of(axpy_function(), mutates_args=["out"], types=TENSORS)
    says = "the namespace 'aten' of aten::add is defined by a TORCH_LIBRARY"
    before = set(torch._C._dispatch_get_all_op_names())
    with pytest.raises(RuntimeError, match=says):
        register_op(axpy_function(), "aten::add", schema, None)
    assert set(torch._C._dispatch_get_all_op_names()) == before
    with pytest.raises(RuntimeError, match="the namespace 'aten' of aten::kwcall_axpy is defined"):
        kwtorch.register(axpy_function(), "aten::kwcall_axpy", mutates_args=["out"], types=TENSORS)
    assert "aten::kwcall_axpy" not in kwtorch.registered()


def test_an_operator_that_writes_no_tensor_is_refused():
    # It returns nothing too: torch.compile took it for a pure function and dropped its calls.
    name = op_name("pure")
    with pytest.raises(ValueError) as refused:
        kwtorch.register(axpy_function(), name, types=TENSORS)
    assert str(refused.value) == (
        "kwcall.torch: the schema '(Tensor x, Tensor y, Tensor out, *, float alpha=1.0) -> ()' "
        "returns nothing and writes no tensor: torch.compile takes such an operator for a pure "
        "function and may drop its calls; mark each tensor the function writes, as in "
        "'Tensor(a!) out' (kwcall.torch.register: mutates_args=['out'])"
    )
    assert name not in kwtorch.registered()


def test_a_function_over_a_python_callable_is_refused():
    # Its first call that used a tensor segfaulted: the kernel passes DLTensor* views.
    def python_axpy(x, y, out, alpha=1.0):
        out.copy_(alpha * x + y)

    signature = axpy_function().signature
    direct = kwcall.wrap(python_axpy, signature)
    nested = kwcall.wrap(kwcall.wrap(python_axpy, signature), signature)
    for f in (direct, nested):
        name = op_name("python_target")
        with pytest.raises(TypeError) as refused:
            kwtorch.register(f, name, mutates_args=["out"], types=TENSORS)
        assert str(refused.value) == (
            f"kwcall.torch: {f!r} calls a Python function, which kwcall's C++ kernel cannot "
            "call (it passes tensors as DLTensor* views, which a Python callback cannot use): "
            "register a kwcall function on a native target (a kwcall.cute kernel, a C++ tvm-ffi "
            "function, kwcall.load_function's), or make a Python kernel an operator with "
            "torch.library.custom_op"
        )
        assert name not in kwtorch.registered()
    # A native target, wrapped twice, is registered.
    native = kwcall.wrap(axpy_function(), signature)
    kwtorch.register(native, op_name("native"), mutates_args=["out"], types=TENSORS)


@pytest.mark.parametrize("ns", ["_dir", "__dict__", "__class__", "load_library", "higher_order"])
def test_a_namespace_that_is_an_attribute_of_torch_ops_is_refused(ns):
    # register took it, and unregister then raised though the operator was gone.
    with pytest.raises(ValueError) as refused:
        kwtorch.register(axpy_function(), f"{ns}::axpy", mutates_args=["out"], types=TENSORS)
    assert str(refused.value).startswith(f"kwcall.torch: torch.ops.{ns} is ")
    assert str(refused.value).endswith(
        f", not a namespace of operators, so the operator could not be reached as "
        f"torch.ops.{ns}.<name>: choose another namespace (one of your own, as in 'mylib')"
    )
    assert f"{ns}::axpy" not in kwtorch.registered()


def test_one_device_type_given_as_a_str_is_one_key():
    # "CPU" was split into 'C', 'P', 'U'.
    name = op_name("cpu_only")
    kwtorch.register(axpy_function(), name, mutates_args=["out"], types=TENSORS, device_types="CPU")
    x, out = torch.ones(3), torch.zeros(3)
    op(name)(x, x, out, alpha=2.0)
    assert out.tolist() == [3.0, 3.0, 3.0]
    with pytest.raises(TypeError, match=r"got device\(type='cpu'\) \(device\) in it"):
        kwtorch.register(
            axpy_function(),
            op_name("not_a_key"),
            mutates_args=["out"],
            types=TENSORS,
            device_types=[torch.device("cpu")],
        )


def test_a_name_is_free_again_after_unregister():
    name, _ = register_axpy()
    kwtorch.unregister(name)
    assert name not in kwtorch.registered()
    kwtorch.register(axpy_function(), name, mutates_args=["out"], types=TENSORS)
    x = torch.ones(3)
    out = torch.zeros(3)
    op(name)(x, x, out, alpha=2.0)
    assert out.tolist() == [3.0, 3.0, 3.0]
    with pytest.raises(KeyError):
        kwtorch.unregister(op_name("never_registered"))
