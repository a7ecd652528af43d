"""``export_to_c(..., torch_op=...)`` ships a torch operator's schema beside the signature (the
companion ``__kwcall_torch_op_<name>`` of ``KWCALL_EXPORT_TORCH_OP``), read back with the C++
reader's rules (``kwcall::ExportedTorchOp``, here through its FFI global). A text of the wrong
form, or one whose arguments are not the signature's parameters, is refused before anything is
written. Host-only @cute.jit functions (conftest.py's compiled_kern), so no GPU is needed;
the macro is compiled as C and C++ without CuTeDSL."""

import os
import shutil
import subprocess

import pytest
import tvm_ffi
import tvm_ffi.libinfo
from kwcall import _link_signature, libinfo

SCHEMA = "kwcall_test::kern(Tensor(a!) out, int a, *, int b=2) -> ()"
read_text = tvm_ffi.get_global_func("kwcall.ExportedTorchOpFromResult")


def torch_op_symbol(name):
    return f"__tvm_ffi___kwcall_torch_op_{name}"


@pytest.mark.parametrize("language, compiler", [("c", "cc"), ("c++", "c++")])
def test_the_macro_compiles_to_the_prefixed_symbol(tmp_path, language, compiler):
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler}")
    source = tmp_path / "signature.src"
    json_text = '{"version": 1, "name": "kern", "params": []}'
    source.write_text(_link_signature.c_source("kern", json_text, 'ns::kern() -> "()"\\'))
    obj = tmp_path / "signature.o"
    includes = [f"-I{libinfo.include_dir()}", f"-I{tvm_ffi.libinfo.find_include_path()}"]
    command = [compiler, "-x", language, "-c", "-Wall", "-Werror", *includes, str(source)]
    subprocess.run([*command, "-o", str(obj)], check=True)
    defined = subprocess.run(["nm", "--defined-only", str(obj)], capture_output=True, text=True)
    names = [line.split()[-1] for line in defined.stdout.splitlines()]
    assert _link_signature.signature_symbol("kern") in names
    assert torch_op_symbol("kern") in names


def test_the_reader_splits_the_name_from_the_schema():
    assert list(read_text(SCHEMA, "kern")) == [
        "kwcall_test::kern",
        "(Tensor(a!) out, int a, *, int b=2) -> ()",
    ]


# -- kwcall.cute.export_to_c --------------------------------------------------------------
cute = pytest.importorskip("cutlass.cute")
kwcute = pytest.importorskip("kwcall.cute")

from kwcall.cute import _runtime_modules  # noqa: E402


def exported_op(obj, name="kern"):
    """What the object at ``obj`` exports as ``name``'s torch operator, read as C++ reads it."""
    module = cute.runtime.load_module(str(obj), enable_tvm_ffi=True)
    companion = _runtime_modules.lookup(module)(f"__kwcall_torch_op_{name}")
    return None if companion is None else list(read_text(companion(), name))


def test_the_schema_is_linked_beside_the_signature(compiled_kern, tmp_path):
    obj = tmp_path / "k.o"
    kwcute.export_to_c(compiled_kern, str(obj), function_name="kern", torch_op=SCHEMA)
    assert (
        torch_op_symbol("kern")
        in subprocess.run(
            ["nm", str(obj)], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    assert exported_op(obj) == ["kwcall_test::kern", "(Tensor(a!) out, int a, *, int b=2) -> ()"]
    # The function keeps its signature, and an export without torch_op carries no schema.
    plain = tmp_path / "plain.o"
    kwcute.export_to_c(compiled_kern, str(plain), function_name="kern")
    assert exported_op(plain) is None


def test_the_name_alone_derives_a_schema_that_writes_nothing_and_is_refused(
    compiled_kern, tmp_path
):
    # An operator that writes no tensor and returns nothing is refused (torch.compile would take
    # it for pure); the derived schema marks nothing written, so the full one must be given.
    # kwcall.torch raises ImportError, not ModuleNotFoundError, without torch: ask for torch.
    pytest.importorskip("torch", reason="kwcall.torch needs torch")
    torch_ops = pytest.importorskip("kwcall.torch")
    with pytest.raises(ValueError) as refused:
        kwcute.export_to_c(
            compiled_kern, str(tmp_path / "k.o"), function_name="kern", torch_op="kwcall_test::kern"
        )
    assert str(refused.value).endswith(
        "; torch_op='kwcall_test::kern' derives a schema that marks no tensor written: pass the "
        "full schema, torch_op='kwcall_test::kern' + kwcall.torch.schema_of(compiled, "
        "mutates_args=[...])"
    )
    assert os.listdir(tmp_path) == []
    obj = tmp_path / "k.o"
    full = "kwcall_test::kern" + torch_ops.schema_of(compiled_kern, mutates_args=["out"])
    kwcute.export_to_c(compiled_kern, str(obj), function_name="kern", torch_op=full)
    assert exported_op(obj) == ["kwcall_test::kern", full[len("kwcall_test::kern") :]]


@pytest.mark.parametrize(
    "torch_op, error, says",
    [
        (3, TypeError, "torch_op must be the operator's name 'ns::name' or its full schema"),
        ("kern(Tensor(a!) out, int a, *, int b=2) -> ()", ValueError,
         "is not a schema 'namespace::name(arguments) -> returns'"),
        ("kwcall_test::kern(Tensor(a!) out, int a, *, int b=2)", ValueError,
         "is not a schema 'namespace::name(arguments) -> returns'"),
        # torch reads (out, a, *, b), the signature's parameters; a reader that knows no
        # comments would unbox b as a tensor (issue 37): what RegisterOp refuses is refused here.
        ("kwcall_test::kern(Tensor(a!) out, int a # , Tensor z='\n, *, int b=2 # '\n) -> ()",
         ValueError, "it has '#' (a comment, to torch) at offset 23"),
    ],
)  # fmt: skip
def test_a_text_of_another_form_is_refused_before_anything_is_written(
    compiled_kern, tmp_path, torch_op, error, says
):
    with pytest.raises(error, match=None) as raised:
        kwcute.export_to_c(
            compiled_kern, str(tmp_path / "k.o"), function_name="kern", torch_op=torch_op
        )
    assert says in str(raised.value)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "schema, shown",
    [
        ("kwcall_test::kern(Tensor(a!) out, int b, *, int a=2) -> ()", "(out, b, *, a)"),
        ("kwcall_test::kern(Tensor(a!) out, int a, int b=2) -> ()", "(out, a, b)"),
        ("kwcall_test::kern(Tensor(a!) out, int a) -> ()", "(out, a)"),
    ],
)
def test_arguments_that_are_not_the_parameters_are_refused(compiled_kern, tmp_path, schema, shown):
    pytest.importorskip("torch", reason="the arguments are compared where torch parses them")
    with pytest.raises(ValueError) as raised:
        kwcute.export_to_c(
            compiled_kern, str(tmp_path / "k.o"), function_name="kern", torch_op=schema
        )
    assert f"its arguments {shown} are not the parameters of kern (out, a, *, b)" in str(
        raised.value
    )
    assert os.listdir(tmp_path) == []
