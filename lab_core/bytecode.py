"""Compiled bytecode for the browser runtime, kept between visits.

Pyodide 0.17 ships NumPy as 374 .py sources and runs with
sys.dont_write_bytecode, so every page load compiles the ~100 modules that
`import numpy` needs (about 0,3 s). After the lab is live, the page compiles
those modules in small idle-time slices into .pyc files, zips them and keeps
the zip in the browser's Cache Storage; on the next visit it unpacks them
before `import numpy`.

The .pyc files are "unchecked hash" pycs (PEP 552): the runtime's file system
gives every source a new timestamp at each load, so timestamp pycs would
never validate. The page keys the cache by runtime version, so a different
runtime never sees them. Pure stdlib: this module must import without NumPy.
"""
from __future__ import annotations

import importlib.util
import os
import py_compile
import sys
import zipfile


class CompileJob:
    """Compile the sources of already-imported modules under `root`, a few at a time."""

    def __init__(self, root):
        root = os.path.join(root, "")
        self.sources = sorted({
            module.__file__ for module in list(sys.modules.values())
            if isinstance(getattr(module, "__file__", None), str)
            and module.__file__.endswith(".py") and module.__file__.startswith(root)
        })
        self.done = []

    def step(self, count):
        """Compile up to `count` more sources; return how many remain."""
        for source in self.sources[len(self.done):len(self.done) + count]:
            target = importlib.util.cache_from_source(source)
            py_compile.compile(source, cfile=target, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
            self.done.append(target)
        return len(self.sources) - len(self.done)

    def pack(self, path):
        """Zip the compiled files (stored under their absolute paths) to `path`."""
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
            for target in self.done:
                archive.write(target, arcname=target.lstrip("/"))
        return len(self.done)


def unpack(path):
    """Put the cached .pyc files back in place; return how many."""
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        archive.extractall("/")
    return len(names)
