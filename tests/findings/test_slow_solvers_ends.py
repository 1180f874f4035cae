"""``no_minimizer`` against a slow solver: an end slot whose point still moves every round,
by steps that shrink steadily (linear convergence, if slow), converges to its end; only steps
whose ratio is 1 or rises towards 1 (the weights' norm of logistic loss on separable data)
run along a problem without a minimizer."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.problems import GearToy


def run(rounds: int) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return ps.surf(GearToy(2).gradient_solver(steps=1), 8, iterations=rounds)


@pytest.mark.parametrize("rounds", [5, 30])
def test_a_slow_solver_converging_to_its_ends_is_not_said_to_have_none(rounds: int) -> None:
    res = run(rounds)
    # the truth: the ends' scalarized problems have minimizers, the exact solver's ends
    exact = GearToy(2).solver()
    ends = [np.asarray(exact.solve(w, None).objectives) for w in (0.0, 1.0)]
    for slot, end in zip((0, -1), ends, strict=True):
        path = np.array([r.points[slot] for r in res.history])
        distance = np.linalg.norm(path - end, axis=1)
        # the end slot's point still moves every round, towards its end, by a steady
        # factor below one: linear convergence
        assert np.all(np.diff(distance) < 0)
        ratios = distance[1:] / distance[:-1]
        assert np.all(ratios < 0.97) and ratios[-1] <= ratios[0] + 1e-3
    assert "no_minimizer" not in {f.code for f in res.findings}, res.message
