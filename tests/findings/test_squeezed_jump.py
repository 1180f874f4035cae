"""A gap that objectives of disparate units make: a convex front whose objectives' ranges lie
ten million apart sits, in raw weights, within 1e-7 of one end; the run's gap there is no jump
of the front, and the remedy is weights in the run's units, not another scalarization."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar

import paretosurf as ps
from paretosurf.curves import Jump
from paretosurf.findings._jumps import squeezed_balance


def design(w: float, state: Any) -> ps.Solution:
    """A 1-D design with two costs in other units: metres squared (times 1e3) against a
    pressure in kilopascals; convex, so that weighted sums reach every point."""

    def scalarized(x: float) -> float:
        return w * (x - 2.0) ** 2 * 1e3 + (1 - w) * 0.01 * np.exp(-x) ** 2

    x = minimize_scalar(scalarized, bounds=(0, 4), method="bounded", options={"xatol": 1e-10}).x
    return ps.Solution([(x - 2.0) ** 2 * 1e3, 0.01 * np.exp(-x) ** 2], state=x)


def reference(n: int = 200_001) -> np.ndarray:
    """The front on a dense grid of its Pareto set, x in [2, 4]."""
    x = np.linspace(2.0, 4.0, n)
    return np.c_[(x - 2.0) ** 2 * 1e3, 0.01 * np.exp(-x) ** 2]


def run(**options: Any) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return ps.surf(design, 10, iterations=12, early_stopping=False, **options)


def test_the_gap_of_disparate_units_names_weights_in_the_runs_units() -> None:
    res = run()
    jumps = [f for f in res.findings if f.code == "jump"]
    assert len(jumps) == 1 and not res.success
    # the truth: the front is continuous between the gap's points (the dense reference has
    # points all along it) and every point found lies on it
    front = reference()
    span = np.ptp(front, axis=0)
    for p in res.points:
        assert np.min(np.linalg.norm((front - p) / span, axis=1)) < 1e-4
    i, j = jumps[0].slots[:2]
    a, b = np.sort([res.points[i, 0], res.points[j, 0]])
    assert np.count_nonzero((front[:, 0] > a) & (front[:, 0] < b)) > 1000
    assert jumps[0].options == {"weight_bounds": "auto"}
    assert "tchebycheff" not in jumps[0].remedy_text().lower()
    assert "weight_bounds='auto'" in jumps[0].message
    # and the remedy works: the same run in the run's units spreads its points
    fixed = run(weight_bounds="auto")
    assert fixed.success, fixed.message
    assert "jump" not in {f.code for f in fixed.findings}


def test_a_gap_in_the_middle_of_the_weights_is_a_jump_whatever_the_units() -> None:
    # ranges ten million apart, but a gap at weights far from the squeezed end
    weights = np.linspace(0.0, 1.0, 11)
    assert squeezed_balance(weights, np.array([4000.0, 4e-4]), [Jump(4, 0.3)]) is None
    assert squeezed_balance(weights, np.array([4e-4, 4000.0]), [Jump(4, 0.3)]) is None
    # the mirror image: the front squeezed towards w = 1 when objective 2 has the range
    near_one = np.array([0.0, 0.5, 1 - 5e-9, 1.0])
    balance = squeezed_balance(near_one, np.array([3e-4, 4000.0]), [Jump(2, 0.3)])
    assert balance is not None and 1 - balance < 1e-7
