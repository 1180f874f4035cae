"""benchmarks/bench_emo_surfaces.py at tiny size: the reference fronts are the closed forms'
(never paretosurf's points), the evaluation count is every row pymoo evaluates, the verdict
reads hand-built figures as the docs say, and one small problem runs end to end."""

from __future__ import annotations

import numpy as np
import pytest

from benchmark_modules import benchmark_module

pytest.importorskip("pymoo")


@pytest.fixture(scope="module")
def bench():
    with benchmark_module("bench_emo_surfaces") as module:
        yield module


def test_reference_fronts_are_the_closed_forms(bench):
    # DTLZ2 (and DTLZ3, DTLZ4): the unit sphere's octant; DTLZ1: the plane f1 + f2 + f3 = 0.5
    for name in ("dtlz2", "dtlz3", "dtlz4"):
        ref = bench.reference_front(name, 12)
        np.testing.assert_allclose(np.linalg.norm(ref, axis=1), 1.0)
        assert ref.min() >= 0.0 and len(ref) == 5151
    np.testing.assert_allclose(bench.reference_front("dtlz1", 7).sum(axis=1), 0.5)
    # WFG4 to WFG9: the ellipsoid sum (f_i / 2i)^2 = 1, on which pymoo's front lies
    from pymoo.problems import get_problem

    wfg = bench.reference_front("wfg4", 6)
    np.testing.assert_allclose(np.sum((wfg / [2.0, 4.0, 6.0]) ** 2, axis=1), 1.0, atol=1e-9)
    for name in ("wfg4", "wfg9"):
        pf = get_problem(name, n_var=6, n_obj=3).pareto_front(bench.das_dennis(3))
        np.testing.assert_allclose(np.sum((pf / [2.0, 4.0, 6.0]) ** 2, axis=1), 1.0, atol=1e-6)
    # DTLZ5: the quarter circle f1 = f2
    d5 = bench.reference_front("dtlz5", 12)
    np.testing.assert_allclose(d5[:, 0], d5[:, 1])
    np.testing.assert_allclose(np.sum(d5**2, axis=1), 1.0)


def test_dtlz7_front_is_pymoos_at_g_zero(bench):
    from pymoo.problems import get_problem

    ref = bench.dtlz7_front(101)
    # pymoo's DTLZ7 at x = (f1, f2, 0, ..., 0) gives the same f3
    x = np.zeros((len(ref), 12))
    x[:, :2] = ref[:, :2]
    np.testing.assert_allclose(get_problem("dtlz7", n_var=12, n_obj=3).evaluate(x), ref, atol=1e-12)
    # four pieces: the non-dominated squares of (f1, f2)
    assert 0.2 < ref[:, 0].max() < 1.0 + 1e-12 and len(ref) < 101**2 / 2


def test_quadratic_front_and_counting(bench):
    prob = bench.make_problem("quadratic101")
    assert prob.scalarization == "auto" and prob.n_var == 5
    pymoo_problem = prob.pymoo_problem()
    quad = pymoo_problem.quadratic
    # the reference is the exact front: an exact minimizer's objectives lie on it
    w = np.array([0.2, 0.3, 0.5])
    exact = quad.objectives(quad.argmin(w))
    diameter = np.linalg.norm(prob.reference.max(axis=0) - prob.reference.min(axis=0))
    assert np.min(np.linalg.norm(prob.reference - exact, axis=1)) < 0.01 * diameter
    # the counting wrapper counts every row and passes the objectives through
    counted = bench._counting(pymoo_problem)
    x = np.random.default_rng(0).uniform(-1, 1, (7, 5))
    np.testing.assert_allclose(counted.evaluate(x), quad.objectives_many(x))
    counted.evaluate(x[0])
    assert counted.calls == 8


def test_verdict(bench):
    v = bench.verdict
    # CV below every peer's, IGD within 1.1x of the best peer's
    assert v(True, [], 0.1, 0.0105, [0.2, 0.3], [0.01, 0.02]) == "wins"
    # IGD 1.2x the best peer's: not a win; success=True says nothing: a silent loss
    assert v(True, [], 0.1, 0.012, [0.2, 0.3], [0.01, 0.02]) == "LOSES"
    assert v(True, ["degenerate"], 0.25, 0.01, [0.2, 0.3], [0.01, 0.02]) == "LOSES"
    # a CV tied with a peer's is not below it
    assert v(True, [], 0.2, 0.01, [0.2, 0.3], [0.01, 0.02]) == "LOSES"
    # success=False naming a cause
    assert v(False, ["stuck"], 0.25, 0.01, [0.2, 0.3], [0.01, 0.02]) == "says so"
    assert v(False, [], 0.25, 0.01, [0.2, 0.3], [0.01, 0.02]) == "LOSES"
    assert v(None, [], np.nan, np.nan, [0.2], [0.01], crashed=True) == "crash"
    assert v(True, [], np.nan, 0.01, [0.2], [0.01]) == "LOSES"


def test_settling(bench):
    cv = [1.0] * 15 + [0.1, 0.2, 0.15]
    assert bench.settling(cv) == pytest.approx(2.0)
    assert np.isnan(bench.settling([0.1] * 10))


def test_tiny_run(bench):
    prob = bench.make_problem("dtlz2", n_var=5, n_points=10)
    ours = bench.run_paretosurf(prob)
    assert not ours.error and ours.run.points.shape == (10, 3)
    assert ours.run.evaluations > 0 and ours.rounds == len(ours.round_cv)
    peer = bench.bench_emo.run_peer(prob, "nsga3", [200], 0)
    row = bench.problem_row(prob, ours, peer, ["nsga3"])
    assert row["verdict"] in ("wins", "wins (success=False)", "says so", "LOSES")
    assert row["seeds"] == "1" and row["evals"] == f"{ours.run.evaluations:,}"
    text = bench.report([prob], {"dtlz2": ours}, peer, ["nsga3"])
    assert "DTLZ2 (5)" in text and "NSGA-III CV / IGD" in text


def test_a_peer_collapsed_to_one_point_is_the_least_even(bench):
    prob = bench.make_problem("dtlz2", n_var=5, n_points=10)
    lattice = bench.das_dennis(3)
    ours = bench.Ours(
        bench.bench_emo.Run("dtlz2", "paretosurf", 0, 100, 100, 0.0, lattice / 0.9),
        True,
        [],
        5,
        [],
        None,
    )
    one = np.tile(lattice[:1], (10, 1))
    peers = [
        bench.bench_emo.Run("dtlz2", "nsga3", 0, 100, 100, 0.0, lattice),
        bench.bench_emo.Run("dtlz2", "nsga3", 1, 100, 100, 0.0, one),
    ]
    row = bench.problem_row(prob, ours, peers, ["nsga3"])
    assert row["NSGA-III CV / IGD"].startswith("inf (1 of 2 one point) / ")
    assert row["seeds"] == "2"
    # paretosurf's points: the lattice scaled, as even as the lattice; the peers' IGD is the
    # mean of the lattice's and one corner's, far above paretosurf's
    assert row["verdict"] == "wins"
