"""Output rules: ``kwcall.torch.like(...)`` names a tensor an operator returns, which kwcall's
kernel allocates (contiguous) and passes to the function's parameter of that name.

``outputs={"out": like("x"), "lse": like("q", dims=(0, 2, 1), dtype="float32")}``: ``out`` gets
``x``'s shape, dtype and device; ``lse`` the dimensions 0, 2 and 1 of ``q``, in that order, in
float32 on ``q``'s device. The parameters named leave the schema's arguments and become its
results (``-> Tensor``, ``-> (Tensor, Tensor)``, in declaration order). The kernels apply the
rules in C++ (src/torch/output_plan.cc); this module checks them against the signature and passes
them on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Like:
    """A rule made by ``like``."""

    param: str
    dims: tuple[int, ...] | None = None
    dtype: str | None = None


def _dtype_name(dtype: Any) -> str | None:
    if dtype is None or isinstance(dtype, str):
        return dtype
    text = str(dtype)  # a torch.dtype reads "torch.float32"
    if text.startswith("torch."):
        return text[len("torch.") :]
    raise TypeError(f"kwcall.torch.like: dtype must be a torch.dtype or its name, got {dtype!r}")


def like(param: str, *, dims: Iterable[int] | None = None, dtype: Any = None) -> Like:
    """A new contiguous tensor with the shape, dtype and device of the tensor parameter
    ``param``; ``dims`` picks and orders ``param``'s dimensions (negative ones count from the
    end), ``dtype`` (a ``torch.dtype`` or its name, ``"float32"``) replaces its dtype."""
    if not isinstance(param, str):
        raise TypeError(f"kwcall.torch.like: param must be a parameter's name, got {param!r}")
    if dims is not None:
        dims = tuple(dims)
        if not all(type(d) is int for d in dims):
            raise TypeError(f"kwcall.torch.like: dims must be ints, got {dims!r}")
        if len(set(dims)) != len(dims):
            raise ValueError(f"kwcall.torch.like: dims names a dimension twice: {dims!r}")
    return Like(param, dims, _dtype_name(dtype))


def checked(outputs: Mapping[str, Any] | None, types: Mapping[str, str]) -> dict[str, Like]:
    """``outputs`` checked against the parameters' schema ``types`` (every parameter, in order):
    ValueError naming a rule's unknown or non-tensor parameter."""
    if not outputs:
        return {}
    if not isinstance(outputs, Mapping):
        raise TypeError(
            "kwcall.torch: outputs must map parameter names to rules, as in "
            "{'out': kwcall.torch.like('x')}"
        )
    names = ", ".join(types)
    rules: dict[str, Like] = {}
    for name in types:  # declaration order: the results' order
        if name not in outputs:
            continue
        rule = outputs[name]
        if not isinstance(rule, Like):
            raise TypeError(
                f"kwcall.torch: outputs[{name!r}] is {rule!r}: make rules with "
                "kwcall.torch.like(...)"
            )
        if types[name].rstrip("?") != "Tensor":
            raise ValueError(
                f"kwcall.torch: outputs names {name!r}, of type {types[name]}: only a Tensor "
                "parameter can be an output"
            )
        if rule.param not in types or rule.param in outputs or types[rule.param] != "Tensor":
            what = (
                "not a parameter"
                if rule.param not in types
                else "an output itself"
                if rule.param in outputs
                else f"of type {types[rule.param]}, not a Tensor that is always given"
            )
            raise ValueError(
                f"kwcall.torch: output {name!r} is like {rule.param!r}, which is {what}: name "
                f"a Tensor parameter (the parameters: {names})"
            )
        rules[name] = rule
    for name in outputs:
        if name not in types:
            raise ValueError(
                f"kwcall.torch: outputs names {name!r}, which is not a parameter (the "
                f"parameters: {names})"
            )
    return rules


def as_maps(outputs: Mapping[str, Like]) -> list[dict[str, Any]] | None:
    """The rules as the FFI global kwcall.torch.RegisterOp takes them, or None."""
    if not outputs:
        return None
    maps = []
    for name, rule in outputs.items():
        entry: dict[str, Any] = {"name": name, "like": rule.param}
        if rule.dims is not None:
            entry["dims"] = list(rule.dims)
        if rule.dtype is not None:
            entry["dtype"] = rule.dtype
        maps.append(entry)
    return maps


def results_text(count: int) -> str:
    """The schema's results for ``count`` outputs (``()``, ``Tensor``, ``(Tensor, Tensor)``)."""
    return "Tensor" if count == 1 else "(" + ", ".join(["Tensor"] * count) + ")"
