"""kwcall's reader of the argument kinds its kernel unboxes (src/torch/op_schema.cc) agrees with
torch's own parse of the schema, or refuses the text: schema text torch reads differently (a
``#`` comment, a line continuation, a triple-quoted string) once made an int the caller chose
reach the function as a tensor handle (issue 37). Checked against ``torch._C.parse_schema`` on
generated schemas, and through the FFI global every tvm-ffi language registers with."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import kwcall
import pytest
import tvm_ffi
from torch_helpers import kwtorch, op_name, targets, torch

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

argument_kinds = tvm_ffi.get_global_func("kwcall.torch.ArgumentKinds")
register_op = tvm_ffi.get_global_func("kwcall.torch.RegisterOp")

# The issue's schema: torch reads (Tensor t, *, int a, int b), a reader that knows no comments
# (Tensor t, *, int a, Tensor z).
HOSTILE = "(Tensor t, *, int a=1 # , Tensor z='\n, int b # '\n) -> ()"


def torch_kinds(schema: str) -> list[str] | None:
    """The arguments torch parses from ``schema`` as "Type name" ("int? o"), or None when torch
    cannot read it (then it refuses the operator's definition too)."""
    try:
        parsed = torch._C.parse_schema("f" + schema)
    except RuntimeError:
        return None
    kinds = []
    for argument in parsed.arguments:
        type_ = str(argument.type)
        if type_.startswith("Optional[") and type_.endswith("]"):
            type_ = type_[len("Optional[") : -1] + "?"
        kinds.append(f"{type_} {argument.name}")
    return kinds


def kwcall_kinds(schema: str) -> list[str] | None:
    """The kinds kwcall's kernel would unbox, or None when kwcall refuses the schema."""
    try:
        return [str(kind) for kind in argument_kinds(schema)]
    except ValueError:
        return None


_types = st.sampled_from(["Tensor", "Tensor(a!)", "int", "float", "bool", "str", "int?", "Tensor?"])
_names = st.sampled_from(["t", "a", "b", "z", "out"])
_defaults = st.sampled_from(["", "=1", "=None", "='x'", "='a, b'", '="it\'s"', "=1.5e-3"])
# What a reader that knows torch's lexer only in part reads otherwise.
_fragments = st.sampled_from(
    ["#", " # ", "'", '"', "'''", '"""', "\\", "\\\n", "\n", ",", ", ", "*", ", *, ", "(", ")"]
)


@st.composite
def schemas(draw) -> str:
    arguments = draw(
        st.lists(
            st.tuples(_types, _names, _defaults), min_size=1, max_size=5, unique_by=lambda a: a[1]
        )
    )
    # Each schema writes a tensor (kwcall refuses an operator that writes none and returns
    # nothing): the generated kinds are what is compared.
    text = ", ".join(["Tensor(w!) w"] + [f"{t} {name}{default}" for t, name, default in arguments])
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(_fragments) + text[at:]
    return f"({text}) -> ()"


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas())
@example(HOSTILE)
@example("(Tensor t, *, int a=1 # , int z='\n, Tensor b # '\n) -> ()")
@example("(Tensor t, str s=''' ', Tensor x, int y=' ''') -> ()")
@example("(Tensor t, int a=1 \\\n, Tensor b) -> ()")
def test_kwcall_reads_the_kinds_torch_parses_or_refuses(schema):
    ours = kwcall_kinds(schema)
    if ours is None:
        return  # refused before torch sees it
    theirs = torch_kinds(schema)
    if theirs is None:
        return  # torch refuses the definition: nothing is registered
    assert ours == theirs, schema


def test_the_reader_refuses_the_issue_s_schema_and_says_what_to_do():
    with pytest.raises(ValueError) as refused:
        argument_kinds(HOSTILE)
    assert str(refused.value) == (
        f"kwcall.torch: cannot read the schema '{HOSTILE}': it has '#' (a comment, to torch) at "
        "offset 22, where torch could read other arguments than kwcall's kernel would pass; "
        "write the arguments as 'Type name' or 'Type name=default' without comments, line "
        "continuations, triple-quoted strings or control characters"
    )
    assert torch_kinds(HOSTILE) == ["Tensor t", "int a", "int b"]


def test_the_ffi_global_refuses_it_and_registers_nothing():
    f = kwcall.wrap(targets()["recorder"](), kwcall.Signature(["t"], (), ["a", "b"], {"a": 1}))
    name = op_name("hostile")
    with pytest.raises(ValueError, match="cannot read the schema"):
        register_op(f, name, HOSTILE, None)
    ns, short = name.split("::")
    assert not hasattr(getattr(torch.ops, ns), short)
    assert name not in kwtorch.registered()


def test_calling_a_hostile_operator_never_reaches_the_function():
    # In a child process: on the reader that did not know comments this died of a SIGSEGV
    # (the caller's int 12345678 used as a tensor handle).
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import kwcall, torch, tvm_ffi
        from torch_helpers import targets
        signature = kwcall.Signature(["t"], (), ["a", "b"], {{"a": 1}})
        f = kwcall.wrap(targets()["recorder"](), signature)
        try:
            handle = tvm_ffi.get_global_func("kwcall.torch.RegisterOp")(
                f, "kwcall_test::hostile_child", {HOSTILE!r}, None)
        except ValueError:
            print("refused")
            sys.exit(0)
        torch.ops.kwcall_test.hostile_child(torch.zeros(2), a=3, b=12345678)
        print("called")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout.strip()) == (0, "refused"), done.stderr[-2000:]
