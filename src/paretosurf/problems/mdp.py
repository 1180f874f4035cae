"""KL-regularized tabular MDPs with several rewards (Section 2.1 of the paper).

An agent with policy ``pi(a|s)`` in a finite MDP ``(S, A, P, r_1..r_M, gamma, rho)`` collects
each reward ``r_m`` while paying a KL penalty ``beta * KL(pi(.|s) || pi_ref(.|s))`` in every
visited state. Objective ``m`` (minimized) is the negated regularized return

``h_m(pi) = -E_{rho, pi}[ sum_t gamma^t (r_m(s_t, a_t) - beta * KL(pi(.|s_t) || pi_ref(.|s_t))) ]``

(``scale="discounted"``), or, by default, the paper's occupancy-normalised form
``f_m = (1 - gamma) * h_m`` (``scale="normalized"``). In the normalized occupancy
``mu(s, a) = (1 - gamma) E[sum_t gamma^t 1{s_t = s, a_t = a}]`` (which sums to 1)

``f_m(mu) = beta (<mu, log mu> - <E^T mu, log E^T mu> - <R_0, mu>) - <R_m, mu>``,

with ``R_0 = log pi_ref``: a strictly convex problem over the flow polytope
``{mu >= 0 : (E - gamma P)^T mu = (1 - gamma) rho}`` (eq. (MDP) of the paper).

The scalarized problem with weights ``w_m`` is the regularized MDP with reward
``sum_m w_m r_m``. Its unique optimal policy solves the soft Bellman equations

``Q(s, a) = r_w(s, a) + gamma sum_s' P(s'|s, a) V(s')``,
``V(s) = beta log sum_a pi_ref(a|s) exp(Q(s, a) / beta)``,
``pi(a|s) = pi_ref(a|s) exp((Q(s, a) - V(s)) / beta)``,

and is computed exactly by soft policy iteration with exact policy evaluation (one linear
solve of size ``|S|`` per iteration), which is Newton's method on the soft Bellman equation and
converges quadratically, in a handful of iterations even for ``gamma = 0.999``. It stops when
the policy changes by at most ``1e-13`` (or, when ``gamma`` is near 1 and ``beta`` small, once
the change is below ``1e-10`` and stops shrinking: the floating-point noise floor). Values are
evaluated with the large constant part ``mean payoff / (1 - gamma)`` split off, which keeps the
value differences the policy depends on accurate.

Front speed. Write ``L(w)`` for the optimal value of the scalarized problem ``w f_1 +
(1 - w) f_2`` and ``D = R_1 - R_2``. Differentiating the KKT system of the occupancy problem gives
Proposition 1 of the paper, ``v(w) = sqrt(w^2 + (1 - w)^2) |D^T dmu_w/dw|`` with ``dmu/dw``
from the constraint-augmented Hessian. Differentiating the soft Bellman equations instead gives
the same number in closed form,

``D^T dmu_w/dw = -L''(w) = (1 / beta) sum_s d_w(s) Var_{a ~ pi_w(.|s)}[Q^D_w(s, a)]``,

where ``d_w`` is the normalized state occupancy and ``Q^D_w`` the (unregularized) Q function of
the reward difference ``D`` under ``pi_w``: a weighted conditional variance, which also shows
that ``v > 0`` unless ``Q^D`` is action-independent wherever the optimal policy goes.
:meth:`RegularizedMDP.speed` uses this form by default (an ``|S|``-sized solve per weight, and it
needs no exploration condition); ``method="hessian"`` evaluates Proposition 1 literally.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._validation import check_positive, check_positive_int
from paretosurf.problems.base import BiObjectiveProblem, as_weight_array
from paretosurf.rules import PiecewiseChebyshev, SpeedCDF
from paretosurf.solvers import GradientState, Solution, StepRule

__all__ = [
    "MDPAssumptionReport",
    "MDPExactSolver",
    "MDPGradientSolver",
    "RegularizedMDP",
]

FloatArray = NDArray[np.float64]

_STOCHASTIC_TOL = 1e-9
# Batches of more scalar weights than this are solved coarse-to-fine, refining by this factor.
_CONTINUATION_MIN = 16
_CONTINUATION_FACTOR = 10


def _check_distribution_rows(arr: FloatArray, *, name: str, strictly_positive: bool) -> None:
    """Rows along the last axis must be finite, non-negative (positive) and sum to 1."""
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    if strictly_positive and np.any(arr <= 0):
        raise ValueError(f"{name} must be strictly positive (no zero probabilities)")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative")
    sums = arr.sum(axis=-1)
    worst = float(np.max(np.abs(sums - 1.0)))
    if worst > _STOCHASTIC_TOL:
        raise ValueError(
            f"{name} must sum to 1 over its last axis (within {_STOCHASTIC_TOL:g}); "
            f"the worst row sums to 1 {'+' if worst >= 0 else '-'} {worst:.3g}"
        )


def _log_softmax(z: FloatArray) -> FloatArray:
    """Log-softmax over the last axis (finite for finite input)."""
    z = z - np.max(z, axis=-1, keepdims=True)
    return np.asarray(z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True)), dtype=np.float64)


@dataclass(frozen=True)
class MDPAssumptionReport:
    """The paper's regularity conditions for a :class:`RegularizedMDP`, checked numerically.

    Attributes
    ----------
    n_weights : int
        Number of scalarization weights the conditions were checked at.
    min_state_occupancy : float
        ``min_w min_s d_w(s)`` of the optimal policies' normalized state occupancies (the
        sufficient exploration condition asks for it to be at least ``d_min``).
    min_occupancy_weight : float or ndarray
        The weight (a scalar for two objectives, else a weight vector) attaining it.
    flow_rank : int
        Rank of the flow matrix ``J = (E - gamma P)^T`` (``|S|`` rows).
    n_states : int
        ``|S|``; ``J`` has full row rank when ``flow_rank == n_states``.
    tradeoff_norm : float
        ``min_{m < m'} ||Proj_ker(J) (R_m - R_m')||`` (Euclidean, in the occupancy scale). With an
        interior solution the active-constraint Jacobian is ``J`` for every weight and the
        gradient difference ``grad f_1 - grad f_2 = R_2 - R_1`` does not depend on the weight,
        so this is the paper's Assumption 3 constant.
    min_curvature : float or None
        Two objectives only: ``min_w (R_1 - R_2)^T dmu_w/dw`` (the factor of the front speed,
        normalized scale); zero means the front stalls at that weight.
    ok : bool
        All conditions hold.
    messages : tuple of str
        One human-readable line per condition.
    """

    n_weights: int
    min_state_occupancy: float
    min_occupancy_weight: Any
    flow_rank: int
    n_states: int
    tradeoff_norm: float
    min_curvature: float | None
    ok: bool
    messages: tuple[str, ...]

    @property
    def full_row_rank(self) -> bool:
        """Whether the flow matrix ``J`` has full row rank (LICQ)."""
        return self.flow_rank == self.n_states

    def __str__(self) -> str:
        head = "all conditions hold" if self.ok else "SOME CONDITIONS FAIL"
        return "\n".join([f"RegularizedMDP assumptions: {head}", *self.messages])


class RegularizedMDP(BiObjectiveProblem):
    """A KL-regularized tabular MDP with ``M >= 2`` rewards, as a multi-objective problem.

    The decision variable is a stochastic policy ``pi`` of shape ``(S, A)``; objective ``m``
    (minimized) is the negated KL-regularized discounted return of reward ``r_m`` (see the module
    docstring). For two objectives the scalarized problem is ``w h_1 + (1 - w) h_2`` (``w`` weighs
    objective 1); for more, :meth:`solve_weights` takes weight vectors in the simplex.

    Parameters
    ----------
    P : array_like, shape (S, A, S)
        Transition probabilities ``P[s, a, s'] = P(s'|s, a)``, each ``P[s, a]`` a distribution.
    R : array_like, shape (M, S, A)
        Rewards ``R[m, s, a]`` (maximized by the agent), ``M >= 2``.
    gamma : float
        Discount factor in (0, 1).
    rho : array_like, shape (S,)
        Initial-state distribution.
    beta : float
        KL regularization strength, > 0.
    ref_policy : array_like, shape (S, A), optional
        Reference policy ``pi_ref``; rows are distributions without zeros. Default uniform.
    scale : {"normalized", "discounted"}
        ``"normalized"`` (default): ``f_m = (1 - gamma) h_m``, the paper's occupancy-normalised
        objectives (averages per step, comparable across ``gamma``). ``"discounted"``: ``h_m``, the
        plain negated discounted return. The optimal policies are the same; objective values,
        gradients and the front speed scale by ``1 / (1 - gamma)`` between the two.

    Attributes
    ----------
    n_states, n_actions, n_objectives : int
    P, R, rho, ref_policy : ndarray
        Validated float64 copies.

    Examples
    --------
    A two-state chain: action 0 stays, action 1 switches; reward 1 pays for being in state 0,
    reward 2 for being in state 1.

    >>> import numpy as np
    >>> from paretosurf.problems.mdp import RegularizedMDP
    >>> P = np.zeros((2, 2, 2))
    >>> P[0, 0, 0] = P[0, 1, 1] = P[1, 0, 1] = P[1, 1, 0] = 1.0
    >>> R = np.array([[[1.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [1.0, 1.0]]])
    >>> mdp = RegularizedMDP(P, R, gamma=0.9, rho=[1.0, 0.0], beta=0.5)
    >>> pi = mdp.argmin(0.8)                   # mostly reward 1: head for state 0, stay
    >>> bool(pi[0, 0] > 0.5 and pi[1, 1] > 0.5)
    True
    >>> mdp.occupancy(pi).sum().round(12)
    np.float64(1.0)
    >>> f = mdp.front([0.0, 0.5, 1.0])         # objective 1 falls as w grows
    >>> bool(f[0, 0] > f[1, 0] > f[2, 0] and f[0, 1] < f[1, 1] < f[2, 1])
    True
    >>> round(float(mdp.speed(0.5)), 6) == round(float(mdp.speed(0.5, method="hessian")), 6)
    True
    """

    P: FloatArray
    R: FloatArray
    gamma: float
    rho: FloatArray
    beta: float
    ref_policy: FloatArray
    scale: str
    n_states: int
    n_actions: int
    _log_ref: FloatArray
    _factor: float

    def __init__(
        self,
        P: ArrayLike,
        R: ArrayLike,
        gamma: float,
        rho: ArrayLike,
        beta: float,
        ref_policy: ArrayLike | None = None,
        *,
        scale: str = "normalized",
    ) -> None:
        P_arr = np.array(P, dtype=np.float64)
        if P_arr.ndim != 3 or P_arr.shape[0] != P_arr.shape[2] or P_arr.shape[0] < 1:
            raise ValueError(
                f"P must have shape (S, A, S) with S, A >= 1, got shape {P_arr.shape}"
            )
        n_states, n_actions = P_arr.shape[0], P_arr.shape[1]
        if n_actions < 1:
            raise ValueError(f"P must have at least one action, got shape {P_arr.shape}")
        _check_distribution_rows(P_arr, name="P", strictly_positive=False)

        R_arr = np.array(R, dtype=np.float64)
        if R_arr.ndim != 3 or R_arr.shape[1:] != (n_states, n_actions) or R_arr.shape[0] < 2:
            raise ValueError(
                f"R must have shape (M, S, A) = (M, {n_states}, {n_actions}) with M >= 2 "
                f"objectives, got shape {R_arr.shape}"
            )
        if not np.all(np.isfinite(R_arr)):
            raise ValueError("R must be finite")

        if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real):
            raise TypeError(f"gamma must be a real number in (0, 1), got {gamma!r}")
        gamma_f = float(gamma)
        if not 0.0 < gamma_f < 1.0:
            raise ValueError(f"gamma must lie in (0, 1), got {gamma_f}")

        rho_arr = np.array(rho, dtype=np.float64)
        if rho_arr.shape != (n_states,):
            raise ValueError(f"rho must have shape (S,) = ({n_states},), got {rho_arr.shape}")
        _check_distribution_rows(rho_arr, name="rho", strictly_positive=False)

        beta_f = check_positive(beta, name="beta")

        if ref_policy is None:
            ref = np.full((n_states, n_actions), 1.0 / n_actions)
        else:
            ref = np.array(ref_policy, dtype=np.float64)
            if ref.shape != (n_states, n_actions):
                raise ValueError(
                    f"ref_policy must have shape (S, A) = ({n_states}, {n_actions}), "
                    f"got {ref.shape}"
                )
            _check_distribution_rows(ref, name="ref_policy", strictly_positive=True)

        if scale not in ("normalized", "discounted"):
            raise ValueError(f"scale must be 'normalized' or 'discounted', got {scale!r}")

        self.P = P_arr
        self.R = R_arr
        self.gamma = gamma_f
        self.rho = rho_arr
        self.beta = beta_f
        self.ref_policy = ref
        self.scale = scale
        self.n_states = n_states
        self.n_actions = n_actions
        self.n_objectives = int(R_arr.shape[0])
        self._log_ref = np.log(ref)
        # Objectives in the chosen scale = factor * (discounted h_m).
        self._factor = (1.0 - gamma_f) if scale == "normalized" else 1.0
        self._speed_cdf: SpeedCDF | None = None

    def __repr__(self) -> str:
        return (
            f"RegularizedMDP(S={self.n_states}, A={self.n_actions}, M={self.n_objectives}, "
            f"gamma={self.gamma}, beta={self.beta}, scale={self.scale!r})"
        )

    # ------------------------------------------------------------------ weights and policies
    def _require_two(self, what: str) -> None:
        if self.n_objectives != 2:
            raise ValueError(
                f"{what} takes a scalar weight and needs M = 2 objectives; this MDP has "
                f"M = {self.n_objectives}: use solve_weights with weight vectors"
            )

    def _weight_matrix(self, weights: ArrayLike, *, name: str = "weights") -> FloatArray:
        """Weights as a (B, M) array of simplex vectors (scalars mean ``[w, 1 - w]``)."""
        arr = np.asarray(weights, dtype=np.float64)
        m = self.n_objectives
        if arr.ndim <= 1 and not (arr.ndim == 1 and m > 2 and arr.shape[0] == m):
            if m != 2:
                raise ValueError(
                    f"{name}: scalar weights need M = 2 objectives; this MDP has M = {m}, "
                    f"so pass weight vectors of length {m} (shape (B, {m}))"
                )
            w = np.atleast_1d(as_weight_array(arr, name=name))
            return np.stack([w, 1.0 - w], axis=1)
        mat = np.atleast_2d(arr)
        if mat.ndim != 2 or mat.shape[1] != m:
            raise ValueError(
                f"{name} must be scalars in [0, 1] (M = 2) or weight vectors of shape (B, {m}), "
                f"got shape {arr.shape}"
            )
        if not np.all(np.isfinite(mat)) or np.any(mat < 0):
            raise ValueError(f"{name} must be finite and non-negative")
        if np.any(np.abs(mat.sum(axis=1) - 1.0) > 1e-9):
            raise ValueError(f"{name} vectors must sum to 1 (lie in the simplex)")
        return mat

    def scalarized_reward(self, w: ArrayLike) -> FloatArray:
        """The reward ``sum_m w_m r_m`` of shape (S, A) (scalar ``w`` means ``[w, 1 - w]``)."""
        mat = self._weight_matrix(w, name="w")
        if mat.shape[0] != 1:
            raise ValueError("w must be one weight (or one weight vector)")
        return np.asarray(np.tensordot(mat[0], self.R, axes=1), dtype=np.float64)

    def _check_policy(self, policy: ArrayLike, *, name: str = "policy") -> FloatArray:
        pi = np.asarray(policy, dtype=np.float64)
        if pi.shape[-2:] != (self.n_states, self.n_actions):
            raise ValueError(
                f"{name} must have shape (S, A) = ({self.n_states}, {self.n_actions}), "
                f"got {pi.shape}"
            )
        if not np.all(np.isfinite(pi)) or np.any(pi < 0):
            raise ValueError(f"{name} must be finite and non-negative")
        if np.any(np.abs(pi.sum(axis=-1) - 1.0) > 1e-8):
            raise ValueError(f"{name} rows must sum to 1")
        return pi

    # ------------------------------------------------------------------ batched linear algebra
    def _flow_matrices(self, pi: FloatArray) -> FloatArray:
        """``I - gamma P_pi`` for a batch of policies (B, S, A) -> (B, S, S)."""
        n = self.n_states
        flow = np.einsum("bsa,sat->bst", pi, self.P, optimize=True)
        flow *= -self.gamma
        flow.reshape(-1, n * n)[:, :: n + 1] += 1.0
        return np.asarray(flow, dtype=np.float64)

    def _kl_terms(self, pi: FloatArray, log_pi: FloatArray) -> FloatArray:
        """``pi (log pi - log pi_ref)`` elementwise, 0 where ``pi = 0``."""
        with np.errstate(invalid="ignore"):
            term = pi * (log_pi - self._log_ref)
        return np.asarray(np.where(pi > 0, term, 0.0), dtype=np.float64)

    @staticmethod
    def _safe_log(pi: FloatArray) -> FloatArray:
        with np.errstate(divide="ignore"):
            return np.asarray(np.log(pi), dtype=np.float64)

    def _soft_values_centered(
        self, pi: FloatArray, log_pi: FloatArray, rewards: FloatArray, flow: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """Discounted soft values ``V^pi = U + k`` of rewards (B, K, S, A), with the KL term.

        Returns ``U`` (B, K, S) and the constant ``k`` (B, K): since ``(I - gamma P_pi) 1 =
        (1 - gamma) 1``, removing the mean of the per-state payoff before the solve leaves the
        large constant part ``k`` out of ``U``, which keeps value differences (all that the
        policy depends on) accurate when ``gamma`` is close to 1.
        """
        kl = np.sum(self._kl_terms(pi, log_pi), axis=-1)  # (B, S)
        c = np.sum(pi[:, None] * rewards, axis=-1) - self.beta * kl[:, None]  # (B, K, S)
        mean = np.mean(c, axis=-1)
        u = np.linalg.solve(flow, np.swapaxes(c - mean[..., None], 1, 2))  # (B, S, K)
        return np.asarray(np.swapaxes(u, 1, 2), dtype=np.float64), mean / (1.0 - self.gamma)

    def _soft_values(
        self, pi: FloatArray, log_pi: FloatArray, rewards: FloatArray, flow: FloatArray
    ) -> FloatArray:
        """Discounted soft values ``V^pi`` (B, K, S) of rewards (B, K, S, A) with the KL term."""
        u, k = self._soft_values_centered(pi, log_pi, rewards, flow)
        return np.asarray(u + k[..., None], dtype=np.float64)

    def _soft_policy_iteration(
        self,
        rewards: FloatArray,
        log_pi0: FloatArray,
        *,
        tol: float = 1e-13,
        floor: float = 1e-10,
        max_iter: int = 100,
    ) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
        """Soft policy iteration for a batch of rewards (B, S, A); returns (pi, log pi, iters).

        Stops when the largest policy change is ``<= tol``, or when it is ``<= floor`` and no
        longer shrinking (the floating-point noise floor, reached with ``gamma`` near 1 and a
        small ``beta``, where Newton's method cannot make further progress).
        """
        log_pi = log_pi0.copy()
        pi = np.exp(log_pi)
        batch = rewards.shape[0]
        iters = np.zeros(batch, dtype=np.int64)
        active = np.arange(batch)
        deltas = np.full(batch, np.inf)
        for _ in range(max_iter):
            p, lp, r = pi[active], log_pi[active], rewards[active]
            flow = self._flow_matrices(p)
            u, _ = self._soft_values_centered(p, lp, r[:, None], flow)
            q = r + self.gamma * np.einsum("sat,bt->bsa", self.P, u[:, 0], optimize=True)
            lp_new = _log_softmax(self._log_ref + q / self.beta)
            p_new = np.exp(lp_new)
            delta = np.max(np.abs(p_new - p), axis=(1, 2))
            stalled = (delta <= floor) & (delta > 0.25 * deltas[active])
            pi[active], log_pi[active] = p_new, lp_new
            iters[active] += 1
            deltas[active] = delta
            active = active[(delta > tol) & ~stalled]
            if active.size == 0:
                return pi, log_pi, iters
        raise RuntimeError(
            f"soft policy iteration did not converge to a policy change <= {tol:g} in "
            f"{max_iter} iterations (largest change {float(np.max(deltas[active])):.3g}); "
            "check that gamma < 1 and the rewards are finite and moderate"
        )

    def _initial_log_policies(self, batch: int, states: Sequence[Any] | None) -> FloatArray:
        log_pi = np.broadcast_to(self._log_ref, (batch, self.n_states, self.n_actions)).copy()
        if states is None:
            return log_pi
        if len(states) != batch:
            raise ValueError(f"states must hold one entry per weight ({batch}), got {len(states)}")
        for i, st in enumerate(states):
            if st is not None:
                pi = self._check_policy(st, name=f"states[{i}]")
                log_pi[i] = self._safe_log(pi)
        return log_pi

    def solve_weights(
        self, weights: ArrayLike, states: Sequence[Any] | None = None
    ) -> FloatArray:
        """Exact optimal policies for a batch of weights, by soft policy iteration.

        Parameters
        ----------
        weights : array_like
            Shape (B,) of scalars in [0, 1] (two objectives, ``w`` on objective 1), or
            (B, M) weight vectors in the simplex; a single (M,) vector is accepted when
            ``M > 2`` (for ``M = 2`` a length-2 array means two scalar weights).
        states : sequence, optional
            Warm-start policies (shape (S, A) or None), one per weight. Without any warm start,
            many scalar weights are solved by continuation: a coarse subset from the reference
            policy, then the rest from their nearest solved neighbour moved along the exact
            tangent ``d log pi_w / dw``.

        Returns
        -------
        ndarray, shape (B, S, A)
            The optimal policies (a single (M,) weight vector still gives a batch of one).

        Raises
        ------
        RuntimeError
            If soft policy iteration fails to converge (policy change <= 1e-13, or a stalled
            change <= 1e-10) in 100 iterations.
        """
        pi, _, _ = self._solve_with_iters(weights, states)
        return pi

    def _solve_with_iters(
        self, weights: ArrayLike, states: Sequence[Any] | None
    ) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
        mat = self._weight_matrix(weights)
        batch = mat.shape[0]
        cold = states is None or all(st is None for st in states)
        if cold and self.n_objectives == 2 and batch > _CONTINUATION_MIN:
            return self._solve_by_continuation(mat[:, 0])
        rewards = np.einsum("bm,msa->bsa", mat, self.R)
        return self._soft_policy_iteration(rewards, self._initial_log_policies(batch, states))

    def _centered_difference_q(self, pi: FloatArray) -> FloatArray:
        """``Q^D - V^D`` (B, S, A) of the reward difference ``D = R_1 - R_2`` under ``pi``.

        Unregularized, discounted scale; ``dQ*_w/dw = Q^D`` for the optimal policy, so
        ``d log pi_w / dw = (Q^D - V^D) / beta``.
        """
        diff = self.R[0] - self.R[1]
        flow = self._flow_matrices(pi)
        v_d = np.linalg.solve(flow, np.sum(pi * diff, axis=-1)[..., None])[..., 0]
        q_d = diff + self.gamma * np.einsum("sat,bt->bsa", self.P, v_d, optimize=True)
        return np.asarray(q_d - v_d[..., None], dtype=np.float64)

    def _solve_by_continuation(
        self, w: FloatArray
    ) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
        """Many scalar weights: coarse-to-fine, each level warm-started by a tangent step."""
        order = np.argsort(w, kind="stable")
        ws = w[order]
        n = ws.size
        s, a = self.n_states, self.n_actions
        pi = np.empty((n, s, a))
        log_pi = np.empty((n, s, a))
        iters = np.zeros(n, dtype=np.int64)
        tangent = np.empty((n, s, a))
        solved = np.zeros(n, dtype=bool)
        stride = n
        while not solved.all():
            stride = max(1, stride // _CONTINUATION_FACTOR)
            level = np.unique(np.r_[np.arange(0, n, stride), n - 1])
            level = level[~solved[level]]
            if not solved.any():
                start = np.broadcast_to(self._log_ref, (level.size, s, a)).copy()
            else:
                known = np.flatnonzero(solved)
                pos = np.searchsorted(ws[known], ws[level])
                left = known[np.clip(pos - 1, 0, known.size - 1)]
                right = known[np.clip(pos, 0, known.size - 1)]
                nearest = np.where(
                    np.abs(ws[level] - ws[left]) <= np.abs(ws[right] - ws[level]), left, right
                )
                step = (ws[level] - ws[nearest])[:, None, None]
                start = _log_softmax(log_pi[nearest] + step * tangent[nearest] / self.beta)
            wl = ws[level, None, None]
            rewards = wl * self.R[0] + (1.0 - wl) * self.R[1]
            p, lp, it = self._soft_policy_iteration(rewards, start)
            pi[level], log_pi[level], iters[level] = p, lp, it
            if stride > 1:
                tangent[level] = self._centered_difference_q(p)
            solved[level] = True
        inverse = np.empty_like(order)
        inverse[order] = np.arange(n)
        return pi[inverse], log_pi[inverse], iters[inverse]

    def argmin(self, w: float, state: ArrayLike | None = None) -> FloatArray:
        """The optimal policy (S, A) of ``w h_1 + (1 - w) h_2`` (two objectives only).

        ``state`` is an optional warm-start policy.
        """
        self._require_two("argmin")
        w_arr = as_weight_array(w, name="w")
        if w_arr.ndim != 0:
            raise ValueError(f"w must be a single weight in [0, 1], got shape {w_arr.shape}")
        return self.solve_weights(w_arr[None], [state])[0]

    # ------------------------------------------------------------------ evaluation
    def objectives_many(self, policies: ArrayLike) -> FloatArray:
        """Objective vectors (B, M) of a batch of policies (B, S, A)."""
        pi = self._check_policy(policies, name="policies")
        pi = pi.reshape(-1, self.n_states, self.n_actions)
        log_pi = self._safe_log(pi)
        flow = self._flow_matrices(pi)
        rewards = np.broadcast_to(self.R, (pi.shape[0], *self.R.shape))
        v = self._soft_values(pi, log_pi, rewards, flow)  # (B, M, S)
        return np.asarray(-self._factor * (v @ self.rho), dtype=np.float64)

    def objectives(self, policy: ArrayLike) -> FloatArray:
        """Objective vector, shape (M,): ``f`` (or ``h`` with ``scale="discounted"``)."""
        pi = self._check_policy(policy)
        if pi.ndim != 2:
            raise ValueError(f"policy must have shape (S, A), got {pi.shape}")
        return self.objectives_many(pi[None])[0]

    def front(self, w: ArrayLike) -> FloatArray:
        """Exact Pareto front at weights ``w`` (any shape, flattened) -> points (K, 2).

        All weights are solved together (batched soft policy iteration).
        """
        self._require_two("front")
        w_arr = np.atleast_1d(as_weight_array(w)).ravel()
        return self.objectives_many(self.solve_weights(w_arr))

    def state_occupancy(self, policy: ArrayLike) -> FloatArray:
        """Normalized discounted state occupancy ``d(s) = (1 - gamma) rho^T (I - gamma P_pi)^-1``.

        Shape (S,) (or (B, S) for a batch of policies); sums to 1.
        """
        pi = self._check_policy(policy)
        batch = pi.reshape(-1, self.n_states, self.n_actions)
        flow = self._flow_matrices(batch)
        rhs = np.broadcast_to(self.rho, (batch.shape[0], self.n_states))[..., None]
        d = (1.0 - self.gamma) * np.linalg.solve(np.swapaxes(flow, 1, 2), rhs)[..., 0]
        return np.asarray(d.reshape(pi.shape[:-1]), dtype=np.float64)

    def occupancy(self, policy: ArrayLike) -> FloatArray:
        """Normalized state-action occupancy ``mu(s, a) = d(s) pi(a|s)``, shape (S, A), sum 1."""
        pi = self._check_policy(policy)
        return np.asarray(self.state_occupancy(pi)[..., None] * pi, dtype=np.float64)

    def value(
        self, policy: ArrayLike, reward: ArrayLike | int, *, regularized: bool = True
    ) -> FloatArray:
        """Discounted state values ``V^pi(s) = E[sum_t gamma^t (r - beta KL_t) | s_0 = s]``.

        Parameters
        ----------
        policy : array_like, shape (S, A)
        reward : int or array_like, shape (S, A)
            An objective index ``m`` (reward ``R[m]``) or a reward table.
        regularized : bool
            Subtract the KL penalty (default) or not.

        Returns
        -------
        ndarray, shape (S,)
            Values in the discounted scale (``h_m = -rho^T V`` for ``reward=m``).
        """
        pi = self._check_policy(policy)
        if pi.ndim != 2:
            raise ValueError(f"policy must have shape (S, A), got {pi.shape}")
        if isinstance(reward, numbers.Integral) and not isinstance(reward, bool):
            if not 0 <= int(reward) < self.n_objectives:
                raise ValueError(
                    f"reward index must lie in 0..{self.n_objectives - 1}, got {reward}"
                )
            r = self.R[int(reward)]
        else:
            r = np.asarray(reward, dtype=np.float64)
            if r.shape != (self.n_states, self.n_actions):
                raise ValueError(
                    f"reward must be an objective index or an (S, A) = "
                    f"({self.n_states}, {self.n_actions}) table, got shape {r.shape}"
                )
        c = np.sum(pi * r, axis=1)
        if regularized:
            c = c - self.beta * np.sum(self._kl_terms(pi, self._safe_log(pi)), axis=1)
        flow = self._flow_matrices(pi[None])[0]
        return np.asarray(np.linalg.solve(flow, c), dtype=np.float64)

    # ------------------------------------------------------------------ gradients
    def _policy_gradients(self, logits: FloatArray, rewards: FloatArray) -> FloatArray:
        """Gradients (B, K, S, A) w.r.t. logits (B, S, A) of the objectives of rewards (B, K, S, A).

        Objective of a reward ``r``: ``factor * (-rho^T V_r^pi)`` with ``pi = softmax(logits)``.
        Soft policy gradient theorem: ``d(rho^T V)/d theta[s, a] = d_u(s) pi(a|s) A(s, a)`` with
        the unnormalized occupancy ``d_u = rho^T (I - gamma P_pi)^-1`` and the soft advantage
        ``A = r + gamma P V - beta log(pi / pi_ref) - V``.
        """
        log_pi = _log_softmax(logits)
        pi = np.exp(log_pi)
        flow = self._flow_matrices(pi)
        v = self._soft_values(pi, log_pi, rewards, flow)  # (B, K, S)
        q = rewards + self.gamma * np.einsum("sat,bkt->bksa", self.P, v)
        adv = q - self.beta * (log_pi - self._log_ref)[:, None] - v[..., None]
        rhs = np.broadcast_to(self.rho, (pi.shape[0], self.n_states))[..., None]
        d_u = np.linalg.solve(np.swapaxes(flow, 1, 2), rhs)[..., 0]  # (B, S)
        grad = -self._factor * d_u[:, None, :, None] * pi[:, None] * adv
        return np.asarray(grad, dtype=np.float64)

    def policy_gradient(self, logits: ArrayLike) -> FloatArray:
        """Jacobian (M, S, A) of the objectives w.r.t. tabular logits, ``pi = softmax(logits)``.

        Analytic (soft policy gradient theorem), in the problem's ``scale``.
        """
        theta = np.asarray(logits, dtype=np.float64)
        if theta.shape != (self.n_states, self.n_actions) or not np.all(np.isfinite(theta)):
            raise ValueError(
                f"logits must be a finite array of shape (S, A) = "
                f"({self.n_states}, {self.n_actions}), got shape {theta.shape}"
            )
        return self._policy_gradients(theta[None], self.R[None])[0]

    def policy_from_logits(self, logits: ArrayLike) -> FloatArray:
        """``softmax(logits)`` over actions."""
        return np.exp(_log_softmax(np.asarray(logits, dtype=np.float64)))

    # ------------------------------------------------------------------ front speed
    def _curvature_bellman(self, w_flat: FloatArray) -> FloatArray:
        """``(R_1 - R_2)^T dmu_w/dw`` at each weight, normalized scale (variance formula)."""
        return self._curvature_of_policies(self.solve_weights(w_flat))

    def _curvature_of_policies(self, pi: FloatArray) -> FloatArray:
        """``(1 / beta) sum_s d(s) Var_{pi(.|s)} Q^D(s, .)`` for optimal policies (B, S, A)."""
        centered = self._centered_difference_q(pi)
        var = np.sum(pi * centered**2, axis=-1)  # (B, S)
        d = self.state_occupancy(pi)
        return np.asarray(np.sum(d * var, axis=-1) / self.beta, dtype=np.float64)

    def _hessian_parts(self, mu: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Hessian ``beta (Diag(1/x) - E Diag(1/E^T x) E^T)`` and flow Jacobian ``J``."""
        s, a = self.n_states, self.n_actions
        x = mu.reshape(s * a)
        e_mat = np.repeat(np.eye(s), a, axis=0)  # (SA, S)
        p_mat = self.P.reshape(s * a, s)
        jac = (e_mat - self.gamma * p_mat).T  # (S, SA)
        d = mu.sum(axis=1)
        hess = self.beta * (np.diag(1.0 / x) - e_mat @ np.diag(1.0 / d) @ e_mat.T)
        return hess, jac

    def _curvature_hessian(
        self, w_flat: FloatArray, c: float, d_min: float
    ) -> FloatArray:
        """Proposition 1, literally: ``D^T (H~^-1 - H~^-1 J^T (J H~^-1 J^T)^-1 J H~^-1) D``."""
        pis = self.solve_weights(w_flat)
        diff = (self.R[0] - self.R[1]).reshape(-1)
        out = np.empty(w_flat.size)
        for i, pi in enumerate(pis):
            mu = self.occupancy(pi)
            dmin = float(mu.sum(axis=1).min())
            if not dmin >= d_min or float(mu.min()) <= 0.0:
                raise ValueError(
                    f"the sufficient exploration condition fails at w = {w_flat[i]:.6g}: the "
                    f"smallest state occupancy is {dmin:.3g} < d_min = {d_min:g}, so the "
                    "occupancy Hessian of Proposition 1 is singular; use method='bellman', "
                    "which does not need the condition"
                )
            hess, jac = self._hessian_parts(mu)
            h_aug = hess + c * jac.T @ jac
            sol = np.linalg.solve(h_aug, np.column_stack([diff, jac.T]))
            h_d, h_jt = sol[:, 0], sol[:, 1:]
            schur = jac @ h_jt
            jd = jac @ h_d
            out[i] = diff @ h_d - jd @ np.linalg.solve(schur, jd)
        return out

    def curvature(
        self, w: ArrayLike, *, method: str = "bellman", c: float = 1.0, d_min: float = 1e-8
    ) -> FloatArray:
        """``q(w) = (R_1 - R_2)^T dmu_w/dw = -L''(w)`` (normalized scale), same shape as ``w``.

        The front moves with ``df_1/dw = -(1 - w) q`` and ``df_2/dw = w q`` (normalized scale).
        See :meth:`speed` for ``method``, ``c`` and ``d_min``.
        """
        self._require_two("curvature")
        w_arr = as_weight_array(w)
        flat = np.atleast_1d(w_arr).ravel()
        if method == "bellman":
            q = self._curvature_bellman(flat)
        elif method == "hessian":
            q = self._curvature_hessian(
                flat, check_positive(c, name="c"), check_positive(d_min, name="d_min")
            )
        else:
            raise ValueError(f"method must be 'bellman' or 'hessian', got {method!r}")
        return np.asarray(q.reshape(w_arr.shape), dtype=np.float64)

    def speed(
        self, w: ArrayLike, *, method: str = "bellman", c: float = 1.0, d_min: float = 1e-8
    ) -> FloatArray:
        """Exact front speed ``v(w) = ||d f_PF(w) / dw||`` in the problem's ``scale``.

        ``v(w) = sqrt(w^2 + (1 - w)^2) |q(w)| / s`` with ``q = (R_1 - R_2)^T dmu_w/dw`` and
        ``s = 1`` (normalized scale) or ``1 - gamma`` (discounted scale).

        Parameters
        ----------
        w : array_like
            Weights in [0, 1], any shape (vectorised: all are solved in one batch).
        method : {"bellman", "hessian"}
            ``"bellman"`` (default): ``q = (1 / beta) sum_s d_w(s) Var_{pi_w(.|s)} Q^D_w(s, .)``
            from the soft Bellman equations (see the module docstring); cheap and valid for
            any MDP. ``"hessian"``: Proposition 1 of the paper with the constraint-augmented
            Hessian ``H~ = H + c J^T J``; needs the sufficient exploration condition and
            costs a dense ``(SA)^3`` solve per weight.
        c : float
            Augmentation constant of ``"hessian"`` (the result does not depend on it).
        d_min : float
            ``"hessian"`` raises ``ValueError`` when a state occupancy is below ``d_min``.

        Returns
        -------
        ndarray
            Speeds, same shape as ``w``.
        """
        w_arr = as_weight_array(w, name="w")
        q = self.curvature(w_arr, method=method, c=c, d_min=d_min)
        factor = np.sqrt(w_arr**2 + (1.0 - w_arr) ** 2) / (1.0 - self.gamma) * self._factor
        return np.asarray(factor * np.abs(q), dtype=np.float64)

    def cdf(self) -> SpeedCDF:
        """The true arc-length CDF ``Phi`` of the exact front (cached).

        Built from the exact speed through an adaptive piecewise Chebyshev interpolant (the
        speed is analytic in ``w``; panels are refined until the interpolant's trailing
        coefficients fall below ``1e-11`` of the peak speed), so ``Phi``, its inverse and
        :meth:`reference_front` cost about a thousand exact solves in total, however many
        times they are evaluated.
        """
        if self._speed_cdf is None:
            self._require_two("cdf")
            self._speed_cdf = SpeedCDF(PiecewiseChebyshev(self.speed))
        return self._speed_cdf

    # ------------------------------------------------------------------ assumptions
    def check_assumptions(
        self, weights: ArrayLike | None = None, *, d_min: float = 1e-8, min_tradeoff: float = 1e-8
    ) -> MDPAssumptionReport:
        """Check the paper's conditions (exploration, LICQ, nonzero trade-off) numerically.

        Parameters
        ----------
        weights : array_like, optional
            Weights to check at: scalars (two objectives) or (B, M) simplex vectors. Default:
            1001 evenly spaced weights in [0, 1] (two objectives) or the simplex vertices and
            centre (more objectives).
        d_min : float
            Required smallest normalized state occupancy (sufficient exploration).
        min_tradeoff : float
            Required smallest projected gradient difference and, for two objectives, front
            speed factor ``q(w)``.

        Returns
        -------
        MDPAssumptionReport
        """
        d_min = check_positive(d_min, name="d_min")
        min_tradeoff = check_positive(min_tradeoff, name="min_tradeoff")
        m = self.n_objectives
        if weights is None:
            if m == 2:
                weights = np.linspace(0.0, 1.0, 1001)
            else:
                weights = np.vstack([np.eye(m), np.full((1, m), 1.0 / m)])
        mat = self._weight_matrix(weights)
        pis = self.solve_weights(mat)
        occ = self.state_occupancy(pis)  # (B, S)
        per_weight = occ.min(axis=1)
        arg = int(np.argmin(per_weight))
        min_occ = float(per_weight[arg])
        arg_weight: Any = float(mat[arg, 0]) if m == 2 else mat[arg].copy()

        s, a = self.n_states, self.n_actions
        e_mat = np.repeat(np.eye(s), a, axis=0)
        jac = (e_mat - self.gamma * self.P.reshape(s * a, s)).T
        rank = int(np.linalg.matrix_rank(jac))
        # Projection onto ker(J) = complement of the row space of J.
        q_basis, _ = np.linalg.qr(jac.T)
        norms = []
        for i in range(m):
            for j in range(i + 1, m):
                d = (self.R[i] - self.R[j]).reshape(-1)
                norms.append(float(np.linalg.norm(d - q_basis @ (q_basis.T @ d))))
        tradeoff = min(norms)
        curv: float | None = None
        if m == 2:
            curv = float(np.min(np.abs(self._curvature_of_policies(pis))))

        ok_occ = min_occ >= d_min
        ok_rank = rank == s
        ok_trade = tradeoff >= min_tradeoff
        ok_curv = curv is None or curv >= min_tradeoff
        msgs = [
            f"[{'ok' if ok_occ else 'FAIL'}] sufficient exploration: min state occupancy "
            f"{min_occ:.3g} (at weight {np.round(arg_weight, 6)}) over {mat.shape[0]} weights, "
            f"required >= {d_min:g}",
            f"[{'ok' if ok_rank else 'FAIL'}] LICQ: flow matrix J = (E - gamma P)^T has rank "
            f"{rank} of {s} rows",
            f"[{'ok' if ok_trade else 'FAIL'}] nonzero trade-off: min ||Proj_ker(J)(R_m - R_m')|| "
            f"= {tradeoff:.4g}, required >= {min_tradeoff:g}",
        ]
        if curv is not None:
            msgs.append(
                f"[{'ok' if ok_curv else 'FAIL'}] front speed factor: min_w (R_1 - R_2)^T "
                f"dmu/dw = {curv:.4g}, required >= {min_tradeoff:g}"
            )
        return MDPAssumptionReport(
            n_weights=int(mat.shape[0]),
            min_state_occupancy=min_occ,
            min_occupancy_weight=arg_weight,
            flow_rank=rank,
            n_states=s,
            tradeoff_norm=tradeoff,
            min_curvature=curv,
            ok=bool(ok_occ and ok_rank and ok_trade and ok_curv),
            messages=tuple(msgs),
        )

    # ------------------------------------------------------------------ interpolation
    def decision(self, state: Any) -> FloatArray:
        """Policy (S, A) of a solver state: the exact solver's policy, or softmax of logits."""
        if isinstance(state, GradientState):
            return self.policy_from_logits(state.params)
        return np.asarray(state, dtype=np.float64)

    def interpolate(self, state0: Any, state1: Any, t: float) -> FloatArray:
        """Policy of the occupancy measure ``(1 - t) mu_0 + t mu_1`` (the convex, hidden-space
        mixture of two solutions; states with no occupancy under both get ``pi_ref``)."""
        mu = (1.0 - t) * self.occupancy(self.decision(state0)) + t * self.occupancy(
            self.decision(state1))
        mass = mu.sum(axis=1, keepdims=True)
        ref = np.exp(self._log_ref)
        with np.errstate(divide="ignore", invalid="ignore"):
            policy = np.where(mass > 0, mu / mass, ref)
        return np.asarray(policy, dtype=np.float64)

    # ------------------------------------------------------------------ inner solvers
    def solver(self) -> MDPExactSolver:  # type: ignore[override]
        """Exact inner solver (soft policy iteration, warm-started from the slot's policy)."""
        self._require_two("solver")
        return MDPExactSolver(self)

    def gradient_solver(
        self,
        steps: int,
        lr: float = 0.02,
        optimizer: str = "adam",
        *,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        init_logits: ArrayLike | None = None,
    ) -> MDPGradientSolver:
        """Inexact inner solver: ``steps`` warm-started Adam (or SGD) steps on tabular logits.

        See :class:`MDPGradientSolver`.
        """
        self._require_two("gradient_solver")
        return MDPGradientSolver(
            self, steps=steps, lr=lr, optimizer=optimizer, betas=betas, eps=eps,
            init_logits=init_logits,
        )


class MDPExactSolver:
    """Exact inner solver of a :class:`RegularizedMDP`; the state is the optimal policy.

    Warm starts (the slot's previous policy) cut soft policy iteration to a few iterations;
    ``solve_many`` solves all slots in one batch. ``info`` holds ``steps = 1`` (one exact solve)
    and ``policy_iterations``.

    Examples
    --------
    >>> import numpy as np
    >>> import paretosurf as ps
    >>> from paretosurf.problems.mdp import RegularizedMDP
    >>> rng = np.random.default_rng(0)
    >>> P = rng.dirichlet(np.ones(4), size=(4, 2))
    >>> mdp = RegularizedMDP(P, rng.normal(size=(2, 4, 2)), 0.9, np.ones(4) / 4, 0.3)
    >>> res = ps.surf(mdp.solver(), 10, iterations=30)
    >>> bool(res.cv < 0.02)
    True
    """

    def __init__(self, problem: RegularizedMDP) -> None:
        self.problem = problem

    def solve(self, weight: float, state: Any = None) -> Solution:
        return self.solve_many(np.array([weight], dtype=np.float64), [state])[0]

    def solve_many(self, weights: ArrayLike, states: Sequence[Any]) -> list[Solution]:
        w = np.asarray(weights, dtype=np.float64).ravel()
        pis, _, iters = self.problem._solve_with_iters(w, list(states))
        objs = self.problem.objectives_many(pis)
        return [
            Solution(objs[i], state=pis[i], info={"steps": 1, "policy_iterations": int(iters[i])})
            for i in range(w.size)
        ]

    def __repr__(self) -> str:
        return f"MDPExactSolver({self.problem!r})"


class MDPGradientSolver:
    """K warm-started first-order steps on tabular softmax logits (an inexact inner solver).

    The policy is ``pi = softmax(theta)`` with ``theta`` of shape (S, A); each step uses the
    analytic gradient of ``w h_1 + (1 - w) h_2`` (soft policy gradient theorem, in the problem's
    scale, see :meth:`RegularizedMDP.policy_gradient`). The state is a
    :class:`paretosurf.solvers.GradientState` (logits and Adam moments), so a slot continues
    where it stopped. ``solve_many`` advances all slots together (batched linear algebra).

    Parameters
    ----------
    problem : RegularizedMDP
        A two-objective MDP.
    steps : int
        K, steps per call (reported as ``info["steps"]``).
    lr : float
        Step size.
    optimizer : {"adam", "sgd"}
    betas, eps : Adam constants.
    init_logits : array_like, shape (S, A), optional
        A slot's starting logits; default ``log pi_ref`` (start at the reference policy).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.mdp import RegularizedMDP
    >>> rng = np.random.default_rng(1)
    >>> P = rng.dirichlet(np.ones(3), size=(3, 2))
    >>> mdp = RegularizedMDP(P, rng.normal(size=(2, 3, 2)), 0.8, np.ones(3) / 3, 0.5)
    >>> solver = mdp.gradient_solver(steps=200, lr=0.05)
    >>> sol = solver.solve(0.3, None)
    >>> sol = solver.solve(0.3, sol.state)                 # warm start: 200 more steps
    >>> exact = mdp.objectives(mdp.argmin(0.3))
    >>> bool(np.max(np.abs(sol.objectives - exact)) < 1e-3), sol.info["steps"]
    (True, 200)
    """

    def __init__(
        self,
        problem: RegularizedMDP,
        *,
        steps: int,
        lr: float = 0.02,
        optimizer: str = "adam",
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        init_logits: ArrayLike | None = None,
    ) -> None:
        self.problem = problem
        self.steps = check_positive_int(steps, name="steps")
        self.rule = StepRule(lr, optimizer, betas, eps)
        shape = (problem.n_states, problem.n_actions)
        if init_logits is None:
            self._init = problem._log_ref.copy()
        else:
            init = np.array(init_logits, dtype=np.float64)
            if init.shape != shape or not np.all(np.isfinite(init)):
                raise ValueError(
                    f"init_logits must be a finite array of shape (S, A) = {shape}, "
                    f"got shape {init.shape}"
                )
            self._init = init

    def initial_state(self, weight: float) -> GradientState:
        """The state a slot starts from when it has no warm start."""
        params = self._init.copy()
        return GradientState(params, np.zeros_like(params), np.zeros_like(params), 0)

    def _as_state(self, state: Any, weight: float, slot: int) -> GradientState:
        if state is None:
            return self.initial_state(weight)
        if not isinstance(state, GradientState):
            raise TypeError(
                f"state of slot {slot} must be None or a GradientState, got {type(state).__name__}"
            )
        if state.params.shape != self._init.shape:
            raise ValueError(
                f"state of slot {slot} has logits of shape {state.params.shape}, "
                f"expected {self._init.shape}"
            )
        return state

    def solve(self, weight: float, state: GradientState | None) -> Solution:
        """Run ``steps`` steps on ``w h_1 + (1 - w) h_2`` from ``state``."""
        return self.solve_many(np.array([weight], dtype=np.float64), [state])[0]

    def solve_many(
        self, weights: ArrayLike, states: Sequence[GradientState | None]
    ) -> list[Solution]:
        """Advance every slot by ``steps`` steps in one batch."""
        prob = self.problem
        w = np.atleast_1d(as_weight_array(weights, name="weights")).ravel()
        if len(states) != w.size:
            raise ValueError(f"states must hold one entry per weight ({w.size}), got {len(states)}")
        sts = [
            self._as_state(st, float(wi), i)
            for i, (wi, st) in enumerate(zip(w, states, strict=True))
        ]
        theta = np.stack([st.params for st in sts]).astype(np.float64)
        m = np.stack([st.m for st in sts]).astype(np.float64)
        v = np.stack([st.v for st in sts]).astype(np.float64)
        t = np.array([st.t for st in sts], dtype=np.float64)
        rewards = (w[:, None, None] * prob.R[0] + (1.0 - w[:, None, None]) * prob.R[1])[:, None]
        for _ in range(self.steps):
            g = prob._policy_gradients(theta, rewards)[:, 0]
            theta, m, v, t = self.rule.apply(theta, g, m, v, t)
        pis = np.exp(_log_softmax(theta))
        objs = prob.objectives_many(pis)
        return [
            Solution(
                objs[i],
                state=GradientState(theta[i].copy(), m[i].copy(), v[i].copy(), int(t[i])),
                info={"steps": self.steps},
            )
            for i in range(w.size)
        ]

    def __repr__(self) -> str:
        return (
            f"MDPGradientSolver({self.problem!r}, steps={self.steps}, lr={self.rule.lr}, "
            f"optimizer={self.rule.optimizer!r})"
        )
