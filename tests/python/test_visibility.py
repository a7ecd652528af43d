"""libkwcall and the extension are built with hidden visibility: of kwcall's own symbols,
libkwcall's dynamic symbol table holds the public C++ API (what include/kwcall/ marks
KWCALL_API) and the internal functions the extension needs (KwFunctionOf, SetBlockingRegion),
the extension's none but PyInit__kwcall. Read with ``nm -D --defined-only`` from the installed
package.

Both tables also hold what kwcall does not decide: tvm-ffi's Error type information (tvm-ffi's
header exports it from every library that throws it) and, in builds without LTO, weak
instantiations of libstdc++ templates (its headers give namespace std default visibility), and
an ASan build's own symbols."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import kwcall._kwcall
import kwcall.libinfo
import pytest

NM = shutil.which("nm")
pytestmark = pytest.mark.skipif(NM is None, reason="needs nm (binutils)")

#: Everything include/kwcall/ declares that libkwcall defines.
PUBLIC_API = {
    "kwcall::CallSite::CallSite",
    "kwcall::CallSite::ThrowValueCount",  # private, called by the inline call operator
    "kwcall::DispatchTable::Add",
    "kwcall::DispatchTable::DispatchTable",
    "kwcall::DispatchTable::Get",
    "kwcall::DispatchTable::KeyOf",
    "kwcall::DispatchTable::Keys",
    "kwcall::DispatchTable::function",
    "kwcall::DispatchTable::name",
    "kwcall::DispatchTable::signature",
    "kwcall::DispatchTable::size",
    "kwcall::DispatchTable::terms",
    "kwcall::ExportedSignature",
    "kwcall::ExportedTorchOp",
    "kwcall::FromExternC",
    "kwcall::GetSignature",
    "kwcall::GetTarget",
    "kwcall::KeyTerm::Parse",
    "kwcall::KeyTerm::ToString",
    "kwcall::KeywordSuggestions",
    "kwcall::LoadDispatchTable",
    "kwcall::LoadFunction",
    "kwcall::MakeFunction",
    "kwcall::SetKeywordSuggestions",
    "kwcall::Signature::FromJson",
    "kwcall::Signature::FromMap",
    "kwcall::Signature::Make",
    "kwcall::Signature::ToJson",
    "kwcall::Signature::ToMap",
    "kwcall::kwargs_detail::g_kwargs_sentinel",  # read by kwcall::Call, inline
    "kwcall::kwargs_detail::CallWithNamesMade",  # called by kwcall::Call, inline
    "kwcall::torch::Operator::Operator",
    "kwcall::torch::Operator::~Operator",
    "kwcall::torch::Operator::operator=",
    "kwcall::torch::Operator::Reset",
    "kwcall::torch::Operator::AddKernels",
    "kwcall::torch::Operator::qualified_name",
    "kwcall::torch::Operator::schema",
    "kwcall::torch::RegisterOp",
    "kwcall::torch::RegisterExported",
}
#: The extension binds through the plan and the shapes of the C++ function it wraps
#: (function_object.h), and sets the region a dispatch table's miss waits in
#: (dispatch/blocking_wait.h).
FOR_THE_EXTENSION = {"kwcall::KwFunctionOf", "kwcall::SetBlockingRegion"}
#: tvm-ffi's Error is declared TVM_FFI_DLL: its exceptions must match across libraries.
FROM_TVM_FFI = {
    "typeinfo for tvm::ffi::Error",
    "typeinfo name for tvm::ffi::Error",
    "vtable for tvm::ffi::Error",
}
#: libstdc++'s own (a name in std, maybe after a return type, or a std class's typeinfo or
#: vtable, which a build that does not inline std::optional::value emits) and a sanitizer's.
NOT_KWCALLS = re.compile(r"^(\w+ )*std::|^__odr_asan|^__asan")


def exported(path: Path) -> set[str]:
    """The defined dynamic symbols of `path`, demangled, without parameters or ABI tags."""
    out = subprocess.run(
        [NM, "-D", "--defined-only", "-C", str(path)], capture_output=True, text=True, check=True
    ).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3:
            name = parts[2] if parts[2].startswith("typeinfo") else parts[2].split("(")[0]
            names.add(name.replace("[abi:cxx11]", ""))
    return names


def kwcalls_and_others(path: Path) -> tuple[set[str], set[str]]:
    """(kwcall's own exported symbols, the rest but libstdc++'s and a sanitizer's)."""
    names = exported(path)
    own = {n for n in names if n.startswith("kwcall::")}
    return own, {n for n in names - own if not NOT_KWCALLS.match(n)}


def test_libkwcall_exports_only_its_public_api():
    own, others = kwcalls_and_others(kwcall.libinfo.package_dir() / "lib" / "libkwcall.so")
    assert own == PUBLIC_API | FOR_THE_EXTENSION
    assert others <= FROM_TVM_FFI


def test_the_extension_exports_only_pyinit():
    own, others = kwcalls_and_others(Path(kwcall._kwcall.__file__))
    assert own == set()
    assert others - FROM_TVM_FFI == {"PyInit__kwcall"}
