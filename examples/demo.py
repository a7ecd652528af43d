"""kwcall demo: a C++ target and its kwcall function, registered as globals, called from
C++ and from Python, positionally and with keywords.

    bash scripts/demo.sh        (sets everything up, then runs this file)
"""

from __future__ import annotations

from pathlib import Path

import kwcall
import kwcall.libinfo
import tvm_ffi


def section(title: str) -> None:
    print(f"\n== {title}")


def main() -> None:
    section("build a C++ tvm-ffi module (target + C++ caller) against the installed kwcall")
    here = Path(__file__).resolve().parent
    build_dir = here.parent / "build" / "demo"  # inside the clone: never shared with another
    lib = kwcall.libinfo.build_module("kwcall_demo", [str(here / "demo_module.cc")], str(build_dir))
    module = tvm_ffi.load_module(lib)
    print(f"built {lib}")

    section("bind the target to a Python-style signature")
    target = module.scale_add
    sig = kwcall.Signature(
        ["x", "y"], (), ["alpha", "beta"], {"alpha": 1.0, "beta": 0.0}, name="scale_add"
    )
    f = kwcall.wrap(target, sig)
    print(f"{f!r}: isinstance(f, tvm_ffi.Function) = {isinstance(f, tvm_ffi.Function)}")
    tvm_ffi.register_global_func("demo.scale_add_target", target, override=True)
    tvm_ffi.register_global_func("demo.scale_add", f, override=True)
    print("registered globals demo.scale_add_target (the target) and demo.scale_add (kwcall)")

    section("call from Python (bound in C++ by kwcall.Function's vectorcall)")
    print(f"f(1, 2)                  = {f(1.0, 2.0)}")
    print(f"f(1, 2, alpha=10)        = {f(1.0, 2.0, alpha=10.0)}")
    print(f"f(y=2, x=1, beta=0.5)    = {f(y=2.0, x=1.0, beta=0.5)}")
    try:
        f(1.0, 2.0, 3.0)
    except TypeError as err:
        print(f"f(1, 2, 3)               raises TypeError: {err}")

    section("call from C++: Function::GetGlobal('demo.scale_add'), no Python involved")
    for line in module.call_from_cpp("demo.scale_add"):
        print(line)

    section("the same C++ caller on the bare target: positional only")
    print(f"f(1, 2, 3, 4) = {tvm_ffi.get_global_func('demo.scale_add_target')(1.0, 2.0, 3.0, 4.0)}")
    print("(the target has no signature: fewer arguments or keywords are errors there)")


if __name__ == "__main__":
    main()
