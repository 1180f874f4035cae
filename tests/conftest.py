"""Shared test doubles: the gear toy in closed form, recording solvers, and run interrupts.

Test modules import them by name (``from conftest import gear_solver``); pytest puts this
folder on ``sys.path``. Also skips the doctests of modules whose optional extra is missing.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps

_SRC = Path(ps.__file__).resolve().parent

#: Module or package of src/paretosurf -> the modules its examples need (its extra).
_DOCTESTS_NEED = {
    "adapters/torch_solver.py": ("torch",),
    "problems/mountaincar": ("torch",),
    "llm": ("torch", "transformers", "peft", "trl", "datasets", "safetensors"),
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the doctests of a module whose extra is not installed (the extra's tests are
    skipped the same way)."""
    for relative, modules in _DOCTESTS_NEED.items():
        missing = [m for m in modules if importlib.util.find_spec(m) is None]
        if not missing:
            continue
        target = _SRC / relative
        for item in items:
            path = Path(item.path).resolve()
            if isinstance(item, pytest.DoctestItem) and (path == target or
                                                         target in path.parents):
                item.add_marker(pytest.mark.skip(reason=f"needs {', '.join(missing)}"))

#: Gear of the toy problem used across the tests: front ((1-x)^2, x^2) at x = gear_x(w).
P = 9.0


def gear_x(w: float | np.ndarray, p: float = P) -> Any:
    """Exact LS minimizer of the gear toy ``sqrt(p)/2 (x-1)^2, x^2/2``."""
    r = math.sqrt(p)
    return r * w / (1 + (r - 1) * w)


def gear_curve(x: float | np.ndarray) -> np.ndarray:
    """The gear toy's objectives ``((1 - x)^2, x^2)`` (points of shape (..., 2))."""
    x = np.asarray(x, dtype=np.float64)
    return np.stack([(1 - x) ** 2, x**2], axis=-1)


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

    def solve_many(self, weights: Sequence[float], states: Sequence[object]
                   ) -> list[ps.Solution]:
        self.batches += 1
        return [self.solve(float(w), s) for w, s in zip(weights, states, strict=True)]


class GearKStep:
    """K plain gradient steps on the gear toy's scalarization, warm-started from ``x``.

    Inexact and history-dependent: a slot's result depends on every call it received, so a
    resumed run equals an uninterrupted one only if every warm start was restored. Picklable
    (for process executors), with ``interpolate``/``evaluate`` for Soup. ``calls`` counts the
    calls made in this process.
    """

    def __init__(self, steps: int = 3, lr: float = 0.15, p: float = P) -> None:
        self.steps, self.lr, self.root = steps, lr, math.sqrt(p)
        self.calls = 0

    def solve(self, w: float, state: float | None) -> ps.Solution:
        self.calls += 1
        x = 0.5 if state is None else float(state)
        for _ in range(self.steps):
            x -= self.lr * (w * self.root * (x - 1) + (1 - w) * x)
        return ps.Solution(gear_curve(x), state=x, info={"steps": self.steps})

    def evaluate(self, state: float) -> np.ndarray:
        return gear_curve(float(state))

    def interpolate(self, state0: float, state1: float, t: float) -> float:
        return (1 - t) * float(state0) + t * float(state1)


class FailingSolver:
    """Raises on every call (a finished run must not solve again)."""

    def solve(self, w: float, state: object) -> ps.Solution:
        raise AssertionError(f"unexpected solve at weight {w}")

    def evaluate(self, state: float) -> np.ndarray:
        return gear_curve(float(state))

    def interpolate(self, state0: float, state1: float, t: float) -> float:
        return (1 - t) * float(state0) + t * float(state1)


def no_rounds(res: ps.SurfResult) -> ps.SurfResult:
    """``res`` as a run that solved no round returns it (its method finished before its first
    round): no history, no points, the identity CDF for SURF."""
    p = len(res.weights)
    return ps.SurfResult(
        method=res.method, label=res.label, settings=res.settings, weights=res.weights,
        points=np.empty((p, 0)), states=[None] * p,
        cdf=None if res.cdf is None else ps.ArcLengthCDF.identity(), history=[], n_solves=0,
        n_steps=0, converged=False, stop_reason="method", success=False,
        message=f"{res.label}: no round was run", findings=[])


class Interrupt(Exception):
    """Raised by :func:`interrupt_after` to simulate a run killed between two rounds."""


def interrupt_after(rounds: int) -> Callable[[ps.IterationRecord], None]:
    """A callback that raises :class:`Interrupt` once ``rounds`` rounds are done (and saved)."""

    def callback(record: ps.IterationRecord) -> None:
        if record.iteration == rounds - 1:
            raise Interrupt

    return callback


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
