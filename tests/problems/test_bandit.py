"""Tests of the entropic bandit against independent truth: KKT conditions, direct sums,
finite differences, brute force, and the T^{-1/2} rate of the plug-in CDF (paper, Rule 1 example).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import softmax

from paretosurf import metrics
from paretosurf.problems.bandit import (
    PAPER_BETA,
    PAPER_N_ACTIONS,
    EntropicBandit,
    draw_offline_dataset,
    paper_rewards,
)


@pytest.fixture
def random_bandit() -> EntropicBandit:
    rng = np.random.default_rng(7)
    a = 6
    ref = rng.uniform(0.5, 2.0, a)
    return EntropicBandit(rng.normal(size=a), rng.normal(size=a), 0.3, ref / ref.sum())


def direct_objectives(pi, r1, r2, beta, ref):
    """h_m = beta * sum_a pi_a log(pi_a / ref_a) - sum_a R_m(a) pi_a, by a plain loop."""
    kl = 0.0
    for p, q in zip(pi, ref, strict=True):
        if p > 0:
            kl += p * math.log(p / q)
    return (
        beta * kl - sum(p * r for p, r in zip(pi, r1, strict=True)),
        beta * kl - sum(p * r for p, r in zip(pi, r2, strict=True)),
    )


# --------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("w", [0.0, 0.1, 0.5, 0.83, 1.0])
def test_argmin_satisfies_kkt(random_bandit: EntropicBandit, w: float) -> None:
    b = random_bandit
    pi = b.argmin(w)
    assert pi.shape == (b.n_actions,)
    assert np.all(pi > 0)
    assert abs(pi.sum() - 1) < 1e-12
    # Stationarity on the simplex interior: grad_pi LS = beta(log pi - log ref + 1) - R_w is
    # the same on every arm (the multiplier of sum(pi) = 1).
    grad = b.beta * (np.log(pi) - np.log(b.ref_policy) + 1) - (w * b.R1 + (1 - w) * b.R2)
    assert np.ptp(grad) < 1e-10


@pytest.mark.parametrize("w", [0.0, 0.37, 1.0])
def test_argmin_beats_random_policies(random_bandit: EntropicBandit, w: float) -> None:
    b = random_bandit
    rng = np.random.default_rng(1)
    best = b.objectives(b.argmin(w))
    ls_best = w * best[0] + (1 - w) * best[1]
    others = rng.dirichlet(np.ones(b.n_actions), size=500)
    others = np.vstack([others, np.eye(b.n_actions)])  # also the deterministic policies
    for pi in others:
        h = b.objectives(pi)
        assert w * h[0] + (1 - w) * h[1] >= ls_best - 1e-12


def test_objectives_match_direct_computation(random_bandit: EntropicBandit) -> None:
    b = random_bandit
    rng = np.random.default_rng(3)
    for pi in [*rng.dirichlet(np.ones(b.n_actions), size=5), np.eye(b.n_actions)[2]]:
        expected = direct_objectives(pi, b.R1, b.R2, b.beta, b.ref_policy)
        np.testing.assert_allclose(b.objectives(pi), expected, rtol=1e-12, atol=1e-12)


def test_front_vectorised_equals_per_weight(random_bandit: EntropicBandit) -> None:
    b = random_bandit
    w = np.linspace(0, 1, 37)
    per_weight = np.array([b.objectives(b.argmin(float(x))) for x in w])
    np.testing.assert_allclose(b.front(w), per_weight, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b.policies(w), [b.argmin(float(x)) for x in w], atol=1e-15)


def test_front_matches_paper_closed_form_policy() -> None:
    # pi_w = softmax(R0 + (w R1 + (1 - w) R2) / beta) with R0 = log pi_ref (paper, Sec. 2.1)
    r1, r2 = paper_rewards(5)
    ref = np.array([0.1, 0.2, 0.3, 0.25, 0.15])
    b = EntropicBandit(r1, r2, 0.2, ref)
    for w in (0.0, 0.4, 1.0):
        expected = softmax(np.log(ref) + (w * r1 + (1 - w) * r2) / 0.2)
        np.testing.assert_allclose(b.argmin(w), expected, rtol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        lambda: EntropicBandit.paper_example(),
        lambda: EntropicBandit(
            [1.0, -0.5, 0.3, 2.0], [0.0, 1.2, 0.7, -1.0], 0.7, [0.4, 0.1, 0.3, 0.2]
        ),
    ],
)
def test_speed_is_exact_norm_of_front_derivative(make) -> None:
    b = make()
    w = np.array([0.0, 0.05, 0.25, 0.5, 0.71, 0.95, 1.0])
    h = 1e-5
    fd = np.empty_like(w)
    for i, x in enumerate(w):
        if x - 2 * h < 0:  # one-sided second order at the ends
            f = b.front([x, x + h, x + 2 * h])
            d = (-3 * f[0] + 4 * f[1] - f[2]) / (2 * h)
        elif x + 2 * h > 1:
            f = b.front([x, x - h, x - 2 * h])
            d = -(-3 * f[0] + 4 * f[1] - f[2]) / (2 * h)
        else:  # fourth-order central difference
            f = b.front([x - 2 * h, x - h, x + h, x + 2 * h])
            d = (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h)
        fd[i] = np.linalg.norm(d)
    interior = (w > 0) & (w < 1)
    np.testing.assert_allclose(b.speed(w)[interior], fd[interior], rtol=1e-6)
    np.testing.assert_allclose(b.speed(w)[~interior], fd[~interior], rtol=1e-4)


def test_speed_vectorised_over_shapes(random_bandit: EntropicBandit) -> None:
    w = np.linspace(0, 1, 12).reshape(3, 4)
    v = random_bandit.speed(w)
    assert v.shape == (3, 4)
    np.testing.assert_allclose(v.ravel(), [float(random_bandit.speed(x)) for x in w.ravel()])


def test_cdf_matches_quadrature_of_speed() -> None:
    from scipy.integrate import quad

    b = EntropicBandit.paper_example()
    total = quad(lambda x: float(b.speed(x)), 0, 1, epsabs=1e-13, epsrel=1e-12)[0]
    for w in (0.2, 0.5, 0.9):
        part = quad(lambda x: float(b.speed(x)), 0, w, epsabs=1e-13, epsrel=1e-12)[0]
        assert abs(float(b.cdf()(w)) - part / total) < 1e-9


# --------------------------------------------------------------------------- Rule 1
def test_rule1_gives_evenly_spaced_front() -> None:
    b = EntropicBandit.paper_example()
    n = 20
    cv_rule1 = metrics.cv(b.front(b.optimal_weights(n)))
    cv_uniform = metrics.cv(b.front(np.linspace(0, 1, n + 1)))
    assert cv_rule1 < 1e-3
    assert cv_uniform > 100 * cv_rule1
    assert cv_uniform > 0.2  # the paper's point: uniform weights clump


def test_plugin_cdf_error_decays_like_inverse_sqrt_T() -> None:
    true = EntropicBandit.paper_example()
    true_cdf = true.cdf()
    pulls = np.unique(np.round(np.logspace(2, 4, 6)).astype(int))
    mean_errors = []
    for t in pulls:
        errors = []
        for seed in range(20):
            actions, rewards = draw_offline_dataset(PAPER_N_ACTIONS, int(t), seed=seed)
            estimate = EntropicBandit.from_samples(actions, rewards, PAPER_N_ACTIONS, PAPER_BETA)
            errors.append(metrics.cdf_error(estimate.cdf(), true_cdf, n_grid=2001))
        mean_errors.append(np.mean(errors))
    slope = np.polyfit(np.log(pulls), np.log(mean_errors), 1)[0]
    assert -0.65 <= slope <= -0.35, (slope, mean_errors)


def test_from_samples_noise_free_recovers_true_cdf() -> None:
    actions, rewards = draw_offline_dataset(7, 50, noise_std=0.0, seed=0)
    estimate = EntropicBandit.from_samples(actions, rewards, 7, 0.3)
    true = EntropicBandit(*paper_rewards(7), 0.3)
    np.testing.assert_allclose(estimate.R1, true.R1, atol=1e-15)
    np.testing.assert_allclose(estimate.R2, true.R2, atol=1e-15)
    assert metrics.cdf_error(estimate.cdf(), true.cdf(), n_grid=501) < 1e-12


def test_from_samples_empirical_means() -> None:
    actions = np.array([2, 0, 1, 2, 0, 2])
    rewards = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [9.0, 10.0], [-2.0, 0.0]])
    b = EntropicBandit.from_samples(actions, rewards, 3, 1.0)
    np.testing.assert_allclose(b.R1, [6.0, 5.0, 2.0])
    np.testing.assert_allclose(b.R2, [7.0, 6.0, 10.0 / 3.0])


# --------------------------------------------------------------------------- dataset
@pytest.mark.parametrize(("a", "t"), [(10, 100), (10, 1234), (3, 3), (7, 50)])
def test_dataset_is_balanced(a: int, t: int) -> None:
    actions, rewards = draw_offline_dataset(a, t, seed=4)
    assert actions.shape == (t,) and rewards.shape == (t, 2)
    counts = np.bincount(actions, minlength=a)
    assert counts.sum() == t
    assert set(counts.tolist()) <= {t // a, -(-t // a)}


def test_dataset_noise_and_means() -> None:
    actions, rewards = draw_offline_dataset(4, 400_000, seed=11)
    r1, r2 = paper_rewards(4)
    noise = rewards - np.stack([r1[actions], r2[actions]], axis=1)
    assert abs(noise.std() - 0.5) < 0.005
    assert np.all(np.abs(noise.mean(axis=0)) < 0.005)
    assert abs(np.corrcoef(noise.T)[0, 1]) < 0.01
    np.testing.assert_allclose(r1, [0, 1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(r2, 1 - np.array([0, 1 / 3, 2 / 3, 1]) ** 4)


def test_dataset_seeded() -> None:
    a1, r1 = draw_offline_dataset(5, 60, seed=3)
    a2, r2 = draw_offline_dataset(5, 60, seed=np.random.default_rng(3))
    a3, _ = draw_offline_dataset(5, 60, seed=4)
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(r1, r2)
    assert not np.array_equal(a1, a3)


# --------------------------------------------------------------------------- gradient solver
def test_logit_gradients_match_finite_differences(random_bandit: EntropicBandit) -> None:
    b = random_bandit
    theta = np.random.default_rng(5).normal(size=b.n_actions)
    g = b.logit_gradients(theta)
    h = 1e-6
    fd = np.empty_like(g)
    for i in range(b.n_actions):
        e = np.zeros(b.n_actions)
        e[i] = h
        fd[:, i] = (b.objectives(softmax(theta + e)) - b.objectives(softmax(theta - e))) / (2 * h)
    np.testing.assert_allclose(g, fd, atol=1e-8)


@pytest.mark.parametrize("w", [0.0, 0.3, 0.7, 1.0])
def test_gradient_solver_sgd_reaches_argmin(w: float) -> None:
    b = EntropicBandit([1.0, -0.5, 0.3, 2.0], [0.0, 1.2, 0.7, -1.0], 0.7, [0.4, 0.1, 0.3, 0.2])
    solver = b.gradient_solver(steps=3000, lr=1 / b.beta, optimizer="sgd")
    sol = solver.solve(w, None)
    np.testing.assert_allclose(softmax(sol.state.params), b.argmin(w), atol=1e-9)
    np.testing.assert_allclose(sol.objectives, b.front([w])[0], atol=1e-9)
    assert sol.info["steps"] == 3000


@pytest.mark.parametrize("w", [0.0, 0.5, 1.0])
def test_gradient_solver_adam_reaches_argmin(w: float) -> None:
    b = EntropicBandit.paper_example()
    solver = b.gradient_solver(steps=1000)  # Adam, lr=0.05
    sol = solver.solve(w, None)
    for _ in range(2):  # warm-started continuation
        sol = solver.solve(w, sol.state)
    error = np.abs(sol.objectives - b.front([w])[0]).max()
    assert error < 1e-3
    assert np.abs(softmax(sol.state.params) - b.argmin(w)).max() < 1e-3
    # and far closer than the start (the reference policy)
    start_error = np.abs(b.objectives(b.ref_policy) - b.front([w])[0]).max()
    assert error < 0.02 * start_error


def test_gradient_solver_init() -> None:
    b = EntropicBandit([1.0, 0.0], [0.0, 1.0], 1.0, [0.25, 0.75])
    solver = b.gradient_solver(steps=1, lr=1e-12, optimizer="sgd")
    np.testing.assert_allclose(solver.initial_state(0.5).params, np.log([0.25, 0.75]))
    custom = b.gradient_solver(steps=1, lr=0.1, init=[2.0, -1.0])
    np.testing.assert_allclose(custom.initial_state(0.5).params, [2.0, -1.0])
    with pytest.raises(ValueError, match="init"):
        b.gradient_solver(steps=1, init=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="optimizer"):
        b.gradient_solver(steps=1, optimizer="rmsprop")
    with pytest.raises(ValueError, match="steps"):
        b.gradient_solver(steps=0)


def test_exact_solver_and_reference_front() -> None:
    b = EntropicBandit.paper_example(n_actions=4, beta=0.5)
    sol = b.solver().solve(0.25, None)
    np.testing.assert_allclose(sol.objectives, b.front([0.25])[0])
    ref = b.reference_front(51)
    assert ref.shape == (51, 2)
    assert metrics.cv(ref) < 1e-3


def test_extreme_logits_are_stable() -> None:
    b = EntropicBandit([1000.0, 0.0, -1000.0], [-1000.0, 0.0, 1000.0], 1e-3)
    pts = b.front(np.linspace(0, 1, 11))
    assert np.all(np.isfinite(pts))
    assert np.all(np.isfinite(b.speed(np.linspace(0, 1, 11))))
    np.testing.assert_allclose(b.argmin(0.0), [0.0, 0.0, 1.0], atol=1e-300)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "exc", "name"),
    [
        ({"R1": [1.0], "R2": [0.0]}, ValueError, "R1"),
        ({"R1": [[1.0, 2.0]], "R2": [0.0, 1.0]}, ValueError, "R1"),
        ({"R1": [1.0, np.nan], "R2": [0.0, 1.0]}, ValueError, "R1"),
        ({"R1": [1.0, 0.0], "R2": [0.0, np.inf]}, ValueError, "R2"),
        ({"R1": [1.0, 0.0], "R2": [0.0, 1.0, 2.0]}, ValueError, "R2"),
        ({"beta": 0.0}, ValueError, "beta"),
        ({"beta": -1.0}, ValueError, "beta"),
        ({"beta": float("nan")}, ValueError, "beta"),
        ({"beta": "1"}, TypeError, "beta"),
        ({"ref_policy": [0.5, 0.5, 0.0]}, ValueError, "ref_policy"),
        ({"ref_policy": [0.5, 0.6, -0.1]}, ValueError, "ref_policy"),
        ({"ref_policy": [0.3, 0.3, 0.3]}, ValueError, "ref_policy"),
        ({"ref_policy": [0.5, 0.5]}, ValueError, "ref_policy"),
        ({"ref_policy": [0.5, np.nan, 0.5]}, ValueError, "ref_policy"),
    ],
)
def test_constructor_rejects_bad_input(kwargs, exc, name) -> None:
    args = {"R1": [1.0, 0.0, 0.5], "R2": [0.0, 1.0, 0.5], "beta": 0.5, "ref_policy": None}
    args.update(kwargs)
    with pytest.raises(exc, match=name):
        EntropicBandit(**args)


def test_methods_reject_bad_input() -> None:
    b = EntropicBandit([1.0, 0.0, 0.5], [0.0, 1.0, 0.5], 0.5)
    with pytest.raises(ValueError, match="w"):
        b.argmin(1.5)
    with pytest.raises(ValueError, match="w"):
        b.argmin([0.1, 0.2])
    with pytest.raises(ValueError, match="w"):
        b.front([0.0, -0.1])
    with pytest.raises(ValueError, match="w"):
        b.speed(np.nan)
    with pytest.raises(ValueError, match="x"):
        b.objectives([0.5, 0.5])
    with pytest.raises(ValueError, match="x"):
        b.objectives([0.5, 0.6, -0.1])
    with pytest.raises(ValueError, match="x"):
        b.objectives([0.5, 0.4, 0.0])


@pytest.mark.parametrize(
    ("args", "exc", "name"),
    [
        (([0, 1, 1], [[1, 0], [0, 1], [0, 1]], 3), ValueError, "arms \\[2\\]"),
        (([0, 1, 3], [[1, 0], [0, 1], [0, 1]], 3), ValueError, "actions"),
        (([0, -1, 2], [[1, 0], [0, 1], [0, 1]], 3), ValueError, "actions"),
        (([0.0, 1.0, 2.0], [[1, 0], [0, 1], [0, 1]], 3), TypeError, "actions"),
        (([[0, 1, 2]], [[1, 0], [0, 1], [0, 1]], 3), ValueError, "actions"),
        (([], np.zeros((0, 2)), 3), ValueError, "actions"),
        (([0, 1, 2], [[1, 0], [0, 1]], 3), ValueError, "rewards"),
        (([0, 1, 2], [1, 0, 1], 3), ValueError, "rewards"),
        (([0, 1, 2], [[1, 0], [0, np.nan], [0, 1]], 3), ValueError, "rewards"),
        (([0, 0, 0], [[1, 0], [0, 1], [0, 1]], 1), ValueError, "n_actions"),
        (([0, 1, 2], [[1, 0], [0, 1], [0, 1]], 3.0), TypeError, "n_actions"),
    ],
)
def test_from_samples_rejects_bad_input(args, exc, name) -> None:
    with pytest.raises(exc, match=name):
        EntropicBandit.from_samples(*args, beta=1.0)


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "name"),
    [
        ((1, 10), {}, ValueError, "n_actions"),
        ((2.5, 10), {}, TypeError, "n_actions"),
        ((5, 4), {}, ValueError, "n_pulls"),
        ((5, 0), {}, ValueError, "n_pulls"),
        ((5, 10), {"noise_std": -0.1}, ValueError, "noise_std"),
        ((5, 10), {"noise_std": float("inf")}, ValueError, "noise_std"),
        ((5, 10), {"noise_std": "0.5"}, TypeError, "noise_std"),
    ],
)
def test_draw_offline_dataset_rejects_bad_input(args, kwargs, exc, name) -> None:
    with pytest.raises(exc, match=name):
        draw_offline_dataset(*args, **kwargs)


def test_paper_example_validates() -> None:
    with pytest.raises(ValueError, match="n_actions"):
        EntropicBandit.paper_example(n_actions=1)
    with pytest.raises(ValueError, match="beta"):
        EntropicBandit.paper_example(beta=0.0)
