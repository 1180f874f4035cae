"""``early_stopping`` (default True): a run of a method that aims at even spacing ends after
the first round whose points meet ``target`` while its weights have settled, with
``stop_reason="done"``; ``iterations`` is then a cap. Also the objective evaluations each
round records (``IterationRecord.evaluations``, ``Result.n_evaluations``)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.problems import GearToy
from paretosurf.testing import Interrupt
from support import gear_solver

N = 10
CAP = 30
#: The settled test's share of the weight spacing 1/N (the documented 2%).
SETTLED = 0.02


def endpoint_coordinates(points: np.ndarray) -> np.ndarray:
    """The run's default coordinates (``normalize="endpoints"``), written out here: each
    objective divided by its range over the two end points."""
    ends = points[[0, -1]]
    lo, hi = ends.min(axis=0), ends.max(axis=0)
    return (points - lo) / (hi - lo)


def undamped_change(record: ps.IterationRecord) -> float:
    """How far a full step from ``record``'s round would move the weights, from the round's
    weights and points alone: the chord-length CDF of the points (their arc-length levels
    interpolated by PCHIP, built here by :meth:`ArcLengthCDF.from_front`) inverted at
    ``n / N``, against the weights solved."""
    w = np.asarray(record.weights, dtype=float)
    estimate = ps.ArcLengthCDF.from_front(w, endpoint_coordinates(record.points))
    full_step = estimate.inverse(np.arange(len(w)) / (len(w) - 1))
    return float(np.max(np.abs(full_step - w)))


def meets_stop_rule(record: ps.IterationRecord, target: float = 2.0, n: int = N) -> bool:
    """Whether ``record``'s round meets the documented stop rule (computed here)."""
    return record.gap_ratio <= target and undamped_change(record) < SETTLED / n


# ------------------------------------------------------------------------ when a run stops
def test_a_default_run_stops_done_at_the_first_even_and_settled_round() -> None:
    res = ps.surf(GearToy(9).solver(), N, iterations=CAP)
    rounds = len(res.history)
    assert res.stop_reason == "done" and 1 < rounds < CAP
    last = res.history[-1]
    assert last.gap_ratio <= 2 and res.gap_ratio <= 2 and res.success
    # the weights had settled, measured independently of the method ...
    assert undamped_change(last) < SETTLED / N
    # ... and no earlier round met both conditions: the run ended at the first that did
    assert not any(meets_stop_rule(r) for r in res.history[:-1])
    assert res.n_solves == rounds * (N + 1)
    assert res.history[0].cv > 0.5  # uniform weights: badly uneven on the gear toy


def test_without_early_stopping_every_round_runs() -> None:
    res = ps.surf(GearToy(9).solver(), N, iterations=CAP, early_stopping=False)
    assert res.stop_reason == "iterations" and len(res.history) == CAP
    assert res.n_solves == CAP * (N + 1)
    # the rule was met well before the cap: only the option kept the run going
    assert any(meets_stop_rule(r) for r in res.history[:-1])


def test_a_tighter_target_stops_later_and_meets_it() -> None:
    # with 21 points the default run ends settled at a gap ratio above 1.01
    n = 20
    default = ps.surf(GearToy(9).solver(), n, iterations=CAP)
    tight = ps.surf(GearToy(9).solver(), n, iterations=CAP, target=1.01)
    assert default.stop_reason == tight.stop_reason == "done"
    assert len(tight.history) > len(default.history)
    assert tight.history[-1].gap_ratio <= 1.01 < default.history[-1].gap_ratio
    assert undamped_change(tight.history[-1]) < SETTLED / n
    assert not any(meets_stop_rule(r, 1.01, n) for r in tight.history[:-1])


class NoisyGear:
    """The gear toy's exact solutions with seeded Gaussian noise on every evaluation: the
    chord-length CDF, and with it the weights, move every round by about the noise."""

    def __init__(self, sd: float, seed: int = 0) -> None:
        self.inner = GearToy(9).solver()
        self.sd = sd
        self.rng = np.random.default_rng(seed)

    def solve(self, weight: float, state: Any) -> ps.Solution:
        sol = self.inner.solve(weight, state)
        return ps.Solution(sol.objectives + self.sd * self.rng.standard_normal(2), sol.state)


def test_weights_that_never_settle_run_to_the_cap() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)  # noisy points: advice expected
        res = ps.surf(NoisyGear(0.01), N, iterations=12)
    assert res.stop_reason == "iterations" and len(res.history) == 12
    # independent check that the stop rule never held (the noise moves the weights by far
    # more than 2% of their spacing each round)
    changes = [undamped_change(r) for r in res.history]
    assert min(changes) > SETTLED / N


def test_a_baseline_never_stops_early() -> None:
    """Uniform-w's weights never move and on a gentle gear its points meet SURF's target:
    only a method that aims at even spacing stops early."""
    solver = GearToy(1).solver()
    res = ps.methods.uniform(solver, N, iterations=5)
    assert all(r.gap_ratio <= 2 for r in res.history)  # SURF's rule would have held
    assert res.stop_reason == "iterations" and len(res.history) == 5
    ols = ps.methods.ols(solver, N)
    assert ols.stop_reason in ("iterations", "method")


def test_resuming_a_run_that_stopped_done_without_early_stopping_continues_it(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "run"
    stopped = ps.surf(GearToy(9).solver(), N, iterations=CAP, checkpoint=folder)
    k = len(stopped.history)
    assert stopped.stop_reason == "done" and k < CAP
    total = k + 4
    resumed = ps.surf(
        GearToy(9).solver(),
        N,
        iterations=total,
        checkpoint=folder,
        resume=True,
        early_stopping=False,
    )
    assert resumed.stop_reason == "iterations" and len(resumed.history) == total
    for a, b in zip(resumed.history[:k], stopped.history, strict=True):
        np.testing.assert_array_equal(a.weights, b.weights)
    # the same as a run that never stopped early
    whole = ps.surf(GearToy(9).solver(), N, iterations=total, early_stopping=False)
    np.testing.assert_array_equal(resumed.weights, whole.weights)
    np.testing.assert_array_equal(resumed.points, whole.points)


# ------------------------------------------------------------------ objective evaluations
class CountedObjectives:
    """ZDT1 of 6 variables, counting its calls (the independent count)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self.calls += 1
        g = 1 + 9 * np.mean(x[1:])
        return np.array([x[0], g * (1 - np.sqrt(x[0] / g))])


def counted_solver() -> tuple[Any, CountedObjectives]:
    objectives = CountedObjectives()
    solver = ps.adapters.from_scipy(objectives, x0=np.full(6, 0.5), bounds=[(0, 1)] * 6)
    objectives.calls -= 1  # the solves' calls: not objectives(x0), which checks x0
    return solver, objectives


RUN = {"iterations": 6, "weight_bounds": (1e-3, 1 - 1e-3), "early_stopping": False}


def total(res: ps.Result) -> int:
    """The records' evaluations and those of the end solves before the first round."""
    assert all(r.evaluations is not None for r in res.history)
    ends = 0 if res.front_ends is None else res.front_ends.evaluations
    return ends + sum(int(np.sum(r.evaluations)) for r in res.history)


def test_recorded_evaluations_are_the_objective_calls(tmp_path: Path) -> None:
    solver, objectives = counted_solver()
    res = ps.surf(solver, 6, **RUN)
    assert objectives.calls > len(res.history) * 7  # more than one call per solve
    assert total(res) == objectives.calls == res.n_evaluations
    assert all(r.evaluations.shape == (7,) for r in res.history)
    res.save(tmp_path / "run")
    back = ps.Result.load(tmp_path / "run.json")
    assert back.n_evaluations == objectives.calls
    for a, b in zip(back.history, res.history, strict=True):
        np.testing.assert_array_equal(a.evaluations, b.evaluations)


def test_recorded_evaluations_survive_a_checkpoint_resume(tmp_path: Path) -> None:
    solver, objectives = counted_solver()

    def stop_after_three(record: ps.IterationRecord) -> None:
        if record.iteration == 2:
            raise Interrupt

    with pytest.raises(Interrupt):
        ps.surf(
            solver, 6, checkpoint=tmp_path, callback=stop_after_three, checkpoint_period=0, **RUN
        )
    first = objectives.calls
    objectives.calls = 0
    resumed = ps.surf(solver, 6, checkpoint=tmp_path, resume=True, **RUN)
    assert len(resumed.history) == RUN["iterations"]
    assert resumed.front_ends is not None  # (found before the first round, counted in it)
    kept = resumed.front_ends.evaluations + sum(
        int(np.sum(r.evaluations)) for r in resumed.history[:3]
    )
    assert kept == first  # the rounds saved before the interruption, as they were counted
    assert total(resumed) - kept == objectives.calls  # the rounds run after it
    assert resumed.n_evaluations == first + objectives.calls
    assert ps.Result.load(tmp_path).n_evaluations == resumed.n_evaluations


def test_n_evaluations_is_none_for_a_solver_that_reports_no_counts() -> None:
    res = ps.surf(gear_solver, 4, iterations=3)
    assert res.n_evaluations is None
    assert all(r.evaluations is None for r in res.history)


def test_surf_simplex_with_two_objectives_stops_where_surf_stops() -> None:
    scalar = GearToy(9).solver()

    def vector(w: np.ndarray, state: Any) -> ps.Solution:
        return scalar.solve(float(w[0]), state)

    surf = ps.surf(scalar, N, iterations=8)
    simplex = ps.surf_simplex(vector, N + 1, 2, iterations=8, warm_start="slot")
    assert surf.stop_reason == simplex.stop_reason == "done"
    assert len(simplex.history) == len(surf.history)
