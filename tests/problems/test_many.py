"""M-objective test problems and dense front samples, checked against independent truth:
numerical minimization, optimality conditions, the two-objective problems, single-reward MDP
solves, soft value iteration, brute-force search and nearest-neighbour coverage."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.spatial import ConvexHull, cKDTree
from scipy.spatial.distance import pdist
from scipy.special import logsumexp

from paretosurf.problems import (
    DTLZ2,
    InvertedDTLZ2,
    ManyExactSolver,
    ManyObjectiveMDP,
    Quadratic,
    QuadraticM,
    RegularizedMDP,
    deep_sea_treasure_pressure,
    dense_front_sample,
    fishwood,
)
from paretosurf.problems.many import weight_rows
from paretosurf.problems.sampling import _lattice_simplices
from paretosurf.surfaces._weights import simplex_lattice


# --------------------------------------------------------------------------------- helpers
def random_weights(n: int, m: int, seed: int, alpha: float = 1.0) -> np.ndarray:
    return np.random.default_rng(seed).dirichlet(np.full(m, alpha), size=n)


def sample_weights(n: int, m: int, seed: int) -> np.ndarray:
    """Corners, uniform and near-boundary weights."""
    return np.concatenate(
        [np.eye(m), random_weights(n, m, seed), random_weights(n, m, seed + 1, alpha=0.2)]
    )


def dominated_pairs(points: np.ndarray, tol: float) -> int:
    """How many ordered pairs (i, j) have point i dominate point j: no worse anywhere, better
    by more than ``tol`` somewhere (near a corner the front can be tangent to an axis, so
    "no worse" must be exact)."""
    le = np.all(points[:, None, :] <= points[None, :, :], axis=-1)
    lt = np.any(points[:, None, :] < points[None, :, :] - tol, axis=-1)
    dom = le & lt
    np.fill_diagonal(dom, False)
    return int(dom.sum())


def diameter(points: np.ndarray) -> float:
    hull = points[ConvexHull(points).vertices] if points.shape[1] > 1 else points
    return float(pdist(hull).max())


def coverage(sample: np.ndarray, points: np.ndarray) -> float:
    """Largest distance of ``points`` to ``sample``, relative to the sample's diameter."""
    return float(cKDTree(sample).query(points)[0].max()) / diameter(sample)


# ------------------------------------------------------------------------------ QuadraticM
@pytest.mark.parametrize("m", [3, 4])
def test_quadratic_argmin_matches_numerical_minimization(m: int) -> None:
    prob = QuadraticM.random(m, 4, seed=m, condition=30.0)
    for w in random_weights(4, m, seed=1, alpha=0.5):

        def fun(x: np.ndarray, w: np.ndarray = w) -> tuple[float, np.ndarray]:
            e = x[None] - prob.bs
            vals = 0.5 * np.einsum("mi,mij,mj->m", e, prob.Qs, e)
            return float(w @ vals), w @ np.einsum("mij,mj->mi", prob.Qs, e)

        res = minimize(fun, np.zeros(4), jac=True, method="BFGS", options={"gtol": 1e-12})
        x = prob.argmin(w)
        np.testing.assert_allclose(x, res.x, atol=1e-6)
        assert w @ prob.objectives(x) <= res.fun + 1e-12


def test_quadratic_first_order_optimality_and_corners() -> None:
    prob = QuadraticM.random(3, 5, seed=0)
    weights = sample_weights(50, 3, seed=2)
    fronts = prob.front(weights)
    for w, f in zip(weights, fronts, strict=True):
        x = prob.argmin(w)
        grad = sum(w[m] * prob.Qs[m] @ (x - prob.bs[m]) for m in range(3))
        assert np.linalg.norm(grad) < 1e-10 * (1.0 + np.abs(prob.bs).max() * 100)
        np.testing.assert_allclose(prob.objectives(x), f, rtol=1e-12, atol=1e-12)
    for m in range(3):
        e = np.eye(3)[m]
        np.testing.assert_allclose(prob.argmin(e), prob.bs[m], atol=1e-12)
        corner = prob.front(e)
        assert corner.shape == (3,) and abs(corner[m]) < 1e-20
        np.testing.assert_allclose(corner, prob.objectives(prob.bs[m]), rtol=1e-12, atol=1e-20)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_quadratic_front_is_mutually_non_dominated(seed: int) -> None:
    prob = QuadraticM.random(3, 5, seed=seed)
    points = prob.front(sample_weights(200, 3, seed=seed))
    assert dominated_pairs(points, tol=1e-9) == 0


def test_quadratic_two_objectives_agree_with_quadratic() -> None:
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(2, 3, 3))
    q1, q2 = a @ a.T + 0.5 * np.eye(3), b @ b.T + 0.5 * np.eye(3)
    b1, b2 = rng.normal(size=(2, 3))
    two = Quadratic(q1, b1, q2, b2)  # h_m = (x - b_m)^T Q_m (x - b_m), w on objective 1
    many = QuadraticM([q1, q2], [b1, b2])  # the same with a factor 0.5
    w = np.linspace(0.0, 1.0, 41)
    np.testing.assert_allclose(
        2.0 * many.front(np.c_[w, 1.0 - w]), two.front(w), rtol=1e-12, atol=1e-14
    )
    for wi in (0.0, 0.3, 1.0):
        np.testing.assert_allclose(many.argmin([wi, 1.0 - wi]), two.argmin(wi), atol=1e-13)
        sol = many.solver().solve(wi)  # M = 2: a scalar w means (w, 1 - w)
        np.testing.assert_allclose(2.0 * sol.objectives, two.front([wi])[0], rtol=1e-12, atol=1e-14)
    sols = many.solver().solve_many(w[:3], [None] * 3)
    np.testing.assert_allclose(
        2.0 * np.stack([s.objectives for s in sols]), two.front(w[:3]), rtol=1e-12, atol=1e-14
    )


def test_quadratic_random_is_deterministic_with_the_asked_spectrum() -> None:
    a, b = QuadraticM.random(3, 5, seed=7), QuadraticM.random(3, 5, seed=7)
    np.testing.assert_array_equal(a.Qs, b.Qs)
    np.testing.assert_array_equal(a.bs, b.bs)
    assert not np.array_equal(a.Qs, QuadraticM.random(3, 5, seed=8).Qs)
    prob = QuadraticM.random(4, 6, seed=3, condition=100.0)
    assert prob.Qs.shape == (4, 6, 6) and prob.bs.shape == (4, 6)
    for q in prob.Qs:
        np.testing.assert_array_equal(q, q.T)
        eig = np.linalg.eigvalsh(q)
        assert eig[0] == pytest.approx(1.0) and eig[-1] == pytest.approx(100.0)
    one = QuadraticM.random(3, 1, seed=0, condition=10.0)
    assert 1.0 - 1e-12 <= float(one.Qs[0, 0, 0]) <= 10.0 + 1e-12


def test_quadratic_gradient_solver_converges_to_argmin() -> None:
    prob = QuadraticM.random(3, 5, seed=1, condition=100.0)
    weights = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0], [0.05, 0.9, 0.05]])
    solver = prob.gradient_solver(200)
    states: list[Any] = [None] * 3
    values = []
    for _ in range(40):
        sols = solver.solve_many(weights, states)
        states = [s.state for s in sols]
        values.append([w @ s.objectives for w, s in zip(weights, sols, strict=True)])
        assert all(s.info["steps"] == 200 for s in sols)
    assert np.all(np.diff(np.array(values), axis=0) <= 1e-12)  # descent
    for w, x in zip(weights, states, strict=True):
        np.testing.assert_allclose(x, prob.argmin(w), atol=1e-8)
    one = solver.solve(weights[0], None)  # solve and solve_many take the same steps
    np.testing.assert_allclose(
        one.state, solver.solve_many(weights[:1], [None])[0].state, rtol=1e-13, atol=1e-13
    )
    fixed = prob.gradient_solver(3000, lr=0.005, init=np.zeros(5))
    sol = fixed.solve(weights[0])
    np.testing.assert_allclose(sol.state, prob.argmin(weights[0]), atol=1e-8)


def test_quadratic_bad_inputs() -> None:
    with pytest.raises(ValueError, match="Qs must have shape"):
        QuadraticM([np.eye(2)], [[0.0, 1.0]])
    with pytest.raises(ValueError, match="positive definite"):
        QuadraticM([np.eye(2), -np.eye(2)], [[0.0, 0.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="symmetric"):
        QuadraticM([np.eye(2), [[1.0, 0.5], [0.0, 1.0]]], [[0.0, 0.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="bs must have shape"):
        QuadraticM([np.eye(2)] * 3, [[0.0, 0.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="bs\\[1\\]"):
        QuadraticM([np.eye(2)] * 2, [[0.0, 0.0], [np.nan, 0.0]])
    with pytest.raises(ValueError, match="not all be equal"):
        QuadraticM([np.eye(2)] * 3, [[1.0, 0.0]] * 3)
    with pytest.raises(ValueError, match="condition"):
        QuadraticM.random(3, 2, condition=0.5)
    with pytest.raises(ValueError, match="n_objectives"):
        QuadraticM.random(1, 2)
    prob = QuadraticM.random(3, 2, seed=0)
    with pytest.raises(ValueError, match="x must be"):
        prob.objectives([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="steps"):
        prob.gradient_solver(0)
    with pytest.raises(ValueError, match="x must be"):
        prob.gradient_solver(5, init=[0.0])


@pytest.mark.parametrize(
    ("weight", "message"),
    [
        ([0.5, 0.5], "shape \\(3,\\)"),
        ([0.2, 0.3, 0.4, 0.1], "shape \\(3,\\)"),
        (0.5, "shape \\(3,\\)"),
        ([0.6, 0.6, -0.2], "non-negative"),
        ([0.5, 0.4, 0.0], "sum to 1"),
        ([np.nan, 0.5, 0.5], "finite"),
        (np.ones((2, 2, 3)) / 3, "shape"),
    ],
)
def test_bad_weights_raise_clear_errors(weight: object, message: str) -> None:
    for prob in (QuadraticM.random(3, 2, seed=0), InvertedDTLZ2(3)):
        for call in (prob.argmin, prob.front, prob.solver().solve):
            with pytest.raises(ValueError, match=message):
                call(weight)
    with pytest.raises(ValueError, match="weight"):
        QuadraticM.random(3, 2).gradient_solver(1).solve([0.5, 0.5])
    with pytest.raises(ValueError, match="weights"):
        ManyExactSolver(InvertedDTLZ2(3)).solve_many([0.2, 0.3, 0.5], [None])
    with pytest.raises(ValueError, match="one entry per weight"):
        ManyExactSolver(InvertedDTLZ2(3)).solve_many(np.eye(3), [None])
    with pytest.raises(ValueError, match="w must lie in"):
        weight_rows(1.5, 2, name="w")
    with pytest.raises(ValueError, match="one weight vector"):
        InvertedDTLZ2(3).argmin(np.eye(3))


# -------------------------------------------------------------------------- InvertedDTLZ2
@pytest.mark.parametrize(
    ("m", "radii"), [(2, None), (3, None), (3, [1.0, 2.0, 5.0]), (4, [0.5, 1.0, 1.5, 2.0])]
)
def test_dtlz_argmin_attains_the_closed_form_front(m: int, radii: list[float] | None) -> None:
    prob = InvertedDTLZ2(m, radii=radii, n_distance=3)
    r = prob.radii
    weights = sample_weights(100, m, seed=m)
    front = prob.front(weights)
    xs = np.stack([prob.argmin(w) for w in weights])
    assert xs.shape == (weights.shape[0], m - 1 + 3)
    assert np.all((xs >= 0) & (xs <= 1)) and np.all(xs[:, m - 1 :] == 0.5)
    np.testing.assert_allclose(prob.objectives_many(xs), front, atol=1e-12)
    rw = r * weights
    np.testing.assert_allclose(
        front, r - r**2 * weights / np.linalg.norm(rw, axis=1)[:, None], atol=1e-12
    )
    # the front lies on the ellipsoid ||(r - f) / r|| = 1, in the positive orthant
    np.testing.assert_allclose(np.linalg.norm((r - front) / r, axis=1), 1.0, rtol=1e-12)
    assert np.all(front >= -1e-12) and np.all(front <= r + 1e-12)
    for k in range(m):  # corner k: objective k is 0, the others at their radius
        np.testing.assert_allclose(front[k], r * (1.0 - np.eye(m)[k]), atol=1e-12)
    assert dominated_pairs(front, tol=1e-12) == 0


def test_dtlz_front_minimizes_over_random_feasible_decisions() -> None:
    prob = InvertedDTLZ2(3, radii=[1.0, 2.0, 3.0], n_distance=2)
    rng = np.random.default_rng(0)
    xs = rng.uniform(size=(20_000, prob.n_var))
    on_front = xs.copy()
    on_front[:, 2:] = 0.5  # g = 0: points of the front itself
    f_all = np.concatenate([prob.objectives_many(xs), prob.objectives_many(on_front)])
    for w in sample_weights(4, 3, seed=5):
        best = w @ prob.front(w)
        sampled = f_all @ w
        assert sampled.min() >= best - 1e-12
        assert sampled.min() <= best + 0.02 * (1.0 + best)  # the search gets close

        # and a local optimizer from many starts finds nothing better
        def fun(x: np.ndarray, w: np.ndarray = w) -> float:
            return float(w @ prob.objectives(np.clip(x, 0.0, 1.0)))

        found = min(
            minimize(
                fun,
                x0,
                method="L-BFGS-B",
                bounds=[(0, 1)] * prob.n_var,
                options={"ftol": 1e-15, "gtol": 1e-12},
            ).fun
            for x0 in rng.uniform(size=(3, prob.n_var))
        )
        assert found >= best - 1e-12 and found <= best + 1e-6


@pytest.mark.parametrize(
    ("m", "radii"), [(3, None), (3, [1.0, 2.0, 5.0]), (4, [0.5, 1.0, 1.5, 2.0])]
)
def test_concave_dtlz2_solves_its_achievement_scalarization(
    m: int, radii: list[float] | None
) -> None:
    """DTLZ2's front point for w lies on the ray along w, on the ellipsoid ||f / r|| = 1, and
    minimizes max_m f_m / w_m over random decisions (checked independently of the solver)."""
    prob = DTLZ2(m, radii=radii, n_distance=2)
    r = prob.radii
    weights = sample_weights(60, m, seed=m)
    front = prob.front(weights)
    xs = np.stack([prob.argmin(w) for w in weights])
    np.testing.assert_allclose(prob.objectives_many(xs), front, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(front / r, axis=1), 1.0, rtol=1e-12)
    cos = np.sum(front * weights, axis=1) / (
        np.linalg.norm(front, axis=1) * np.linalg.norm(weights, axis=1)
    )
    np.testing.assert_allclose(cos, 1.0, atol=1e-12)  # on the ray along w
    for k in range(m):  # corner k: objective k at its radius, the others 0
        np.testing.assert_allclose(prob.front(np.eye(m)[k]), r[k] * np.eye(m)[k], atol=1e-12)
    rng = np.random.default_rng(1)
    f_all = prob.objectives_many(rng.uniform(size=(20_000, prob.n_var)))
    inner = np.all(weights > 0.05, axis=1)
    assert inner.sum() >= 5
    for w, best in zip(weights[inner][:5], front[inner][:5], strict=True):
        assert np.max(f_all / w, axis=1).min() >= np.max(best / w) - 1e-12
    # weighted sums reach only the corners: a corner beats every interior front point
    w = np.ones(m) / m
    assert np.min(r) / m <= (front @ w).min()


def test_dtlz_bad_inputs() -> None:
    with pytest.raises(ValueError, match="n_objectives"):
        InvertedDTLZ2(1)
    with pytest.raises(ValueError, match="radii"):
        InvertedDTLZ2(3, radii=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="radii"):
        InvertedDTLZ2(3, radii=[1.0, 1.0])
    with pytest.raises(ValueError, match="n_distance"):
        InvertedDTLZ2(3, n_distance=-1)
    prob = InvertedDTLZ2(3, n_distance=1)
    with pytest.raises(ValueError, match="\\[0, 1\\]"):
        prob.objectives([0.5, 0.5, 1.5])
    with pytest.raises(ValueError, match="shape"):
        prob.objectives([0.5, 0.5])


# ------------------------------------------------------------------------------------ MDP
def soft_value_iteration(mdp: RegularizedMDP, reward: np.ndarray, tol: float = 1e-13) -> np.ndarray:
    """Optimal KL-regularized policy of ``reward`` (S, A) by plain soft value iteration."""
    v = np.zeros(mdp.n_states)
    log_ref = np.log(mdp.ref_policy)
    for _ in range(20_000):
        q = reward + mdp.gamma * np.einsum("sat,t->sa", mdp.P, v)
        v_new = mdp.beta * logsumexp(log_ref + q / mdp.beta, axis=1)
        if np.max(np.abs(v_new - v)) < tol:
            break
        v = v_new
    q = reward + mdp.gamma * np.einsum("sat,t->sa", mdp.P, v)
    return np.exp(log_ref + (q - v[:, None]) / mdp.beta)


def policy_objectives(mdp: RegularizedMDP, pi: np.ndarray) -> np.ndarray:
    """``(1 - gamma)`` times the negated regularized returns, by one direct linear solve."""
    kl = np.sum(np.where(pi > 0, pi * np.log(pi / mdp.ref_policy), 0.0), axis=1)
    flow = np.eye(mdp.n_states) - mdp.gamma * np.einsum("sa,sat->st", pi, mdp.P)
    out = []
    for r in mdp.R:
        v = np.linalg.solve(flow, np.sum(pi * r, axis=1) - mdp.beta * kl)
        out.append(-(1.0 - mdp.gamma) * mdp.rho @ v)
    return np.array(out)


def test_dst_pressure_model() -> None:
    prob = deep_sea_treasure_pressure()
    model = prob.mdp.model
    assert prob.n_objectives == 3 and model.R.shape == (3, 73, 4)
    assert model.objective_labels == ("treasure", "time", "pressure")
    for s, label in enumerate(model.state_labels):
        water = label != "terminal" and model.R[1, s, 0] == -1.0
        expected = -0.1 * label[0] if water else 0.0
        np.testing.assert_allclose(model.R[2, s], expected, atol=0.0)
    with pytest.raises(ValueError, match="pressure"):
        deep_sea_treasure_pressure(pressure=0.0)
    with pytest.raises(ValueError, match="map"):
        deep_sea_treasure_pressure("round")
    with pytest.raises(TypeError, match="RegularizedMDP"):
        ManyObjectiveMDP("not an mdp")


def test_dst_pressure_corners_are_the_single_reward_optima() -> None:
    prob = deep_sea_treasure_pressure()
    mdp = prob.mdp
    corners = prob.front(np.eye(3))
    for m in range(3):
        alone = RegularizedMDP(mdp.P, np.stack([mdp.R[m], mdp.R[m]]), mdp.gamma, mdp.rho, mdp.beta)
        pi = alone.argmin(1.0)
        np.testing.assert_allclose(prob.argmin(np.eye(3)[m]), pi, atol=1e-10)
        np.testing.assert_allclose(corners[m], mdp.objectives(pi), atol=1e-10)
        np.testing.assert_allclose(corners[m], policy_objectives(mdp, pi), atol=1e-10)
        assert corners[m, m] == pytest.approx(alone.front([1.0])[0, 0], abs=1e-10)


def test_dst_pressure_front_by_soft_value_iteration() -> None:
    prob = deep_sea_treasure_pressure(gamma=0.9, beta=0.5)
    for w in [*np.eye(3), *random_weights(3, 3, seed=3)]:
        pi = soft_value_iteration(prob.mdp, np.tensordot(w, prob.mdp.R, axes=1))
        np.testing.assert_allclose(prob.front(w), policy_objectives(prob.mdp, pi), atol=1e-9)
        np.testing.assert_allclose(prob.argmin(w), pi, atol=1e-8)


def test_dst_pressure_objectives_conflict_and_form_a_surface() -> None:
    prob = deep_sea_treasure_pressure()
    corners = prob.front(np.eye(3))
    points = prob.front(simplex_lattice(3, 12))
    span = points.max(axis=0) - points.min(axis=0)
    for i in range(3):  # each corner is the best in its own objective, by a clear margin
        for j in range(3):
            if i != j:
                assert corners[j, i] - corners[i, i] > 0.02 * span[i]
    # the front is a surface: lattice points leave the plane through the three corners
    normal = np.cross(corners[1] - corners[0], corners[2] - corners[0])
    off_plane = np.abs((points - corners[0]) @ normal / np.linalg.norm(normal))
    assert off_plane.max() > 0.03 * diameter(points)
    assert dominated_pairs(prob.front(random_weights(150, 3, seed=1)), tol=1e-12) == 0


def test_dst_pressure_solver() -> None:
    prob = deep_sea_treasure_pressure()
    solver = prob.solver()
    w = np.array([0.3, 0.5, 0.2])
    sol = solver.solve(w)
    assert sol.state.shape == (73, 4) and sol.info["steps"] == 1
    np.testing.assert_allclose(sol.objectives, prob.front(w), atol=1e-12)
    warm = solver.solve([0.31, 0.49, 0.2], sol.state)  # warm start: the same exact answer
    np.testing.assert_allclose(warm.objectives, prob.front([0.31, 0.49, 0.2]), atol=1e-10)
    weights = random_weights(5, 3, seed=2)
    sols = solver.solve_many(weights, [sol.state, None, None, sol.state, None])
    np.testing.assert_allclose(
        np.stack([s.objectives for s in sols]), prob.front(weights), atol=1e-10
    )
    for bad in ([0.5, 0.5], 0.5, [0.5, 0.5, 0.5]):
        with pytest.raises(ValueError, match="weight"):
            solver.solve(bad)
    # M = 2 MDPs work through the same interface, with scalar weights too
    two = ManyObjectiveMDP(fishwood(gamma=0.9))
    np.testing.assert_allclose(two.front([[0.25, 0.75]]), two.mdp.front([0.25]), atol=1e-12)


def test_dst_pressure_reference_front_covers_the_front() -> None:
    prob = deep_sea_treasure_pressure()
    sample = prob.reference_front(0.05)
    extra = prob.front(sample_weights(150, 3, seed=9))
    assert coverage(sample, extra) <= 0.05


# ------------------------------------------------------------------------------- sampling
@pytest.mark.parametrize(("m", "h"), [(2, 7), (3, 12), (4, 5), (5, 3)])
def test_lattice_and_its_triangulation(m: int, h: int) -> None:
    weights = simplex_lattice(m, h)
    assert weights.shape == (math.comb(h + m - 1, m - 1), m)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert len(np.unique(np.rint(weights * h), axis=0)) == len(weights)
    points, simplices = _lattice_simplices(m, h)
    np.testing.assert_array_equal(points, weights)
    assert simplices.shape == (h ** (m - 1), m)
    # equal volumes adding up to the simplex's: a triangulation (no overlaps, no holes)
    edges = points[simplices[:, 1:]] - points[simplices[:, :1]]
    volumes = np.abs(np.linalg.det(edges[..., : m - 1])) / math.factorial(m - 1)
    np.testing.assert_allclose(volumes, volumes[0], rtol=1e-9)
    assert volumes.sum() == pytest.approx(1.0 / math.factorial(m - 1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dense_sample_covers_distorted_quadratic_fronts(seed: int) -> None:
    prob = QuadraticM.random(3, 5, seed=seed, condition=100.0)
    res = 0.03
    sample = prob.reference_front(res)
    extra = prob.front(sample_weights(3000, 3, seed=seed))
    assert coverage(sample, extra) <= res
    # a plain lattice with as many points does not: the map from weights is distorted
    h = 1
    while math.comb(h + 2, 2) < len(sample):
        h += 1
    assert coverage(prob.front(simplex_lattice(3, h)), extra) > 2 * res


def test_dense_sample_two_and_four_objectives() -> None:
    two = QuadraticM.random(2, 3, seed=0, condition=100.0)
    sample = dense_front_sample(two.front, 2, resolution=0.01)
    w = np.random.default_rng(0).uniform(size=5000) ** 4
    assert coverage(sample, two.front(np.c_[w, 1 - w])) <= 0.01
    ordered = sample[np.argsort(sample[:, 0])]  # a curve: consecutive points are close
    gaps = np.linalg.norm(np.diff(ordered, axis=0), axis=1)
    assert gaps.max() <= 0.01 * diameter(sample) * (1 + 1e-9)
    four = InvertedDTLZ2(4, radii=[1.0, 1.0, 2.0, 4.0])
    sample4 = four.reference_front(0.1)
    assert coverage(sample4, four.front(sample_weights(2000, 4, seed=4))) <= 0.1


def test_dense_sample_edge_cases_and_bad_inputs() -> None:
    point = dense_front_sample(lambda w: np.ones((len(w), 3)), 3)
    np.testing.assert_array_equal(point, np.ones((1, 3)))

    def step(w: np.ndarray) -> np.ndarray:  # a jump at w_1 = 1/3: refinement stops near it
        return np.where(w[:, :1] > 1 / 3, [[0.0, 1.0]], [[1.0, 0.0]])

    jump = dense_front_sample(step, 2, resolution=0.01)
    assert len(jump) == 2
    with pytest.warns(RuntimeWarning, match="max_points"):
        capped = dense_front_sample(InvertedDTLZ2(3).front, 3, resolution=0.001, max_points=500)
    assert len(capped) <= 500
    front = InvertedDTLZ2(3).front
    with pytest.raises(ValueError, match="resolution"):
        dense_front_sample(front, 3, resolution=0.0)
    with pytest.raises(ValueError, match="resolution"):
        dense_front_sample(front, 3, resolution=math.nan)
    with pytest.raises(ValueError, match="n_objectives"):
        dense_front_sample(front, 1)
    with pytest.raises(ValueError, match="max_points"):
        dense_front_sample(front, 3, max_points=10)
    with pytest.raises(ValueError, match="divisions"):
        dense_front_sample(front, 3, divisions=0)
    with pytest.raises(ValueError, match="shape"):
        dense_front_sample(lambda w: np.ones(len(w)), 3)
    with pytest.raises(ValueError, match="non-finite"):
        dense_front_sample(lambda w: np.full((len(w), 3), np.inf), 3)
