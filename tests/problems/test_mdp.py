"""KL-regularized tabular MDPs: exact solver, objectives, speed, gradients, assumptions.

Every check compares against something computed another way: soft value iteration (instead of
soft policy iteration), truncated power series of the occupancy (instead of linear solves), the
paper's occupancy-form objective (eq. (MDP)), the bandit closed forms of Proposition 1, finite
differences of the exact front and of the objectives, and scipy's null space.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pytest
from scipy.linalg import null_space
from scipy.special import logsumexp, softmax

import paretosurf as ps
from paretosurf.curves._rules import SpeedCDF
from paretosurf.problems.mdp import MDPAssumptionReport, RegularizedMDP
from paretosurf.problems.mdp.policy_iteration import soft_policy_iteration
from paretosurf.solvers import GradientState


def random_mdp(
    seed: int,
    n_states: int = 4,
    n_actions: int = 3,
    *,
    gamma: float = 0.9,
    beta: float = 0.5,
    n_objectives: int = 2,
    scale: str = "normalized",
    ref: bool = True,
    concentration: float = 1.0,
) -> RegularizedMDP:
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(n_states, concentration), size=(n_states, n_actions))
    R = rng.normal(size=(n_objectives, n_states, n_actions))
    rho = rng.dirichlet(np.ones(n_states))
    ref_policy = rng.dirichlet(np.ones(n_actions), size=n_states) if ref else None
    return RegularizedMDP(P, R, gamma, rho, beta, ref_policy, scale=scale)


def soft_value_iteration(mdp: RegularizedMDP, reward: np.ndarray, n_iter: int) -> np.ndarray:
    """Optimal policy by plain soft value iteration (a contraction; independent of soft PI)."""
    v = np.zeros(mdp.n_states)
    log_ref = np.log(mdp.ref_policy)
    for _ in range(n_iter):
        q = reward + mdp.gamma * mdp.P @ v
        v = mdp.beta * logsumexp(log_ref + q / mdp.beta, axis=1)
    q = reward + mdp.gamma * mdp.P @ v
    return np.asarray(softmax(log_ref + q / mdp.beta, axis=1))


def power_series_occupancy(mdp: RegularizedMDP, pi: np.ndarray, n_terms: int) -> np.ndarray:
    """mu(s, a) = (1 - gamma) sum_t gamma^t Pr(s_t = s) pi(a|s), truncated."""
    p_pi = np.einsum("sa,sat->st", pi, mdp.P)
    dist = mdp.rho.copy()
    d = np.zeros(mdp.n_states)
    for t in range(n_terms):
        d += mdp.gamma**t * dist
        dist = dist @ p_pi
    return (1 - mdp.gamma) * d[:, None] * pi


def occupancy_objective(mdp: RegularizedMDP, x: np.ndarray, m: int) -> float:
    """Paper eq. (MDP): f_m = beta(<x, log x> - <E^T x, log E^T x> - <R_0, x>) - <R_m, x>."""
    ex = x.sum(axis=1)
    ent = np.sum(x * np.log(x)) - np.sum(ex * np.log(ex)) - np.sum(np.log(mdp.ref_policy) * x)
    return float(mdp.beta * ent - np.sum(mdp.R[m] * x))


def bandit(R1: np.ndarray, R2: np.ndarray, beta: float, gamma: float, **kw: Any) -> RegularizedMDP:
    a = R1.size
    R = np.stack([R1, R2])[:, None, :]
    return RegularizedMDP(np.ones((1, a, 1)), R, gamma, [1.0], beta, **kw)


# --------------------------------------------------------------------------- exact solver
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("w", [0.0, 0.37, 1.0])
def test_exact_policy_matches_soft_value_iteration(seed: int, w: float) -> None:
    mdp = random_mdp(seed, n_states=3 + seed, n_actions=2 + seed % 2, gamma=0.8)
    pi = mdp.argmin(w)
    reward = w * mdp.R[0] + (1 - w) * mdp.R[1]
    expected = soft_value_iteration(mdp, reward, n_iter=400)  # 0.8^400 ~ 1e-39
    np.testing.assert_allclose(pi, expected, atol=1e-12)
    np.testing.assert_allclose(pi.sum(axis=1), 1.0, atol=1e-14)


def test_policy_satisfies_soft_bellman_optimality_with_reference() -> None:
    mdp = random_mdp(5, n_states=6, n_actions=3, gamma=0.95, beta=0.3)
    w = 0.6
    pi = mdp.argmin(w)
    reward = mdp.scalarized_reward(w)
    v = mdp.value(pi, reward)  # regularized values of the returned policy
    q = reward + mdp.gamma * mdp.P @ v
    greedy = mdp.ref_policy * np.exp((q - q.max(axis=1, keepdims=True)) / mdp.beta)
    greedy /= greedy.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(pi, greedy, atol=1e-10)
    # ... and V(s) = beta log sum_a ref exp(Q / beta) (soft Bellman equation for the value).
    np.testing.assert_allclose(
        v, mdp.beta * logsumexp(np.log(mdp.ref_policy) + q / mdp.beta, axis=1), atol=1e-10
    )


def test_soft_policy_iteration_converges_at_gamma_0999() -> None:
    mdp = random_mdp(11, n_states=20, n_actions=3, gamma=0.999, beta=0.5, concentration=0.3)
    solver = mdp.solver()
    weights = np.linspace(0, 1, 6)
    sols = solver.solve_many(weights, [None] * weights.size)
    iterations = [s.info["policy_iterations"] for s in sols]
    assert max(iterations) <= 15, iterations
    # Soft Bellman residual of the policy's own values (an independent, uncentred solve):
    # ||T V - V|| <= eps implies ||V - V*|| <= eps / (1 - gamma).
    for w, sol in zip(weights, sols, strict=True):
        reward = mdp.scalarized_reward(w)
        v = mdp.value(sol.state, reward)
        q = reward + mdp.gamma * mdp.P @ v
        tv = mdp.beta * logsumexp(np.log(mdp.ref_policy) + q / mdp.beta, axis=1)
        assert np.max(np.abs(tv - v)) / (1 - mdp.gamma) < 1e-8
        greedy = softmax(np.log(mdp.ref_policy) + q / mdp.beta, axis=1)
        np.testing.assert_allclose(sol.state, greedy, atol=1e-10)


def test_hard_case_near_the_noise_floor_still_solves() -> None:
    # gamma = 0.999 with a small beta: Q / beta ~ 1e4, so 1e-13 policy changes are below what
    # float64 resolves; the solver must stop at the noise floor, not fail.
    mdp = random_mdp(12, n_states=20, n_actions=3, gamma=0.999, beta=0.02, concentration=0.05)
    w = np.linspace(0, 1, 5)
    pis = mdp.solve_weights(w)
    for wi, pi in zip(w, pis, strict=True):
        reward = mdp.scalarized_reward(wi)
        q = reward + mdp.gamma * mdp.P @ mdp.value(pi, reward)
        np.testing.assert_allclose(
            pi, softmax(np.log(mdp.ref_policy) + q / mdp.beta, axis=1), atol=1e-9
        )


def test_non_convergence_raises() -> None:
    mdp = random_mdp(0, n_states=4, n_actions=2)
    rewards = mdp.scalarized_reward(0.5)[None]
    start = np.log(mdp.ref_policy)[None]
    with pytest.raises(RuntimeError, match="did not converge"):
        soft_policy_iteration(mdp, rewards, start, max_iter=1)


def test_warm_start_gives_same_policy_in_fewer_iterations() -> None:
    mdp = random_mdp(3, n_states=5, n_actions=3, gamma=0.95)
    solver = mdp.solver()
    cold = solver.solve(0.5, None)
    near = solver.solve(0.49, None)
    warm = solver.solve(0.5, near.state)
    np.testing.assert_allclose(warm.state, cold.state, atol=1e-13)
    np.testing.assert_allclose(warm.objectives, cold.objectives, atol=1e-12)
    assert warm.info["policy_iterations"] < cold.info["policy_iterations"]
    assert warm.info["steps"] == 1


def test_batched_and_continuation_solves_match_single_solves() -> None:
    mdp = random_mdp(4, n_states=5, n_actions=2, gamma=0.97, beta=0.2)
    w = np.random.default_rng(0).permutation(np.linspace(0, 1, 101))  # unsorted on purpose
    batch = mdp.solve_weights(w)  # continuation path (many scalar weights, no warm starts)
    for i in [0, 17, 50, 99]:
        np.testing.assert_allclose(batch[i], mdp.argmin(float(w[i])), atol=1e-12)
    front = mdp.front(w)
    assert front.shape == (101, 2)
    np.testing.assert_allclose(front[17], mdp.objectives(mdp.argmin(float(w[17]))), atol=1e-12)


# --------------------------------------------------------------------------- objectives
@pytest.mark.parametrize("scale", ["normalized", "discounted"])
def test_objectives_match_power_series_occupancy(scale: str) -> None:
    mdp = random_mdp(7, n_states=5, n_actions=3, gamma=0.8, scale=scale)
    pi = np.random.default_rng(1).dirichlet(np.ones(3), size=5)
    mu = power_series_occupancy(mdp, pi, n_terms=300)
    np.testing.assert_allclose(mdp.occupancy(pi), mu, atol=1e-14)
    assert mdp.occupancy(pi).sum() == pytest.approx(1.0, abs=1e-14)
    kl = np.log(pi / mdp.ref_policy)
    h = np.array([-np.sum(mu * (mdp.R[m] - mdp.beta * kl)) / (1 - mdp.gamma) for m in range(2)])
    expected = (1 - mdp.gamma) * h if scale == "normalized" else h
    np.testing.assert_allclose(mdp.objectives(pi), expected, rtol=1e-12)
    for m in range(2):
        v = mdp.value(pi, m)
        factor = (1 - mdp.gamma) if scale == "normalized" else 1.0
        assert -factor * mdp.rho @ v == pytest.approx(expected[m], rel=1e-12)


def test_normalized_objectives_equal_the_papers_occupancy_form() -> None:
    mdp = random_mdp(8, n_states=4, n_actions=3, gamma=0.9)
    for pi in [mdp.argmin(0.3), np.random.default_rng(2).dirichlet(np.ones(3), size=4)]:
        x = mdp.occupancy(pi)
        expected = [occupancy_objective(mdp, x, m) for m in range(2)]
        np.testing.assert_allclose(mdp.objectives(pi), expected, rtol=1e-12)


def test_occupancy_satisfies_the_flow_constraint() -> None:
    mdp = random_mdp(9, n_states=6, n_actions=2, gamma=0.7)
    x = mdp.occupancy(mdp.argmin(0.8)).reshape(-1)
    e_mat = np.repeat(np.eye(6), 2, axis=0)
    jac = (e_mat - mdp.gamma * mdp.P.reshape(12, 6)).T
    np.testing.assert_allclose(jac @ x, (1 - mdp.gamma) * mdp.rho, atol=1e-15)


def test_ls_solution_is_pareto_optimal_against_random_policies() -> None:
    mdp = random_mdp(10, n_states=3, n_actions=2, gamma=0.9)
    rng = np.random.default_rng(3)
    for w in [0.2, 0.7]:
        best = np.array([w, 1 - w]) @ mdp.objectives(mdp.argmin(w))
        for _ in range(200):
            pi = rng.dirichlet(np.ones(2), size=3)
            assert np.array([w, 1 - w]) @ mdp.objectives(pi) >= best - 1e-13


# --------------------------------------------------------------------------- bandit S = 1
@pytest.mark.parametrize("gamma", [0.5, 0.99])
def test_single_state_is_the_entropic_bandit(gamma: float) -> None:
    rng = np.random.default_rng(4)
    R1, R2 = rng.normal(size=5), rng.normal(size=5)
    ref = rng.dirichlet(np.ones(5))
    beta = 0.4
    mdp = bandit(R1, R2, beta, gamma, ref_policy=ref[None])
    disc = bandit(R1, R2, beta, gamma, ref_policy=ref[None], scale="discounted")
    w = np.array([0.0, 0.13, 0.5, 0.88, 1.0])
    for wi in w:
        u = softmax(np.log(ref) + (wi * R1 + (1 - wi) * R2) / beta)
        np.testing.assert_allclose(mdp.argmin(float(wi))[0], u, atol=1e-14)
    # Paper, eq. (bandit_speed): v = beta^-1 sqrt((1-w)^2 + w^2) D^T (Diag(u) - u u^T) D.
    D = R1 - R2
    expected = []
    for wi in w:
        u = softmax(np.log(ref) + (wi * R1 + (1 - wi) * R2) / beta)
        expected.append(
            np.sqrt((1 - wi) ** 2 + wi**2) * D @ (np.diag(u) - np.outer(u, u)) @ D / beta
        )
    np.testing.assert_allclose(mdp.speed(w), expected, rtol=1e-12)
    np.testing.assert_allclose(mdp.speed(w, method="hessian"), expected, rtol=1e-9)
    np.testing.assert_allclose(disc.speed(w), np.array(expected) / (1 - gamma), rtol=1e-12)


# --------------------------------------------------------------------------- speed
@pytest.mark.parametrize("scale", ["normalized", "discounted"])
@pytest.mark.parametrize("seed", [0, 1])
def test_speed_matches_finite_differences_of_exact_front(scale: str, seed: int) -> None:
    mdp = random_mdp(seed, n_states=4 + seed, n_actions=3, gamma=0.95, beta=0.4, scale=scale)
    w = np.array([0.05, 0.3, 0.5, 0.71, 0.95])
    h = 1e-4
    fd = (mdp.front(w + h) - mdp.front(w - h)) / (2 * h)
    np.testing.assert_allclose(mdp.speed(w), np.linalg.norm(fd, axis=1), rtol=1e-6)
    # the direction too: df1/dw = -(1-w) q, df2/dw = w q with q = curvature (normalized scale)
    q = mdp.curvature(w) / (1.0 if scale == "normalized" else 1 - mdp.gamma)
    np.testing.assert_allclose(fd[:, 0], -(1 - w) * q, rtol=1e-6)
    np.testing.assert_allclose(fd[:, 1], w * q, rtol=1e-6)


def test_speed_at_the_ends_matches_one_sided_differences() -> None:
    mdp = random_mdp(2, n_states=4, n_actions=2)
    h = 1e-5
    for w0, w1 in [(0.0, h), (1.0 - h, 1.0)]:
        fd = np.linalg.norm((mdp.front(w1) - mdp.front(w0))[0]) / h
        assert mdp.speed(0.0 if w0 == 0 else 1.0) == pytest.approx(fd, rel=1e-4)


@pytest.mark.parametrize("c", [1e-3, 1.0, 1e3])
def test_proposition_1_hessian_formula_equals_bellman_formula(c: float) -> None:
    mdp = random_mdp(6, n_states=5, n_actions=3, gamma=0.9, beta=0.7)
    w = np.linspace(0, 1, 7)
    np.testing.assert_allclose(mdp.speed(w, method="hessian", c=c), mdp.speed(w), rtol=1e-8)


def test_speed_is_vectorised_over_any_shape() -> None:
    mdp = random_mdp(1, n_states=3, n_actions=2)
    w = np.linspace(0, 1, 12).reshape(3, 4)
    v = mdp.speed(w)
    assert v.shape == (3, 4)
    np.testing.assert_allclose(v[1, 2], mdp.speed(w[1, 2]), rtol=1e-13)
    assert np.ndim(mdp.speed(0.3)) == 0


def test_cdf_matches_quadrature_of_the_exact_speed_and_reference_front_is_even() -> None:
    mdp = random_mdp(12, n_states=4, n_actions=3, gamma=0.9, beta=0.15)
    exact = SpeedCDF(mdp.speed)
    w = np.linspace(0, 1, 101)
    np.testing.assert_allclose(mdp.cdf()(w), exact(w), atol=1e-10)
    np.testing.assert_allclose(mdp.optimal_weights(10), exact.quantile_weights(10), atol=1e-9)
    ref = mdp.reference_front(401)
    gaps = np.linalg.norm(np.diff(ref, axis=0), axis=1)
    assert ref.shape == (401, 2)
    assert gaps.std() / gaps.mean() < 1e-3


# --------------------------------------------------------------------------- gradients
@pytest.mark.parametrize("scale", ["normalized", "discounted"])
def test_policy_gradient_matches_finite_differences(scale: str) -> None:
    mdp = random_mdp(13, n_states=4, n_actions=3, gamma=0.9, beta=0.6, scale=scale)
    theta = np.random.default_rng(5).normal(size=(4, 3))
    grad = mdp.policy_gradient(theta)
    fd = np.zeros_like(grad)
    eps = 1e-6
    for s in range(4):
        for a in range(3):
            e = np.zeros((4, 3))
            e[s, a] = eps
            up = mdp.objectives(mdp.policy_from_logits(theta + e))
            down = mdp.objectives(mdp.policy_from_logits(theta - e))
            fd[:, s, a] = (up - down) / (2 * eps)
    np.testing.assert_allclose(grad, fd, atol=1e-8 * max(1.0, np.abs(fd).max()))


def test_gradient_is_zero_at_the_exact_solution() -> None:
    mdp = random_mdp(14, n_states=5, n_actions=2, gamma=0.9)
    w = 0.35
    grad = mdp.policy_gradient(np.log(mdp.argmin(w)))
    np.testing.assert_allclose(w * grad[0] + (1 - w) * grad[1], 0.0, atol=1e-12)


@pytest.mark.parametrize(
    "optimizer, lr, steps, tol", [("sgd", 2.0, 4000, 1e-12), ("adam", 0.02, 3000, 1e-6)]
)
def test_gradient_solver_reaches_the_exact_solution(
    optimizer: str, lr: float, steps: int, tol: float
) -> None:
    mdp = random_mdp(15, n_states=4, n_actions=2, gamma=0.8, beta=0.5)
    solver = mdp.gradient_solver(steps=steps, lr=lr, optimizer=optimizer)
    sols = solver.solve_many(np.array([0.0, 0.6, 1.0]), [None, None, None])
    for w, sol in zip([0.0, 0.6, 1.0], sols, strict=True):
        np.testing.assert_allclose(sol.objectives, mdp.front(w)[0], atol=tol)
        assert sol.info["steps"] == steps
        assert isinstance(sol.state, GradientState)


def test_gradient_solver_warm_start_continues_exactly() -> None:
    mdp = random_mdp(16, n_states=3, n_actions=3)
    short = mdp.gradient_solver(steps=25)
    long = mdp.gradient_solver(steps=50)
    first = short.solve(0.4, None)
    second = short.solve(0.4, first.state)
    once = long.solve(0.4, None)
    np.testing.assert_allclose(second.state.params, once.state.params, atol=1e-14)
    np.testing.assert_allclose(second.state.m, once.state.m, atol=1e-14)
    assert second.state.t == once.state.t == 50
    # batched solve == one-by-one
    batch = short.solve_many(np.array([0.1, 0.4]), [None, first.state])
    np.testing.assert_allclose(batch[0].objectives, short.solve(0.1, None).objectives, rtol=1e-13)
    np.testing.assert_allclose(batch[1].objectives, second.objectives, rtol=1e-13)


def test_gradient_solver_starts_at_the_reference_policy() -> None:
    mdp = random_mdp(17, n_states=3, n_actions=2)
    state = mdp.gradient_solver(steps=1).initial_state(0.5)
    np.testing.assert_allclose(mdp.policy_from_logits(state.params), mdp.ref_policy, atol=1e-15)


# --------------------------------------------------------------------------- SURF
def test_surf_with_exact_solver_spreads_points_evenly() -> None:
    mdp = random_mdp(21, n_states=5, n_actions=3, gamma=0.9, beta=0.3)
    res = ps.surf(mdp.solver(), 10, iterations=30)
    assert res.cv < 0.02
    np.testing.assert_allclose(res.points, mdp.front(res.weights), atol=1e-12)
    uniform = ps.metrics.cv(mdp.front(np.linspace(0, 1, 11)))
    assert res.cv < uniform


def test_surf_with_gradient_solver_runs() -> None:
    mdp = random_mdp(22, n_states=4, n_actions=2, gamma=0.9, beta=0.5)
    res = ps.surf(mdp.gradient_solver(steps=20, lr=0.05), 6, iterations=5)
    assert res.points.shape == (7, 2)
    assert res.n_steps == 5 * 7 * 20


# --------------------------------------------------------------------------- M > 2
def test_three_objectives_weight_vectors() -> None:
    mdp = random_mdp(23, n_states=4, n_actions=3, n_objectives=3)
    wv = np.array([[0.2, 0.5, 0.3], [1.0, 0.0, 0.0]])
    pis = mdp.solve_weights(wv)
    for i in range(2):
        reward = wv[i] @ mdp.R.reshape(3, -1)
        expected = soft_value_iteration(mdp, reward.reshape(4, 3), n_iter=400)
        np.testing.assert_allclose(pis[i], expected, atol=1e-12)
    assert mdp.objectives(pis[0]).shape == (3,)
    assert mdp.n_objectives == 3
    two = RegularizedMDP(mdp.P, mdp.R[:2], mdp.gamma, mdp.rho, mdp.beta, mdp.ref_policy)
    np.testing.assert_allclose(mdp.solve_weights([0.3, 0.7, 0.0])[0], two.argmin(0.3), atol=1e-13)
    with pytest.raises(ValueError, match="M = 2"):
        mdp.argmin(0.5)
    with pytest.raises(ValueError, match="simplex"):
        mdp.solve_weights([0.5, 0.6, 0.0])
    report = mdp.check_assumptions()
    assert report.min_curvature is None and report.n_weights == 4


# --------------------------------------------------------------------------- assumptions
def test_check_assumptions_on_a_healthy_mdp() -> None:
    mdp = random_mdp(24, n_states=5, n_actions=3, gamma=0.9)
    report = mdp.check_assumptions(np.linspace(0, 1, 51))
    assert isinstance(report, MDPAssumptionReport)
    assert report.ok and report.full_row_rank and report.flow_rank == 5
    e_mat = np.repeat(np.eye(5), 3, axis=0)
    jac = (e_mat - mdp.gamma * mdp.P.reshape(15, 5)).T
    basis = null_space(jac)
    d = (mdp.R[0] - mdp.R[1]).reshape(-1)
    assert report.tradeoff_norm == pytest.approx(np.linalg.norm(basis.T @ d), rel=1e-10)
    occ = mdp.state_occupancy(mdp.solve_weights(np.linspace(0, 1, 51)))
    assert report.min_state_occupancy == pytest.approx(occ.min(), rel=1e-10)
    assert "ok" in str(report)


def test_check_assumptions_flags_unreachable_state_and_hessian_speed_refuses() -> None:
    # State 2 is reachable only from itself and the start is state 0: occupancy 0 there.
    P = np.zeros((3, 2, 3))
    P[0, 0] = [0.5, 0.5, 0.0]
    P[0, 1] = [0.0, 1.0, 0.0]
    P[1, 0] = [1.0, 0.0, 0.0]
    P[1, 1] = [0.3, 0.7, 0.0]
    P[2, :, 2] = 1.0
    R = np.random.default_rng(6).normal(size=(2, 3, 2))
    mdp = RegularizedMDP(P, R, 0.9, [1.0, 0.0, 0.0], 0.5)
    report = mdp.check_assumptions(np.linspace(0, 1, 11))
    assert not report.ok
    assert report.min_state_occupancy < 1e-12
    assert any("FAIL" in msg and "exploration" in msg for msg in report.messages)
    with pytest.raises(ValueError, match="exploration"):
        mdp.speed(0.5, method="hessian")
    # the Bellman form of the speed needs no exploration: it still matches the front
    h = 1e-4
    fd = np.linalg.norm(mdp.front(0.5 + h)[0] - mdp.front(0.5 - h)[0]) / (2 * h)
    assert mdp.speed(0.5) == pytest.approx(fd, rel=1e-6)


def test_check_assumptions_flags_a_potential_shaped_reward_difference() -> None:
    # R1 - R2 = (E - gamma P) nu: the objectives differ by a constant on the feasible set.
    rng = np.random.default_rng(7)
    P = rng.dirichlet(np.ones(4), size=(4, 2))
    nu = rng.normal(size=4)
    R2 = rng.normal(size=(4, 2))
    R1 = R2 + nu[:, None] - 0.9 * P @ nu
    mdp = RegularizedMDP(P, np.stack([R1, R2]), 0.9, np.ones(4) / 4, 0.5)
    report = mdp.check_assumptions(np.linspace(0, 1, 11))
    assert not report.ok
    assert report.tradeoff_norm < 1e-12
    assert report.min_curvature is not None and report.min_curvature < 1e-12
    f = mdp.front(np.linspace(0, 1, 5))
    np.testing.assert_allclose(f, f[:1].repeat(5, axis=0), atol=1e-12)  # the front is a point


# --------------------------------------------------------------------------- bad input
def _good() -> dict[str, Any]:
    P = np.full((2, 2, 2), 0.5)
    R = np.arange(8.0).reshape(2, 2, 2)
    return {"P": P, "R": R, "gamma": 0.9, "rho": [0.5, 0.5], "beta": 1.0}


@pytest.mark.parametrize(
    "change, exc, match",
    [
        ({"P": np.full((2, 2), 0.5)}, ValueError, "P must have shape"),
        ({"P": np.full((2, 2, 3), 1 / 3)}, ValueError, "P must have shape"),
        ({"P": np.full((2, 2, 2), 0.6)}, ValueError, "P must sum to 1"),
        ({"P": np.array([[[1.5, -0.5]] * 2] * 2)}, ValueError, "P must be non-negative"),
        ({"R": np.zeros((1, 2, 2))}, ValueError, "M >= 2"),
        ({"R": np.zeros((2, 3, 2))}, ValueError, "R must have shape"),
        ({"R": np.full((2, 2, 2), np.nan)}, ValueError, "R must be finite"),
        ({"gamma": 1.0}, ValueError, "gamma must lie in"),
        ({"gamma": 0.0}, ValueError, "gamma must lie in"),
        ({"gamma": True}, TypeError, "gamma"),
        ({"rho": [0.5, 0.6]}, ValueError, "rho must sum to 1"),
        ({"rho": [1.0]}, ValueError, "rho must have shape"),
        ({"beta": 0.0}, ValueError, "beta"),
        ({"beta": -1.0}, ValueError, "beta"),
        ({"ref_policy": [[1.0, 0.0], [0.5, 0.5]]}, ValueError, "ref_policy must be strictly"),
        ({"ref_policy": [[0.5, 0.5]]}, ValueError, "ref_policy must have shape"),
        ({"scale": "per-step"}, ValueError, "scale"),
    ],
)
def test_bad_inputs_raise(change: dict[str, Any], exc: type, match: str) -> None:
    kwargs = _good() | change
    with pytest.raises(exc, match=match):
        RegularizedMDP(**kwargs)


def test_bad_call_arguments_raise() -> None:
    mdp = RegularizedMDP(**_good())
    with pytest.raises(ValueError, match="w must lie in"):
        mdp.argmin(1.5)
    with pytest.raises(ValueError, match="w must lie in"):
        mdp.speed(np.array([0.2, -0.1]))
    with pytest.raises(ValueError, match="method"):
        mdp.speed(0.5, method="newton")
    with pytest.raises(ValueError, match="policy must have shape"):
        mdp.objectives(np.full((3, 2), 0.5))
    with pytest.raises(ValueError, match="policy must sum to 1"):
        mdp.objectives(np.full((2, 2), 0.4))
    with pytest.raises(ValueError, match="optimizer"):
        mdp.gradient_solver(steps=5, optimizer="lbfgs")
    with pytest.raises(ValueError, match="steps"):
        mdp.gradient_solver(steps=0)
    with pytest.raises(TypeError, match="GradientState"):
        mdp.gradient_solver(steps=1).solve(0.5, cast(Any, np.zeros((2, 2))))
    with pytest.raises(ValueError, match="states"):
        mdp.solve_weights([0.1, 0.2], states=[None])
