"""A function's companion: the function ``__kwcall_signature_<name>`` that carries the signature
of an exported function ``name`` (``KWCALL_EXPORT_SIGNATURE`` in C++, ``kwcall.cute.export_to_c``
for CuTeDSL) and returns its JSON text; its name, the exported function's C symbol, and the one
reader of companions for every loader (``kwcall.load_function``, and
``cute.runtime.load_module`` under ``kwcall.cute.install()``), so that each reports a bad
companion alike: the checks and texts are C++'s (``kwcall::LoadFunction``). Nothing here reads a
header: the prefix is compiled into the extension.
"""

from __future__ import annotations

from collections.abc import Callable

import tvm_ffi

# A module's function ``f`` carries its signature in the function named this prefix + ``f``
# (``KWCALL_SIGNATURE_FUNCTION_PREFIX``, compiled into the extension from <kwcall/export.h>).
from ._kwcall import SIGNATURE_FUNCTION_PREFIX
from ._signature import Signature

#: tvm-ffi's C symbol of an exported function ``f`` is this prefix + ``f``
#: (``TVM_FFI_DLL_EXPORT_TYPED_FUNC``, and CuTeDSL's ``export_to_c``).
EXPORTED_SYMBOL_PREFIX = "__tvm_ffi_"

#: A module's function by name, None when it has none.
Lookup = Callable[[str], "tvm_ffi.Function | None"]

_signature_from_result = tvm_ffi.get_global_func("kwcall.ExportedSignatureFromResult")
_signature_from_companion = tvm_ffi.get_global_func("kwcall.ExportedSignatureFromCompanion")


def companion_name(name: str) -> str:
    """The name of the function carrying ``name``'s signature."""
    return SIGNATURE_FUNCTION_PREFIX + name


def exported_symbol(name: str) -> str:
    """The C symbol of the exported tvm-ffi function ``name``."""
    return EXPORTED_SYMBOL_PREFIX + name


def exported_signature(lookup: Lookup, name: str) -> Signature | None:
    """The signature exported for ``name`` beside it (None when there is none), read from its
    companion. A companion that raises raises RuntimeError naming it, with its own exception
    as the cause; one that returns no JSON text, or text that is no valid signature, raises
    C++'s TypeError/ValueError naming it."""
    companion = lookup(companion_name(name))
    if companion is None:
        return None
    try:
        result = companion()
    except UnicodeDecodeError:
        # tvm-ffi could not make a str of the text it returned (not UTF-8; the companion, a C
        # function, raised nothing): C++ calls it and reads the text, and says what is wrong.
        return _signature_from_companion(companion, name)
    except Exception as error:
        raise RuntimeError(
            f"kwcall: {companion_name(name)}, the function carrying the signature of '{name}', "
            f"raised {type(error).__name__}: {error}"
        ) from error
    return _signature_from_result(result, name)
