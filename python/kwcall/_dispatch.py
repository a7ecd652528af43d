"""kwcall.DispatchTable: a kernel family (one specialization per key) as one kwcall function
whose specialization C++ chooses from the call's arguments (``src/dispatch/``), and
kwcall.load_dispatch_table.

A table is itself a kwcall.Function (a type made in C from kwcall.Function and the table's
methods, so calls keep kwcall's vectorcall): calling it binds the arguments in C++, and its
handle, the C++ kwcall function over the table's dispatching function, is what
``tvm_ffi.register_global_func``, ``kwcall.torch.register`` and C++ callers get.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import tvm_ffi

from ._function import Function, copy_metadata, make, signature_of
from ._kwcall import derive_type
from ._save_table import save_table
from ._signature import Signature
from .key import Term

_make = tvm_ffi.get_global_func("kwcall.DispatchTable")
_add = tvm_ffi.get_global_func("kwcall.DispatchTableAdd")
_get = tvm_ffi.get_global_func("kwcall.DispatchTableGet")
_keys = tvm_ffi.get_global_func("kwcall.DispatchTableKeys")
_size = tvm_ffi.get_global_func("kwcall.DispatchTableSize")
_dispatcher = tvm_ffi.get_global_func("kwcall.DispatchTableDispatcher")
_key_of = tvm_ffi.get_global_func("kwcall.DispatchTableKeyOf")
_info = tvm_ffi.get_global_func("kwcall.DispatchTableInfo")
_load = tvm_ffi.get_global_func("kwcall.LoadDispatchTable")

# A miss with no entry and no compile function is C++'s LookupError.
if "LookupError" not in tvm_ffi.core.ERROR_NAME_TO_TYPE:
    tvm_ffi.error.register_error("LookupError", LookupError)


def _python_value(value: Any) -> Any:
    """A key value from C++ as Python writes it: arrays (zero_strides) become tuples."""
    if isinstance(value, tvm_ffi.Array):
        return tuple(_python_value(item) for item in value)
    return value


def _key_tuple(key: Any) -> tuple:
    return tuple(_python_value(value) for value in key)


def _ffi_value(value: Any) -> Any:
    """A key value as C++ reads it: a torch dtype is spelled as tvm-ffi spells it."""
    if type(value).__name__ == "dtype" and type(value).__module__ == "torch":
        return str(value).removeprefix("torch.")
    return value


def _ffi_key(table_name: str, key: Any) -> list:
    if not isinstance(key, (tuple, list)):
        raise TypeError(
            f"kwcall.DispatchTable '{table_name}': a key is a tuple of values, one a term, got "
            f"{type(key).__name__}"
        )
    return [_ffi_value(value) for value in key]


def _keeper(obj: Any) -> tvm_ffi.Function:
    """A tvm-ffi object that keeps ``obj`` alive as long as C++ holds it: an entry's Python
    object (a CuTeDSL compile's) owns the code its native function runs."""
    return tvm_ffi.convert(lambda: obj)


def _as_entry(table_name: str, f: Any) -> tuple[tvm_ffi.Function, Any]:
    """An entry's native function, and what must be kept alive with it."""
    if not isinstance(f, tvm_ffi.Function):
        raise TypeError(
            f"kwcall.DispatchTable '{table_name}': an entry is a tvm_ffi.Function taking the "
            f"table's parameters in order (a kwcall function, a kwcall.cute compile), got "
            f"{type(f).__name__}; a stock CuTeDSL compile becomes one with "
            "kwcall.cute.from_stock(f), a Python callable with tvm_ffi.convert(f)"
        )
    return f, (None if type(f) is tvm_ffi.Function else _keeper(f))


def _terms(key: Any) -> list[str]:
    if isinstance(key, (str, Term)) or not isinstance(key, Iterable):
        raise TypeError(
            "the key is a list of kwcall.key terms, e.g. [kwcall.key.dtype('x'), "
            f"kwcall.key.shape('x', -1)], got {type(key).__name__}"
        )
    terms = []
    for term in key:
        if not isinstance(term, (Term, str)):
            raise TypeError(f"a key term is a kwcall.key term, got {type(term).__name__}")
        terms.append(str(Term(str(term))))
    return terms


class _TableMethods:
    """What a dispatch table adds to its kwcall.Function."""

    _table: Any  # the C++ table (kwcall.DispatchTable object)
    _key_of_function: Function
    _plain: Function
    _compile: Callable | None
    _objects: dict  # each entry's Python object, by key as the table keeps it (save exports them)

    @property
    def function(self) -> Function:
        """The table as a plain kwcall.Function (the table itself is one too)."""
        return self._plain

    @property
    def key(self) -> tuple[Term, ...]:
        """The key's terms."""
        return tuple(Term(str(t)) for t in _info(self._table)["terms"])

    @property
    def table_name(self) -> str:
        """The name errors use."""
        return str(_info(self._table)["name"])

    @property
    def compile(self) -> Callable | None:
        """The function that makes a missing entry, or None."""
        return self._compile

    def add(self, key: tuple, f: Any) -> None:
        """Adds ``f`` (a tvm_ffi.Function taking the table's parameters in order) for ``key``
        (a tuple of values, one a term). ValueError for a key of the wrong length, with a value
        its term cannot give, or that the table has already; TypeError for a kwcall function
        whose parameters are not the table's."""
        function, keep_alive = _as_entry(self.table_name, f)
        added = _add(self._table, _ffi_key(self.table_name, key), function, keep_alive)
        self._objects[_key_tuple(added)] = f

    def get(self, key: tuple) -> tvm_ffi.Function | None:
        """The entry for ``key``, or None."""
        return _get(self._table, _ffi_key(self.table_name, key))

    def keys(self) -> list[tuple]:
        """Every key, in the order they were added."""
        return [_key_tuple(key) for key in _keys(self._table)]

    def __len__(self) -> int:
        return int(_size(self._table))

    def __contains__(self, key: tuple) -> bool:
        return self.get(key) is not None

    def save(self, path: str | os.PathLike, *, name: str | None = None) -> None:
        """Writes the table and its entries to the shared library ``path``, all or nothing: each
        entry (a CuTeDSL compile made by kwcall.cute) through ``kwcall.cute.export_to_c``, and
        the table's description as ``KWCALL_EXPORT_DISPATCH_TABLE`` writes it, under ``name`` (a
        C identifier; the table's name by default). ``kwcall.load_dispatch_table(path, name)``
        and ``kwcall::LoadDispatchTable`` read it back without compiling."""
        save_table(self, path, name, self._objects)

    def key_of(self, *args: Any, **kwargs: Any) -> tuple:
        """The key a call with these arguments selects (bound as the call would be)."""
        return _key_tuple(self._key_of_function(*args, **kwargs))

    def __repr__(self) -> str:
        terms = ", ".join(str(t) for t in self.key)
        return (
            f"<kwcall.DispatchTable '{self.table_name}' keyed by ({terms}): {len(self)} "
            f"entr{'y' if len(self) == 1 else 'ies'}>"
        )


def _compile_entry(table_name: str, compile: Callable, objects: dict) -> Callable:
    """The compile function C++ calls on a miss: the user's ``compile(key, *args)``, its result
    made an entry (and remembered in ``objects``)."""

    def compile_entry(key: Any, *args: Any) -> list:
        key = _key_tuple(key)
        entry = compile(key, *args)
        function, keep_alive = _as_entry(table_name, entry)
        objects.setdefault(key, entry)
        return [function, keep_alive]

    return compile_entry


def _build(
    cls: type, table: Any, compile: Callable | None, objects: dict, prototype: Any = None
) -> Any:
    """The Python table over the C++ table ``table``, made whole."""
    signature = _info(table)["signature"]
    dispatcher = _dispatcher(table)
    fn = make(cls, dispatcher, signature)
    if prototype is not None:
        copy_metadata(fn, prototype)
    fn.__dict__.update(
        _table=table,
        _compile=compile,
        _objects=objects,
        _plain=make(Function, dispatcher, signature),
        _key_of_function=make(Function, _key_of(table), signature),
    )
    return fn


def _new(
    cls: type,
    signature: Signature | Callable,
    key: Iterable[Term | str],
    *,
    compile: Callable | None = None,
    name: str | None = None,
) -> Any:
    signature, prototype = signature_of(signature)
    if compile is not None and not callable(compile):
        raise TypeError(f"compile must be callable, got {type(compile).__name__}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    table_name = name or signature.name
    objects: dict = {}
    wrapper = None if compile is None else _compile_entry(table_name, compile, objects)
    table = _make(signature, _terms(key), name or "", wrapper)
    return _build(cls, table, compile, objects, prototype)


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    """__new__ made the table whole."""


DispatchTable = derive_type("kwcall.DispatchTable", (_TableMethods,))
DispatchTable.__new__ = staticmethod(_new)
DispatchTable.__init__ = _init
DispatchTable.__module__ = "kwcall"
DispatchTable.__repr__ = _TableMethods.__repr__  # not kwcall.Function's, which comes first
DispatchTable.__doc__ = """DispatchTable(signature, key, *, compile=None, name=None)

A kernel family as one kwcall function: ``key`` is a list of ``kwcall.key`` terms, read in C++
from the bound arguments; a call binds as ``signature`` says, computes the key, and calls the
entry added for it with every parameter in declaration order. With ``compile``, a call whose key
has no entry calls ``compile(key, *args)`` (the bound arguments in order, tensors as tvm-ffi
passes them) once for that key, however many threads miss it, and adds what it returns; without
it, such a call raises LookupError naming the key and the nearest keys. See docs/dispatch.md."""


def load_dispatch_table(module: Any, name: str) -> Any:
    """The dispatch table ``name`` a library exports (``DispatchTable.save``, or
    ``KWCALL_EXPORT_DISPATCH_TABLE`` in C++): ``module`` is a ``tvm_ffi.Module`` or the path of
    the library. Nothing is compiled; the table has no compile function."""
    if not isinstance(module, tvm_ffi.Module):
        module = tvm_ffi.load_module(str(module))
    return _build(DispatchTable, _load(module, name), None, {})
