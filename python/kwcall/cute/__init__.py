"""CuTeDSL integration: compiled ``@cute.jit`` functions become kwcall Functions.

Since nvidia-cutlass-dsl 4.6, ``cute.compile(..., options="--enable-tvm-ffi")`` returns
``TVMFFIJitCompiledFunctionWithKwargs`` for every function with an argument: a Python object
whose ``__call__`` goes through an exec-generated keyword wrapper. It is not a
``tvm_ffi.Function``, so registering it as a global hands C++ callers a Python callback.

kwcall's compiled-function type derives from both ``kwcall.Function`` (made in C, so it keeps
kwcall's vectorcall) and CuTeDSL's class: the object is a ``tvm_ffi.Function`` whose handle
binds keywords in C++, ``isinstance`` against CuTeDSL's class holds, and CuTeDSL's state and
methods keep working.

* ``compile(fn, *args)`` compiles with stock CuTeDSL and builds kwcall's object from the
  result: nothing in CuTeDSL changes, for this thread or any other.
* ``install()`` makes every ``--enable-tvm-ffi`` compile in the process return kwcall's object
  and ``cute.runtime.load_module`` bind exported signatures; ``uninstall()`` undoes both.
* ``export_to_c(compiled, path, function_name=...)`` (and the compiled object's own
  ``export_to_c`` method) writes CuTeDSL's object file with the signature inside it, plus a
  ``.kwcall.json`` sidecar, for disk caches and C++ programs without Python.
* ``table_compiler(fn, compile_args)`` is the ``compile`` of a ``kwcall.DispatchTable`` whose
  entries are ``fn`` compiled once per key.

The modules, one concept each: ``_cutedsl_versions`` (the supported releases, checked by every
entry point), ``_cutedsl`` (every CuTeDSL private name, with a probe each), ``_derive`` (the
signature of a compile), ``_construct`` (the type and the one construction route),
``_compile`` and ``_install`` (the two ways in), ``_write_export`` (an export's files, and the
compiled type's ``export_to_c`` method), ``_export_to_c`` (the entry point of the export),
``_runtime_modules`` (modules loaded back from exported files), ``_table_compiler`` (the compile
function of a dispatch table of one ``@cute.jit`` function), ``_table_entries`` (such compiles
as a saved table's entries, registered with ``DispatchTable.save``).
"""

from __future__ import annotations

from . import (
    _parameter_types,  # noqa: F401  # registers what CuTeDSL's compiles tell of types
    _table_entries,  # noqa: F401  # registers CuTeDSL's entries with DispatchTable.save
)
from ._compile import compile
from ._construct import from_stock, is_compiled_function
from ._cutedsl_versions import SUPPORTED_VERSIONS, cutedsl_version, is_supported
from ._export_to_c import export_to_c
from ._install import install, is_installed, uninstall
from ._table_compiler import dlpack_tensor, table_compiler

__all__ = [
    "SUPPORTED_VERSIONS",
    "compile",
    "cutedsl_version",
    "dlpack_tensor",
    "export_to_c",
    "from_stock",
    "install",
    "is_compiled_function",
    "is_installed",
    "is_supported",
    "table_compiler",
    "uninstall",
]
