"""What SURF-simplex spends: settled edge points keep their weights, so that their solves
start at their own solutions (``benchmarks/bench_surface_evaluations.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import paretosurf as ps
import paretosurf.methods._surf_simplex as surf_simplex_module
from paretosurf.methods import SETTLED_SPACING
from paretosurf.methods._surf_simplex import HOLD_SETTLED_SHARE, SurfSimplexMethod
from paretosurf.problems import QuadraticM

#: Evaluations of a solve that starts at its own solution at its own weight (a converged
#: solver checks its gradient once), and of any other solve: the cost model of a solver run
#: to convergence, as ``from_scipy``'s L-BFGS-B spends (7 against about 35 on a random
#: quadratic in 5 variables).
OWN_START, OTHER_START = 1, 10


class CostedSolver:
    """The exact solver of a random quadratic, reporting :data:`OWN_START` evaluations for a
    solve warm-started at the very solution it returns, :data:`OTHER_START` otherwise."""

    def __init__(self, problem: QuadraticM) -> None:
        self.exact = problem.solver()

    def solve(self, weight: Any, state: Any = None) -> ps.Solution:
        sol = self.exact.solve(weight)
        own = state is not None and np.array_equal(state, sol.state)
        return ps.Solution(
            sol.objectives, sol.state, {"objective_calls": OWN_START if own else OTHER_START}
        )


def _sweeps(res: ps.Result, n_points: int) -> float:
    """The run's evaluations over one sweep's (every weight solved once from no start)."""
    assert res.n_evaluations is not None
    return res.n_evaluations / (OTHER_START * n_points)


def _edge(t: float) -> list[float]:
    """The weight at position ``t`` on the edge between objectives 1 and 2."""
    return [t, 1.0 - t, 0.0]


def test_an_edge_point_that_barely_moves_keeps_its_weight() -> None:
    method = SurfSimplexMethod(10, 3)
    last = np.array(
        [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            _edge(0.25),
            _edge(0.5),
            _edge(0.75),
            [0.0, 0.5, 0.5],
            [0.5, 0.0, 0.5],
            [0.3, 0.3, 0.4],
            [0.2, 0.5, 0.3],
        ]
    )
    # each edge point's spacing is 0.25 * sqrt(2) in weight space; the hold reaches
    # HOLD_SETTLED_SHARE * SETTLED_SPACING of it
    reach = HOLD_SETTLED_SHARE * SETTLED_SPACING * 0.25 * np.sqrt(2.0)
    step = 0.5 * reach / np.sqrt(2.0)  # a move of half the reach along the edge
    new = last.copy()
    new[3] = _edge(0.25 + step)  # held
    new[4] = _edge(0.5 + 3.0 * step)  # moves 1.5 reaches: not held
    new[8] = [0.3 + step, 0.3 - step, 0.4]  # inside the face: not held
    out = method._hold_settled(new, last)
    rows = {tuple(row) for row in out.tolist()}
    assert tuple(last[3]) in rows and tuple(new[3]) not in rows
    assert tuple(new[4]) in rows and tuple(new[8]) in rows
    assert len(rows) == len(last)
    # the early stop measures the layout's own moves, before the hold
    method.last_weights = last
    method._unheld, method._next = new, out
    full = method.full_step_weights()
    assert full is not None and np.array_equal(full, new)


@pytest.fixture(scope="module")
def quadratic() -> QuadraticM:
    return QuadraticM.random(3, 5, seed=0)


def test_default_run_spends_fewer_sweeps_at_a_longer_runs_evenness(
    quadratic: QuadraticM, monkeypatch: pytest.MonkeyPatch
) -> None:
    """91 points: with the hold, the default run spends under 9 sweeps (7.9), under 0.6
    of what it spends without (17.7); its nearest-neighbour CV is within 10% of the median of
    the last five rounds of a 40-round run, and it succeeds."""
    n = 91
    res = ps.surf_simplex(CostedSolver(quadratic), n, 3)
    long = ps.surf_simplex(CostedSolver(quadratic), n, 3, iterations=40, early_stopping=False)
    settled_cv = float(np.median([r.cv for r in long.history[-5:]]))
    with monkeypatch.context() as patch:
        patch.setattr(surf_simplex_module, "HOLD_SETTLED_SHARE", 0.0)
        unheld = ps.surf_simplex(CostedSolver(quadratic), n, 3)
    assert res.stop_reason == "done" and res.success
    assert res.cv <= 1.1 * settled_cv
    assert _sweeps(res, n) < 9.0
    assert _sweeps(res, n) < 0.6 * _sweeps(unheld, n)
