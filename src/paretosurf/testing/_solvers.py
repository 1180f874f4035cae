"""The test doubles of the contracts: the toy problems' K-step solvers, a solver that
must not be called, a closed-form solver for executors, and a simulated kill."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf.result import IterationRecord
from paretosurf.solvers import Solution

#: Gear of the two-objective toy: front ``((1 - x)^2, x^2)`` at ``x = gear_x(w)``.
GEAR = 9.0


def gear_curve(x: Any) -> np.ndarray:
    """The gear toy's objectives ``((1 - x)^2, x^2)`` (points of shape ``(..., 2)``).

    Examples
    --------
    >>> from paretosurf.testing import gear_curve
    >>> gear_curve(0.5).tolist()
    [0.25, 0.25]
    """
    x = np.asarray(x, dtype=np.float64)
    return np.stack([(1 - x) ** 2, x**2], axis=-1)


class GearKStep:
    """K plain gradient steps on the gear toy's scalarization, warm-started from ``x``.

    Inexact and history-dependent: a slot's result depends on every call it received, so a
    resumed run equals an uninterrupted one only if every warm start was restored. Picklable
    (for process executors), with ``interpolate``/``evaluate`` for Soup. ``calls`` counts the
    calls made in this process.

    Examples
    --------
    >>> from paretosurf.testing import GearKStep
    >>> solver = GearKStep()
    >>> sol = solver.solve(0.5, None)
    >>> sol.objectives.shape, solver.calls, sol.info["steps"]
    ((2,), 1, 3)
    """

    def __init__(self, steps: int = 3, lr: float = 0.15, p: float = GEAR) -> None:
        self.steps, self.lr, self.root = steps, lr, math.sqrt(p)
        self.calls = 0

    def solve(self, w: float, state: float | None) -> Solution:
        self.calls += 1
        x = 0.5 if state is None else float(state)
        for _ in range(self.steps):
            x -= self.lr * (w * self.root * (x - 1) + (1 - w) * x)
        return Solution(gear_curve(x), state=x, info={"steps": self.steps})

    def evaluate(self, state: float) -> np.ndarray:
        return gear_curve(float(state))

    def interpolate(self, state0: float, state1: float, t: float) -> float:
        return (1 - t) * float(state0) + t * float(state1)


class DiskGearKStep(GearKStep):
    """:class:`GearKStep` keeping its states on disk (``save_state``/``load_state``): a solver
    whose states a run keeps as folders (:mod:`paretosurf.storage`), for executor tests.

    Examples
    --------
    >>> import tempfile
    >>> from paretosurf.testing import DiskGearKStep
    >>> solver = DiskGearKStep()
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     solver.save_state(0.25, folder)
    ...     solver.load_state(folder)
    0.25
    """

    def save_state(self, state: float, folder: str | os.PathLike[str]) -> None:
        np.save(Path(folder) / "x.npy", np.array([state]))

    def load_state(self, folder: str | os.PathLike[str]) -> float:
        return float(np.load(Path(folder) / "x.npy")[0])


class BowlKStep:
    """K gradient steps on ``sum_m w_m h_m(x)``, ``h_m(x) = s_m |x - e_m|^2 / 2`` in R^M,
    warm-started from ``x``: the three-objective counterpart of :class:`GearKStep`.

    Examples
    --------
    >>> from paretosurf.testing import BowlKStep
    >>> sol = BowlKStep().solve([1.0, 0.0, 0.0], None)
    >>> sol.objectives.shape, sol.state.shape
    ((3,), (3,))
    """

    def __init__(self, n_objectives: int = 3, steps: int = 3, lr: float = 0.3) -> None:
        self.m, self.steps, self.lr = n_objectives, steps, lr
        self.scale = 1.0 + np.arange(n_objectives, dtype=np.float64)  # uneven units
        self.calls = 0

    def solve(self, w: Any, state: np.ndarray | None) -> Solution:
        self.calls += 1
        w = np.asarray(w, dtype=np.float64)
        x = np.full(self.m, 1.0 / self.m) if state is None else np.array(state, dtype=float)
        sw = w * self.scale
        for _ in range(self.steps):
            x = x - self.lr * (sw.sum() * x - sw) / max(float(sw.max()), 1e-12)
        return Solution(self.evaluate(x), state=x, info={"steps": self.steps})

    def evaluate(self, state: Any) -> np.ndarray:
        x = np.asarray(state, dtype=np.float64)
        return np.asarray(0.5 * self.scale * ((x[None, :] - np.eye(self.m)) ** 2).sum(axis=1))

    def interpolate(self, state0: Any, state1: Any, t: float) -> np.ndarray:
        return np.asarray((1 - t) * np.asarray(state0) + t * np.asarray(state1))


class FailingSolver:
    """Raises on every call (a finished run must not solve again); evaluates and
    interpolates gear-toy states, for Soup."""

    def solve(self, w: Any, state: object) -> Solution:
        raise AssertionError(f"unexpected solve at weight {w}")

    def evaluate(self, state: float) -> np.ndarray:
        return gear_curve(float(state))

    def interpolate(self, state0: float, state1: float, t: float) -> float:
        return (1 - t) * float(state0) + t * float(state1)


class Interrupt(Exception):
    """Raised by :func:`interrupt_after` to simulate a run killed between two rounds."""


def interrupt_after(rounds: int) -> Callable[[IterationRecord], None]:
    """A callback that raises :class:`Interrupt` once ``rounds`` rounds are done (and saved).

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.testing import GearKStep, Interrupt, interrupt_after
    >>> try:
    ...     ps.surf(GearKStep(), 4, iterations=5, callback=interrupt_after(2))
    ... except Interrupt:
    ...     print("killed after round 2")
    killed after round 2
    """

    def callback(record: IterationRecord) -> None:
        if record.iteration == rounds - 1:
            raise Interrupt

    return callback


class QuadraticSolver:
    """The exact minimizer of the gear toy's plain scalarization with a pull towards its warm
    start, in closed form: deterministic, cheap and picklable, for
    :class:`ExecutorContract`.

    At weight ``w`` and warm start ``s`` (``0.5`` for a cold start) it returns
    ``x = (w + pull * s) / (1 + pull)``, the minimizer of
    ``w (x - 1)^2 + (1 - w) x^2 + pull (x - s)^2``, with objectives ``((1 - x)^2, x^2)`` and
    state ``x``: an executor that loses a task's warm start or weight gives another
    solution. A weight in ``fail_at`` raises ``ValueError``. ``calls`` counts the calls
    made in this process.

    Examples
    --------
    >>> from paretosurf.testing import QuadraticSolver
    >>> sol = QuadraticSolver().solve(0.5, 0.2)
    >>> sol.state, sol.objectives.tolist()
    (0.35, [0.42250000000000004, 0.12249999999999998])
    >>> QuadraticSolver(fail_at=(0.5,)).solve(0.5, None)
    Traceback (most recent call last):
        ...
    ValueError: no solution at weight 0.5
    """

    def __init__(self, pull: float = 1.0, fail_at: tuple[float, ...] = ()) -> None:
        self.pull, self.fail_at = float(pull), tuple(float(w) for w in fail_at)
        self.calls = 0

    def solve(self, w: float, state: float | None) -> Solution:
        self.calls += 1
        w = float(w)
        if w in self.fail_at:
            raise ValueError(f"no solution at weight {w:g}")
        s = 0.5 if state is None else float(state)
        x = (w + self.pull * s) / (1 + self.pull)
        return Solution(gear_curve(x), state=x, info={"weight": w})
