"""The optional integrations (kwcall.cute, kwcall.torch) plug into the core: the core's modules
import neither, neither imports the other, and what the core borrows of them comes through what
they register (entry points in pyproject.toml, registries they fill when imported)."""

from __future__ import annotations

import ast
import importlib.metadata
from pathlib import Path

import kwcall
import pytest
import tvm_ffi
from kwcall import _compiled_parameters, _export_torch_op

PACKAGE = Path(kwcall.__file__).parent
INTEGRATIONS = ("cute", "torch")


def imported_packages(path: Path) -> set[str]:
    """The kwcall subpackages ``path`` imports, by name ("" for kwcall's own modules)."""
    package = path.parent.relative_to(PACKAGE.parent).parts  # ("kwcall",) or ("kwcall", "torch")
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            names = [*base, *(node.module or "").split(".")] if node.module else list(base)
            targets = [names + [alias.name] for alias in node.names]
        elif isinstance(node, ast.Import):
            targets = [alias.name.split(".") for alias in node.names]
        else:
            continue
        for target in targets:
            if target[0] == "kwcall" and len(target) > 1 and target[1] in INTEGRATIONS:
                found.add(target[1])
    return found


def test_the_core_imports_no_integration():
    for path in sorted(PACKAGE.glob("*.py")):
        assert imported_packages(path) == set(), path.name


@pytest.mark.parametrize("integration", INTEGRATIONS)
def test_an_integration_imports_no_other(integration):
    for path in sorted((PACKAGE / integration).glob("*.py")):
        assert imported_packages(path) <= {integration}, f"{integration}/{path.name}"


def test_a_function_no_integration_compiled_tells_nothing_more():
    f = kwcall.wrap(tvm_ffi.convert(lambda x: x), kwcall.Signature(["x"], name="f"))
    assert _compiled_parameters.types_of(f, lambda annotation: "int") == {}
    assert _compiled_parameters.pointer_parameters(f) == []


def test_the_torch_schemas_an_export_borrows_are_kwcall_torch_s():
    pytest.importorskip("torch", reason="PyTorch is not installed here")
    kwtorch = pytest.importorskip("kwcall.torch")
    (entry,) = importlib.metadata.entry_points(group=_export_torch_op.TORCH_SCHEMAS)
    schemas = entry.load()
    assert isinstance(schemas, _export_torch_op.TorchSchemas)
    signature = kwcall.Signature(["n"], (1,), ["alpha"], {"alpha": 1.0}, name="f")
    f = kwcall.wrap(tvm_ffi.convert(lambda n, alpha: None), signature)
    assert schemas.derive(f) == kwtorch.schema_of(f) == "(int n=1, *, float alpha=1.0) -> ()"
    assert schemas.arguments("ns::f(Tensor x, Tensor(a!) out, *, float alpha) -> ()") == [
        ("x", False),
        ("out", False),
        ("alpha", True),
    ]
