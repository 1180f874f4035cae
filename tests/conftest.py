"""The suite's hooks and fixtures: the doctests of modules whose optional extra is missing
are skipped, Ray tests marked, figures closed. Shared test doubles are in ``support.py`` (the
gear toy in closed form, recording solvers) and in :mod:`paretosurf.testing`."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

import paretosurf as ps

_SRC = Path(ps.__file__).resolve().parent

#: Module or package of src/paretosurf -> the modules its examples need (its extra).
_DOCTESTS_NEED = {
    "adapters/torch_solver.py": ("torch",),
    "problems/mountaincar": ("torch",),
    "llm": ("torch", "transformers", "peft", "trl", "datasets", "safetensors"),
}


def _uses_ray(item: pytest.Item) -> bool:
    """Whether a test starts or uses a local Ray instance (the ``ray_instance`` fixture, or a
    ``use_ray=True`` parameter): 10 to 60 s each on two cores."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return "ray_instance" in getattr(item, "fixturenames", ()) or params.get("use_ray") is True


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the doctests of a module whose extra is not installed (the extra's tests are
    skipped the same way), and mark the tests that run on Ray slow: they run in the slow
    job (``make test-slow``), which keeps the default run short."""
    for item in items:
        if _uses_ray(item):
            item.add_marker(pytest.mark.slow)
    for relative, modules in _DOCTESTS_NEED.items():
        missing = [m for m in modules if importlib.util.find_spec(m) is None]
        if not missing:
            continue
        target = _SRC / relative
        for item in items:
            path = Path(item.path).resolve()
            if isinstance(item, pytest.DoctestItem) and (path == target or target in path.parents):
                item.add_marker(pytest.mark.skip(reason=f"needs {', '.join(missing)}"))


@pytest.fixture()
def close_figures() -> Any:
    """Close every matplotlib figure a test opened (use with ``pytest.mark.usefixtures``)."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
