"""surf(): Algorithm 1's loop, its result, errors, saving and resuming."""

from __future__ import annotations

import math

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.methods import uniform, uniform_random
from paretosurf.testing import Interrupt
from support import CountingSolver, P, gear_phi, gear_solver, gear_x


def test_surf_reaches_even_spacing_on_gear_toy() -> None:
    res = ps.surf(gear_solver, 20, alpha=0.3, iterations=40)
    assert res.points.shape == (21, 2) and res.weights.shape == (21,)
    assert res.weights[0] == 0.0 and res.weights[-1] == 1.0 and np.all(np.diff(res.weights) > 0)
    assert res.history[0].cv > 0.5  # uniform weights are badly uneven here
    assert res.cv < 0.01 and res.gap_ratio < 1.05
    assert ps.metrics.cdf_error(res.cdf, gear_phi) < 2e-3
    # early_stopping (default): the run ends once the target is met and the weights settled
    rounds = len(res.history)
    assert res.stop_reason == "done" and rounds < 40 and res.history[-1].gap_ratio <= 2
    assert res.n_solves == rounds * 21 and res.n_steps == rounds * 21
    # final points are the exact front at the final weights
    np.testing.assert_allclose(res.points[:, 1], gear_x(res.weights) ** 2, atol=1e-15)


def test_solve_many_is_used_and_warm_starts_flow_per_slot() -> None:
    solver = CountingSolver()
    init = [("init", n) for n in range(6)]
    res = ps.surf(solver, 5, iterations=3, init_states=init)
    assert solver.batches == 3 and len(solver.calls) == 18
    assert [s for _, s in solver.calls[:6]] == init
    # second round: each slot receives the state its own previous solve returned
    first_weights = [w for w, _ in solver.calls[:6]]
    assert [s for _, s in solver.calls[6:12]] == [("slot-state", w) for w in first_weights]
    assert res.states == [s.state for s in solver.solve_many(res.weights, [None] * 6)]


def test_tuple_results_are_accepted() -> None:
    res = ps.surf(lambda w, s: ([1 - w, w**2], s), 3, iterations=2)
    assert res.points.shape == (4, 2)


def test_tol_stops_early() -> None:
    res = ps.surf(gear_solver, 10, alpha=1.0, iterations=100, tol=1e-9, early_stopping=False)
    assert res.converged and len(res.history) < 100
    assert res.history[-1].weight_change < 1e-9 <= res.history[-2].weight_change


def test_callback_receives_records_and_can_stop() -> None:
    seen = []

    def callback(record: ps.IterationRecord) -> bool:
        seen.append(record.iteration)
        return record.iteration == 2

    res = ps.surf(gear_solver, 4, iterations=10, callback=callback)
    assert seen == [0, 1, 2] and len(res.history) == 3


def test_zero_iterations_are_refused_but_read_a_saved_run(tmp_path) -> None:
    solver = CountingSolver()
    with pytest.raises(ValueError, match="iterations must be at least 1"):
        ps.surf(solver, 4, iterations=0)
    assert solver.calls == []
    saved = ps.surf(solver, 4, iterations=2, checkpoint=tmp_path)
    calls = len(solver.calls)
    again = ps.surf(solver, 4, iterations=0, checkpoint=tmp_path, resume=True)
    assert len(solver.calls) == calls and again.n_solves == saved.n_solves
    np.testing.assert_array_equal(again.points, saved.points)


def test_same_input_same_result() -> None:
    a = ps.surf(gear_solver, 7, iterations=8)
    b = ps.surf(gear_solver, 7, iterations=8)
    np.testing.assert_array_equal(a.points, b.points)
    assert a.cdf == b.cdf


def test_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    ps.surf(gear_solver, 4, iterations=3, progress=True)
    assert "SURF" in capsys.readouterr().err


def test_solver_exception_names_slot_and_weight() -> None:
    def solver(w: float, s: object) -> ps.Solution:
        if 0.4 < w < 0.6:
            raise RuntimeError("diverged")
        return gear_solver(w, s)

    with pytest.raises(ps.InnerSolverError, match=r"slot 2 \(weight 0\.5\).*diverged") as info:
        ps.surf(solver, 4, iterations=1)
    assert info.value.slot == 2 and info.value.weight == 0.5


def test_non_finite_objective_names_slot_and_weight() -> None:
    def solver(w: float, s: object) -> ps.Solution:
        return ps.Solution([np.nan if w == 1.0 else w, 1 - w])

    with pytest.raises(ps.InnerSolverError, match=r"non-finite.*slot 3 \(weight 1\)"):
        ps.surf(solver, 3, iterations=1)


def test_wrong_return_type() -> None:
    with pytest.raises(ps.InnerSolverError, match="expected a Solution"):
        ps.surf(lambda w, s: "oops", 3, iterations=1)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_segments": 0}, ValueError, "n_segments"),
        ({"n_segments": 2.0}, TypeError, "n_segments"),
        ({"alpha": 0.0}, ValueError, r"alpha must lie in \(0, 1\]"),
        ({"alpha": 1.01}, ValueError, "alpha"),
        ({"iterations": -1}, ValueError, "iterations"),
        ({"tol": -1.0}, ValueError, "tol"),
        ({"init_states": [None] * 3}, ValueError, "init_states"),
        ({"resume": True}, ValueError, "checkpoint"),
        ({"callback": 3}, TypeError, "callback"),
        ({"executor": object()}, TypeError, "executor"),
    ],
)
def test_bad_arguments(kwargs: dict, exc: type, match: str) -> None:
    args = {"n_segments": 4, **kwargs}
    n = args.pop("n_segments")
    with pytest.raises(exc, match=match):
        ps.surf(gear_solver, n, **args)


def test_solver_must_be_callable() -> None:
    with pytest.raises(TypeError, match="solver"):
        ps.surf(42, 4)


def test_save_and_load_round_trip(tmp_path) -> None:
    res = ps.surf(gear_solver, 6, iterations=5, early_stopping=False)  # a record per round
    json_path, npz_path = res.save(tmp_path / "run")
    assert json_path.exists() and npz_path.exists()
    back = ps.Result.load(tmp_path / "run.json")
    np.testing.assert_array_equal(back.weights, res.weights)
    np.testing.assert_array_equal(back.points, res.points)
    assert back.cdf == res.cdf and back.states == res.states
    assert back.n_solves == res.n_solves and len(back.history) == 5
    for a, b in zip(back.history, res.history, strict=True):
        np.testing.assert_array_equal(a.points, b.points)
        assert a.cdf == b.cdf and a.cv == b.cv


def test_interrupted_run_resumes_to_the_same_result(tmp_path) -> None:
    # a fixed schedule of 10 rounds, resumed after round 3
    full = ps.surf(gear_solver, 8, iterations=10, early_stopping=False)

    def kill_after_four(record: ps.IterationRecord) -> None:
        if record.iteration == 3:
            raise Interrupt

    with pytest.raises(Interrupt):
        ps.surf(
            gear_solver,
            8,
            iterations=10,
            checkpoint=tmp_path,
            callback=kill_after_four,
            checkpoint_period=0,
            early_stopping=False,
        )
    calls = []
    resumed = ps.surf(
        lambda w, s: calls.append(w) or gear_solver(w, s),
        8,
        iterations=10,
        checkpoint=tmp_path,
        resume="force",  # the counting wrapper is another function than gear_solver
        early_stopping=False,
    )
    assert len(calls) == 6 * 9  # only iterations 4..9 were run again
    np.testing.assert_array_equal(resumed.points, full.points)
    assert resumed.cdf == full.cdf and resumed.n_solves == full.n_solves
    with pytest.raises(ValueError, match="n_segments: 8 in the checkpoint, 5 now"):
        ps.surf(gear_solver, 5, iterations=10, checkpoint=tmp_path, resume=True)


def test_resume_without_checkpoint_file_starts_fresh(tmp_path) -> None:
    res = ps.surf(gear_solver, 4, iterations=2, checkpoint=tmp_path / "new", resume=True)
    assert len(res.history) == 2 and (tmp_path / "new" / "run.json").exists()


def test_process_executor_matches_local() -> None:
    local = ps.surf(gear_solver, 6, iterations=3)
    spread = ps.surf(gear_solver, 6, iterations=3, executor=ps.ProcessExecutor(2))
    np.testing.assert_array_equal(local.points, spread.points)


def test_uniform_baseline_budget_and_weights() -> None:
    solver = CountingSolver()
    res = uniform(solver, 5, iterations=4)
    assert len(solver.calls) == 4 * 6 == res.n_solves
    np.testing.assert_array_equal(res.weights, np.arange(6) / 5)
    assert all(np.array_equal(r.weights, res.weights) for r in res.history)


def test_random_baseline_keeps_its_draw() -> None:
    res = uniform_random(gear_solver, 6, iterations=3, seed=5)
    assert res.n_solves == 21
    assert all(np.array_equal(r.weights, res.weights) for r in res.history)
    assert res.weights[0] == 0.0 and res.weights[-1] == 1.0
    assert not np.allclose(res.weights, np.linspace(0, 1, 7))


def test_gradient_solver_inexact_surf_converges() -> None:
    r = math.sqrt(P)
    solver = ps.GradientSolver(
        objectives=lambda x: np.array([(1 - x[0]) ** 2, x[0] ** 2]),
        # gradients of the geared scalarization's two parts: r/2 (x-1)^2 and x^2/2
        gradients=lambda x: np.array([[r * (x[0] - 1)], [x[0]]]),
        init=np.array([0.5]),
        steps=20,
        lr=0.3,
        optimizer="sgd",
    )
    res = ps.surf(solver, 10, iterations=40)
    # the default run ends once its points meet the target with the weights settled
    rounds = len(res.history)
    assert res.stop_reason == "done" and rounds < 40 and res.history[-1].gap_ratio <= 2
    assert res.cv < 0.05 and res.n_steps == rounds * 11 * 20


def test_nearest_warm_start_hands_each_slot_the_closest_previous_solution() -> None:
    solver = CountingSolver()
    res = ps.surf(solver, 6, iterations=3, warm_start="nearest")
    first, second = solver.calls[:7], solver.calls[7:14]
    prev_w = np.array([w for w, _ in first])
    for w, state in second:
        closest = prev_w[np.abs(prev_w - w).argmin()]
        assert state == ("slot-state", closest)
    # shared states are copies, never the same object
    assert len({id(s) for s in res.states}) == len(res.states)
    assert res.settings["warm_start"] == "nearest"
    with pytest.raises(ValueError, match="warm_start"):
        ps.surf(gear_solver, 4, warm_start="closest")


def test_nearest_warm_start_survives_save_and_resume(tmp_path) -> None:
    full = ps.surf(gear_solver, 5, iterations=6, warm_start="nearest")
    ps.surf(gear_solver, 5, iterations=3, warm_start="nearest", checkpoint=tmp_path)
    resumed = ps.surf(
        gear_solver, 5, iterations=6, warm_start="nearest", checkpoint=tmp_path, resume=True
    )
    assert resumed.settings["warm_start"] == "nearest"
    np.testing.assert_array_equal(resumed.points, full.points)


class StuckSolver:
    """Front ``(x^2, (1 - x)^2)``; a state ``(x, d)`` lies ``d`` off the front (both objectives
    raised by ``d``). A solve moves ``x`` to the weight's optimum but never lowers ``d``: a slot
    that starts off the front stays there, as a deep-RL learner stuck in a poor optimum."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, tuple[float, float], tuple[float, float]]] = []

    def solve(self, w: float, state: tuple[float, float] | None) -> ps.Solution:
        start = (0.5, 0.0) if state is None else state
        d = start[1]
        x = 1.0 - w  # argmin of w x^2 + (1 - w)(1 - x)^2
        self.calls.append((w, start, (x, d)))
        return ps.Solution(np.array([x**2 + d, (1 - x) ** 2 + d]), (x, d))


def test_rescue_warm_start_frees_a_slot_stuck_off_the_front() -> None:
    starts = [(0.5, 0.0)] * 3 + [(0.5, 5.0)] + [(0.5, 0.0)] * 2
    with pytest.warns(ps.ParetoWarning) as caught:
        stuck = ps.surf(StuckSolver(), 5, iterations=4, init_states=starts, warm_start="slot")
    assert any("dominated by others (slots 3)" in str(c.message) for c in caught)
    assert stuck.states[3][1] == 5.0  # the slot never leaves its poor optimum

    solver = StuckSolver()
    res = ps.surf(solver, 5, iterations=4, init_states=starts, warm_start="rescue")
    assert all(d == 0.0 for _, d in res.states)
    assert res.settings["warm_start"] == "rescue"
    # each slot starts from its own solution unless a point dominates it, and then from the
    # dominating solution whose weight is nearest
    for r in range(1, 4):
        previous, current = solver.calls[6 * (r - 1) : 6 * r], solver.calls[6 * r : 6 * (r + 1)]
        points = {
            out: np.array([out[0] ** 2 + out[1], (1 - out[0]) ** 2 + out[1]])
            for _, _, out in previous
        }
        for (w, start, _), (_, _, own) in zip(current, previous, strict=True):
            mine = points[own]
            rescuers = [
                (abs(wp - w), out)
                for wp, _, out in previous
                if np.all(points[out] <= mine) and np.any(points[out] < mine)
            ]
            assert start == (min(rescuers)[1] if rescuers else own)
    rescued = [start for _, start, _ in solver.calls[6:12]]
    assert rescued[3] != starts[3] and rescued[3][1] == 0.0


def test_rescue_takes_weight_vectors_and_ignores_equal_points() -> None:
    from paretosurf.methods._slots import rescue_keys

    points = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    previous = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [1 / 3, 1 / 3, 1 / 3]])
    new = previous.copy()
    new[3] = [0.1, 0.8, 0.1]  # the dominated centre's new weight is near e2
    assert rescue_keys([5, 6, 7, 8], previous, points, new) == [5, 6, 7, 6]
    # a point equal to another is not dominated by it; no dominance, no change
    same = np.array([[0.5, 0.5], [0.5, 0.5], [0.0, 1.0]])
    assert rescue_keys([1, 2, 3], np.array([0, 0.5, 1]), same, np.array([0, 0.5, 1])) == [1, 2, 3]
