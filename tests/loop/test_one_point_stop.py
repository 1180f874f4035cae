"""A run whose points stay one point ends early, with its findings, instead of spending its
whole budget; a run whose points start together and then spread does not."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

import paretosurf as ps
from paretosurf.loop._driver import ONE_POINT_ROUNDS


def quiet(solver: Any, **kwargs: Any) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return ps.surf(solver, **kwargs)


def test_a_solver_that_ignores_the_weight_stops_after_a_few_rounds() -> None:
    calls = []

    def ignores_the_weight(w: float, state: Any) -> ps.Solution:
        calls.append(w)
        return ps.Solution([1.0, 2.0])

    res = quiet(ignores_the_weight, n_points=6, iterations=30)
    assert res.stop_reason == "one_point"
    assert len(res.history) == ONE_POINT_ROUNDS and len(calls) == 6 * ONE_POINT_ROUNDS
    assert not res.success and res.findings  # the findings say why
    # without early stopping the run keeps the paper's protocol: every round
    assert (
        len(quiet(ignores_the_weight, n_points=6, iterations=8, early_stopping=False).history) == 8
    )


def test_points_that_start_together_and_then_spread_run_on() -> None:
    def k_step(w: float, state: Any) -> ps.Solution:
        # gradient steps on w (x - 1)^2 + (1 - w) x^2 from x = 0.5: the first round's points
        # all sit near the start, later rounds spread them along the front
        x = 0.5 if state is None else float(state)
        for _ in range(3):
            x -= 0.05 * (2 * w * (x - 1) + 2 * (1 - w) * x)
        return ps.Solution([(x - 1) ** 2, x**2], state=x)

    res = quiet(k_step, n_points=6, iterations=12, early_stopping=True)
    assert res.stop_reason != "one_point"
    assert np.ptp(res.points, axis=0).min() > 0.1


def test_a_stopped_one_point_run_resumes_as_it_was(tmp_path: Any) -> None:
    def constant(w: float, state: Any) -> ps.Solution:
        return ps.Solution([3.0, 3.0])

    first = quiet(constant, n_points=4, iterations=20, checkpoint=tmp_path / "r")
    again = quiet(constant, n_points=4, iterations=20, checkpoint=tmp_path / "r", resume=True)
    assert first.stop_reason == again.stop_reason == "one_point"
    assert len(again.history) == len(first.history) == ONE_POINT_ROUNDS
