"""Shared test doubles: the gear toy in closed form, recording solvers, and run interrupts.

Test modules import them by name (``from conftest import gear_solver``); pytest puts this
folder on ``sys.path``. Also skips the doctests of modules whose optional extra is missing.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.testing import (  # noqa: F401  (the tests import them from here)
    FailingSolver,
    GearKStep,
    Interrupt,
    gear_curve,
    interrupt_after,
)

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


#: Gear of the toy problem used across the tests: front ((1-x)^2, x^2) at x = gear_x(w).
P = 9.0


def gear_x(w: float | np.ndarray, p: float = P) -> Any:
    """Exact LS minimizer of the gear toy ``sqrt(p)/2 (x-1)^2, x^2/2``."""
    r = math.sqrt(p)
    return r * w / (1 + (r - 1) * w)


def gear_phi(w: np.ndarray) -> np.ndarray:
    """True arc-length CDF of ((1-x)^2, x^2) along x = gear_x(w), from the antiderivative of
    2 sqrt(2x^2 - 2x + 1) (substituting u = 2x - 1: sqrt(2) * (u sqrt(1+u^2) + asinh u) / 2)."""

    def s(x: np.ndarray) -> np.ndarray:
        u = 2 * x - 1
        return (u * np.sqrt(1 + u * u) + np.arcsinh(u)) / np.sqrt(2)

    return (s(gear_x(w)) - s(0.0)) / (s(1.0) - s(0.0))


def gear_solver(w: float, state: object) -> ps.Solution:
    """Exact gear-toy solver (a plain callable; ignores its warm start)."""
    x = gear_x(w)
    return ps.Solution([(1 - x) ** 2, x**2], state=x, info={"steps": 1})


class CountingSolver:
    """Exact gear-toy solver recording every ``(weight, state)`` call; offers ``solve_many``.

    Its states are ``("slot-state", w)``, so a test can tell which solve a warm start came
    from.
    """

    def __init__(self) -> None:
        self.calls: list[tuple[float, object]] = []
        self.batches = 0

    def solve(self, w: float, state: object) -> ps.Solution:
        self.calls.append((w, state))
        return ps.Solution(gear_solver(w, state).objectives, state=("slot-state", w))

    def solve_many(self, weights: Sequence[float], states: Sequence[object]) -> list[ps.Solution]:
        self.batches += 1
        return [self.solve(float(w), s) for w, s in zip(weights, states, strict=True)]


def no_rounds(res: ps.SurfResult) -> ps.SurfResult:
    """``res`` as a run that solved no round returns it (its method finished before its first
    round): no history, no points, the identity CDF for SURF."""
    p = len(res.weights)
    return ps.SurfResult(
        method=res.method,
        label=res.label,
        settings=res.settings,
        weights=res.weights,
        points=np.empty((p, 0)),
        states=[None] * p,
        cdf=None if res.cdf is None else ps.ArcLengthCDF.identity(),
        history=[],
        n_solves=0,
        n_steps=0,
        converged=False,
        stop_reason="method",
        success=False,
        message=f"{res.label}: no round was run",
        findings=[],
    )


@pytest.fixture()
def close_figures() -> Any:
    """Close every matplotlib figure a test opened (use with ``pytest.mark.usefixtures``)."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def call_cli(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    """``paretosurf.cli.main(argv)``'s exit status (argparse's too), stdout and stderr."""
    from paretosurf import cli

    try:
        status = cli.main(argv)
    except SystemExit as exc:
        status = int(exc.code or 0)
    text = capsys.readouterr()
    return status, text.out, text.err
