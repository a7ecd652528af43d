"""The argument mixes and the routes A-G: how each route's function is made and registered
as a global, so that C++ and Python call exactly the same objects."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tvm_ffi
from tvm_ffi.utils.kwargs_wrapper import make_kwargs_wrapper

import kwcall

from .build import Modules

ALPHA, BETA = 2.0, 3  # passed explicitly; differ from the defaults so keywords matter
DEFAULTS = (1.0, 0)  # alpha=1.0, beta=0

ROUTES = {
    "A": "target tvm-ffi function (CuTeDSL < 4.6, positional-only fix)",
    "B": "CuTeDSL 4.6+ route (kwargs object as a global)",
    "C": "tvm-ffi make_kwargs_wrapper as a global",
    "D": "kwcall, positional",
    "E": "kwcall, trailing defaults left out",
    "F": "kwcall, 2 keywords",
    "G": "kwcall, the 2 keywords bound once (kwcall::CallSite, C++ only)",
}


class CuteLikeFunction:
    """Built like CuTeDSL 4.6+'s ``TVMFFIJitCompiledFunctionWithKwargs``: it keeps the raw
    compiled function and calls it through tvm-ffi's ``make_kwargs_wrapper``. It is not a
    ``tvm_ffi.Function``, so ``register_global_func`` turns it into a Python callback: a C++
    caller takes the GIL and runs two Python frames (this ``__call__`` and the wrapper)."""

    def __init__(self, capi_func: tvm_ffi.Function, arg_names: list[str], defaults: tuple):
        self.capi_func = capi_func
        self._kwargs_wrapper = make_kwargs_wrapper(capi_func, arg_names, defaults)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._kwargs_wrapper(*args, **kwargs)


@dataclass
class Mix:
    """One argument mix: the target's leading arguments, then ``alpha=1.0, beta=0``."""

    name: str
    label: str
    lead: list[Any]
    arg_names: list[str]
    cuda: bool  # the target launches a CUDA kernel (the caller syncs its stream)
    functions: dict[str, Any]  # route letter (A, B, C, K = kwcall) -> callable
    globals: dict[str, str]  # route letter -> registered global name

    def expected(self, alpha: float = ALPHA, beta: int = BETA) -> int:
        first = self.lead[0] if self.name == "scalars" else len(self.lead)
        return first + int(alpha) + beta


def _tensors(count: int, device: str) -> list[Any]:
    if device == "cuda":
        import torch

        return [torch.zeros(16, dtype=torch.float32, device="cuda") for _ in range(count)]
    import numpy as np

    # tvm_ffi.Tensor views made once, so a call pays no DLPack conversion.
    return [tvm_ffi.from_dlpack(np.zeros(16, dtype=np.float32)) for _ in range(count)]


def _make_mix(name: str, label: str, lead: list[Any], raw: tvm_ffi.Function, cuda: bool) -> Mix:
    arg_names = ["x"] if name == "scalars" else [f"t{i}" for i in range(len(lead))]
    arg_names += ["alpha", "beta"]
    functions: dict[str, Callable] = {
        "A": raw,
        "B": CuteLikeFunction(raw, arg_names, DEFAULTS),
        "C": make_kwargs_wrapper(raw, arg_names, DEFAULTS),
        "K": kwcall.wrap(raw, kwcall.Signature(arg_names, DEFAULTS, name=name)),
    }
    names = {}
    for route, fn in functions.items():
        names[route] = f"kwcall.bench.{name}.{route}"
        tvm_ffi.register_global_func(names[route], fn, override=True)
    return Mix(name, label, lead, arg_names, cuda, functions, names)


def make_mixes(modules: Modules, device: str) -> list[Mix]:
    tensor_label = "CUDA tensors" if device == "cuda" else "tensors"
    mixes = [
        _make_mix("scalars", "scalars", [7], modules.caller.get_function("scalars"), False),
        _make_mix(
            "tensors3",
            f"3 {tensor_label}",
            _tensors(3, device),
            modules.targets.get_function("tensors3"),
            device == "cuda",
        ),
        _make_mix(
            "tensors9",
            f"9 {tensor_label}",
            _tensors(9, device),
            modules.targets.get_function("tensors9"),
            device == "cuda",
        ),
    ]
    _check(mixes)
    return mixes


def _check(mixes: list[Mix]) -> None:
    """Every route must return the target's answer before anything is timed."""
    for mix in mixes:
        full = [*mix.lead, ALPHA, BETA]
        calls = {
            "A": (mix.functions["A"](*full), mix.expected()),
            "B": (mix.functions["B"](*mix.lead, alpha=ALPHA, beta=BETA), mix.expected()),
            "C": (mix.functions["C"](*mix.lead, alpha=ALPHA, beta=BETA), mix.expected()),
            "D": (mix.functions["K"](*full), mix.expected()),
            "E": (mix.functions["K"](*mix.lead), mix.expected(*DEFAULTS)),
            "F": (mix.functions["K"](*mix.lead, alpha=ALPHA, beta=BETA), mix.expected()),
        }
        for route, (got, want) in calls.items():
            if got != want:
                raise RuntimeError(f"{mix.name} route {route}: returned {got}, expected {want}")
