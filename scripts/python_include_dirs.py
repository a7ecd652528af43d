"""Prints the running Python's header folders, colon-separated: what a compiler inside another
root must see (at their own paths) to build an extension for this Python."""

import os
import sysconfig

paths = {sysconfig.get_paths()[key] for key in ("include", "platinclude")}
multiarch = sysconfig.get_config_var("MULTIARCH")
if multiarch:  # Debian puts pyconfig.h under /usr/include/<multiarch>/pythonX.Y
    include = os.path.basename(sysconfig.get_paths()["include"])
    paths.add(os.path.join("/usr/include", multiarch, include))
print(":".join(sorted(path for path in paths if os.path.isdir(path))))
