"""Says whether the GIL is enabled after `import kwcall` (and `import kwcall.cute`, where CuTeDSL
is installed) on a free-threaded interpreter, as the modules leave it: nothing forces it off."""

import importlib
import importlib.util
import sys
import warnings

modules = ["kwcall"] + (["kwcall.cute"] if importlib.util.find_spec("cutlass") else [])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", RuntimeWarning)
    for module in modules:
        importlib.import_module(module)
# The interpreter's notice names the module that turned the GIL back on.
why = "".join(f" ({w.message})" for w in caught if "GIL" in str(w.message))
state = "enabled" if sys._is_gil_enabled() else "disabled"
print(f"    free-threaded build; after import {' and '.join(modules)} the GIL is {state}{why}")
