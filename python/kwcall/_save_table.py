"""DispatchTable.save: a table and its entries as one shared library, loaded back without
compiling and without Python (``kwcall::LoadDispatchTable``, ``kwcall.load_dispatch_table``).

The library holds each entry as the tvm-ffi function ``<name>_<i>`` (a CuTeDSL compile exported
with ``kwcall.cute.export_to_c``, its signature linked in; an integration registers how its
compiles are exported, so the table's code names none) and the table's description, the
function ``__kwcall_dispatch_table_<name>`` that ``KWCALL_EXPORT_DISPATCH_TABLE`` writes
(src/dispatch/saved_table.h has the format). It is linked as CuTeDSL's AOT guide links exported
objects, with CuTeDSL's runtime libraries (and run paths to them, so that a program with no
Python finds them). Everything is made in a temporary folder beside the destination and renamed
onto it last, so the destination is the whole table or untouched (a rename, never a write into
the old file: a process may have the old library mapped).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tvm_ffi
import tvm_ffi.libinfo

from . import _link_signature, libinfo

_describe = tvm_ffi.get_global_func("kwcall.DispatchTableDescription")
_HEADER = "kwcall/export.h"


def _source(name: str, description: str) -> str:
    return (
        f"// The dispatch table {name}, written by kwcall.DispatchTable.save.\n"
        f"#include <{_HEADER}>\n\n"
        f"KWCALL_EXPORT_DISPATCH_TABLE({name}, {_link_signature.c_string(description)})\n"
    )


@dataclass(frozen=True)
class EntryExporter:
    """How an integration's compiles are saved as entries: ``owns(entry)`` says whether an entry
    is one of its compiles, ``export(entry, object_path, function_name=...)`` writes its object
    file, and ``runtime_libraries()`` lists what a library of them links."""

    owns: Callable[[Any], bool]
    export: Callable[..., Any]
    runtime_libraries: Callable[[], list[str]]


# kwcall.cute registers CuTeDSL's when it is imported: a table's CuTeDSL entries are compiles it
# made, so it is imported wherever such a table is saved.
_exporters: list[EntryExporter] = []


def register_exporter(exporter: EntryExporter) -> None:
    """Lets ``save`` write the entries ``exporter`` owns."""
    _exporters.append(exporter)


def _exporter_of(table_name: str, key: tuple, entry: Any) -> EntryExporter:
    """The exporter of ``entry``; TypeError naming the key when no integration exports it."""
    for exporter in _exporters:
        if exporter.owns(entry):
            return exporter
    raise TypeError(
        f"kwcall.DispatchTable '{table_name}': the entry for the key {key!r} is "
        f"{type(entry).__name__}, not a CuTeDSL compile made by kwcall.cute: save writes "
        "entries with kwcall.cute.export_to_c (export a C++ library's entries with "
        "KWCALL_EXPORT_DISPATCH_TABLE instead)"
    )


def save_table(table: Any, path: str | os.PathLike, name: str | None, objects: dict) -> None:
    """Writes ``table`` (whose entries' Python objects are ``objects``, by key) to ``path``."""
    name = table.table_name if name is None else name
    _link_signature.check_function_name(name)
    keys = table.keys()
    entries = []
    for key in keys:
        entry = objects.get(key)
        entries.append((_exporter_of(table.table_name, key, entry), entry))
    cc = _link_signature.compiler()
    if cc is None:
        raise RuntimeError("kwcall.DispatchTable.save links a library: install a C compiler (cc)")
    functions = [f"{name}_{i}" for i in range(len(keys))]
    description = str(_describe(table._table, functions))
    destination = Path(path).absolute()
    work = Path(tempfile.mkdtemp(prefix=".kwcall-table-", dir=destination.parent))
    try:
        objects_written = []
        for (exporter, entry), function in zip(entries, functions, strict=True):
            obj = work / f"{function}.o"
            exporter.export(entry, str(obj), function_name=function)
            objects_written.append(str(obj))
        source = work / "table.c"
        source.write_text(_source(name, description), encoding="utf-8")
        includes = [f"-I{libinfo.include_dir()}", f"-I{tvm_ffi.libinfo.find_include_path()}"]
        table_object = work / "table.o"
        _link_signature.run(
            [*cc, "-c", "-fPIC", "-O2", *includes, "-o", str(table_object), "-x", "c", str(source)]
        )
        runtime = _runtime_libraries(entries)
        rpath = sorted({f"-Wl,-rpath,{Path(lib).parent}" for lib in runtime})
        library = work / destination.name
        inputs = [*objects_written, str(table_object), *runtime, *rpath]
        _link_signature.run([*cc, "-shared", "-o", str(library), *inputs])
        os.replace(library, destination)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _runtime_libraries(entries: list) -> list[str]:
    """What the entries' code links (tvm-ffi's library alone for a table with no entries)."""
    if not entries:
        return [tvm_ffi.libinfo.find_libtvm_ffi()]
    exporters = dict.fromkeys(exporter for exporter, _ in entries)
    return list(
        dict.fromkeys(lib for exporter in exporters for lib in exporter.runtime_libraries())
    )
