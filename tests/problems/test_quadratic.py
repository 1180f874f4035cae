"""Quadratic problems: closed forms checked against quadrature, finite differences, brute force."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq, minimize_scalar

import paretosurf as ps
from paretosurf.problems.base import BiObjectiveProblem
from paretosurf.problems.quadratic import (
    GearToy,
    GearToyCDF,
    Quadratic,
    Quadratic1D,
    Quadratic1DCDF,
)

# (q1, b1, q2, b2): r = q2 / q1 below, at and above 1 (the three cases of eq. Farc_cases).
CASES_1D = [(1.0, 1.0, 0.25, -1.0), (2.0, 0.5, 2.0, 1.5), (1.0, 0.0, 5.0, 2.0)]
IDS_1D = ["r<1", "r=1", "r>1"]


def random_spd(rng: np.random.Generator, n: int) -> np.ndarray:
    a = rng.normal(size=(n, n))
    return a @ a.T + 0.5 * np.eye(n)


def random_quadratic(seed: int = 0, n: int = 3) -> Quadratic:
    rng = np.random.default_rng(seed)
    return Quadratic(random_spd(rng, n), rng.normal(size=n), random_spd(rng, n), rng.normal(size=n))


def scalar(f: Callable[[np.ndarray], np.ndarray]) -> Callable[[float], float]:
    return lambda u: float(f(np.asarray(u)))


def quad_cdf(speed: Callable[[float], float]) -> Callable[[float], float]:
    """Phi by adaptive quadrature of a scalar speed (the independent reference)."""
    total = quad(speed, 0.0, 1.0, epsabs=0.0, epsrel=1e-13, limit=200)[0]

    def phi(w: float) -> float:
        return quad(speed, 0.0, w, epsabs=0.0, epsrel=1e-13, limit=200)[0] / total

    return phi


def quad_quantiles(speed: Callable[[float], float], n: int) -> np.ndarray:
    """Phi^{-1}(k / N) by brentq on the quadrature CDF."""
    phi = quad_cdf(speed)
    inner = [
        brentq(lambda w, q=k / n: phi(w) - q, 0.0, 1.0, xtol=1e-15, rtol=1e-15) for k in range(1, n)
    ]
    return np.array([0.0, *inner, 1.0])


def paper_nd_speed(prob: Quadratic) -> Callable[[float], float]:
    """sqrt((m1 + m3)^2 + (m2 + m3)^2) from the paper's n-d formulas (proportional speed)."""
    q1, q2 = prob.Q1, prob.Q2
    d = prob.b1 - prob.b2
    eye = np.eye(q1.shape[0])

    def speed(w: float) -> float:
        sigma_inv = np.linalg.inv(w * q1 + (1 - w) * q2)
        p = sigma_inv @ (w * q1)
        m1 = d @ (eye - p).T @ q1 @ sigma_inv @ q1 @ (eye - p) @ d
        m2 = d @ p.T @ q2 @ sigma_inv @ q2 @ p @ d
        m3 = d @ p.T @ q2 @ sigma_inv @ q1 @ (eye - p) @ d
        return float(np.hypot(m1 + m3, m2 + m3))

    return speed


def speed_1d_unnormalized(q1: float, q2: float) -> Callable[[float], float]:
    """The paper's eq. quadratic_vw, up to a constant."""
    return lambda u: np.sqrt((1 - u) ** 2 + u**2) / (u * q1 + (1 - u) * q2) ** 3


# --------------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("case", CASES_1D, ids=IDS_1D)
def test_quadratic1d_closed_form_cdf_matches_quadrature(case: tuple[float, ...]) -> None:
    q1, b1, q2, b2 = case
    prob = Quadratic1D(q1, b1, q2, b2)
    phi_ref = quad_cdf(speed_1d_unnormalized(q1, q2))
    w = np.linspace(0.0, 1.0, 41)
    np.testing.assert_allclose(prob.cdf()(w), [phi_ref(x) for x in w], atol=1e-12)
    # total_length is the exact arc length of the front (no unknown constant).
    total = quad(lambda u: float(prob.speed(u)), 0.0, 1.0, epsabs=0.0, epsrel=1e-13)[0]
    assert prob.cdf().total_length == pytest.approx(total, rel=1e-11)


@pytest.mark.parametrize("ratio", [0.01, 0.3, 1.0 - 1e-9, 1.0 + 1e-9, 3.0, 100.0])
def test_quadratic1d_cdf_extreme_and_near_one_ratios_match_quadrature(ratio: float) -> None:
    phi_ref = quad_cdf(speed_1d_unnormalized(1.0, ratio))
    w = np.linspace(0.0, 1.0, 21)
    np.testing.assert_allclose(Quadratic1DCDF(ratio)(w), [phi_ref(x) for x in w], atol=1e-11)


def test_quadratic1d_cdf_is_continuous_across_ratio_one() -> None:
    w = np.linspace(0.0, 1.0, 101)
    at_one = Quadratic1DCDF(1.0)(w)
    for r in (1 - 1e-7, 1 + 1e-7):
        np.testing.assert_allclose(Quadratic1DCDF(r)(w), at_one, atol=1e-6)


@pytest.mark.parametrize("ratio", [0.2, 2.0, 7.5])
def test_quadratic1d_cdf_symmetry(ratio: float) -> None:
    # Phi(w; r) = 1 - Phi(1 - w; 1/r) (eq. Farc_symmetry).
    w = np.linspace(0.0, 1.0, 51)
    np.testing.assert_allclose(
        Quadratic1DCDF(ratio)(w), 1 - Quadratic1DCDF(1 / ratio)(1 - w), atol=1e-13
    )


def test_quadratic1d_ratio_one_is_paper_asinh_formula() -> None:
    # eq. Farc_r1 with t sqrt(1 + t^2) = sqrt(2) (2w - 1) sqrt(2w^2 - 2w + 1), t = 2w - 1. (The
    # paper's display omits this sqrt(2); without it Phi(0) = sqrt(2) - 1 != 0.)
    w = np.linspace(0.0, 1.0, 33)
    paper = (
        np.sqrt(2) * (2 * w - 1) * np.sqrt(2 * w**2 - 2 * w + 1)
        + np.arcsinh(2 * w - 1)
        + np.sqrt(2)
        + np.arcsinh(1)
    ) / (2 * np.sqrt(2) + 2 * np.arcsinh(1))
    np.testing.assert_allclose(Quadratic1D(3.0, 0.0, 3.0, 1.0).cdf()(w), paper, atol=1e-14)


def test_quadratic1d_swapping_objectives_mirrors_front() -> None:
    prob = Quadratic1D(1.0, 0.0, 4.0, 2.0)
    swapped = Quadratic1D(4.0, 2.0, 1.0, 0.0)
    w = np.linspace(0.0, 1.0, 17)
    np.testing.assert_allclose(swapped.front(1 - w), prob.front(w)[:, ::-1], rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(swapped.cdf()(1 - w), 1 - prob.cdf()(w), atol=1e-13)


def test_quadratic1d_front_is_paper_formula_and_objectives_of_argmin() -> None:
    q1, b1, q2, b2 = 2.0, -1.0, 0.5, 3.0
    prob = Quadratic1D(q1, b1, q2, b2)
    w = np.linspace(0.0, 1.0, 13)
    den = w * q1 + (1 - w) * q2
    paper = np.c_[
        q1 * q2**2 * (1 - w) ** 2 * (b2 - b1) ** 2 / den**2,
        q2 * q1**2 * w**2 * (b2 - b1) ** 2 / den**2,
    ]
    np.testing.assert_allclose(prob.front(w), paper, rtol=1e-13, atol=1e-13)
    looped = np.array(
        [[q1 * (prob.argmin(x)[0] - b1) ** 2, q2 * (prob.argmin(x)[0] - b2) ** 2] for x in w]
    )
    np.testing.assert_allclose(looped, paper, rtol=1e-12, atol=1e-13)
    # The Pareto set is the interval between the minimizers, swept monotonically from b2 to b1.
    xs = np.array([prob.argmin(x)[0] for x in w])
    assert np.all(np.diff(xs) * np.sign(b1 - b2) > 0)
    assert xs[0] == pytest.approx(b2) and xs[-1] == pytest.approx(b1)


def test_gear_toy_cdf_matches_quadrature_and_arc_length_is_gear_free() -> None:
    arc = quad(lambda x: 2 * np.sqrt((1 - x) ** 2 + x**2), 0.0, 1.0, epsrel=1e-14)[0]
    w = np.linspace(0.0, 1.0, 41)
    for p in (1.0, 4.0, 9.5):
        toy = GearToy(p)
        phi_ref = quad_cdf(scalar(toy.speed))
        np.testing.assert_allclose(toy.cdf()(w), [phi_ref(x) for x in w], atol=1e-12)
        assert toy.cdf().total_length == pytest.approx(arc, rel=1e-13)


def test_gear_toy_p1_is_symmetric_quadratic1d() -> None:
    w = np.linspace(0.0, 1.0, 21)
    toy, quad1 = GearToy(1), Quadratic1D(1.0, 1.0, 1.0, 0.0)
    np.testing.assert_allclose(toy.front(w), quad1.front(w), atol=1e-15)
    np.testing.assert_allclose(toy.cdf()(w), quad1.cdf()(w), atol=1e-14)


def test_gear_toy_midpoint_weight_is_closed_form() -> None:
    # x*_w = 1/2 at w = 1 / (sqrt(p) + 1), and by symmetry of the curve Phi = 1/2 there.
    for p in (2.0, 9.0, 10.0):
        w_half = 1 / (np.sqrt(p) + 1)
        assert GearToy(p).argmin(w_half) == pytest.approx(0.5, abs=1e-15)
        assert GearToy(p).cdf().inverse(0.5) == pytest.approx(w_half, abs=1e-13)


# -------------------------------------------------------------------------------- cdf invariants
CDFS = [
    Quadratic1DCDF(0.1),
    Quadratic1DCDF(1.0),
    Quadratic1DCDF(12.0),
    GearToyCDF(1.0),
    GearToyCDF(9.0),
]


@pytest.mark.parametrize("cdf", CDFS, ids=repr)
def test_closed_form_cdf_invariants(cdf: Quadratic1DCDF | GearToyCDF) -> None:
    w = np.linspace(0.0, 1.0, 2001)
    values = cdf(w)
    assert values[0] == pytest.approx(0.0, abs=1e-15)
    assert values[-1] == pytest.approx(1.0, abs=1e-14)
    assert np.all(np.diff(values) > 0)
    # derivative = normalized speed, checked against a central difference of Phi.
    h = 1e-6
    x = np.linspace(0.05, 0.95, 19)
    np.testing.assert_allclose(cdf.derivative(x), (cdf(x + h) - cdf(x - h)) / (2 * h), rtol=1e-7)
    np.testing.assert_allclose(cdf.arc_length(1.0), cdf.total_length, rtol=1e-14)
    # inverse round trip, and Rule 1 quantiles land on n / N.
    np.testing.assert_allclose(cdf.inverse(values), w, atol=1e-12)
    np.testing.assert_allclose(cdf(cdf.quantile_weights(25)), np.arange(26) / 25, atol=1e-13)
    assert cdf.inverse(np.array([[0.0, 1.0]])).tolist() == [[0.0, 1.0]]


# ---------------------------------------------------------------------------------------- Rule 1
@pytest.mark.parametrize("case", CASES_1D, ids=IDS_1D)
@pytest.mark.parametrize("n", [4, 15])
def test_rule1_on_quadratic1d_matches_closed_form_and_quadrature(
    case: tuple[float, ...], n: int
) -> None:
    prob = Quadratic1D(*case)
    weights = ps.weights_from_speed(prob.speed, n)
    np.testing.assert_allclose(weights, prob.cdf().quantile_weights(n), atol=1e-8)
    if n == 4:  # the quadrature/brentq reference is slower; one N suffices
        q1, _, q2, _ = case
        np.testing.assert_allclose(
            weights, quad_quantiles(speed_1d_unnormalized(q1, q2), n), atol=1e-8
        )


def test_rule1_on_random_3d_quadratic_matches_paper_m_formulas() -> None:
    prob = random_quadratic(seed=7)
    n = 6
    weights = ps.weights_from_speed(prob.speed, n)
    reference = quad_quantiles(paper_nd_speed(prob), n)
    np.testing.assert_allclose(weights, reference, atol=1e-8)
    # The problem's default cdf() (quadrature of the exact speed) agrees too.
    np.testing.assert_allclose(prob.optimal_weights(n), reference, atol=1e-8)


def test_nd_speed_is_exactly_twice_paper_norm() -> None:
    prob = random_quadratic(seed=3, n=4)
    ref = paper_nd_speed(prob)
    w = np.linspace(0.0, 1.0, 9)
    np.testing.assert_allclose(prob.speed(w), [2 * ref(x) for x in w], rtol=1e-10)


# ------------------------------------------------------------------ speed, argmin, front checks
PROBLEMS: list[BiObjectiveProblem] = [
    random_quadratic(seed=1),
    random_quadratic(seed=2, n=5),
    Quadratic1D(1.0, 1.0, 0.25, -1.0),
    Quadratic1D(1.0, 0.0, 5.0, 2.0),
    GearToy(1),
    GearToy(9),
]


@pytest.mark.parametrize("prob", PROBLEMS, ids=repr)
def test_exact_speed_matches_finite_differences_of_front(prob: BiObjectiveProblem) -> None:
    w = np.linspace(0.02, 0.98, 25)
    h = 1e-5
    fd = (prob.front(w + h) - prob.front(w - h)) / (2 * h)
    np.testing.assert_allclose(prob.speed(w), np.linalg.norm(fd, axis=1), rtol=1e-7)
    # vectorised: any shape in, same shape out
    assert prob.speed(w.reshape(5, 5)).shape == (5, 5)


@pytest.mark.parametrize("prob", PROBLEMS, ids=repr)
def test_vectorised_front_equals_objectives_of_argmin(prob: BiObjectiveProblem) -> None:
    w = np.linspace(0.0, 1.0, 11)
    looped = np.stack([prob.objectives(prob.argmin(float(x))) for x in w])
    np.testing.assert_allclose(prob.front(w), looped, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("seed", [0, 5])
def test_nd_argmin_satisfies_first_order_optimality(seed: int) -> None:
    prob = random_quadratic(seed=seed, n=4)
    for w in (0.0, 0.3, 0.77, 1.0):
        x = prob.argmin(w)
        grad = w * 2 * prob.Q1 @ (x - prob.b1) + (1 - w) * 2 * prob.Q2 @ (x - prob.b2)
        np.testing.assert_allclose(grad, 0.0, atol=1e-11)
    np.testing.assert_allclose(prob.argmin(1.0), prob.b1, atol=1e-12)
    np.testing.assert_allclose(prob.argmin(0.0), prob.b2, atol=1e-12)


@pytest.mark.parametrize("p", [1.0, 4.0, 9.0])
def test_gear_toy_argmin_minimizes_geared_scalarization(p: float) -> None:
    toy = GearToy(p)
    for w in (0.1, 0.5, 0.9):
        brute = minimize_scalar(
            lambda x, w=w: w * np.sqrt(p) / 2 * (x - 1) ** 2 + (1 - w) * x**2 / 2,
            bracket=(0.0, 1.0),
            tol=1e-12,
        ).x
        assert toy.argmin(w) == pytest.approx(brute, abs=1e-7)


@pytest.mark.parametrize("p", [1.0, 3.0, 10.0])
def test_gear_toy_front_lies_on_fixed_curve(p: float) -> None:
    pts = GearToy(p).front(np.linspace(0.0, 1.0, 101))
    # ((1 - x)^2, x^2) with x in [0, 1]  <=>  sqrt(f1) + sqrt(f2) = 1
    np.testing.assert_allclose(np.sqrt(pts[:, 0]) + np.sqrt(pts[:, 1]), 1.0, atol=1e-14)
    assert np.all(np.diff(pts[:, 1]) > 0)
    np.testing.assert_allclose(pts[[0, -1]], [[1.0, 0.0], [0.0, 1.0]], atol=1e-15)


def test_gear_toy_speed_ratio_grows_like_p() -> None:
    # v(0) = 2 sqrt(p), v(1) = 2 / sqrt(p): the gear sets v_max / v_min = p.
    for p in (1.0, 4.0, 9.0):
        v = GearToy(p).speed(np.array([0.0, 1.0]))
        np.testing.assert_allclose(v, [2 * np.sqrt(p), 2 / np.sqrt(p)], rtol=1e-14)


# ------------------------------------------------------------------------------ gradient solvers
@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_quadratic_gradient_solver_converges_to_argmin(optimizer: str) -> None:
    prob = random_quadratic(seed=4, n=3)
    lam = max(np.linalg.eigvalsh(prob.Q1).max(), np.linalg.eigvalsh(prob.Q2).max())
    lr = 0.02 if optimizer == "adam" else 0.5 / lam
    solver = prob.gradient_solver(steps=3000, lr=lr, optimizer=optimizer)
    sol = solver.solve(0.4, None)
    np.testing.assert_allclose(sol.state.params, prob.argmin(0.4), atol=1e-5)
    np.testing.assert_allclose(sol.objectives, prob.front(0.4)[0], atol=1e-5)
    # warm start: a second call continues from the first one's state and stays converged
    again = solver.solve(0.4, sol.state)
    assert again.state.t == (6000 if optimizer == "adam" else 0)
    np.testing.assert_allclose(again.state.params, prob.argmin(0.4), atol=1e-5)


def test_gear_toy_gradient_solver_steps_geared_problem_reports_fixed_curve() -> None:
    toy = GearToy(9)
    sol = toy.gradient_solver(steps=1, lr=0.1, init=0.0).solve(0.5, None)
    # one SGD step from x=0 on 0.5*3/2(x-1)^2 + 0.5*x^2/2: gradient -1.5, so x = 0.15
    assert sol.state.params[0] == pytest.approx(0.15, abs=1e-15)
    np.testing.assert_allclose(sol.objectives, [0.85**2, 0.15**2], atol=1e-15)
    many = toy.gradient_solver(steps=400, lr=0.1).solve(0.5, None)
    assert many.state.params[0] == pytest.approx(toy.argmin(0.5), abs=1e-12)


# ------------------------------------------------------------------------------------ bad inputs
def test_quadratic_rejects_bad_matrices_and_vectors() -> None:
    good = np.eye(2)
    with pytest.raises(ValueError, match="Q1 must be symmetric"):
        Quadratic([[1.0, 0.5], [0.0, 1.0]], [0, 0], good, [1, 0])
    with pytest.raises(ValueError, match="Q2 must be positive definite"):
        Quadratic(good, [0, 0], [[1.0, 2.0], [2.0, 1.0]], [1, 0])
    with pytest.raises(ValueError, match="Q1 must be a square"):
        Quadratic(np.ones((2, 3)), [0, 0], good, [1, 0])
    with pytest.raises(ValueError, match="Q2 must have the shape of Q1"):
        Quadratic(good, [0, 0], np.eye(3), [1, 0])
    with pytest.raises(ValueError, match="b2 must be a vector of shape"):
        Quadratic(good, [0, 0], good, [1, 0, 0])
    with pytest.raises(ValueError, match="b1 must be finite"):
        Quadratic(good, [np.nan, 0], good, [1, 0])
    with pytest.raises(ValueError, match="Q1 must be finite"):
        Quadratic([[np.inf, 0], [0, 1]], [0, 0], good, [1, 0])
    with pytest.raises(ValueError, match="b1 and b2 must differ"):
        Quadratic(good, [1, 0], good, [1, 0])
    prob = Quadratic(good, [1, 0], good, [0, 1])
    with pytest.raises(ValueError, match=r"init must be a finite array of shape \(2,\)"):
        prob.gradient_solver(steps=3, init=[0.0])
    with pytest.raises(ValueError, match="optimizer"):
        prob.gradient_solver(steps=3, optimizer="lbfgs")


def test_quadratic1d_and_gear_toy_reject_bad_parameters() -> None:
    with pytest.raises(ValueError, match="q1"):
        Quadratic1D(0.0, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="q2"):
        Quadratic1D(1.0, 0.0, -2.0, 1.0)
    with pytest.raises(ValueError, match="b1 and b2 must differ"):
        Quadratic1D(1.0, 0.5, 2.0, 0.5)
    with pytest.raises(TypeError, match="b2"):
        Quadratic1D(1.0, 0.0, 2.0, True)
    with pytest.raises(ValueError, match="b1"):
        Quadratic1D(1.0, float("inf"), 2.0, 0.0)
    with pytest.raises(ValueError, match="p"):
        GearToy(0)
    with pytest.raises(TypeError, match="p"):
        GearToy("9")
    with pytest.raises(ValueError, match="ratio"):
        Quadratic1DCDF(-1.0)


@pytest.mark.parametrize("prob", PROBLEMS[::2], ids=repr)
def test_weights_outside_unit_interval_are_rejected(prob: BiObjectiveProblem) -> None:
    for bad in (-0.1, 1.5, np.nan):
        with pytest.raises(ValueError, match="w must lie in"):
            prob.front([0.5, bad])
        with pytest.raises(ValueError, match="w must lie in"):
            prob.speed(bad)
        with pytest.raises(ValueError, match="w must lie in"):
            prob.argmin(bad)


@pytest.mark.parametrize("cdf", CDFS[::2], ids=repr)
def test_closed_form_cdf_rejects_bad_arguments(cdf: Quadratic1DCDF | GearToyCDF) -> None:
    with pytest.raises(ValueError, match="w must lie in"):
        cdf(1.01)
    with pytest.raises(ValueError, match="q must lie in"):
        cdf.inverse([0.5, -0.2])
    with pytest.raises(ValueError, match="n_segments"):
        cdf.quantile_weights(0)


def test_gear_toy_scalarized_objectives_are_what_its_argmin_minimizes() -> None:
    toy = GearToy(7)
    for w in (0.1, 0.5, 0.8):
        x = toy.argmin(w)
        grid = np.linspace(-0.5, 1.5, 4001)
        values = [
            w * toy.scalarized_objectives(g)[0] + (1 - w) * toy.scalarized_objectives(g)[1]
            for g in grid
        ]
        assert abs(grid[int(np.argmin(values))] - x) < 1e-3
        eps = 1e-6
        fd = (toy.scalarized_objectives(x + eps) - toy.scalarized_objectives(x - eps)) / (2 * eps)
        np.testing.assert_allclose(toy.scalarized_gradients(x)[:, 0], fd, rtol=1e-7, atol=1e-9)
