"""warm_start="best": a slot whose solution sits in a poor basin of a multimodal scalarized
problem starts from the solution that scores best at its weight, and reaches the global
minimum where "slot" stays in its basin."""

from __future__ import annotations

import warnings

import numpy as np

import paretosurf as ps
from paretosurf.methods._slots import best_keys


def objectives(x: float) -> np.ndarray:
    """A 1-D problem whose objective 1 has two wells: x = 0 (shallow) and x = 3 (deep)."""
    return np.array([1.0 - np.exp(-((x - 3.0) ** 2)) - 0.5 * np.exp(-(x**2)), 0.1 * x**2])


class LocalSolver:
    """Gradient descent from the warm start (x = 0 when None): exact within its basin."""

    def solve(self, w: float, state: float | None) -> ps.Solution:
        x = 0.0 if state is None else float(state)
        if w >= 1.0:
            x = 3.0  # the end solve lands in the deep basin
        for _ in range(400):
            h = 1e-6
            g = (np.dot([w, 1 - w], objectives(x + h)) - np.dot([w, 1 - w], objectives(x - h))) / (
                2 * h
            )
            x -= 0.2 * g
        return ps.Solution(objectives(x), state=x)


def scalarized(w: float, x: float) -> float:
    return float(np.dot([w, 1 - w], objectives(x)))


def test_best_keys_prefers_the_better_basin() -> None:
    points = np.array([objectives(0.0), objectives(0.2), objectives(3.0)])
    keys = best_keys([0, 1, 2], points, np.array([0.0, 0.9, 1.0]), None)
    # at w = 0.9 the point of x = 3 scores lower than slot 1's own
    assert scalarized(0.9, 3.0) < scalarized(0.9, 0.2)
    assert keys == [0, 2, 2]


def test_best_escapes_where_slot_stays() -> None:
    grid = np.linspace(-1.0, 4.0, 50001)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slot = ps.surf(LocalSolver(), n_points=6, iterations=4, warm_start="slot")
        best = ps.surf(LocalSolver(), n_points=6, iterations=4, warm_start="best")
    lags_slot, lags_best = [], []
    for res, lags in ((slot, lags_slot), (best, lags_best)):
        for w, state in zip(res.weights, res.states, strict=True):
            global_min = min(scalarized(w, x) for x in grid[::50])
            lags.append(scalarized(w, float(state)) - global_min)
    assert max(lags_best) < 1e-3  # every slot at its global minimum
    assert max(lags_slot) > 1e-2  # "slot" leaves at least one in the shallow basin
