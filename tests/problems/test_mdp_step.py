"""The K-step solver's gradient step on larger, sparse MDPs: one LU factorization per slot and
transitions as non-zeros, checked against finite differences and against the plain path
(dense transitions, two separate solves)."""

from __future__ import annotations

import numpy as np
import pytest

from paretosurf.problems.mdp import RegularizedMDP
from paretosurf.problems.mdp import model as mdp_model
from paretosurf.problems.mdp.solvers import MDPGradientSolver

N_STATES, N_ACTIONS = 30, 3


def sparse_mdp(seed: int, *, scale: str = "normalized") -> RegularizedMDP:
    """Each (s, a) leads to two random next states: 6.7% of P is non-zero."""
    rng = np.random.default_rng(seed)
    P = np.zeros((N_STATES, N_ACTIONS, N_STATES))
    for s in range(N_STATES):
        for a in range(N_ACTIONS):
            nxt = rng.choice(N_STATES, size=2, replace=False)
            P[s, a, nxt] = rng.dirichlet([1.0, 1.0])
    R = rng.normal(size=(2, N_STATES, N_ACTIONS))
    rho = rng.dirichlet(np.ones(N_STATES))
    return RegularizedMDP(P, R, 0.95, rho, 0.3, scale=scale)


def plain(mdp: RegularizedMDP, monkeypatch: pytest.MonkeyPatch) -> RegularizedMDP:
    """The same MDP on the plain path: dense transitions and two np.linalg.solve calls."""
    monkeypatch.setattr(mdp_model, "LU_MIN_STATES", 10**9)
    monkeypatch.setattr(mdp, "_sparse", False)
    return mdp


def test_large_sparse_mdp_takes_the_fast_path() -> None:
    mdp = sparse_mdp(0)
    assert mdp._sparse and mdp.n_states >= mdp_model.LU_MIN_STATES


@pytest.mark.parametrize("scale", ["normalized", "discounted"])
def test_fast_gradient_matches_finite_differences(scale: str) -> None:
    mdp = sparse_mdp(1, scale=scale)
    rng = np.random.default_rng(2)
    theta = rng.normal(size=(N_STATES, N_ACTIONS))
    grad = mdp.policy_gradient(theta)
    eps = 1e-6
    for s, a in [(int(rng.integers(N_STATES)), int(rng.integers(N_ACTIONS))) for _ in range(12)]:
        e = np.zeros_like(theta)
        e[s, a] = eps
        up = mdp.objectives(mdp.policy_from_logits(theta + e))
        down = mdp.objectives(mdp.policy_from_logits(theta - e))
        np.testing.assert_allclose(
            grad[:, s, a], (up - down) / (2 * eps), atol=1e-8 * max(1.0, np.abs(grad).max())
        )


def test_fast_and_plain_gradients_agree_to_rounding(monkeypatch: pytest.MonkeyPatch) -> None:
    mdp = sparse_mdp(3)
    theta = np.random.default_rng(4).normal(size=(5, N_STATES, N_ACTIONS))
    w = np.linspace(0, 1, 5)
    rewards = (w[:, None, None] * mdp.R[0] + (1 - w[:, None, None]) * mdp.R[1])[:, None]
    fast = mdp._policy_gradients(theta, rewards)
    slow = plain(mdp, monkeypatch)._policy_gradients(theta, rewards)
    np.testing.assert_allclose(fast, slow, rtol=1e-11, atol=1e-14)


def test_k_step_trajectories_agree_to_rounding(monkeypatch: pytest.MonkeyPatch) -> None:
    weights = np.linspace(0, 1, 4)
    fast = sparse_mdp(5).gradient_solver(steps=60, lr=0.05).solve_many(weights, [None] * 4)
    mdp = plain(sparse_mdp(5), monkeypatch)
    slow = mdp.gradient_solver(steps=60, lr=0.05).solve_many(weights, [None] * 4)
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a.state.params, b.state.params, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(a.objectives, b.objectives, rtol=1e-10)


def test_singular_system_is_reported() -> None:
    flow = np.zeros((1, 3, 3))
    with pytest.raises(np.linalg.LinAlgError, match="Singular"):
        mdp_model._lu_solve_both(flow, np.ones((1, 3, 1)), np.ones(3) / 3)


@pytest.mark.parametrize("name", ["dst", "fishwood"])
def test_torch_backend_runs_the_same_steps(name: str) -> None:
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from paretosurf.bench import get_task

    problem = get_task(name).make_problem()
    weights = np.linspace(0, 1, 5)
    numpy_run = problem.gradient_solver(steps=40).solve_many(weights, [None] * 5)
    solver = MDPGradientSolver(problem, steps=40, device="cpu")
    torch_sols = solver.solve_many(weights, [None] * 5)
    for a, b in zip(numpy_run, torch_sols, strict=True):
        np.testing.assert_allclose(b.state.params, a.state.params, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(b.objectives, a.objectives, rtol=1e-9, atol=1e-12)
        assert b.state.t == a.state.t == 40
    # warm starts continue on either backend
    again = solver.solve(0.5, torch_sols[2].state)
    assert again.state.t == 80


def test_bad_device_is_refused() -> None:
    with pytest.raises(ValueError, match="device"):
        MDPGradientSolver(sparse_mdp(0), steps=3, device="tpu")
