"""Griffe extension for the docs build: entry functions' loop options, as Python sees them.

An entry function's docstring holds a ``<loop options>`` line that
``paretosurf.loop._options.document_loop_options`` replaces, at import, by the shared
description of every loop option. Griffe reads the source, not the imported function, so for
such a function this extension takes the docstring of the imported one instead: the API pages
show what ``help(ps.surf)`` shows, and the shared text stays written once.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import griffe

PLACEHOLDER = "<loop options>"


class LoopOptionsDocstrings(griffe.Extension):
    def on_function_instance(self, *, func: griffe.Function, **kwargs: Any) -> None:
        if func.docstring is None or not any(
                line.strip() == PLACEHOLDER for line in func.docstring.value.splitlines()):
            return
        obj: Any = importlib.import_module(func.module.path)
        for name in func.path[len(func.module.path) + 1:].split("."):
            obj = getattr(obj, name)
        doc = inspect.getdoc(obj)
        if doc is None or any(line.strip() == PLACEHOLDER for line in doc.splitlines()):
            raise RuntimeError(f"{func.path}: the imported docstring still has {PLACEHOLDER!r}")
        func.docstring.value = doc
