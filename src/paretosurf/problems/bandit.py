"""The entropic (KL-regularized) bi-objective bandit: closed-form front, speed and CDF.

A single-state MDP with ``A >= 2`` arms, mean reward vectors ``R1, R2`` (to be maximized) and a
KL regularizer of strength ``beta > 0`` towards a reference policy ``pi_ref``. The objectives
(minimized, the paper's ``f_m`` of eq. (MDP) with ``|S| = 1``) are

    h_m(pi) = beta * KL(pi || pi_ref) - <R_m, pi>,    m = 1, 2,

on the probability simplex. The linear scalarization ``w * h1 + (1 - w) * h2`` has the unique
minimizer ``pi_w = softmax(log pi_ref + (w R1 + (1 - w) R2) / beta)``, and the front's speed is
(paper, eq. bandit_speed)

    v(w) = sqrt((1 - w)^2 + w^2) / beta * Var_{pi_w}(R1 - R2),

where ``Var_pi(d) = d' (Diag(pi) - pi pi') d`` is the variance of ``d`` under ``pi``. This is the
exact norm of ``d f_PF / dw``: ``d h1/dw = -(1 - w) Var / beta`` and ``d h2/dw = w Var / beta``.

:meth:`EntropicBandit.from_samples` is the plug-in estimate of Rule 1's example (the paper's
"Rule 1 example"): empirical mean rewards from an offline dataset, whose true-vs-estimated CDF
error decays like ``T^{-1/2}`` in the number of pulls ``T``. :func:`draw_offline_dataset` draws
the paper's balanced offline dataset (arms ``x_a`` evenly spaced in [0, 1], ``R1 = x``,
``R2 = 1 - x^4``, Gaussian noise of standard deviation 0.5).
"""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import log_softmax, rel_entr

from paretosurf._utils.validation import check_positive, check_positive_int
from paretosurf.problems._simplex import check_simplex
from paretosurf.problems.base import BiObjectiveProblem, InitParams, as_weight_array
from paretosurf.solvers import GradientSolver, GradientState

__all__ = ["EntropicBandit", "draw_offline_dataset", "paper_rewards"]

FloatArray = NDArray[np.float64]

#: Defaults of :meth:`EntropicBandit.paper_example`. The paper does not state the number of arms
#: or ``beta`` of its bandit figures; 10 arms and ``beta = 0.1`` give a front whose uniform-weight
#: points are visibly clumped (CV of the gaps about 0.42 for 20 segments, speed ratio max/min
#: about 3.9) while the front stays smooth.
PAPER_N_ACTIONS = 10
PAPER_BETA = 0.1


def _as_reward_vector(values: ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(
            f"{name} must be a 1-D array of at least 2 arm rewards, got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr.copy()


def paper_rewards(n_actions: int = PAPER_N_ACTIONS) -> tuple[FloatArray, FloatArray]:
    """True mean rewards of the paper's offline bandit: ``R1 = x``, ``R2 = 1 - x^4``.

    The arm features ``x_a`` are evenly spaced over [0, 1] (``numpy.linspace(0, 1, A)``).

    Parameters
    ----------
    n_actions : int
        Number of arms ``A >= 2``.

    Returns
    -------
    R1, R2 : ndarray, shape (A,)

    Examples
    --------
    >>> from paretosurf.problems.bandit import paper_rewards
    >>> R1, R2 = paper_rewards(3)
    >>> R1.tolist(), R2.tolist()
    ([0.0, 0.5, 1.0], [1.0, 0.9375, 0.0])
    """
    a = check_positive_int(n_actions, name="n_actions")
    if a < 2:
        raise ValueError(f"n_actions must be an integer >= 2, got {a}")
    x = np.linspace(0.0, 1.0, a)
    return x, 1.0 - x**4


class EntropicBandit(BiObjectiveProblem):
    """Bi-objective KL-regularized bandit with closed-form Pareto front, speed and CDF.

    Parameters
    ----------
    R1, R2 : array_like, shape (A,)
        Mean rewards of the ``A >= 2`` arms for the two objectives (rewards are maximized; the
        objectives ``h_m = beta * KL(pi || pi_ref) - <R_m, pi>`` are minimized).
    beta : float
        Regularization strength, > 0.
    ref_policy : array_like, shape (A,), optional
        Reference policy ``pi_ref``: strictly positive, summing to 1 (to within
        ``SIMPLEX_TOL = 1e-8``; it is then renormalized exactly). Default: uniform.

    Attributes
    ----------
    R1, R2 : ndarray, shape (A,)
    beta : float
    ref_policy : ndarray, shape (A,)
    n_actions : int

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.bandit import EntropicBandit
    >>> bandit = EntropicBandit([1.0, 0.0], [0.0, 1.0], beta=1.0)
    >>> bandit.argmin(0.5).tolist()                  # symmetric weight: uniform policy
    [0.5, 0.5]
    >>> [round(float(v), 6) for v in bandit.objectives(bandit.argmin(0.5))]
    [-0.5, -0.5]
    >>> round(float(bandit.speed(0.5)), 6)           # sqrt(0.5) * Var(R1 - R2) / beta
    0.707107
    >>> w = bandit.optimal_weights(4)                # Rule 1: evenly spaced in arc length
    >>> round(float(w[2]), 6)
    0.5
    """

    #: ``gradient_solver`` defaults.
    default_lr: ClassVar[float] = 0.05
    default_optimizer: ClassVar[str] = "adam"

    def __init__(
        self,
        R1: ArrayLike,
        R2: ArrayLike,
        beta: float,
        ref_policy: ArrayLike | None = None,
    ) -> None:
        r1 = _as_reward_vector(R1, "R1")
        r2 = _as_reward_vector(R2, "R2")
        if r1.shape != r2.shape:
            raise ValueError(
                f"R1 and R2 must have the same shape (one reward per arm), got "
                f"{r1.shape} and {r2.shape}"
            )
        self.beta = check_positive(beta, name="beta")
        a = r1.size
        if ref_policy is None:
            ref = np.full(a, 1.0 / a)
        else:
            ref = np.array(ref_policy, dtype=np.float64, copy=True)
            if ref.shape != (a,):
                raise ValueError(
                    f"ref_policy must have shape ({a},) (one probability per arm), got {ref.shape}"
                )
            check_simplex(ref, name="ref_policy", positive=True)
            ref = ref / ref.sum()
        self.R1 = r1
        self.R2 = r2
        self.ref_policy = ref
        self.n_actions = a
        self._log_ref = np.log(ref)

    def __repr__(self) -> str:
        return f"EntropicBandit(n_actions={self.n_actions}, beta={self.beta!r})"

    # ----------------------------------------------------------------- constructors
    @classmethod
    def from_samples(
        cls,
        actions: ArrayLike,
        rewards: ArrayLike,
        n_actions: int,
        beta: float,
        ref_policy: ArrayLike | None = None,
    ) -> EntropicBandit:
        """Plug-in bandit from an offline dataset: empirical-mean rewards per arm.

        This is the paper's "Rule 1 example": plugging the estimates ``R1_hat, R2_hat`` into
        the closed-form speed gives ``Phi_hat``, whose error ``||Phi_hat - Phi||_inf`` is
        ``O(T^{-1/2})`` in the number of pulls ``T``.

        Parameters
        ----------
        actions : array_like of int, shape (T,)
            The arm pulled at each step, in ``0 .. n_actions - 1``.
        rewards : array_like, shape (T, 2)
            The observed reward pair of each pull.
        n_actions : int
            Number of arms ``A >= 2``; every arm must appear at least once in ``actions``.
        beta, ref_policy
            As in :class:`EntropicBandit`.

        Examples
        --------
        >>> from paretosurf.problems.bandit import EntropicBandit
        >>> b = EntropicBandit.from_samples([0, 1, 1], [[1, 0], [0, 2], [0, 4]], 2, beta=0.5)
        >>> b.R1.tolist(), b.R2.tolist()
        ([1.0, 0.0], [0.0, 3.0])
        """
        a = check_positive_int(n_actions, name="n_actions")
        if a < 2:
            raise ValueError(f"n_actions must be an integer >= 2, got {a}")
        acts = np.asarray(actions)
        if acts.ndim != 1 or acts.size == 0:
            raise ValueError(
                f"actions must be a non-empty 1-D array of arm indices, got shape {acts.shape}"
            )
        if acts.dtype == np.bool_ or not np.issubdtype(acts.dtype, np.integer):
            raise TypeError(f"actions must hold integer arm indices, got dtype {acts.dtype}")
        if np.any((acts < 0) | (acts >= a)):
            bad = np.unique(acts[(acts < 0) | (acts >= a)])[:5]
            raise ValueError(f"actions must lie in 0..{a - 1} (n_actions={a}); got {bad.tolist()}")
        rew = np.asarray(rewards, dtype=np.float64)
        if rew.shape != (acts.size, 2):
            raise ValueError(
                f"rewards must have shape (T, 2) = ({acts.size}, 2), one reward "
                f"pair per action, got {rew.shape}"
            )
        if not np.all(np.isfinite(rew)):
            raise ValueError("rewards must be finite")
        counts = np.bincount(acts, minlength=a)
        if np.any(counts == 0):
            missing = np.flatnonzero(counts == 0)
            raise ValueError(
                f"every arm must appear at least once in actions to estimate its "
                f"mean reward; arms {missing[:10].tolist()} never do"
            )
        r1 = np.bincount(acts, weights=rew[:, 0], minlength=a) / counts
        r2 = np.bincount(acts, weights=rew[:, 1], minlength=a) / counts
        return cls(r1, r2, beta, ref_policy)

    @classmethod
    def paper_example(
        cls, n_actions: int = PAPER_N_ACTIONS, beta: float = PAPER_BETA
    ) -> EntropicBandit:
        """The paper's offline-bandit problem with its true means and a uniform reference.

        Arms ``x_a`` evenly spaced in [0, 1], ``R1 = x``, ``R2 = 1 - x^4``. The paper does not
        give ``A`` or ``beta`` for its figures; the defaults (10 arms, ``beta = 0.1``) are ours.

        Examples
        --------
        >>> from paretosurf.problems.bandit import EntropicBandit
        >>> EntropicBandit.paper_example()
        EntropicBandit(n_actions=10, beta=0.1)
        """
        r1, r2 = paper_rewards(n_actions)
        return cls(r1, r2, beta)

    # ----------------------------------------------------------------- closed forms
    def _log_policies(self, w: FloatArray) -> FloatArray:
        """``log pi_w`` for a 1-D array of weights, shape (K, A)."""
        z = (
            self._log_ref[None, :]
            + (w[:, None] * self.R1[None, :] + (1.0 - w[:, None]) * self.R2[None, :]) / self.beta
        )
        return log_softmax(z, axis=-1)

    def policies(self, w: ArrayLike) -> FloatArray:
        """The LS-optimal policies ``pi_w`` at an array of weights: shape ``w.shape + (A,)``."""
        w_arr = as_weight_array(w)
        return np.exp(self._log_policies(w_arr.ravel())).reshape(*w_arr.shape, self.n_actions)

    def argmin(self, w: float) -> FloatArray:
        """The LS minimizer ``pi_w = softmax(log pi_ref + (w R1 + (1 - w) R2) / beta)``.

        Parameters
        ----------
        w : float
            Weight on objective 1, in [0, 1].

        Returns
        -------
        ndarray, shape (A,)
            A strictly positive policy (probabilities may underflow to 0 for extreme logits).
        """
        w_arr = as_weight_array(w)
        if w_arr.ndim != 0:
            raise ValueError(f"w must be a scalar weight in [0, 1], got shape {w_arr.shape}")
        return np.exp(self._log_policies(w_arr.reshape(1))[0])

    def objectives(self, x: ArrayLike) -> FloatArray:
        """``(h1(pi), h2(pi))`` with ``h_m = beta * KL(pi || pi_ref) - <R_m, pi>``.

        Parameters
        ----------
        x : array_like, shape (A,)
            A policy: non-negative, summing to 1 (to within ``SIMPLEX_TOL = 1e-8``).
        """
        pi = np.asarray(x, dtype=np.float64)
        if pi.shape != (self.n_actions,):
            raise ValueError(f"x must be a policy of shape ({self.n_actions},), got {pi.shape}")
        check_simplex(pi, name="x")
        kl = float(np.sum(rel_entr(pi, self.ref_policy)))
        return np.array([self.beta * kl - pi @ self.R1, self.beta * kl - pi @ self.R2])

    def _objectives_from_log_policies(self, log_pi: FloatArray) -> FloatArray:
        """Objectives of policies given by their logs, shape (K, A) -> (K, 2)."""
        pi = np.exp(log_pi)
        kl = np.sum(pi * (log_pi - self._log_ref[None, :]), axis=1)
        h1 = self.beta * kl - pi @ self.R1
        h2 = self.beta * kl - pi @ self.R2
        return np.stack([h1, h2], axis=1)

    def front(self, w: ArrayLike) -> FloatArray:
        """Pareto front ``f_PF(w) = h(pi_w)``, vectorised: weights (K,) to points (K, 2).

        Examples
        --------
        >>> from paretosurf.problems.bandit import EntropicBandit
        >>> bandit = EntropicBandit([1.0, 0.0], [0.0, 1.0], beta=1.0)
        >>> bandit.front([0.5]).round(6).tolist()
        [[-0.5, -0.5]]
        """
        w_arr = np.atleast_1d(as_weight_array(w)).ravel()
        return self._objectives_from_log_policies(self._log_policies(w_arr))

    def speed(self, w: ArrayLike) -> FloatArray:
        """Closed-form front speed (paper, eq. bandit_speed), vectorised over any shape.

        ``v(w) = sqrt((1 - w)^2 + w^2) / beta * Var_{pi_w}(R1 - R2)``: the exact Euclidean norm
        of ``d f_PF / dw``.
        """
        w_arr = as_weight_array(w)
        flat = w_arr.ravel()
        pi = np.exp(self._log_policies(flat))
        d = self.R1 - self.R2
        mean = pi @ d
        var = np.sum(pi * (d[None, :] - mean[:, None]) ** 2, axis=1)
        v = np.sqrt((1.0 - flat) ** 2 + flat**2) * var / self.beta
        return np.asarray(v, dtype=np.float64).reshape(w_arr.shape)

    # ----------------------------------------------------------------- iterative solver
    def logit_objectives(self, logits: ArrayLike) -> FloatArray:
        """Objectives at ``softmax(logits)``, computed stably from the logits."""
        theta = np.asarray(logits, dtype=np.float64)
        log_pi = log_softmax(theta.reshape(1, -1), axis=-1)
        return self._objectives_from_log_policies(log_pi)[0]

    def logit_gradients(self, logits: ArrayLike) -> FloatArray:
        """Analytic gradients of ``h1, h2`` with respect to the logits, shape (2, A).

        With ``pi = softmax(theta)`` and ``c_m = beta * (log pi - log pi_ref) - R_m`` (the
        gradient in ``pi`` up to a constant), ``grad_theta h_m = pi * (c_m - <pi, c_m>)``.
        """
        theta = np.asarray(logits, dtype=np.float64).reshape(-1)
        log_pi = log_softmax(theta, axis=-1)
        pi = np.exp(log_pi)
        base = self.beta * (log_pi - self._log_ref)
        c = np.stack([base - self.R1, base - self.R2])
        return np.asarray(pi[None, :] * (c - (c @ pi)[:, None]), dtype=np.float64)

    def decision(self, state: Any) -> FloatArray:
        """Policy of a solver state: the exact solver's policy, or ``softmax`` of logits."""
        if isinstance(state, GradientState):
            return np.exp(log_softmax(state.params, axis=-1))
        return np.asarray(state, dtype=np.float64)

    def gradient_solver(
        self,
        *,
        steps: int,
        lr: float | None = None,
        optimizer: str | None = None,
        init: InitParams | None = None,
        reset_optimizer: bool = False,
    ) -> GradientSolver:
        """A K-step warm-started first-order inner solver on the policy logits.

        The signature and parameters are those of :meth:`BiObjectiveProblem.gradient_solver`.
        The state (``GradientState.params``) holds the logits ``theta``; the reported objectives
        are those of ``softmax(theta)``. Gradients are analytic through the softmax
        (:meth:`logit_gradients`). Defaults: ``lr = 0.05``, Adam. ``init`` is logits of shape
        ``(A,)`` (or ``init(w)`` returning them); default ``log pi_ref`` (start at the
        reference policy).

        Examples
        --------
        >>> import numpy as np
        >>> from paretosurf.problems.bandit import EntropicBandit
        >>> bandit = EntropicBandit([1.0, 0.0, 0.5], [0.0, 1.0, 0.2], beta=0.5)
        >>> sol = bandit.gradient_solver(steps=2000, lr=1.0, optimizer="sgd").solve(0.3, None)
        >>> bool(np.allclose(sol.objectives, bandit.front([0.3])[0], atol=1e-8))
        True
        """
        return self._first_order_solver(
            self.logit_objectives,
            self.logit_gradients,
            init,
            self._log_ref.copy(),
            steps=steps,
            lr=lr,
            optimizer=optimizer,
            reset_optimizer=reset_optimizer,
        )


def draw_offline_dataset(
    n_actions: int,
    n_pulls: int,
    *,
    noise_std: float = 0.5,
    seed: int | np.random.Generator | None = None,
) -> tuple[NDArray[np.int64], FloatArray]:
    """Draw the paper's balanced offline bandit dataset.

    Arms ``x_a`` are evenly spaced in [0, 1] with true means ``R1 = x`` and ``R2 = 1 - x^4``
    (:func:`paper_rewards`). Each arm is pulled ``floor(T / A)`` or ``ceil(T / A)`` times (the
    ``T mod A`` arms pulled once more are chosen at random), the pulls are shuffled, and each
    observed reward is its mean plus independent Gaussian noise of standard deviation
    ``noise_std``.

    Parameters
    ----------
    n_actions : int
        Number of arms ``A >= 2``.
    n_pulls : int
        Number of pulls ``T >= A`` (so that every arm is pulled).
    noise_std : float
        Standard deviation of the reward noise, >= 0.
    seed : int or numpy.random.Generator, optional

    Returns
    -------
    actions : ndarray of int, shape (T,)
    rewards : ndarray, shape (T, 2)

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.bandit import draw_offline_dataset
    >>> actions, rewards = draw_offline_dataset(4, 10, seed=0)
    >>> actions.shape, rewards.shape
    ((10,), (10, 2))
    >>> sorted(np.bincount(actions).tolist())
    [2, 2, 3, 3]
    """
    a = check_positive_int(n_actions, name="n_actions")
    if a < 2:
        raise ValueError(f"n_actions must be an integer >= 2, got {a}")
    t = check_positive_int(n_pulls, name="n_pulls")
    if t < a:
        raise ValueError(f"n_pulls must be >= n_actions ({a}) so that every arm is pulled, got {t}")
    if isinstance(noise_std, bool) or not isinstance(noise_std, numbers.Real):
        raise TypeError(f"noise_std must be a real number >= 0, got {noise_std!r}")
    sigma = float(noise_std)
    if not (np.isfinite(sigma) and sigma >= 0):
        raise ValueError(f"noise_std must be a finite number >= 0, got {sigma}")
    rng = np.random.default_rng(seed)
    counts = np.full(a, t // a, dtype=np.int64)
    counts[rng.choice(a, size=t % a, replace=False)] += 1
    actions = rng.permutation(np.repeat(np.arange(a, dtype=np.int64), counts))
    r1, r2 = paper_rewards(a)
    means = np.stack([r1[actions], r2[actions]], axis=1)
    rewards = means + sigma * rng.standard_normal((t, 2))
    return actions, rewards
