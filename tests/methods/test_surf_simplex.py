"""SURF on the weight simplex (three or more objectives), checked against independent truth:
two-objective SURF (M = 2 and each edge of the simplex), exact fronts and their dense samples,
the Das-Dennis lattice, invariants of the weights, and the driver's contracts (resume,
executors, moving average, weight bounds, honest results)."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import pytest

import paretosurf as ps
from paretosurf import metrics
from paretosurf.loop._driver import run
from paretosurf.methods import das_dennis, fixed_simplex, random_simplex
from paretosurf.methods._surf import AUTO_ALPHA_FLOOR, AUTO_ALPHA_MAX
from paretosurf.methods._surf_simplex import (
    CUSP_SHARE,
    REALLOCATION_SHARE,
    SurfSimplexMethod,
    _reallocate,
    _thin_cusps,
    _well_spaced,
)
from paretosurf.problems import InvertedDTLZ2, QuadraticM
from paretosurf.surfaces._estimate import FaceMap, on_face
from paretosurf.surfaces._weights import simplex_lattice


def corner_normalization(problem: object) -> tuple[np.ndarray, np.ndarray]:
    corners = problem.front(np.eye(problem.n_objectives))  # type: ignore[attr-defined]
    return corners.min(axis=0), corners.max(axis=0)


def normalized(points: np.ndarray, bounds: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    ideal, nadir = bounds
    return (points - ideal) / (nadir - ideal)


@pytest.fixture(scope="module")
def dtlz_run() -> tuple[InvertedDTLZ2, ps.Result]:
    problem = InvertedDTLZ2(3, radii=(1.0, 2.0, 5.0))
    res = ps.surf_simplex(
        problem.solver(), 91, 3, iterations=15, alpha=1.0, normalize=corner_normalization(problem)
    )
    return problem, res


# ---------------------------------------------------------------------------- reductions
def test_two_objectives_is_surf() -> None:
    """With M = 2 the weights and points are SURF's (the solver sees vectors (w, 1 - w))."""

    def scalar(w: float, state: object) -> ps.Solution:
        x = 3 * w / (1 + 2 * w)
        return ps.Solution([(1 - x) ** 2, x**2])

    def vector(w: np.ndarray, state: object) -> ps.Solution:
        assert w.shape == (2,) and abs(w.sum() - 1) < 1e-15
        return scalar(float(w[0]), state)

    ref = ps.surf(scalar, 10, iterations=8, alpha=0.3)
    got = ps.surf_simplex(vector, 11, 2, iterations=8, alpha=0.3)
    np.testing.assert_allclose(got.weights[:, 0], ref.weights, rtol=0, atol=1e-13)
    np.testing.assert_allclose(got.weights[:, 1], 1 - ref.weights, rtol=0, atol=1e-13)
    np.testing.assert_allclose(got.points, ref.points, rtol=0, atol=1e-13)


def test_each_rounds_damping_is_recorded() -> None:
    """The history records each round's alpha as :func:`surf` does: with M = 2 the one edge's
    (so "auto" gives SURF's schedule), with M = 3 the edges' mean, within the safeguard."""

    def scalar(w: float, state: object) -> ps.Solution:
        x = 3 * w / (1 + 2 * w)
        return ps.Solution([(1 - x) ** 2, x**2])

    def vector(w: np.ndarray, state: object) -> ps.Solution:
        return scalar(float(w[0]), state)

    every = {"early_stopping": False}  # every round's damping, the same number of rounds
    ref = ps.surf(scalar, 10, iterations=8, alpha="auto", **every)
    got = ps.surf_simplex(vector, 11, 2, iterations=8, alpha="auto", **every)
    assert [r.alpha for r in got.history] == [r.alpha for r in ref.history]
    assert len(got.history) == 8
    assert got.alpha == ref.alpha == ref.history[-1].alpha
    fixed = ps.surf_simplex(InvertedDTLZ2(3).solver(), 10, 3, iterations=3, alpha=0.5, **every)
    assert [r.alpha for r in fixed.history] == [0.5, 0.5, 0.5] and fixed.alpha == 0.5
    auto = ps.surf_simplex(InvertedDTLZ2(3).solver(), 10, 3, iterations=4, alpha="auto")
    alphas = [r.alpha for r in auto.history]
    assert alphas[0] == AUTO_ALPHA_MAX and all(AUTO_ALPHA_FLOOR <= a <= 1 for a in alphas)
    assert auto.alpha == alphas[-1]


def test_each_edge_gets_surfs_points(dtlz_run: tuple[InvertedDTLZ2, ps.Result]) -> None:
    """On the edge w_3 = 0 of the convex DTLZ-style front, objective 3 is constant, so the
    edge is the two-objective front of (h_1, h_2): its points must be SURF's there."""
    problem, res = dtlz_run
    edge = on_face(res.weights, (0, 1))
    t = np.sort(res.weights[edge, 0])
    ideal, nadir = corner_normalization(problem)
    exact = problem.solver()

    def two(w: float, state: object) -> ps.Solution:
        return ps.Solution(exact.solve(np.array([w, 1 - w, 0.0])).objectives[:2])

    surf2 = ps.surf(two, len(t) - 1, iterations=15, alpha=1.0, normalize=(ideal[:2], nadir[:2]))
    np.testing.assert_allclose(t, surf2.weights, atol=2e-3)
    # and the edge's points are evenly spaced in arc length
    gaps = metrics.segment_lengths(
        normalized(res.points[edge][np.argsort(res.weights[edge, 0])], (ideal, nadir))
    )
    assert gaps.std() / gaps.mean() < 0.01


# ---------------------------------------------------------------------------- invariants
def test_weights_are_simplex_vectors_with_every_corner(
    dtlz_run: tuple[InvertedDTLZ2, ps.Result],
) -> None:
    problem, res = dtlz_run
    w = res.weights
    assert w.shape == (91, 3) and res.points.shape == (91, 3)
    assert np.all(w >= 0) and np.allclose(w.sum(axis=1), 1, atol=1e-12)
    for m in range(3):
        assert np.sum(w[:, m] == 1.0) == 1
    assert np.all(w[:3] == np.eye(3))  # corners come first
    np.testing.assert_allclose(res.points, problem.front(w), atol=1e-12)
    assert len({tuple(row) for row in np.round(w, 12)}) == 91
    for record in res.history:
        assert record.weights.shape == (91, 3)


def test_records_measure_nearest_neighbour_spacing(
    dtlz_run: tuple[InvertedDTLZ2, ps.Result],
) -> None:
    problem, res = dtlz_run
    coords = normalized(res.history[-1].points, corner_normalization(problem))
    assert res.history[-1].cv == pytest.approx(metrics.nn_cv(coords), rel=1e-12)
    assert res.history[-1].gap_ratio == pytest.approx(metrics.nn_ratio(coords), rel=1e-12)
    assert res.history[0].cv > 0.5  # round 0: the lattice


def test_round_zero_is_the_das_dennis_lattice(
    dtlz_run: tuple[InvertedDTLZ2, ps.Result],
) -> None:
    _, res = dtlz_run
    lattice = simplex_lattice(3, 12)
    got = {tuple(r) for r in np.round(res.history[0].weights, 12)}
    assert got == {tuple(r) for r in np.round(lattice, 12)}


# ---------------------------------------------------------------------------- uniformity
def test_even_spread_on_the_convex_dtlz_front(
    dtlz_run: tuple[InvertedDTLZ2, ps.Result],
) -> None:
    problem, res = dtlz_run
    bounds = corner_normalization(problem)
    pts = normalized(res.points, bounds)
    reference = normalized(problem.reference_front(0.01), bounds)
    lattice = normalized(das_dennis(problem.solver(), 91, 3, iterations=1).points, bounds)
    assert metrics.nn_cv(pts) < 0.2 < metrics.nn_cv(lattice)
    assert metrics.nn_ratio(pts) < 3 < metrics.nn_ratio(lattice)
    assert metrics.nn_min_ratio(pts) > 0.5
    assert metrics.covering_radius(pts, reference) < 0.7 * metrics.covering_radius(
        lattice, reference
    )


def test_distorted_quadratic_front_improves_far_over_the_lattice() -> None:
    problem = QuadraticM.random(3, 5, seed=0)
    bounds = corner_normalization(problem)
    res = ps.surf_simplex(problem.solver(), 55, 3, iterations=10, normalize=bounds)
    pts = normalized(res.points, bounds)
    lattice = normalized(res.history[0].points, bounds)
    reference = normalized(problem.reference_front(0.01), bounds)
    assert metrics.nn_cv(pts) < 0.4 * metrics.nn_cv(lattice)
    assert metrics.nn_ratio(pts) < 0.2 * metrics.nn_ratio(lattice)
    assert metrics.covering_radius(pts, reference) < 0.6 * metrics.covering_radius(
        lattice, reference
    )


def test_any_number_of_points_and_four_objectives() -> None:
    problem = QuadraticM.random(4, 5, seed=1)
    res = ps.surf_simplex(problem.solver(), 60, 4, iterations=4)  # not a lattice size
    assert res.weights.shape == (60, 4)
    assert np.all(res.weights[:4] == np.eye(4))
    assert res.history[-1].cv < res.history[0].cv
    assert {len(np.flatnonzero(w > 0)) for w in res.weights} == {1, 2, 3, 4}


def test_iterative_solver_with_warm_starts_reaches_the_front() -> None:
    problem = QuadraticM.random(3, 4, seed=2, condition=10.0)
    res = ps.surf_simplex(problem.gradient_solver(steps=30), 28, 3, iterations=8)
    exact = problem.front(res.weights)
    scale = np.ptp(exact, axis=0)
    assert np.max(np.abs(res.points - exact) / scale) < 1e-2
    assert res.history[-1].cv < 0.5 * res.history[0].cv


# ---------------------------------------------------------------------------- driver contracts
def test_resume_reaches_the_same_result(tmp_path: Path) -> None:
    problem = QuadraticM.random(3, 5, seed=3)
    whole = ps.surf_simplex(problem.solver(), 28, 3, iterations=5)
    ps.surf_simplex(problem.solver(), 28, 3, iterations=2, checkpoint=tmp_path / "run")
    resumed = ps.surf_simplex(
        problem.solver(), 28, 3, iterations=5, checkpoint=tmp_path / "run", resume=True
    )
    np.testing.assert_array_equal(resumed.weights, whole.weights)
    np.testing.assert_array_equal(resumed.points, whole.points)
    loaded = ps.Result.load(tmp_path / "run")
    np.testing.assert_array_equal(loaded.weights, whole.weights)
    with pytest.raises(ValueError, match="n_points"):
        ps.surf_simplex(
            problem.solver(), 21, 3, iterations=6, checkpoint=tmp_path / "run", resume=True
        )


def test_process_executor_gives_the_local_result() -> None:
    problem = QuadraticM.random(3, 5, seed=4)
    local = ps.surf_simplex(problem.solver(), 15, 3, iterations=2)
    with ps.ProcessExecutor(2) as executor:
        remote = ps.surf_simplex(problem.solver(), 15, 3, iterations=2, executor=executor)
    np.testing.assert_array_equal(remote.weights, local.weights)
    np.testing.assert_array_equal(remote.points, local.points)


def test_weight_bounds_keep_every_weight_inside() -> None:
    seen: list[np.ndarray] = []

    def solver(w: np.ndarray, state: object) -> ps.Solution:
        seen.append(w)
        return ps.Solution(1.0 - np.sqrt(w))

    ps.surf_simplex(solver, 10, 3, iterations=2, weight_bounds=(0.01, 0.98))
    assert min(float(w.min()) for w in seen) == pytest.approx(0.01)
    with pytest.raises(ValueError, match="1 - 2"):
        ps.surf_simplex(solver, 10, 3, iterations=1, weight_bounds=(0.01, 0.99))


def test_moving_average_runs_with_noisy_objectives() -> None:
    problem = InvertedDTLZ2(3)
    rng = np.random.default_rng(0)
    exact = problem.solver()

    def noisy(w: np.ndarray, state: object) -> ps.Solution:
        sol = exact.solve(w)
        return ps.Solution(sol.objectives + rng.normal(scale=1e-3, size=3))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf_simplex(noisy, 21, 3, iterations=6, moving_average=0.3)
    assert res.history[-1].cv < res.history[0].cv


def test_concave_front_is_reported_as_collapsed() -> None:
    """On a concave front weighted sums reach only the corners: the result must say so."""

    def concave(w: np.ndarray, state: object) -> ps.Solution:
        # minimize w . f over the octant of the unit sphere (DTLZ2): a corner e_k
        return ps.Solution(1.0 * (np.arange(3) != int(np.argmin(w))))

    with pytest.warns(ps.ParetoWarning, match="collapsed"):
        res = ps.surf_simplex(concave, 10, 3, iterations=2)
    assert not res.success and "collapsed" in res.message


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((2, 3), "n_points must be at least n_objectives"),
        ((10, 1), "n_objectives must be at least 2"),
    ],
)
def test_bad_sizes_are_refused(args: tuple[int, int], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ps.surf_simplex(lambda w, s: ps.Solution(w), *args)


def test_a_solver_with_the_wrong_number_of_objectives_is_named() -> None:
    with pytest.raises(ValueError, match="3 objectives; the solver returned 2"):
        ps.surf_simplex(lambda w, s: ps.Solution(w[:2]), 10, 3, iterations=1)


# ---------------------------------------------------------------------------- pieces
def _two_edges_leaving_corner_2(angle: float) -> tuple[dict, dict]:
    """Edges (0, 2) and (1, 2) leave corner 2 (the origin) ``angle`` rad apart, edge (0, 1)
    far from both; each edge's 9 inner points at spacing 0.1 along it."""
    t = np.linspace(0, 1, 11)
    per_face, edges = {}, {}
    for edge, turn in (((0, 2), 0.0), ((1, 2), angle), ((0, 1), 2.5)):
        w = np.zeros((t.size, 3))
        w[:, edge[0]], w[:, edge[1]] = t, 1 - t
        per_face[edge] = (
            w[:, list(edge)],
            np.c_[t * np.cos(turn), t * np.sin(turn), np.zeros_like(t)],
        )
        e = np.zeros((9, 3))
        e[:, edge[0]], e[:, edge[1]] = t[1:-1], 1 - t[1:-1]
        edges[edge] = e
    return edges, per_face


def test_cusp_thinning_keeps_points_apart() -> None:
    """Two edges that leave corner 2 almost in the same direction: their points pair up at
    a fraction of the spacing unless one of each close pair is dropped."""
    edges, per_face = _two_edges_leaving_corner_2(0.02)
    dropped = _thin_cusps(edges, per_face)
    assert len(dropped) >= 4 and all(edge == (1, 2) for edge, _ in dropped)
    coords = np.vstack(
        [FaceMap(per_face[e][0], per_face[e][1])(p[:, list(e)]) for e, p in edges.items() if len(p)]
    )
    assert metrics.nn_distances(coords).min() >= CUSP_SHARE * 0.1 - 1e-12


def test_cusp_thinning_keeps_a_point_dropped_the_round_before() -> None:
    """Edges 0.82 rad apart: their first points are 0.08 apart, more than CUSP_SHARE of the
    spacing (0.1), so nothing is thinned; a point within the stretch thinned the round before
    stays dropped while its pair is within one spacing, and only that one."""
    angle = 2 * np.arcsin(0.4)  # first points 2 * 0.1 * 0.4 = 0.08 apart
    edges, per_face = _two_edges_leaving_corner_2(angle)
    assert 0.08 > CUSP_SHARE * 0.1 and _thin_cusps(edges, per_face) == set()
    edges, per_face = _two_edges_leaving_corner_2(angle)
    kept = _thin_cusps(edges, per_face, {((1, 2), 0.1), ((1, 2), 0.6)})
    # the points at 0.2 to 0.6 lie in the stretch thinned before, but 0.16 and more from
    # their pairs: back
    assert kept == {((1, 2), 0.1)}
    assert len(edges[(1, 2)]) == 8


def test_cusp_thinning_remembers_a_stretch_not_a_position() -> None:
    """The points move along their edge from round to round: the one that moved by a third
    of a spacing since it was thinned stays thinned."""
    angle = 2 * np.arcsin(0.4)
    edges, per_face = _two_edges_leaving_corner_2(angle)
    assert _thin_cusps(edges, per_face, {((1, 2), 0.1 + 0.1 / 3)}) == {((1, 2), 0.1)}
    edges, per_face = _two_edges_leaving_corner_2(angle)
    assert _thin_cusps(edges, per_face, {((0, 2), 0.1)}) == set()  # another edge's


def test_baselines_solve_at_their_weights() -> None:
    problem = InvertedDTLZ2(3)
    dd = das_dennis(problem.solver(), 21, 3, iterations=1)
    assert {tuple(r) for r in np.round(dd.weights, 12)} == {
        tuple(r) for r in np.round(simplex_lattice(3, 5), 12)
    }
    rnd = random_simplex(problem.solver(), 21, 3, iterations=2, seed=3)
    assert rnd.n_solves == 42 and np.all(rnd.weights[:3] == np.eye(3))
    np.testing.assert_allclose(rnd.points, problem.front(rnd.weights), atol=1e-12)
    with pytest.raises(ValueError, match="weights"):
        fixed_simplex(problem.solver(), np.array([[0.5, 0.6, 0.0], [1.0, 0.0, 0.0]]))


def test_method_settings_are_recorded() -> None:
    method = SurfSimplexMethod(28, 3, alpha="auto")
    assert method.settings() == {
        "n_points": 28,
        "n_objectives": 3,
        "alpha": "auto",
        "warm_start": "nearest",
    }


def test_concave_front_is_spread_evenly_through_the_achievement_scalarization() -> None:
    """DTLZ2's concave front, solved at each weight by its achievement scalarization (the
    point on the ray along w, what scalarization='asf' of the adapters solves): no collapse,
    and spacing far more even than the same solver at evenly spaced (Das-Dennis) weights."""
    from paretosurf.methods import das_dennis
    from paretosurf.problems import DTLZ2

    prob = DTLZ2(3, radii=(1.0, 2.0, 5.0))
    norm = (np.zeros(3), prob.radii)
    res = ps.surf_simplex(prob.solver(), 28, 3, iterations=8, normalize=norm)
    assert res.success, res.message
    lattice = das_dennis(prob.solver(), 28, 3, iterations=1)
    scaled = res.points / prob.radii
    np.testing.assert_allclose(np.linalg.norm(scaled, axis=1), 1.0, rtol=1e-9)
    assert ps.metrics.nn_cv(scaled) < 0.2
    assert ps.metrics.nn_cv(scaled) < 0.5 * ps.metrics.nn_cv(lattice.points / prob.radii)
    assert ps.metrics.nn_min_ratio(scaled) > 0.4


def test_a_slot_stuck_where_another_point_is_restarts_from_a_healthy_neighbour(
    tmp_path: Path,
) -> None:
    """A solver that stops at the vertex e_3 whenever it starts cold on part of an edge (the
    flat spot of a parameterization) and stays there from that state: without a new warm
    start those slots would sit on the vertex for good."""

    def sticky(w: np.ndarray, state: object) -> ps.Solution:
        w = np.asarray(w, dtype=np.float64)
        at_pole = state == "stuck" or (state is None and w[0] == 0.0 and 0.3 < w[2] < 1.0)
        if at_pole and w.max() < 1.0:
            return ps.Solution(np.array([0.0, 0.0, 1.0]), "stuck")
        return ps.Solution(w / np.linalg.norm(w), "ok")  # the ray along w meets the sphere

    # it minimizes no weighted sum: it says which scalarization it solves, so that the
    # findings judge its points by it
    sticky.scalarization = ps.adapters.Scalarization(  # type: ignore[attr-defined]
        "asf", ideal=np.zeros(3)
    )

    res = ps.surf_simplex(sticky, 28, 3, iterations=4)
    assert res.success, res.message
    assert all(state == "ok" for state in res.states)
    np.testing.assert_allclose(
        res.points, res.weights / np.linalg.norm(res.weights, axis=1, keepdims=True)
    )
    first = res.history[0].points
    assert np.sum(np.all(np.abs(first - [0.0, 0.0, 1.0]) < 1e-12, axis=1)) >= 3
    # the choice of warm starts survives a resume
    with pytest.warns(ps.ParetoWarning, match="collapsed"):  # after round 0, as above
        ps.surf_simplex(sticky, 28, 3, iterations=1, checkpoint=tmp_path / "run")
    resumed = ps.surf_simplex(sticky, 28, 3, iterations=4, checkpoint=tmp_path / "run", resume=True)
    np.testing.assert_array_equal(resumed.weights, res.weights)
    np.testing.assert_array_equal(resumed.points, res.points)


# ---------------------------------------------------------------------------- settling rules
def test_reallocation_moves_at_most_the_budget_toward_the_target() -> None:
    old = {(0, 1): 10, (0, 2): 10, (1, 2): 10, (0, 1, 2): 20}
    new = {(0, 1): 7, (0, 2): 10, (1, 2): 12, (0, 1, 2): 21}
    out = _reallocate(old, new, 2)
    assert sum(out.values()) == sum(old.values())
    assert sum(abs(out[f] - old[f]) for f in old) == 4  # two points moved
    assert all(min(old[f], new[f]) <= out[f] <= max(old[f], new[f]) for f in old)
    assert _reallocate(old, new, 100) == new  # a large budget reaches the target, no further
    assert _reallocate(old, old, 3) == old


def test_well_spaced_points_are_the_ones_near_the_median_spacing() -> None:
    grid = np.array([[i, j] for i in range(5) for j in range(5)], dtype=np.float64)
    assert _well_spaced(grid, 4).all()  # a lattice: every free point is placed well
    crowded = np.vstack([grid, [[2.1, 2.0]]])  # one point beside (2, 2)
    held = _well_spaced(crowded, 0)
    assert not held[12] and not held[-1] and held.sum() == len(crowded) - 2


def test_recall_fills_gaps_with_earlier_points_only() -> None:
    method = SurfSimplexMethod(10, 3)
    face = (0, 1, 2)
    now_w = np.array([[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6], [0.4, 0.3, 0.3]])
    # the newest weights' median nearest-neighbour distance is 0.31
    old_w = np.array(
        [
            [0.6, 0.2, 0.2],  # the same weight: left out
            [0.59, 0.21, 0.2],  # 0.01 from one: left out
            [0.34, 0.33, 0.33],  # 0.07 from (0.4, 0.3, 0.3): left out
            [0.0, 0.05, 0.95],
        ]
    )  # 0.43 from every weight: joins
    method._memory = [(old_w, old_w * 10.0)]
    got_w, got_c = method._recall(face, now_w, now_w * 10.0)
    np.testing.assert_array_equal(got_w[:4], now_w)
    np.testing.assert_array_equal(got_w[4:], old_w[3:])
    np.testing.assert_array_equal(got_c[4:], old_w[3:] * 10.0)


def test_allocation_changes_by_at_most_the_budget_per_round() -> None:
    """On a distorted front the allocation moves, but never more than the budget a round."""
    problem = QuadraticM.random(3, 5, seed=2)
    method = SurfSimplexMethod(91, 3)
    seen: list[tuple[dict[tuple[int, ...], int], int]] = []
    lost = [0]

    def keep_counts(record: object) -> None:
        if method.counts is not None:
            seen.append((dict(method.counts), lost[-1]))
        lost.append(len(method._thinned))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        run(method, problem.solver(), iterations=12, callback=keep_counts)
    budget = max(1, round(REALLOCATION_SHARE * 91))
    # the counts include the edge points the round before thinned (they go again): the
    # total changes with them, and beyond that at most the budget moves
    assert all(sum(c.values()) == 91 - 3 + thinned for c, thinned in seen)
    moves = [
        (sum(abs(b[f] - a[f]) for f in a) - abs(tb - ta)) // 2
        for (a, ta), (b, tb) in itertools.pairwise(seen)
    ]
    assert max(moves) <= budget and sum(moves) > 0


@pytest.mark.parametrize("seed", [21, 39])
def test_the_result_is_the_most_even_of_the_last_rounds(tmp_path: Path, seed: int) -> None:
    from paretosurf.loop._kept_rounds import KEEP_ROUNDS

    # distorted fronts whose last rounds swing: seed 21 max/min 2.0, 10.4, 5.4, 4.0 and 5.4 in
    # rounds 5-9; seed 39 4.3, 3.2, 2.7, 5.9 and 8.7 (10 rounds: from round
    # SETTLE_GUARD_FROM on, a swing ends the layout's search, see test_surf_simplex_settle.py)
    problem = QuadraticM.random(3, 5, seed=seed)
    bounds = corner_normalization(problem)
    # the paper's damping over all 10 rounds: the swings above are those of alpha = 0.3
    paper = {"alpha": 0.3, "early_stopping": False, "normalize": bounds}
    res = ps.surf_simplex(problem.solver(), 91, 3, iterations=10, **paper)
    same = [i for i, r in enumerate(res.history) if np.array_equal(r.points, res.points)]
    assert len(same) == 1 and same[0] >= len(res.history) - KEEP_ROUNDS
    k = same[0]
    np.testing.assert_array_equal(res.weights, res.history[k].weights)
    pts = normalized(res.points, bounds)
    ratio = metrics.nn_ratio(pts)
    assert res.gap_ratio == pytest.approx(ratio, rel=1e-12)
    assert res.cv == pytest.approx(metrics.nn_cv(pts), rel=1e-12)
    # the most even of the last rounds, the last one included (here far less even)
    window = [metrics.nn_ratio(normalized(r.points, bounds)) for r in res.history[-KEEP_ROUNDS:]]
    assert ratio == pytest.approx(min(window), rel=1e-12)
    assert ratio <= 3 < window[-1]
    assert res.reported_round == k
    assert f"the points of round {k} " in res.message
    # the states are that round's: each solves its weight again to its point
    solver = problem.solver()
    again = np.array(
        [solver.solve(w, s).objectives for w, s in zip(res.weights, res.states, strict=True)]
    )
    np.testing.assert_allclose(again, res.points, rtol=0, atol=1e-9)
    # a run stopped after 6 rounds resumes to the same report, and loads as it
    ps.surf_simplex(problem.solver(), 91, 3, iterations=6, checkpoint=tmp_path / "run", **paper)
    resumed = ps.surf_simplex(
        problem.solver(), 91, 3, iterations=10, checkpoint=tmp_path / "run", resume=True, **paper
    )
    np.testing.assert_array_equal(resumed.points, res.points)
    loaded = ps.Result.load(tmp_path / "run")
    np.testing.assert_array_equal(loaded.points, res.points)
    assert len(loaded.states) == 91


def test_two_objectives_report_the_last_round() -> None:
    problem = QuadraticM.random(2, 5, seed=1)
    res = ps.surf_simplex(problem.solver(), 11, 2, iterations=6)
    np.testing.assert_array_equal(res.points, res.history[-1].points)


def test_the_number_of_objectives_comes_from_the_solver() -> None:
    """``n_objectives`` left out: the adapters' and the bundled problems' solvers say how
    many objectives they have, and the run is the one with the count given; a count that
    differs from the solver's, or none where the solver says nothing, is refused with the
    remedy."""
    problem = QuadraticM.random(3, 4, seed=2)
    given = ps.surf_simplex(problem.solver(), 15, 3, iterations=3)
    taken = ps.surf_simplex(problem.solver(), 15, iterations=3)
    np.testing.assert_array_equal(taken.points, given.points)
    adapter = ps.adapters.from_scipy(problem.objectives, np.zeros(4))
    assert ps.methods.das_dennis(adapter, 15, iterations=1).weights.shape == (15, 3)
    with pytest.raises(ValueError, match="the solver has 3 objectives"):
        ps.surf_simplex(problem.solver(), 15, 4, iterations=1)
    with pytest.raises(TypeError, match=r"needs n_objectives.*surf_simplex\(solver, 28, 3\)"):
        ps.surf_simplex(lambda w, state: ps.Solution(1.0 - w), 15)
    for name in ("random_simplex", "energy"):
        res = getattr(ps.methods, name)(problem.solver(), 15, iterations=1)
        assert res.weights.shape == (15, 3)
