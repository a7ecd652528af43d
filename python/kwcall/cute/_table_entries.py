"""CuTeDSL compiles as the entries of a saved ``kwcall.DispatchTable``: ``DispatchTable.save``
writes each with ``export_to_c`` and links CuTeDSL's runtime libraries. Registered with the saver
when ``kwcall.cute`` is imported: a table's CuTeDSL entries are compiles this package made, so it
is imported wherever such a table is saved, and the table's own code names no integration.
"""

from __future__ import annotations

from .._save_table import EntryExporter, register_exporter
from ._construct import is_compiled_function
from ._export_to_c import export_to_c


def _runtime_libraries() -> list[str]:
    import cutlass.cute as cute

    return list(cute.runtime.find_runtime_libraries(enable_tvm_ffi=True))


register_exporter(EntryExporter(is_compiled_function, export_to_c, _runtime_libraries))
