"""``install()``/``uninstall()``: process-wide, every ``--enable-tvm-ffi`` compile returns
kwcall's object (CuTeDSL looks its keyword class up on every compile, and that one class is
replaced), and modules loaded back from exported files give their functions' keywords back."""

from __future__ import annotations

import threading
import warnings

from . import _construct, _cutedsl, _cutedsl_versions, _runtime_modules

_install_lock = threading.Lock()
_installed = False


def install() -> bool:
    """Make every ``--enable-tvm-ffi`` compile in the process return kwcall's object, and
    ``cute.runtime.load_module(..., enable_tvm_ffi=True)`` bind exported signatures.

    Returns False, with a warning and without patching, when nvidia-cutlass-dsl is missing or
    its version is not one of SUPPORTED_VERSIONS.
    """
    global _installed
    with _install_lock:
        if _installed:
            return True
        reason = _cutedsl_versions.unsupported_reason()
        if reason is not None:
            warnings.warn(
                f"kwcall.cute: {reason}; CuTeDSL is left unchanged", RuntimeWarning, stacklevel=2
            )
            return False
        compiled = _construct.compiled_type()  # made from CuTeDSL's class before it is replaced
        _cutedsl.set_kwargs_class(compiled)
        _runtime_modules.hook()
        _installed = True
        return True


def uninstall() -> None:
    """Give CuTeDSL its own class and module methods back. Functions compiled or loaded
    meanwhile keep working."""
    global _installed
    with _install_lock:
        if not _installed:
            return
        _cutedsl.set_kwargs_class(_construct.stock_class())
        _runtime_modules.unhook()
        _installed = False


def is_installed() -> bool:
    return _installed
