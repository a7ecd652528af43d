"""The torch routes, when torch and kwcall.torch are importable: one mutating operator
``axpy_out(Tensor x, Tensor y, Tensor(a!) out, *, float alpha=1.0) -> ()`` with a C++ kernel
(targets_cpu.cc) on CPU tensors of 16 floats, and the functional operator of the same function
``axpy(Tensor x, Tensor y, *, float alpha=1.0) -> Tensor`` (``out`` allocated like ``x``),
called these ways on the same tensors:

* from Python: the kwcall function itself, the kwcall operator through ``torch.ops`` (kwcall's
  C++ kernel), and a ``torch.library.custom_op`` whose Python body calls the kwcall function
  (what quack's ``cute_op`` does); the eager call object ``register`` returns; the functional
  operator through ``torch.ops`` and through its eager call, against the mutating operator and
  the kwcall function each given a ``torch.empty_like(x)`` made in Python;
* from C++ (torch_caller.cc, on Python's thread with the GIL released): the kwcall function,
  and the kwcall operator through the dispatcher (the stable shim's
  ``aoti_torch_call_dispatcher``).
"""

from __future__ import annotations

import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tvm_ffi

import kwcall
import kwcall.libinfo

from .build import HERE, Modules, _build_dir, default_cache_dir
from .cells import Cell, route_cells

NAMESPACE = "kwcall_bench"
OP = f"{NAMESPACE}::axpy_out"
FUNCTIONAL_OP = f"{NAMESPACE}::axpy"
CUSTOM_OP = f"{NAMESPACE}::axpy_out_custom_op"
FUNCTION_GLOBAL = "kwcall.bench.torch.axpy_out"
ALPHA = 2.0
ELEMENTS = 16
CALLER_SOURCES = ("torch_caller.cc",)

PY_TORCH_ROUTES = {
    "T1": "the kwcall function",
    "T2": "the kwcall operator, torch.ops",
    "T3": "torch.library.custom_op calling the kwcall function",
    "T5": "the kwcall operator's eager call (what register returns)",
    "T6": "the functional operator (returns out), torch.ops",
    "T7": "the kwcall operator, torch.ops, out = torch.empty_like(x) in Python",
    "T8": "the functional operator's eager call",
    "T9": "the kwcall function, out = torch.empty_like(x) in Python",
}
#: Each Python route's statement (f is the route's callable).
PY_STATEMENTS = {
    "T6": "f(x, y, alpha=alpha)",
    "T7": "f(x, y, empty_like(x), alpha=alpha)",
    "T8": "f(x, y, alpha=alpha)",
    "T9": "f(x, y, empty_like(x), alpha=alpha)",
}
DEFAULT_STATEMENT = "f(x, y, out, alpha=alpha)"
CPP_TORCH_ROUTES = {
    "T1": "the kwcall function",
    "T4": "the kwcall operator, through the dispatcher (aoti_torch_call_dispatcher)",
}
CPP_ROUTE_MODE = {"T1": 0, "T4": 1}  # torch_caller.cc's routes

#: A Python-bodied custom op costs tens of µs a call: this bounds its samples.
CUSTOM_OP_MAX_CALLS = 20_000


def unavailable() -> str | None:
    """Why the torch routes cannot run here, or None when they can."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return "torch is not installed"
    try:
        import kwcall.torch  # noqa: F401
    except ImportError as error:
        return str(error)
    return None


class TorchRoutes:
    """The operators, the tensors and the C++ caller, made once; each route checked."""

    def __init__(self, modules: Modules, cache_dir: Path | None) -> None:
        import kwcall.torch as kwtorch
        import torch

        target = modules.caller.get_function("axpy_out")  # the CPU module, on every device
        signature = kwcall.Signature(
            ["x", "y", "out"], (), ["alpha"], {"alpha": 1.0}, name="axpy_out"
        )
        self.function = kwcall.wrap(target, signature)
        tvm_ffi.register_global_func(FUNCTION_GLOBAL, self.function, override=True)
        for name in (OP, FUNCTIONAL_OP):
            if name in kwtorch.registered():  # main() run again in one process
                kwtorch.unregister(name)
        types = {"x": "Tensor", "y": "Tensor", "out": "Tensor"}
        schema = kwtorch.schema_of(self.function, mutates_args=("out",), types=types)
        self.eager = kwtorch.register(
            self.function, OP, mutates_args=("out",), types=types, device_types=("CPU",)
        )
        self.functional_eager = kwtorch.register(
            self.function,
            FUNCTIONAL_OP,
            types=types,
            device_types=("CPU",),
            outputs={"out": kwtorch.like("x")},
        )
        self.op = getattr(torch.ops, NAMESPACE).axpy_out
        self.functional_op = getattr(torch.ops, NAMESPACE).axpy
        self.custom_op = _custom_op(torch, self.function, schema)
        self.x = torch.linspace(-1, 1, ELEMENTS)
        self.y = torch.linspace(2, 3, ELEMENTS)
        self.out = torch.zeros(ELEMENTS)
        # tvm-ffi views of the same memory for the C++ caller, made once.
        self.views = [tvm_ffi.from_dlpack(t) for t in (self.x, self.y, self.out)]
        root = cache_dir or default_cache_dir()
        library = kwcall.libinfo.build_module(
            "kwcall_bench_torch",
            [str(HERE / s) for s in CALLER_SOURCES],
            _build_dir(root, CALLER_SOURCES),
        )
        self.caller = tvm_ffi.load_module(library).get_function("torch_call_n")
        self._check(torch)

    def _check(self, torch: Any) -> None:
        """Every route must write alpha * x + y before anything is timed."""
        want = ALPHA * self.x + self.y
        calls = {
            "T1 python": lambda: self.function(self.x, self.y, self.out, alpha=ALPHA),
            "T2 python": lambda: self.op(self.x, self.y, self.out, alpha=ALPHA),
            "T3 python": lambda: self.custom_op(self.x, self.y, self.out, alpha=ALPHA),
            **{f"{r} C++": self.cpp_runner(r) for r in CPP_TORCH_ROUTES},
        }
        returning = {
            "T6 python": lambda: self.functional_op(self.x, self.y, alpha=ALPHA),
            "T8 python": lambda: self.functional_eager(self.x, self.y, alpha=ALPHA),
        }
        for route, call in returning.items():
            if not torch.equal(call(), want):
                raise RuntimeError(f"torch route {route}: returned {call()}, expected {want}")
        calls["T5 python"] = lambda: self.eager(self.x, self.y, self.out, alpha=ALPHA)
        for route, call in calls.items():
            self.out.zero_()
            call() if route.endswith("python") else call(1)
            if not torch.equal(self.out, want):
                raise RuntimeError(f"torch route {route}: wrote {self.out}, expected {want}")

    def python_runner(self, route: str) -> Callable[[int], list[int]]:
        import torch

        fn = {
            "T1": self.function,
            "T2": self.op,
            "T3": self.custom_op,
            "T5": self.eager,
            "T6": self.functional_op,
            "T7": self.op,
            "T8": self.functional_eager,
            "T9": self.function,
        }[route]
        timer = timeit.Timer(
            PY_STATEMENTS.get(route, DEFAULT_STATEMENT),
            "f = _f; x = _x; y = _y; out = _out; alpha = _alpha; empty_like = _empty_like",
            timer=time.perf_counter_ns,  # cells count nanoseconds
            globals={
                "_f": fn,
                "_x": self.x,
                "_y": self.y,
                "_out": self.out,
                "_alpha": ALPHA,
                "_empty_like": torch.empty_like,
            },
        )
        return lambda n: [timer.timeit(n)]

    def cpp_runner(self, route: str) -> Callable[[int], list[int]]:
        mode = CPP_ROUTE_MODE[route]
        x, y, out = self.views

        def run(n: int) -> list[int]:
            return [self.caller(OP, FUNCTION_GLOBAL, x, y, out, ALPHA, n, mode)]

        return run


def _custom_op(torch: Any, function: kwcall.Function, schema: str) -> Any:
    """The same operator made the way the field makes CuTeDSL ops today: a custom op with a
    Python body (torch.library.custom_op), with the same schema, called through torch.ops like
    the kwcall one."""
    namespace = getattr(torch.ops, NAMESPACE)
    if CUSTOM_OP not in _CUSTOM_OPS:

        def axpy_out_custom_op(x, y, out, *, alpha=1.0):
            function(x, y, out, alpha=alpha)

        _CUSTOM_OPS[CUSTOM_OP] = torch.library.custom_op(
            CUSTOM_OP, axpy_out_custom_op, mutates_args=("out",), device_types="cpu", schema=schema
        )
    return namespace.axpy_out_custom_op


#: custom_op's definitions live as long as the process: made once, whatever reruns main().
_CUSTOM_OPS: dict[str, Any] = {}


def cells(routes: TorchRoutes) -> list[Cell]:
    bound = {"T3": CUSTOM_OP_MAX_CALLS}
    return route_cells(
        "torch", PY_TORCH_ROUTES, "python", routes.python_runner, max_calls=bound
    ) + route_cells("torch", CPP_TORCH_ROUTES, "python_thread", routes.cpp_runner)
