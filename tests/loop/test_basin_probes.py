"""Basin-escape probes (the ``probes`` option, :mod:`paretosurf.loop._basin_probes`): a few slots a
round solved again from fresh starts, a probe that scores lower replacing the slot's
solution. Checked against the test problems' own definitions (ZDT4's g and ZDT6's front), not
against the runs' output."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.adapters import scipy_solver
from paretosurf.loop._basin_probes import PROBED, BasinProbes, ProbeTally, RoundProbes
from paretosurf.testing import assert_same_result

FloatArray = np.ndarray


def quiet_surf(solver: Any, n_points: int, **options: Any) -> ps.Result:
    """``ps.surf`` with the result's findings not warned (the multimodal problems here are
    reported with findings; these tests read them from the result)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return ps.surf(solver, n_points, **options)


class Stop(Exception):
    """Raised by a callback: the run is killed after a round (its last checkpoint stays)."""


def stop_after(rounds: int) -> Any:
    """A callback that kills the run after ``rounds`` rounds."""

    def callback(record: ps.IterationRecord) -> None:
        if record.iteration == rounds - 1:
            raise Stop

    return callback


def end_phase(res: ps.Result, what: str) -> int:
    """The solves or evaluations of the end phase before the first round (0 without one)."""
    ends = getattr(res, "front_ends", None)
    return 0 if ends is None else max(int(getattr(ends, what, 0)), 0)


def probed_rounds(res: ps.Result) -> list[int]:
    """The rounds the ``probed`` finding names (none without it)."""
    found = [f for f in res.findings if f.code == PROBED]
    if not found:
        return []
    detail = found[0].message.split(": ", 1)[1]
    return [int(part.split(":")[0].split()[1]) for part in detail.split("; ")]


def no_end(objective: int, state: Any = None) -> None:
    """A ``solve_end`` that poses no end (a module function: it pickles for workers)."""
    return None


def without_ends(solver: Any) -> Any:
    """The adapter's solver (made with ``scalarization="linear"``, so that it finds no ends
    when made) with no end phase (``solve_end`` returns ``None``): the first
    round starts every inner slot from ``x0``, and the probes alone move the slots out of
    their basins (the end phase searches the ends globally and starts the slots between
    them, which reaches these fronts by itself: ``tests/test_front_ends.py``)."""
    solver.solve_end = no_end
    return solver


# ---------------------------------------------------------------------------- ZDT4 and ZDT6
def zdt4_g(points: FloatArray) -> FloatArray:
    """ZDT4's g from its points: ``f2 = g (1 - sqrt(f1 / g))`` is a quadratic in sqrt(g),
    ``g - sqrt(f1) sqrt(g) - f2 = 0``; the true front is ``g = 1``."""
    f1, f2 = np.asarray(points, dtype=np.float64).T
    return np.asarray(((np.sqrt(f1) + np.sqrt(f1 + 4.0 * f2)) / 2.0) ** 2)


def test_zdt4_g_from_the_points_is_the_problems_g() -> None:
    problems = pytest.importorskip("pymoo.problems")
    prob = problems.get_problem("zdt4", n_var=5)
    x = prob.xl + (prob.xu - prob.xl) * np.random.default_rng(3).random((6, 5))
    g = 1 + 10 * 4 + np.sum(x[:, 1:] ** 2 - 10 * np.cos(4 * np.pi * x[:, 1:]), axis=1)
    np.testing.assert_allclose(zdt4_g(prob.evaluate(x)), g, rtol=1e-10)


def test_zdt4_from_a_start_off_the_centre_leaves_the_local_front() -> None:
    """ZDT4 (pymoo, 5 variables: four Rastrigin-like ones in [-5, 5]) from a random start:
    without probes every point lies on a local front 100 above the true one (g = 101); the
    first round collapses onto a few points, so every slot is probed once, and most points
    leave for lower fronts. Random starts do not reach the true front itself (g = 1: all four
    multimodal variables within a quarter of 0, about 6e-6 of the box) within the probes'
    10% of the evaluations; the median g drops about fivefold."""
    problems = pytest.importorskip("pymoo.problems")
    prob = problems.get_problem("zdt4", n_var=5)
    x0 = prob.xl + (prob.xu - prob.xl) * np.random.default_rng(0).random(5)
    runs = {
        probes: quiet_surf(
            without_ends(ps.adapters.from_pymoo(prob, x0=x0, scalarization="linear")),
            n_points=11,
            iterations=6,
            probes=probes,
            warm_start="slot",  # the probes alone move the slots
        )
        for probes in (False, "auto")
    }
    g_off, g_on = zdt4_g(runs[False].points), zdt4_g(runs["auto"].points)
    assert g_off.min() > 50  # (measured: 100.9 at every point but the w = 1 end's 110)
    assert np.median(g_on) < 0.4 * np.median(g_off)  # (measured: 20 against 101)
    assert np.sum(g_on < 0.5 * g_off) >= 6  # (measured: 8 of 11)
    assert g_on.min() < 5  # (measured: 2.5)
    assert probed_rounds(runs["auto"]) and not probed_rounds(runs[False])
    assert "probes" in runs["auto"].settings and "probes" not in runs[False].settings


def test_zdt6_from_its_flat_start_finds_points_of_the_true_front() -> None:
    """ZDT6 from the box centre, where objective 1's gradient vanishes: every slot stays at
    the start's f1 = 1 (one point). The first round collapsed, so every slot is probed: the
    probes' points lie on the true front f2 = 1 - f1^2, away from f1 = 1. (The front is
    concave: weighted sums reach only its ends and local minima, not an even spread.)"""
    problems = pytest.importorskip("pymoo.problems")
    prob = problems.get_problem("zdt6")
    with pytest.MonkeyPatch.context() as mp:
        # solves that do not test a stationary start (paretosurf.adapters.scipy_solver's
        # STILL_STEP, which leaves this one on its own): the probes alone
        mp.setattr(scipy_solver, "STILL_STEP", 0.0)
        runs = {
            probes: quiet_surf(
                without_ends(ps.adapters.from_pymoo(prob, scalarization="linear")),
                n_points=11,
                iterations=3,
                weight_bounds=(1e-3, 1 - 1e-3),
                probes=probes,
            )
            for probes in (False, "auto")
        }
    for probes, res in runs.items():
        f1, f2 = res.points.T
        on_front = np.abs(f2 - (1.0 - f1**2)) <= 1e-6
        distinct = np.unique(res.points[on_front].round(4), axis=0)
        if probes is False:
            assert distinct.tolist() == [[1.0, 0.0]]  # one point: the start's f1
        else:  # (measured: f1 = 0.281, f1's least, and 1: the concave front's ends)
            assert len(distinct) >= 2 and distinct[:, 0].min() < 0.7
            assert on_front.all()
            assert probed_rounds(res)[0] == 0  # the collapsed first round (then gap probes)


# ---------------------------------------------------------------------------- without a box
def quad(x: FloatArray) -> FloatArray:
    return np.array([(x[0] - 1.0) ** 2 + x[1] ** 2, (x[0] + 1.0) ** 2 + 0.5 * x[1] ** 2])


def test_a_solver_without_a_box_runs_as_before() -> None:
    def solver() -> Any:
        return ps.adapters.from_scipy(quad, x0=[0.3, 0.2])

    assert solver().probe_start(np.random.default_rng(0)) is None
    auto = ps.surf(solver(), 6, iterations=4)
    off = ps.surf(solver(), 6, iterations=4, probes=False)
    assert_same_result(auto, off)
    assert auto.settings == off.settings and "probes" not in auto.settings
    assert [f.code for f in auto.findings] == [f.code for f in off.findings]
    # half a box is no box either
    half = ps.adapters.from_scipy(quad, x0=[0.3, 0.2], bounds=[(-2, 2), (None, 1)])
    assert half.probe_start(np.random.default_rng(0)) is None
    with pytest.raises(ValueError, match="probes=True needs a solver that offers probe starts"):
        ps.surf(half, 6, iterations=2, probes=True)


# ---------------------------------------------------------------------------- resuming
def g_mini(x: FloatArray) -> float:
    return float(1.0 + x[1:] @ x[1:] + 10.0 * np.sum(1.0 - np.cos(4 * np.pi * x[1:])))


def mini_zdt4(x: FloatArray) -> FloatArray:
    """ZDT4 with one multimodal variable: a quick problem with many local fronts."""
    g = g_mini(x)
    return np.array([x[0], g * (1.0 - np.sqrt(x[0] / g))])


def mini_solver() -> Any:
    return without_ends(
        ps.adapters.from_scipy(
            mini_zdt4, x0=[0.5, 3.9], bounds=[(0.0, 1.0), (-5.0, 5.0)], scalarization="linear"
        )
    )


#: Probes every round (they may cost ten times the run's own solves), so that rounds after a
#: resume probe.
EVERY_ROUND = {
    "iterations": 8,
    "warm_start": "slot",
    "weight_bounds": (1e-3, 1 - 1e-3),
    "probes": BasinProbes(share=10.0),
}


def test_a_resumed_run_probes_as_the_uninterrupted_one(tmp_path: Path) -> None:
    whole = quiet_surf(mini_solver(), 6, **EVERY_ROUND)
    rounds = probed_rounds(whole)
    assert any(r < 3 for r in rounds) and any(r >= 3 for r in rounds)  # before and after
    with pytest.raises(Stop):
        quiet_surf(
            mini_solver(),
            6,
            checkpoint=tmp_path / "run",
            checkpoint_period=0,
            callback=stop_after(3),
            **EVERY_ROUND,
        )
    resumed = quiet_surf(mini_solver(), 6, checkpoint=tmp_path / "run", resume=True, **EVERY_ROUND)
    assert_same_result(whole, resumed)
    assert resumed.n_evaluations == whole.n_evaluations
    assert [f.to_dict() for f in resumed.findings] == [f.to_dict() for f in whole.findings]
    # the solve log tells the probes' attempts apart: one line per solve
    lines = [
        line
        for line in map(json.loads, (tmp_path / "run" / "solves.jsonl").read_text().splitlines())
        if "slot" in line
    ]
    probes = [line for line in lines if line.get("probe") is True]
    assert len(lines) == resumed.n_solves - end_phase(resumed, "solves")
    # two fresh starts a round (of 7 slots), every round, and a neighbour probe across a
    # wide gap in some
    assert 2 * len(resumed.history) <= len(probes) <= 3 * len(resumed.history)
    assert {line["round"] for line in probes} == set(range(len(resumed.history)))


def test_resuming_with_other_probes_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    quiet_surf(mini_solver(), 6, checkpoint=folder, **{**EVERY_ROUND, "iterations": 2})
    for other in (False, "auto", BasinProbes(share=10.0, seed=1)):
        with pytest.raises(ValueError, match="differing: probes"):
            quiet_surf(
                mini_solver(), 6, checkpoint=folder, resume=True, **{**EVERY_ROUND, "probes": other}
            )


def test_a_run_saved_without_probes_resumes_without_them(tmp_path: Path) -> None:
    """A folder whose settings have no probes (saved with probes=False, or before probes
    existed) goes on without them under the default probes="auto"."""
    plain = {**EVERY_ROUND, "probes": False}
    whole = quiet_surf(mini_solver(), 6, **plain)
    with pytest.raises(Stop):
        quiet_surf(
            mini_solver(),
            6,
            checkpoint=tmp_path / "run",
            checkpoint_period=0,
            callback=stop_after(3),
            **plain,
        )
    resumed = quiet_surf(
        mini_solver(), 6, checkpoint=tmp_path / "run", resume=True, iterations=8,
        weight_bounds=(1e-3, 1 - 1e-3),
    )  # fmt: skip
    assert_same_result(whole, resumed)
    assert "probes" not in resumed.settings and not probed_rounds(resumed)
    with pytest.raises(ValueError, match="differing: probes"):
        quiet_surf(mini_solver(), 6, checkpoint=tmp_path / "run", resume=True, **EVERY_ROUND)


# ---------------------------------------------------------------------------- a user's solver
class ProbeStart:
    """A start drawn by ``probe_start``: the solver tells a probe's solve by it."""

    def __init__(self, x: FloatArray) -> None:
        self.x = x


class CountingSolver:
    """A user's callable solver object with ``probe_start``: ``from_scipy`` on the one-variable
    ZDT4 inside, counting the objective evaluations of all solves and of the probes."""

    def __init__(self) -> None:
        self.inner = mini_solver()
        self.calls = self.probe_calls = 0
        self.evaluations = self.probe_evaluations = 0
        self.probe_costs: list[int] = []

    def __call__(self, w: float, state: Any) -> ps.Solution:
        probe = isinstance(state, ProbeStart)
        sol = self.inner.solve(w, state.x if probe else state)
        cost = int(sol.info["objective_calls"])
        self.calls += 1
        self.evaluations += cost
        if probe:
            self.probe_calls += 1
            self.probe_evaluations += cost
            self.probe_costs.append(cost)
        return sol

    def probe_start(self, rng: np.random.Generator) -> ProbeStart:
        return ProbeStart(np.array([rng.uniform(0.0, 1.0), rng.uniform(-5.0, 5.0)]))


def test_a_users_solver_with_probe_start_is_probed_within_the_share() -> None:
    solver = CountingSolver()
    share = 0.1
    res = quiet_surf(
        solver,
        8,
        iterations=25,
        weight_bounds=(1e-3, 1 - 1e-3),
        early_stopping=False,
        probes=BasinProbes(share=share),
    )
    assert solver.probe_calls > 0 and probed_rounds(res)
    # the probes' solves and evaluations are the run's
    assert res.n_solves == solver.calls
    assert res.n_evaluations == solver.evaluations  # (the end phase's solves are its too)
    # within the share of the run's own evaluations, and one round's probes (two) over it
    # at most
    own = res.n_evaluations - solver.probe_evaluations
    assert solver.probe_evaluations <= share * own + 2 * max(solver.probe_costs)
    # (they did use it: the neighbour probes across gaps, whose starts are slots' states,
    # take their part of the share)
    assert solver.probe_evaluations > share * own / 10


def test_probes_are_off_for_a_solver_without_probe_start() -> None:
    solver = CountingSolver()
    plain = ps.surf(lambda w, s: solver.inner.solve(w, s), 4, iterations=2)
    assert "probes" not in plain.settings
    with pytest.raises(ValueError, match="no probe_start"):
        ps.surf(lambda w, s: solver.inner.solve(w, s), 4, iterations=2, probes=True)


# ---------------------------------------------------------------------------- the option
@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        ("on", ValueError, r'probes must be "auto", False, None, True or a BasinProbes'),
        (3, TypeError, "probes must be"),
        ({"per_round": 2}, TypeError, "probes must be"),
    ],
)
def test_bad_probes_are_refused_naming_the_option(value: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        ps.surf(mini_solver(), 4, iterations=1, probes=value)
    with pytest.raises(error, match=match):
        ps.methods.uniform(mini_solver(), 4, iterations=1, probes=value)


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        ({"per_round": 0}, r"probes: BasinProbes\(per_round=...\) must be an integer >= 1"),
        ({"per_round": 1.5}, "per_round"),
        ({"share": 0.0}, r"probes: BasinProbes\(share=...\) must be a finite number > 0"),
        ({"share": float("nan")}, "share"),
        ({"seed": -1}, "seed"),
        ({"margin": 1.0}, "margin"),
        ({"share": True}, "share"),
    ],
)
def test_bad_probe_settings_are_refused(settings: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        BasinProbes(**settings)


def test_the_slots_probed_rotate_over_every_slot() -> None:
    probes = RoundProbes(BasinProbes(per_round=3), mini_solver())
    for n in (2, 7, 11, 21):
        k = min(3, n)
        rounds = -(-n // k)
        seen = [p for r in range(rounds) for p in probes.choose(n, k, ProbeTally(rounds=r))]
        assert set(seen) == set(range(n))  # every slot within ceil(n / k) rounds
        for r in range(9):
            chosen = probes.choose(n, k, ProbeTally(rounds=r))
            assert len(set(chosen)) == k
            assert min(np.diff(chosen), default=n) >= n // k  # spread over the round


def test_a_probe_replaces_only_a_clearly_lower_score() -> None:
    probes = RoundProbes(BasinProbes(margin=1e-6), mini_solver())
    points = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]])
    sc = probes.scoring(points)
    own = ps.Solution(np.array([0.5, 0.5]))
    # at w = 0.5 a weighted sum of 0.5; a tie within the margin keeps the slot's own
    assert not probes.better(ps.Solution(np.array([0.5, 0.5 - 1e-8])), own, points, 0.5, sc)
    assert probes.better(ps.Solution(np.array([0.4, 0.5])), own, points, 0.5, sc)
    # a weight vector (surf_simplex) is scored the same way
    assert probes.better(ps.Solution(np.array([0.4, 0.5])), own, points, np.array([0.5, 0.5]), sc)


def test_probes_on_worker_processes_give_the_same_result() -> None:
    local = quiet_surf(mini_solver(), 6, **{**EVERY_ROUND, "iterations": 4})
    pooled = quiet_surf(
        mini_solver(), 6, executor=ps.ProcessExecutor(2), **{**EVERY_ROUND, "iterations": 4}
    )
    assert probed_rounds(local)
    assert_same_result(local, pooled)


def test_a_surface_run_probes_at_its_weight_vectors() -> None:
    """surf_simplex on DTLZ1 (3 objectives, its front the plane f1 + f2 + f3 = 0.5) from a
    random start: the probes solve weight vectors and leave some of the local fronts."""
    problems = pytest.importorskip("pymoo.problems")
    prob = problems.get_problem("dtlz1", n_var=5, n_obj=3)
    x0 = prob.xl + (prob.xu - prob.xl) * np.random.default_rng(0).random(5)
    sums = {}
    for probes in (False, "auto"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ps.ParetoWarning)
            res = ps.surf_simplex(
                ps.adapters.from_pymoo(prob, x0=x0, scalarization="asf"),
                10,
                3,
                iterations=5,
                probes=probes,
            )
        sums[probes] = res.points.sum(axis=1)
        assert bool(probed_rounds(res)) == (probes == "auto")
    assert sums["auto"].min() < sums[False].min()  # (measured: 3.5 against 5.5)
    assert sums["auto"].mean() < sums[False].mean()  # (24.7 against 26.5)
