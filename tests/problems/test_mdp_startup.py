"""The MDPs' K-step solver starts a run as the paper's protocol does, so the shortest call works.

``ps.surf(deep_sea_treasure().gradient_solver(steps=100), 15)`` used to end with the interior
slots stalled on the nearest treasure's plateau (CV 2.9): only ``paretosurf bench`` warmed the
ends up and started the interior slots from the treasure-seeking end. The solver now makes that
start-up itself (:meth:`MDPGradientSolver.initial_states`), counted in the run's solves and
steps, and the benchmark tasks build theirs with the same code. Every front is judged against
the exact one (the problem's exact solver), not the run's own figures.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.bench import get_task
from paretosurf.problems.mdp import MDPGradientSolver, RegularizedMDP
from paretosurf.solvers import GradientState, gradient_starts

#: Points of the exact front (evenly spaced in arc length) the run's points are projected on.
DENSE = 2001


def _judge(problem: RegularizedMDP, points: np.ndarray) -> dict[str, float]:
    """The run's points against the exact front, in the coordinates the run spaces them in
    (each objective scaled by its range over the exact front, ``normalize="endpoints"``):
    the largest distance to the front, the CV of the arc-length gaps between the points'
    projections on the front, the arc-length places of the first and last point (0 and 1 at
    the front's ends), and the CV of evenly spaced weights on the exact front (the bound)."""
    dense = problem.reference_front(DENSE)
    lo, hi = dense.min(axis=0), dense.max(axis=0)

    def scaled(x: np.ndarray) -> np.ndarray:
        return (x - lo) / (hi - lo)

    a, b = scaled(dense[:-1]), scaled(dense[1:])  # the front's segments
    length = np.linalg.norm(b - a, axis=1)
    arc = np.r_[0.0, np.cumsum(length)]
    x = scaled(points)[:, None, :]
    t = np.clip(np.sum((x - a) * (b - a), axis=2) / length**2, 0.0, 1.0)
    d = np.linalg.norm(a + t[..., None] * (b - a) - x, axis=2)
    nearest = d.argmin(axis=1)
    rows = np.arange(len(points))
    at = (arc[nearest] + t[rows, nearest] * length[nearest]) / arc[-1]
    gaps = np.diff(at)
    even_w = scaled(problem.front(np.linspace(0.0, 1.0, len(points))))
    even_gaps = np.linalg.norm(np.diff(even_w, axis=0), axis=1)
    return {
        "distance": float(d[rows, nearest].max()),
        "cv": float(gaps.std() / gaps.mean()),
        "first": float(at[0]),
        "last": float(at[-1]),
        "cv_even_weights": float(even_gaps.std() / even_gaps.mean()),
        "spacing": 1.0 / (len(points) - 1),
    }


@pytest.mark.parametrize(
    ("make", "n", "steps"),
    [
        (lambda: ps.problems.deep_sea_treasure(), 15, 100),
        (lambda: ps.problems.deep_sea_treasure("convex"), 15, 100),
        (lambda: ps.problems.fishwood(), 11, 100),
    ],
    ids=["dst", "dst-convex", "fishwood"],
)
def test_the_shortest_call_reaches_an_even_front(
    make: Callable[[], RegularizedMDP], n: int, steps: int
) -> None:
    problem = make()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ps.ParetoWarning)  # no finding that fails the run
        res = ps.surf(problem.gradient_solver(steps=steps), n)
    assert res.success, res.message
    score = _judge(problem, res.points)
    assert score["distance"] < 2e-3  # every point on the exact front (scaled units)
    # evenly spaced by arc length: far more even than evenly spaced weights, and within 10%
    assert score["cv"] < min(0.1, 0.1 * score["cv_even_weights"]), score
    # from end to end: the first and last points within a tenth of a spacing of the ends
    assert score["first"] < 0.1 * score["spacing"] and score["last"] > 1 - 0.1 * score["spacing"]


def test_the_start_up_counts_in_the_runs_solves_and_steps() -> None:
    problem = ps.problems.deep_sea_treasure()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)  # two rounds: not even yet
        res = ps.surf(problem.gradient_solver(steps=100), 15, iterations=2)
        # the user's warm starts replace it
        solver = problem.gradient_solver(steps=100)
        given = ps.surf(solver, 15, iterations=2, init_states=[None] * 16)
    # two rounds of 16 slots, and the two ends' warm-up solves of 500 steps
    assert (res.n_solves, res.n_steps) == (2 * 16 + 2, 2 * 16 * 100 + 2 * 500)
    assert (given.n_solves, given.n_steps) == (2 * 16, 2 * 16 * 100)


def test_the_start_up_is_the_papers_protocol() -> None:
    problem = ps.problems.deep_sea_treasure()
    solver = problem.gradient_solver(steps=100)
    assert (solver.warmup_steps, solver.interior_start) == (500, "endpoint1")
    weights = [i / 4 for i in range(5)]
    start = solver.initial_states(weights)
    assert start is not None and (start.solves, start.steps) == (2, 1000)
    warm = problem.gradient_solver(steps=500)
    ends = [warm.solve(0.0, None).state, warm.solve(1.0, None).state]
    np.testing.assert_array_equal(start.states[0].params, ends[0].params)
    np.testing.assert_array_equal(start.states[-1].params, ends[1].params)
    for state in start.states[1:-1]:  # the treasure-seeking end, fresh moments
        np.testing.assert_array_equal(state.params, ends[1].params)
        assert not state.m.any() and not state.v.any() and state.t == 0
        assert state.params is not start.states[-1].params
    # the other MDPs start cold, as the paper's Fishwood protocol does
    assert ps.problems.fishwood().gradient_solver(steps=100).initial_states(weights) is None
    # settings of the solver's own override the problem's
    cold = MDPGradientSolver(problem, steps=100, warmup_steps=0, interior_start="default")
    assert cold.initial_states(weights) is None
    only_ends = MDPGradientSolver(problem, steps=100, warmup_steps=20, interior_start="default")
    start = only_ends.initial_states(weights)
    assert start is not None and start.steps == 40
    np.testing.assert_array_equal(start.states[2].params, problem._log_ref)


@pytest.mark.parametrize("name", ["dst", "fishwood", "gear"])
def test_the_bench_tasks_start_with_the_same_code(name: str) -> None:
    task = get_task(name)
    problem = task.make_problem()
    solver = task.solver(problem, "gradient", seed=3)
    states, spent = task.initial_states(problem, solver, "gradient", 6, 3)
    assert states is not None and spent == 2 * task.warmup_steps
    # the protocol written out: perturbed starts, warmed-up ends, interior from w = 1
    rng = np.random.default_rng(3)
    expected: list[Any] = []
    for i in range(7):
        base = solver.initial_state(i / 6).params
        expected.append(base + task.init_noise * rng.standard_normal(base.shape))
    if task.warmup_steps:
        warm = problem.gradient_solver(steps=task.warmup_steps, lr=task.lr)
        zeros = np.zeros_like(expected[0])
        for i, w in ((0, 0.0), (-1, 1.0)):
            expected[i] = warm.solve(w, GradientState(expected[i], zeros, zeros, 0)).state.params
    if task.interior_start == "endpoint1":
        expected[1:-1] = [expected[-1]] * 5
    for got, want in zip(states, expected, strict=True):
        np.testing.assert_array_equal(got.params, want)


def test_gradient_starts_refuses_a_bad_interior_start() -> None:
    with pytest.raises(ValueError, match="interior_start"):
        gradient_starts(
            lambda w: GradientState(np.zeros(1), np.zeros(1), np.zeros(1)),
            [0, 1],
            interior_start="middle",
        )
    with pytest.raises(ValueError, match="interior_start"):
        MDPGradientSolver(ps.problems.fishwood(), steps=1, interior_start="middle")
    with pytest.raises(ValueError, match="warmup_steps"):
        MDPGradientSolver(ps.problems.fishwood(), steps=1, warmup_steps=-5)
