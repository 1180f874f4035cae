"""Proposition 1's speed on the MO-Gymnasium models against finite differences of the front."""

from __future__ import annotations

import numpy as np
import pytest

import paretosurf as ps


def richardson_speed(problem, w: np.ndarray, h: float) -> np.ndarray:
    """||d f_PF / dw|| by central differences with one Richardson step (error O(h^4))."""

    def central(step: float) -> np.ndarray:
        return (problem.front(w + step) - problem.front(w - step)) / (2 * step)

    return np.linalg.norm((4 * central(h / 2) - central(h)) / 3, axis=1)


@pytest.mark.parametrize(
    ("make", "h"),
    [
        (lambda: ps.problems.deep_sea_treasure("concave"), 2e-4),
        (lambda: ps.problems.deep_sea_treasure("convex"), 2e-4),
        (lambda: ps.problems.fishwood(), 1e-3),
    ],
    ids=["dst-concave", "dst-convex", "fishwood"],
)
def test_speed_matches_finite_differences(make, h: float) -> None:
    problem = make()
    w = np.array([0.02, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 0.98])
    np.testing.assert_allclose(problem.speed(w), richardson_speed(problem, w, h), rtol=1e-5)
