"""The K-step solver's banded step: every slot's ``I - gamma P_pi`` in one banded matrix
(absorbing states split off, the rest in reverse Cuthill-McKee order). Checked against finite
differences and against an independent dense step (dense ``P_pi``, two ``np.linalg.solve``
calls) on Deep Sea Treasure, Fishwood, a random MDP with dense transitions (where the banded
path must step aside, or, when forced, still be right) and a sparse one with absorbing states.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import log_softmax

from paretosurf.bench import get_task
from paretosurf.problems.mdp import RegularizedMDP
from paretosurf.problems.mdp import model as mdp_model


def dense_gradients(mdp: RegularizedMDP, logits: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """The soft policy gradient from dense matrices and two plain solves (the reference)."""
    log_pi = log_softmax(logits, axis=-1)
    pi = np.exp(log_pi)
    n = mdp.n_states
    flow = np.eye(n) - mdp.gamma * np.einsum("bsa,sat->bst", pi, mdp.P)
    kl = np.sum(np.where(pi > 0, pi * (log_pi - mdp._log_ref), 0.0), axis=-1)
    c = np.sum(pi[:, None] * rewards, axis=-1) - mdp.beta * kl[:, None]  # (B, K, S)
    mean = np.mean(c, axis=-1)
    u = np.linalg.solve(flow, np.swapaxes(c - mean[..., None], 1, 2))
    v = np.swapaxes(u, 1, 2) + (mean / (1.0 - mdp.gamma))[..., None]
    q = rewards + mdp.gamma * np.einsum("sat,bkt->bksa", mdp.P, v)
    adv = q - mdp.beta * (log_pi - mdp._log_ref)[:, None] - v[..., None]
    rhs = np.broadcast_to(mdp.rho, (pi.shape[0], n))[..., None]
    d_u = np.linalg.solve(np.swapaxes(flow, 1, 2), rhs)[..., 0]
    return np.asarray(-mdp._factor * d_u[:, None, :, None] * pi[:, None] * adv)


def scalarized(mdp: RegularizedMDP, slots: int) -> np.ndarray:
    w = np.linspace(0, 1, slots)
    return (w[:, None, None] * mdp.R[0] + (1 - w[:, None, None]) * mdp.R[1])[:, None]


def dense_mdp(seed: int) -> RegularizedMDP:
    rng = np.random.default_rng(seed)
    n, a = 30, 3
    P = rng.dirichlet(np.ones(n), size=(n, a))
    return RegularizedMDP(P, rng.normal(size=(2, n, a)), 0.95, rng.dirichlet(np.ones(n)), 0.3)


def chain_mdp(seed: int, *, scale: str = "normalized") -> RegularizedMDP:
    """A noisy corridor of 40 states (left, stay, right) ending in two absorbing states."""
    rng = np.random.default_rng(seed)
    n, a = 40, 3
    P = np.zeros((n, a, n))
    for s in range(n - 2):
        for act, step in enumerate((-1, 0, 1)):
            main = min(max(s + step, 0), n - 3)
            P[s, act, main] += 0.8
            P[s, act, min(s + 2, n - 3)] += 0.1
            P[s, act, n - 2 + (s % 2)] += 0.1  # a chance to fall into an absorbing state
    P[n - 2, :, n - 2] = 1.0
    P[n - 1, :, n - 1] = 1.0
    rho = rng.dirichlet(np.ones(n))
    return RegularizedMDP(P, rng.normal(size=(2, n, a)), 0.99, rho, 0.4, scale=scale)


def force_band(mdp: RegularizedMDP, monkeypatch: pytest.MonkeyPatch) -> RegularizedMDP:
    monkeypatch.setattr(mdp_model, "BAND_COST_RATIO", 0)
    monkeypatch.setattr(mdp_model, "BAND_MIN_STATES", 1)
    mdp._band_cache = None
    return mdp


def assert_matches_finite_differences(mdp: RegularizedMDP, seed: int) -> None:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(mdp.n_states, mdp.n_actions))
    grad = mdp.policy_gradient(theta)
    eps = 1e-6
    for _ in range(10):
        s, a = int(rng.integers(mdp.n_states)), int(rng.integers(mdp.n_actions))
        e = np.zeros_like(theta)
        e[s, a] = eps
        up = mdp.objectives(mdp.policy_from_logits(theta + e))
        down = mdp.objectives(mdp.policy_from_logits(theta - e))
        np.testing.assert_allclose(
            grad[:, s, a], (up - down) / (2 * eps), atol=1e-7 * max(1.0, np.abs(grad).max())
        )


def test_dst_takes_the_banded_path_with_its_absorbing_state_split_off() -> None:
    mdp = get_task("dst").make_problem()
    band = mdp._band()
    assert band is not None
    assert band.sink.size == 1 and band.n == mdp.n_states - 1
    assert band.kl <= 8 and band.ku <= 8


@pytest.mark.parametrize("name", ["dst", "fishwood"])
def test_task_gradients_equal_the_dense_step(name: str) -> None:
    mdp = get_task(name).make_problem()
    theta = np.random.default_rng(0).normal(size=(16, mdp.n_states, mdp.n_actions))
    rewards = scalarized(mdp, 16)
    ref = dense_gradients(mdp, theta, rewards)
    np.testing.assert_allclose(
        mdp._policy_gradients(theta, rewards), ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max()
    )


@pytest.mark.parametrize("name", ["dst", "fishwood"])
def test_task_gradients_match_finite_differences(name: str) -> None:
    assert_matches_finite_differences(get_task(name).make_problem(), 1)


def test_dense_transitions_fall_back_to_the_dense_lu() -> None:
    mdp = dense_mdp(2)
    assert mdp._band() is None
    theta = np.random.default_rng(3).normal(size=(5, mdp.n_states, mdp.n_actions))
    rewards = scalarized(mdp, 5)
    np.testing.assert_allclose(
        mdp._policy_gradients(theta, rewards),
        dense_gradients(mdp, theta, rewards),
        rtol=1e-10,
        atol=1e-14,
    )


def test_banded_path_forced_on_dense_transitions_is_still_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mdp = force_band(dense_mdp(4), monkeypatch)
    band = mdp._band()
    assert band is not None and band.kl == band.ku == mdp.n_states - 1  # full bandwidth
    theta = np.random.default_rng(5).normal(size=(4, mdp.n_states, mdp.n_actions))
    rewards = scalarized(mdp, 4)
    np.testing.assert_allclose(
        mdp._policy_gradients(theta, rewards),
        dense_gradients(mdp, theta, rewards),
        rtol=1e-10,
        atol=1e-14,
    )
    assert_matches_finite_differences(mdp, 6)


@pytest.mark.parametrize("scale", ["normalized", "discounted"])
def test_absorbing_states_are_split_off_correctly(
    scale: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    mdp = force_band(chain_mdp(7, scale=scale), monkeypatch)
    band = mdp._band()
    assert band is not None and band.sink.tolist() == [38, 39]
    theta = np.random.default_rng(8).normal(size=(6, mdp.n_states, mdp.n_actions))
    rewards = np.concatenate([scalarized(mdp, 6), scalarized(mdp, 6)[::-1]], axis=1)  # K = 2
    ref = dense_gradients(mdp, theta, rewards)
    np.testing.assert_allclose(
        mdp._policy_gradients(theta, rewards), ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max()
    )
    assert_matches_finite_differences(mdp, 9)


def test_dst_k_step_trajectories_equal_the_dense_step(monkeypatch: pytest.MonkeyPatch) -> None:
    weights = np.linspace(0, 1, 6)
    banded = get_task("dst").make_problem()
    fast = banded.gradient_solver(steps=60).solve_many(weights, [None] * 6)
    dense = get_task("dst").make_problem()
    monkeypatch.setattr(dense, "_band", lambda: None)  # today's dense LU per slot
    slow = dense.gradient_solver(steps=60).solve_many(weights, [None] * 6)
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a.state.params, b.state.params, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(a.objectives, b.objectives, rtol=1e-10)


@pytest.mark.parametrize("actions", [1, 2, 4, 11])
def test_log_softmax_and_action_sums_equal_numpy(actions: int) -> None:
    x = np.random.default_rng(actions).normal(size=(3, 5, actions)) * 30
    np.testing.assert_allclose(
        mdp_model._log_softmax(x), log_softmax(x, axis=-1), rtol=1e-14, atol=1e-13
    )
    np.testing.assert_allclose(
        mdp_model._reduce_actions(x, np.add), x.sum(-1), rtol=1e-13, atol=1e-13
    )
    np.testing.assert_array_equal(mdp_model._reduce_actions(x, np.maximum), x.max(-1))
