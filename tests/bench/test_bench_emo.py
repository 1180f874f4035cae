"""Smoke test of benchmarks/bench_emo.py at tiny size: the problems agree with pymoo's, the
true fronts are what their closed forms say, each peer gets the evaluations it is given, a
budget read from a longer run is the run stopped at that budget, and the table has every
row."""

from __future__ import annotations

import numpy as np
import pytest

from benchmark_modules import benchmark_module

pytest.importorskip("pymoo")


@pytest.fixture(scope="module")
def bench():
    with benchmark_module("bench_emo") as module:
        yield module


@pytest.mark.parametrize("name", ["zdt1", "zdt2", "zdt3", "dtlz2"])
def test_objectives_are_pymoos(bench, name):
    prob = bench.make_problem(name, n_var=6)
    x = np.random.default_rng(0).random((8, 6))
    expected = prob.pymoo_problem().evaluate(x)
    np.testing.assert_allclose([prob.objectives(row) for row in x], expected, rtol=1e-12)


def test_true_fronts(bench):
    # ZDT1: f2 = 1 - sqrt(f1), one piece, evenly spaced by arc length
    (piece,) = bench.make_problem("zdt1", n_var=4).pieces
    np.testing.assert_allclose(piece[:, 1], 1 - np.sqrt(piece[:, 0]), atol=1e-9)
    gaps = np.linalg.norm(np.diff(piece, axis=0), axis=1)
    assert gaps.max() / gaps.min() < 1.01
    assert len(bench.make_problem("zdt2", n_var=4).pieces) == 1
    # ZDT3: five pieces on the curve, none dominating another's points
    zdt3 = bench.make_problem("zdt3", n_var=4)
    assert len(zdt3.pieces) == 5
    ref = zdt3.reference
    f1 = ref[:, 0]
    np.testing.assert_allclose(ref[:, 1], 1 - np.sqrt(f1) - f1 * np.sin(10 * np.pi * f1), atol=1e-6)
    assert f1.min() == 0.0 and 0.85 < f1.max() < 0.86
    # DTLZ2: the unit sphere; a point off it by 0.01 is 0.01 away
    dtlz2 = bench.make_problem("dtlz2", n_var=5)
    np.testing.assert_allclose(np.linalg.norm(dtlz2.reference, axis=1), 1.0)
    np.testing.assert_allclose(dtlz2.distance(np.array([[0.0, 0.0, 1.01]])), [0.01])


def test_measure_on_the_true_front(bench):
    zdt2 = bench.make_problem("zdt2", n_var=4)
    f1 = np.linspace(0, 1, 21)
    even_in_f1 = np.column_stack([f1, 1 - f1**2])
    m = bench.measure(zdt2, even_in_f1)
    assert m["on_front"] == 21 and m["points"] == 21
    assert 0 < m["igd"] < 0.05
    # a point dominated by 0.1 in f2 is off the front and worsens IGD and HV
    worse = even_in_f1.copy()
    worse[10, 1] += 0.1
    w = bench.measure(zdt2, worse)
    assert w["on_front"] == 20 and w["igd"] > m["igd"] and w["hv"] < m["hv"]
    # the same point twice counts once
    assert bench.measure(zdt2, np.vstack([even_in_f1, even_in_f1[:3]]))["on_front"] == 21


def test_tiny_run(bench):
    prob = bench.make_problem("zdt1", n_var=4)
    ours = bench.run_paretosurf(prob)
    assert ours.evaluations > 0 and ours.points.shape == (21, 2)
    budgets = [300, 600]
    peers = []
    for name in ("nsga2", "moead"):
        runs = bench.run_peer(prob, name, budgets, seed=0)
        for run, budget in zip(runs, budgets, strict=True):
            # pymoo stops after the generation that reaches the budget
            assert budget <= run.evaluations < budget + prob.n_points
            assert bench.measure(prob, run.points)["igd"] >= 0
        # the smaller budget read from the longer run is the run stopped there
        alone = bench.run_peer(prob, name, budgets[:1], seed=0)[0]
        assert alone.evaluations == runs[0].evaluations
        np.testing.assert_array_equal(alone.points, runs[0].points)
        peers += [
            bench.Run(
                r.problem, r.method, r.seed, f * ours.evaluations, r.evaluations, r.cpu, r.points
            )
            for f, r in zip((1, 2), runs, strict=True)
        ]
    rows = bench.table_rows(prob, ours, peers, factors=[1, 2])
    assert [(r["budget"], r["method"]) for r in rows] == [
        ("1x", "paretosurf"),
        ("1x", "NSGA-II"),
        ("1x", "MOEA/D"),
        ("2x", "NSGA-II"),
        ("2x", "MOEA/D"),
    ]
    text = bench.report([prob], {"zdt1": ours}, peers, [1, 2], seeds_done=1)
    assert text.count("| 1x |") == 3 and text.count("| 2x |") == 2
