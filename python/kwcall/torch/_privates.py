"""Every private name of torch that kwcall reads, and nothing else.

The rest of kwcall calls the functions here and never spells a torch private name.
``PRIVATE_NAMES`` lists each name with a probe; tests/python/test_torch_privates.py runs every
probe on the installed torch, so a release that renames one fails a test named after it (the
way kwcall.cute probes CuTeDSL's, ``kwcall.cute._cutedsl.PRIVATE_NAMES``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import torch


def parse_schema(text: str) -> Any:
    """torch's own parse of ``"ns::name(arguments) -> returns"`` (``torch._C.parse_schema``):
    a FunctionSchema with ``.arguments`` (``.name``, ``.type``, ``.kwarg_only``,
    ``.alias_info``). RuntimeError when torch cannot read it."""
    return torch._C.parse_schema(text)


def forget_cached_operator(ns: str, name: str) -> None:
    """``torch.ops.<ns>`` caches each operator packet it has looked up in its ``__dict__``; drop
    ``name``'s, so that a name unregistered and registered again is looked up afresh."""
    vars(getattr(torch.ops, ns)).pop(name, None)


def mode_checks() -> tuple[Any, ...] | None:
    """torch's own checks, each called with no argument, of an active torch function mode, the
    depth of the torch dispatch mode stack and an active functorch transform
    (``torch._C._is_torch_function_mode_enabled``, ``_len_torch_dispatch_stack``,
    ``_are_functorch_transforms_active``), or None when this torch lacks one."""
    names = (
        "_is_torch_function_mode_enabled",
        "_len_torch_dispatch_stack",
        "_are_functorch_transforms_active",
    )
    checks = tuple(getattr(torch._C, name, None) for name in names)
    return None if None in checks else checks


class Private(NamedTuple):
    name: str  # as torch spells it
    probe: Callable[[], bool]


_PROBE_NAMESPACE = "kwcall_private_probe"


def _parse_schema_reads_arguments() -> bool:
    schema = parse_schema("ns::f(Tensor(a!) out, *, float alpha=1.0) -> ()")
    return (
        [(a.name, str(a.type), a.kwarg_only) for a in schema.arguments]
        == [("out", "Tensor", False), ("alpha", "float", True)]
        and schema.arguments[0].alias_info.is_write
        and schema.arguments[1].default_value == 1.0
    )


_probe_libraries: list[Any] = []  # the probe's operator, defined once and kept


def _ops_cache_packets_in_their_namespace() -> bool:
    if not _probe_libraries:
        library = torch.library.Library(_PROBE_NAMESPACE, "FRAGMENT")
        library.define("probe(Tensor x) -> Tensor")
        _probe_libraries.append(library)
    namespace = getattr(torch.ops, _PROBE_NAMESPACE)
    packet = namespace.probe
    cached = vars(namespace).get("probe") is packet
    forget_cached_operator(_PROBE_NAMESPACE, "probe")
    return cached and "probe" not in vars(namespace) and namespace.probe is not packet


def _mode_checks_see_each_mode() -> bool:
    from torch.utils._python_dispatch import TorchDispatchMode

    checks = mode_checks()
    if checks is None:
        return False
    function_mode, dispatch_depth, transforms = checks
    idle = (function_mode(), dispatch_depth(), transforms()) == (False, 0, False)
    with torch.overrides.TorchFunctionMode():
        in_function_mode = function_mode()
    with TorchDispatchMode():
        in_dispatch_mode = dispatch_depth() == 1
    seen = []
    torch.vmap(lambda x: seen.append(transforms()) or x)(torch.zeros(2))
    return idle and in_function_mode and in_dispatch_mode and seen == [True]


PRIVATE_NAMES: tuple[Private, ...] = (
    Private("torch._C.parse_schema", _parse_schema_reads_arguments),
    Private(
        "torch.ops.<ns>.__dict__ (the looked-up packets)", _ops_cache_packets_in_their_namespace
    ),
    Private(
        "torch._C._is_torch_function_mode_enabled/_len_torch_dispatch_stack/"
        "_are_functorch_transforms_active",
        _mode_checks_see_each_mode,
    ),
)
