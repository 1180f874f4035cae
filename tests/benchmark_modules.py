"""A benchmark script (``benchmarks/NAME.py``) loaded as a module for a test."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@contextlib.contextmanager
def benchmark_module(name: str) -> Iterator[ModuleType]:
    """``benchmarks/<name>.py`` as the module ``name``: registered in ``sys.modules`` (the
    dataclasses it defines look their module up there), with ``benchmarks/`` on ``sys.path``
    for its own imports (``_bench_io``, other benchmarks); both undone on exit."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
            yield module
        finally:
            sys.modules.pop(name, None)
    finally:
        sys.path.remove(str(BENCHMARKS))
