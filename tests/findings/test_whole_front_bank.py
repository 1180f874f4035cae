"""The reference fronts of benchmarks/whole_front_bank.py against independent truth: closed
forms, the exact solvers' own minimizers, published optima, feasibility of the designs, and an
epsilon-constraint check of the truss's closed form. No paretosurf run is involved; the
solvers are only built and called once each."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.optimize

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import whole_front_bank as bank

#: Largest normalized distance of an exact point to a closed-form reference polyline (the
#: polylines' chords are at most 2e-3, so their sag is far below this).
ON_TOL = 1e-4


def _call(solver, w, state=None):
    """Call an adapter's ``solve`` or a plain solver function."""
    return solver.solve(w, state) if hasattr(solver, "solve") else solver(w, state)


def _assert_monotone_front(points):
    """Sorted by f1 increasing, f2 strictly decreasing: a front with no dominated point."""
    assert np.all(np.diff(points[:, 0]) > 0)
    assert np.all(np.diff(points[:, 1]) < 0)


# ---------------------------------------------------------------------------------------
# Every entry
# ---------------------------------------------------------------------------------------


def test_bank_has_the_entries_asked_for():
    entries = bank.bank()
    assert len(entries) >= 14
    kinds = {e.kind for e in entries.values()}
    assert {"scipy", "pymoo", "torch", "exact"} <= kinds
    assert any(e.weak_end for e in entries.values())
    assert any(not e.end_has_minimizer for e in entries.values())
    for e in entries.values():
        assert (e.extended is not None) == (not e.end_has_minimizer)


@pytest.mark.parametrize("name", list(bank.bank()))
def test_solver_factory_gives_a_working_solver(name):
    pytest.importorskip("pymoo")
    if name.startswith("torch"):
        pytest.importorskip("torch")
    sol = _call(bank.get(name).solver("linear"), 0.5)
    f = np.asarray(sol.objectives, dtype=float)
    assert f.shape == (2,)
    assert np.all(np.isfinite(f))


@pytest.mark.parametrize("name", [n for n in bank.bank() if n != "welded_beam"])
def test_references_are_dense_nondominated_and_sorted(name):
    ref = bank.get(name).reference()
    pts = ref.points
    assert pts.shape[1] == 2 and pts.shape[0] >= 500
    assert np.all(np.isfinite(pts))
    assert bank.nondominated(pts).all()
    assert np.all(np.diff(pts[:, 0]) >= 0)
    assert np.all(ref.nadir > ref.ideal)
    # every piece is a monotone curve, and consecutive points are close
    for piece in ref.pieces:
        if piece.shape[0] > 1:
            _assert_monotone_front(piece)
            chords = np.linalg.norm(np.diff(ref.normalize(piece), axis=0), axis=1)
            assert chords.max() < 0.02


def test_polyline_distance():
    poly = np.array([[0.0, 1.0], [1.0, 0.0]])
    d = bank.polyline_distance(np.array([[0.0, 0.0], [2.0, 0.0], [0.5, 0.5]]), poly)
    np.testing.assert_allclose(d, [math.sqrt(0.5), 1.0, 0.0], atol=1e-15)
    # pieces are not joined: the gap between two pieces is off the front
    ref = bank.ReferenceFront(
        (np.array([[0.0, 1.0], [0.1, 0.9]]), np.array([[0.9, 0.1], [1.0, 0.0]]))
    )
    assert ref.distance(np.array([[0.5, 0.5]]))[0] > 0.5


# ---------------------------------------------------------------------------------------
# Ridge, lasso, torch model: exact solvers and closed forms
# ---------------------------------------------------------------------------------------


def test_ridge_reference_holds_the_exact_solvers_points():
    prob = bank.ridge_problem()
    ref = bank.ridge_reference()
    solve = bank.get("ridge_ill_conditioned").solver("linear")
    weights = np.concatenate([[0.0, 1.0], np.random.default_rng(7).random(40)])
    weights = np.concatenate([weights, 1.0 - np.geomspace(1e-12, 1e-2, 10)])
    pts = np.array([_call(solve, float(w)).objectives for w in weights])
    assert ref.distance(pts).max() < ON_TOL
    # monotone along the weight: f1 falls and f2 grows as w grows
    order = np.argsort(weights)
    assert np.all(np.diff(pts[order, 0]) <= 1e-12)
    assert np.all(np.diff(pts[order, 1]) >= -1e-12)
    _assert_monotone_front(ref.points)
    # the ends: least squares (numpy's lstsq, independent of the SVD formula) and x = 0
    x_ls = np.linalg.lstsq(prob.a, prob.b, rcond=None)[0]
    np.testing.assert_allclose(ref.points[0], prob.objectives(x_ls), rtol=1e-6)
    np.testing.assert_allclose(ref.points[-1], [prob.b @ prob.b / prob.b.size, 0.0])
    assert np.linalg.cond(prob.a) == pytest.approx(1e5, rel=1e-6)


def test_ridge_solver_solves_the_normal_equations():
    prob = bank.ridge_problem()
    n = prob.b.size
    for w in (0.3, 0.999):
        x = prob.minimizer(w)
        lhs = (w * prob.a.T @ prob.a / n + (1 - w) * np.eye(x.size)) @ x
        np.testing.assert_allclose(lhs, w * prob.a.T @ prob.b / n, atol=1e-10)


def test_lasso_reference_holds_the_exact_solvers_points_and_is_convex():
    pytest.importorskip("sklearn")
    ref = bank.lasso_reference()
    solve = bank.get("lasso_path").solver("linear")
    weights = np.concatenate([[0.0, 1.0], np.random.default_rng(3).random(15)])
    pts = np.array([_call(solve, float(w)).objectives for w in weights])
    assert ref.distance(pts).max() < 1e-3
    # the lasso front is convex: slopes df2/df1 increase along f1
    p = ref.points
    slopes = np.diff(p[:, 1]) / np.diff(p[:, 0])
    assert np.all(np.diff(slopes) >= -1e-6 * np.abs(slopes[1:]).max())
    # ends: zero coefficients and least squares
    prob = bank.lasso_problem()
    np.testing.assert_allclose(p[-1], [0.5 * prob.b @ prob.b / prob.b.size, 0.0])
    x_ls = np.linalg.lstsq(prob.a, prob.b, rcond=None)[0]
    np.testing.assert_allclose(p[0], prob.objectives(x_ls), rtol=1e-9)


def test_torch_reference_is_the_closed_form():
    # with theta_k the least-squares fits of y_k and r_k their residuals, the minimizer at w
    # is w theta_1 + (1 - w) theta_2, so sqrt(f1 - r1) + sqrt(f2 - r2) = ||X (theta_1 -
    # theta_2)|| / sqrt(n)
    data = bank.torch_data()
    t1 = np.linalg.lstsq(data.x, data.y1, rcond=None)[0]
    t2 = np.linalg.lstsq(data.x, data.y2, rcond=None)[0]
    r1, r2 = data.losses(t1)[0], data.losses(t2)[1]
    c = np.linalg.norm(data.x @ (t1 - t2)) / math.sqrt(data.x.shape[0])
    p = bank.torch_reference().points
    np.testing.assert_allclose(
        np.sqrt(np.maximum(p[:, 0] - r1, 0)) + np.sqrt(np.maximum(p[:, 1] - r2, 0)), c, rtol=1e-9
    )
    np.testing.assert_allclose(p[0, 0], r1, rtol=1e-12)
    np.testing.assert_allclose(p[-1, 1], r2, rtol=1e-12)


def test_torch_solver_trains_the_model_onto_the_front():
    pytest.importorskip("torch")
    solver = bank.get("torch_two_targets").solver("linear")
    sol = None
    for _ in range(10):  # 1000 Adam steps, warm-started
        sol = solver.solve(0.5, None if sol is None else sol.state)
    ref = bank.torch_reference()
    assert ref.distance(np.atleast_2d(sol.objectives))[0] < 1e-3


def test_flat_face_reference_and_its_weak_end():
    ref = bank.flat_face_reference()
    p = ref.points
    np.testing.assert_allclose(np.sqrt(p[:, 0]) + np.sqrt(p[:, 1]), 1.0, atol=1e-12)
    # at w = 0 every (0, x2) minimizes f2; only (0, 1) gives the Pareto point (1, 0)
    weak = bank.flat_face_objectives(np.array([0.0, -1.0]))
    assert weak[1] == 0.0 and ref.distance(np.atleast_2d(weak))[0] > 1.0
    assert bank.get("flat_face_quadratic").weak_end == "w=0"


def test_flat_start_reference_and_its_flat_start():
    ref = bank.flat_start_reference()
    d = float(np.sum((bank.FLAT_START_C2 - bank.FLAT_START_C1) ** 2))
    p = ref.points
    np.testing.assert_allclose(np.sqrt(p[:, 0]) + np.sqrt(p[:, 1]), np.sqrt(d), atol=1e-9)
    # the targets themselves, reached at x = c (1 + 0.5 / |c|), are the front's ends
    for c, end in ((bank.FLAT_START_C1, 0), (bank.FLAT_START_C2, 1)):
        x = c * (1.0 + 0.5 / np.linalg.norm(c))
        assert bank.flat_start_objectives(x)[end] == pytest.approx(0.0, abs=1e-12)
    # around x0 = 0 both objectives are constant: a flat start
    near = bank.flat_start_objectives(np.full(4, 0.1))
    np.testing.assert_array_equal(near, bank.flat_start_objectives(np.zeros(4)))


def test_logistic_reference_has_no_end_at_w1():
    prob = bank.logistic_problem()
    # separable: some direction classifies every point with a positive margin
    assert (prob.a @ np.array([1.0, 0.5]) > 0).all()
    ref = bank.logistic_reference()
    p = ref.points
    _assert_monotone_front(p)
    np.testing.assert_allclose(p[-1], [math.log(2.0), 0.0])
    assert p[0, 0] > 0
    # each point is the regularized minimizer: the gradient of f1 + lam f2 vanishes
    for lam in (1e-3, 1e-1):
        x = prob.regularized(lam, np.zeros(2))
        g = prob.jacobian(x)
        np.testing.assert_allclose(g[0] + lam * g[1], 0.0, atol=1e-12)
        assert ref.distance(np.atleast_2d(prob.objectives(x)))[0] < ON_TOL
    # the continuation goes on where the truncated reference stops
    longer = bank.logistic_extended(2.0 * ref.nadir[1])
    assert longer.nadir[1] >= 2.0 * ref.nadir[1] and longer.ideal[0] < ref.ideal[0]
    assert not bank.get("logistic_separable").end_has_minimizer


# ---------------------------------------------------------------------------------------
# ZDT: closed forms, pymoo's fronts, ZDT6's f1 range
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["zdt1", "zdt2", "zdt3", "zdt4", "zdt6"])
def test_zdt_references_are_their_closed_forms(name):
    ref = bank.zdt_reference(name)
    p = ref.points
    np.testing.assert_allclose(p[:, 1], bank.zdt_front_closed_form(name, p[:, 0]), atol=1e-12)
    if name == "zdt6":
        # f1 = 1 - exp(-4 x) sin(6 pi x)^6 is smallest at its first minimum, found here on
        # a grid and polished by scipy
        x = np.linspace(0, 1, 200_001)
        f1 = 1 - np.exp(-4 * x) * np.sin(6 * np.pi * x) ** 6
        i = int(np.argmin(f1))
        r = scipy.optimize.minimize_scalar(
            lambda t: 1 - math.exp(-4 * t) * math.sin(6 * math.pi * t) ** 6,
            bounds=(x[i - 5], x[i + 5]),
            method="bounded",
            options={"xatol": 1e-12},
        )
        assert p[0, 0] == pytest.approx(r.fun, abs=1e-9)
        assert p[-1, 0] == 1.0
    elif name == "zdt3":
        assert len(ref.pieces) == 5
        assert p[0, 0] == 0.0 and 0.851 < p[-1, 0] < 0.852
    else:
        assert p[0, 0] == 0.0 and p[-1, 0] == 1.0


@pytest.mark.parametrize("name", ["zdt1", "zdt2", "zdt3", "zdt4", "zdt6"])
def test_zdt_references_agree_with_pymoo(name):
    pytest.importorskip("pymoo")
    from pymoo.problems import get_problem

    problem = get_problem(name)
    ours = bank.zdt_reference(name)
    if name == "zdt3":
        # pymoo's five pieces, as f1 intervals: ours have the same ends
        pieces = problem._calc_pareto_front(n_points=2000, flatten=False)
        assert len(pieces) == len(ours.pieces) == 5
        for theirs, mine in zip(pieces, ours.pieces, strict=True):
            assert ours.distance(theirs).max() < 1e-3
            assert mine[0, 0] == pytest.approx(theirs[0, 0], abs=1e-5)
            assert mine[-1, 0] == pytest.approx(theirs[-1, 0], abs=1e-5)
        return
    theirs = problem.pareto_front(n_pareto_points=400)
    assert ours.distance(theirs).max() < 1e-3
    # and the other way round: pymoo's points reach every stretch of ours
    assert bank.ReferenceFront((theirs,)).distance(ours.points).max() < 1e-2


def test_zdt1_scaled_reference():
    ref = bank.zdt_reference("zdt1", 1000.0)
    p = ref.points
    np.testing.assert_allclose(p[:, 1], 1000.0 * (1.0 - np.sqrt(p[:, 0])), atol=1e-9)
    x = np.zeros(30)
    x[0] = 0.25
    np.testing.assert_allclose(bank.zdt1_scaled_objectives(x), [0.25, 500.0])


def test_zdt_random_starts_are_seeded_and_in_the_box():
    pytest.importorskip("pymoo")
    a = bank.get("zdt4_random_start").solver("linear")
    b = bank.get("zdt4_random_start").solver("linear")
    np.testing.assert_array_equal(a.solve(0.5, None).objectives, b.solve(0.5, None).objectives)


# ---------------------------------------------------------------------------------------
# Engineering designs: feasible, non-dominated, consistent, and a check by epsilon-constraint
# ---------------------------------------------------------------------------------------


def _assert_feasible_designs(ref, objectives, constraints, bounds):
    assert ref.x is not None and ref.x.shape[0] == ref.points.shape[0]
    lo = np.array([b[0] for b in bounds])
    hi = np.array([b[1] for b in bounds])
    assert np.all(ref.x >= lo - 1e-12) and np.all(ref.x <= hi + 1e-12)
    g = np.array([constraints(x) for x in ref.x])
    assert g.min() >= -1e-6
    f = np.array([objectives(x) for x in ref.x])
    np.testing.assert_allclose(f, ref.points, rtol=1e-10)
    assert bank.nondominated(ref.points).all()
    assert np.all(ref.nadir > ref.ideal)


def test_truss_reference_is_feasible_and_the_closed_form():
    ref = bank.truss_reference()
    _assert_feasible_designs(ref, bank.truss_objectives, bank.truss_constraints, bank.TRUSS_BOUNDS)
    p = ref.points
    main = p[:, 1] >= 4 * math.sqrt(5)
    np.testing.assert_allclose(p[main, 0] * p[main, 1], 0.4, rtol=1e-12)  # V s = 0.4
    assert p[0] == pytest.approx([0.004, 100.0])
    assert p[-1, 1] == pytest.approx(8 * math.sqrt(10) / 3)
    # both bars at the stress bound on the main piece (fully stressed design)
    s = np.array([bank.truss_stresses(x) for x in ref.x[main]])
    np.testing.assert_allclose(s[:, 0], s[:, 1], rtol=1e-10)


@pytest.mark.parametrize("stress", [8.5, 8.8, 9.5, 30.0, 90.0])
def test_truss_closed_form_beats_a_multistart_epsilon_constraint(stress):
    # minimize the volume subject to both stresses <= stress (smooth constraints), SLSQP on
    # the box scaled to [0, 1]^3 from 12 random starts, the best feasible kept
    f_ref, _ = bank.truss_front_at(np.array([stress]))
    rng = np.random.default_rng(0)
    lo = np.array([b[0] for b in bank.TRUSS_BOUNDS])
    hi = np.array([b[1] for b in bank.TRUSS_BOUNDS])

    def design(u):
        return lo + (hi - lo) * np.clip(u, 0.0, 1.0)

    best = math.inf
    for u0 in rng.random((12, 3)):
        r = scipy.optimize.minimize(
            lambda u: bank.truss_objectives(design(u))[0] * 100.0,
            u0,
            method="SLSQP",
            bounds=[(0.0, 1.0)] * 3,
            constraints=[
                {"type": "ineq", "fun": lambda u: 1.0 - bank.truss_stresses(design(u)) / stress}
            ],
            options={"ftol": 1e-12, "maxiter": 1000},
        )
        if bank.truss_stresses(design(r.x)).max() <= stress * (1 + 1e-7):
            best = min(best, bank.truss_objectives(design(r.x))[0])
    assert best >= f_ref[0, 0] * (1 - 1e-6)  # never beaten ...
    assert best == pytest.approx(f_ref[0, 0], rel=1e-6)  # ... and reached


def test_welded_beam_small_reference_is_feasible_and_spans_the_published_range():
    ref = bank.welded_beam_reference(40, 2, 0)
    _assert_feasible_designs(
        ref, bank.welded_beam_objectives, bank.welded_beam_constraints, bank.WELDED_BEAM_BOUNDS
    )
    p = ref.points
    # the cheapest feasible design costs 2.3810 (Deb & Sundar 2006; Ray & Liew 2002) and the
    # stiffest deflects 4 P L^3 / (E b t^3) at t = 10, b = 5
    assert p[0, 0] == pytest.approx(2.381, rel=2e-3)
    assert p[-1, 1] == pytest.approx(4 * 6000 * 14**3 / (30e6 * 5 * 1000))
    assert p[-1, 0] > 30 and p[0, 1] > 0.01


def test_welded_beam_constraints_at_a_known_design():
    # hand-computed: h=1, l=3, t=5, b=2; sigma = 6 P L / (b t^2) = 10080 psi
    g = bank.welded_beam_constraints(np.array([1.0, 3.0, 5.0, 2.0]))
    assert g[1] == pytest.approx(1 - 10080 / 30000)
    assert g[2] == pytest.approx(1.0)
    f = bank.welded_beam_objectives(np.array([1.0, 3.0, 5.0, 2.0]))
    assert f[1] == pytest.approx(4 * 6000 * 14**3 / (30e6 * 2 * 125))
    assert f[0] == pytest.approx(1.10471 * 3 + 0.04811 * 10 * 17)


@pytest.mark.slow
def test_welded_beam_full_reference():
    ref = bank.welded_beam_reference()
    assert ref.points.shape[0] >= 500
    _assert_feasible_designs(
        ref, bank.welded_beam_objectives, bank.welded_beam_constraints, bank.WELDED_BEAM_BOUNDS
    )
    chords = np.linalg.norm(np.diff(ref.normalize(ref.points), axis=0), axis=1)
    assert chords.max() < 0.02
