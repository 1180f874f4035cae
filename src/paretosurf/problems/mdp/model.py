"""The model of a KL-regularized tabular MDP, everything about it that needs no optimal solve.

:class:`MDPModel` holds and validates ``(P, R, gamma, rho, beta, pi_ref)``, turns weights into
simplex vectors and checks policies, solves the batched linear systems of policy evaluation
(``I - gamma P_pi``, soft values with the KL term), and evaluates policies: objectives,
occupancy measures, values and the analytic policy gradient. The public problem,
:class:`~paretosurf.problems.mdp.RegularizedMDP`, adds the solves (soft policy iteration, front
speed, assumption checks, inner solvers) on top of it; the modules that implement those import
this one, never the other way round.

Objective ``m`` (minimized) is the negated regularized return

``h_m(pi) = -E_{rho, pi}[ sum_t gamma^t (r_m(s_t, a_t) - beta * KL(pi(.|s_t) || pi_ref(.|s_t))) ]``

(``scale="discounted"``), or, by default, the paper's occupancy-normalised form
``f_m = (1 - gamma) * h_m`` (``scale="normalized"``). Values are evaluated with the large
constant part ``mean payoff / (1 - gamma)`` split off, which keeps the value differences the
policy depends on accurate when ``gamma`` is close to 1.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import lapack
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import reverse_cuthill_mckee
from scipy.special import log_softmax

from paretosurf._utils.validation import check_positive
from paretosurf.problems._simplex import check_simplex
from paretosurf.problems.base import BiObjectiveProblem, as_weight_array
from paretosurf.solvers import GradientState

__all__ = ["MDPModel"]

FloatArray = NDArray[np.float64]


class MDPModel(BiObjectiveProblem):
    """The model half of :class:`~paretosurf.problems.mdp.RegularizedMDP` (same parameters).

    Validates and stores the MDP, and evaluates policies; it solves nothing, so it leaves
    ``argmin`` to :class:`~paretosurf.problems.mdp.RegularizedMDP`.

    Parameters
    ----------
    P : array_like, shape (S, A, S)
    R : array_like, shape (M, S, A)
    gamma : float
    rho : array_like, shape (S,)
    beta : float
    ref_policy : array_like, shape (S, A), optional
    scale : {"normalized", "discounted"}
        See :class:`~paretosurf.problems.mdp.RegularizedMDP`.
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
    _sparse: bool
    _nz: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp], FloatArray]
    _band_cache: _BandSystems | None

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
            raise ValueError(f"P must have shape (S, A, S) with S, A >= 1, got shape {P_arr.shape}")
        n_states, n_actions = P_arr.shape[0], P_arr.shape[1]
        if n_actions < 1:
            raise ValueError(f"P must have at least one action, got shape {P_arr.shape}")
        check_simplex(P_arr, name="P")

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
        check_simplex(rho_arr, name="rho")

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
            check_simplex(ref, name="ref_policy", positive=True)

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
        # Transitions as a list of non-zeros (s, a, t, p) when P is sparse (deterministic
        # grid worlds have A * S of S * A * S): P V then costs O(nnz).
        s_idx, a_idx, t_idx = np.nonzero(P_arr)
        self._sparse = bool(
            s_idx.size <= SPARSE_DENSITY * P_arr.size and n_states >= LU_MIN_STATES
        )  # small: dense is faster
        self._nz = (s_idx, a_idx, t_idx, P_arr[s_idx, a_idx, t_idx])
        self._band_cache = None

    def _band(self) -> _BandSystems | None:
        """The banded form of ``I - gamma P_pi`` (built at the first gradient step), or None
        when its bandwidth makes the dense LU cheaper (see :class:`_BandSystems`)."""
        band = getattr(self, "_band_cache", None)  # None too on a model pickled before it
        if band is None:
            band = self._band_cache = _BandSystems(self)
        return band if band.worthwhile else None

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
        return check_simplex(mat, name=name)

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
        return check_simplex(pi, name=name)

    # ------------------------------------------------------------------ batched linear algebra
    def _flow_matrices(self, pi: FloatArray) -> FloatArray:
        """``I - gamma P_pi`` for a batch of policies (B, S, A) -> (B, S, S)."""
        n = self.n_states
        # a dense product (one matrix multiplication) beats scattering the non-zeros here
        flow = pair_einsum("bsa,sat->bst", pi, self.P)
        flow *= -self.gamma
        flow.reshape(-1, n * n)[:, :: n + 1] += 1.0
        return np.asarray(flow, dtype=np.float64)

    def _expected_next(self, v: FloatArray) -> FloatArray:
        """``(P v)(s, a) = sum_t P(t | s, a) v(t)`` for values (..., S) -> (..., S, A)."""
        if not self._sparse:
            return np.asarray(np.einsum("sat,...t->...sa", self.P, v), dtype=np.float64)
        s_idx, a_idx, t_idx, p = self._nz
        n, k = self.n_states * self.n_actions, self.n_actions
        rows = v.reshape(-1, self.n_states)
        cells = (np.arange(rows.shape[0])[:, None] * n + (s_idx * k + a_idx)).ravel()
        out = np.bincount(cells, weights=(rows[:, t_idx] * p).ravel(), minlength=rows.shape[0] * n)
        return np.asarray(
            out.reshape(*v.shape[:-1], self.n_states, self.n_actions), dtype=np.float64
        )

    def _kl_terms(self, pi: FloatArray, log_pi: FloatArray) -> FloatArray:
        """``pi (log pi - log pi_ref)`` elementwise, 0 where ``pi = 0``."""
        with np.errstate(invalid="ignore"):
            term = pi * (log_pi - self._log_ref)
        return np.asarray(np.where(pi > 0, term, 0.0), dtype=np.float64)

    @staticmethod
    def _safe_log(pi: FloatArray) -> FloatArray:
        if pi.size and pi.min() > 0:  # (no zero to take the log of: nothing to silence)
            return np.asarray(np.log(pi), dtype=np.float64)
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
        rhs, mean = self._centered_payoff(pi, log_pi, rewards)
        u = np.linalg.solve(flow, rhs)  # (B, S, K)
        return np.asarray(np.swapaxes(u, 1, 2), dtype=np.float64), mean / (1.0 - self.gamma)

    def _centered_payoff(
        self, pi: FloatArray, log_pi: FloatArray, rewards: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """The per-state payoff ``sum_a pi r - beta KL`` of rewards (B, K, S, A), less its
        mean over states, as right-hand sides (B, S, K); and the means (B, K)."""
        kl = _reduce_actions(self._kl_terms(pi, log_pi), np.add)  # (B, S)
        c = _reduce_actions(pi[:, None] * rewards, np.add) - self.beta * kl[:, None]  # (B, K, S)
        mean = np.mean(c, axis=-1)
        return np.asarray(np.swapaxes(c - mean[..., None], 1, 2), dtype=np.float64), mean

    def _soft_values(
        self, pi: FloatArray, log_pi: FloatArray, rewards: FloatArray, flow: FloatArray
    ) -> FloatArray:
        """Discounted soft values ``V^pi`` (B, K, S) of rewards (B, K, S, A) with the KL term."""
        u, k = self._soft_values_centered(pi, log_pi, rewards, flow)
        return np.asarray(u + k[..., None], dtype=np.float64)

    def _centered_difference_q(self, pi: FloatArray) -> FloatArray:
        """``Q^D - V^D`` (B, S, A) of the reward difference ``D = R_1 - R_2`` under ``pi``.

        Unregularized, discounted scale; ``dQ*_w/dw = Q^D`` for the optimal policy, so
        ``d log pi_w / dw = (Q^D - V^D) / beta``.
        """
        diff = self.R[0] - self.R[1]
        flow = self._flow_matrices(pi)
        v_d = np.linalg.solve(flow, np.sum(pi * diff, axis=-1)[..., None])[..., 0]
        q_d = diff + self.gamma * self._expected_next(v_d)
        return np.asarray(q_d - v_d[..., None], dtype=np.float64)

    # ------------------------------------------------------------------ evaluation
    def objectives_many(self, policies: ArrayLike) -> FloatArray:
        """Objective vectors (B, M) of a batch of policies (B, S, A)."""
        pi = self._check_policy(policies, name="policies")
        return self._objectives_of(pi.reshape(-1, self.n_states, self.n_actions))

    def _objectives_of(self, pi: FloatArray) -> FloatArray:
        """:meth:`objectives_many` of policies (B, S, A) the library made itself (valid
        distributions, float64), unchecked."""
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
        # the soft values and the occupancy from one LU factorization of each I - gamma P_pi
        rhs, mean = self._centered_payoff(pi, log_pi, rewards)
        u: FloatArray
        d_u: FloatArray
        band = self._band()
        if band is not None:  # every slot's system in one banded matrix: 3 LAPACK calls
            u, d_u = band.solve_both(pi, rhs, self.rho)
        elif self.n_states >= LU_MIN_STATES:
            u, d_u = _lu_solve_both(self._flow_matrices(pi), rhs, self.rho)
        else:  # small systems: NumPy's batched solves beat a Python loop over LAPACK calls
            flow = self._flow_matrices(pi)
            u = np.asarray(np.linalg.solve(flow, rhs), dtype=np.float64)
            occupancy_rhs = np.broadcast_to(self.rho, (pi.shape[0], self.n_states))[..., None]
            d_u = np.asarray(
                np.linalg.solve(np.swapaxes(flow, 1, 2), occupancy_rhs)[..., 0], dtype=np.float64
            )
        v = np.swapaxes(u, 1, 2) + (mean / (1.0 - self.gamma))[..., None]  # (B, K, S)
        q = rewards + self.gamma * self._expected_next(v)
        adv = q - self.beta * (log_pi - self._log_ref)[:, None] - v[..., None]
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
        return np.exp(log_softmax(np.asarray(logits, dtype=np.float64), axis=-1))

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
            self.decision(state1)
        )
        mass = mu.sum(axis=1, keepdims=True)
        ref = np.exp(self._log_ref)
        with np.errstate(divide="ignore", invalid="ignore"):
            policy = np.where(mass > 0, mu / mass, ref)
        return np.asarray(policy, dtype=np.float64)


#: P is kept as a list of non-zeros when at most this fraction of its entries are non-zero.
SPARSE_DENSITY = 0.25
#: From this many states on, a gradient step factorizes each I - gamma P_pi once (LAPACK)
#: instead of solving twice.
LU_MIN_STATES = 24


#: The banded path is taken when ``BAND_COST_RATIO * kl * (kl + ku + 1) <= S**2`` (the banded
#: LU's work per row against the dense LU's); measured on a 2-core x86 machine, DST's
#: 73 states at bandwidth 14 gain 5x on the factorizations.
BAND_COST_RATIO = 3
#: ... and the MDP has at least this many states (below, the dense batched solve wins).
BAND_MIN_STATES = 16


#: Up to this many actions, sums and maxima over actions add the slices of the last axis
#: (NumPy's reductions over a short last axis cost about 10x more).
SLICE_REDUCE_MAX = 8


def _reduce_actions(x: FloatArray, op: Any) -> FloatArray:
    """``op.reduce(x, axis=-1)`` for a ufunc ``op`` (``np.add``, ``np.maximum``)."""
    n = x.shape[-1]
    if n > SLICE_REDUCE_MAX:
        return np.asarray(op.reduce(x, axis=-1), dtype=np.float64)
    out = x[..., 0].copy() if n == 1 else op(x[..., 0], x[..., 1])
    for i in range(2, n):
        op(out, x[..., i], out=out)
    return np.asarray(out, dtype=np.float64)


_einsumfunc: Any
try:  # NumPy >= 2.4: einsum contracts two operands with bmm_einsum, after einsum_path
    import numpy._core.einsumfunc as _einsumfunc
except ImportError:  # pragma: no cover - older NumPy: np.einsum as it is
    _einsumfunc = None
_bmm_einsum: Any = getattr(_einsumfunc, "bmm_einsum", None)
_einsum_path: Any = getattr(_einsumfunc, "einsum_path", None)

#: The contraction ``np.einsum(subscripts, a, b, optimize=True)`` makes, by subscripts and
#: shapes: the operands' order and the pairwise equation, or ``None`` (use ``np.einsum``).
_CONTRACTIONS: dict[tuple[str, tuple[int, ...], tuple[int, ...]], Any] = {}


def pair_einsum(subscripts: str, a: FloatArray, b: FloatArray) -> FloatArray:
    """``np.einsum(subscripts, a, b, optimize=True)``, the very same contraction (NumPy's own
    pairwise ``bmm_einsum``, as ``einsum`` calls it), with ``einsum``'s search for the path
    made once per shapes instead of at every call: on the exact solver's small batches that
    search costs more than the product. The first call of each shapes checks that the two
    agree to the last bit, and falls back to ``np.einsum`` for good where they do not (or
    where NumPy contracts otherwise)."""
    key = (subscripts, a.shape, b.shape)
    plan = _CONTRACTIONS.get(key, False)
    if plan is False:
        plan = _CONTRACTIONS[key] = _pair_plan(subscripts, a, b)
    if plan is None:
        return np.asarray(np.einsum(subscripts, a, b, optimize=True), dtype=np.float64)
    swap, equation = plan
    return np.asarray(
        _bmm_einsum(equation, b, a) if swap else _bmm_einsum(equation, a, b), dtype=np.float64
    )


def _pair_plan(subscripts: str, a: FloatArray, b: FloatArray) -> tuple[bool, str] | None:
    """How ``einsum`` contracts ``a`` and ``b``: whether it swaps them, and the equation it
    hands ``bmm_einsum``; ``None`` where that cannot be read or does not reproduce
    ``np.einsum`` exactly."""
    if _bmm_einsum is None or _einsum_path is None:
        return None
    try:
        _, contractions = _einsum_path(subscripts, a, b, optimize=True, einsum_call=True)
        if len(contractions) != 1 or sorted(contractions[0][0]) != [0, 1]:
            return None
        order, equation = tuple(contractions[0][0]), str(contractions[0][1])
        swap = order == (1, 0)  # (einsum pops the operands in this order)
        got = _bmm_einsum(equation, b, a) if swap else _bmm_einsum(equation, a, b)
        want = np.einsum(subscripts, a, b, optimize=True)
        same = (
            isinstance(got, np.ndarray)
            and got.dtype == want.dtype
            and got.shape == want.shape
            and np.array_equal(got, want)
        )
    except Exception:  # (NumPy's internals changed: its own einsum, as before)
        return None
    return (swap, equation) if same else None


def exact_log_softmax(x: FloatArray) -> FloatArray:
    """``scipy.special.log_softmax(x, axis=-1)`` to the last bit, faster on the short action
    axis: :func:`_log_softmax` where that is the same arithmetic (fewer than 8 actions, where
    sums over actions add them in order as numpy's do, and finite maxima, which scipy would
    replace by 0), scipy's otherwise."""
    if x.shape[-1] >= SLICE_REDUCE_MAX:
        return np.asarray(log_softmax(x, axis=-1), dtype=np.float64)
    top = _reduce_actions(x, np.maximum)
    if not np.isfinite(top).all():
        return np.asarray(log_softmax(x, axis=-1), dtype=np.float64)
    shifted = x - top[..., None]
    return np.asarray(
        shifted - np.log(_reduce_actions(np.exp(shifted), np.add))[..., None], dtype=np.float64
    )


def _log_softmax(x: FloatArray) -> FloatArray:
    """``scipy.special.log_softmax(x, axis=-1)`` (the same arithmetic), minus its overhead
    for small arrays (the per-step cost of the K-step solver)."""
    shifted = x - _reduce_actions(x, np.maximum)[..., None]
    return np.asarray(
        shifted - np.log(_reduce_actions(np.exp(shifted), np.add))[..., None], dtype=np.float64
    )


class _BandSystems:
    """``I - gamma P_pi`` of a batch of policies as one banded matrix, in LAPACK's layout.

    Absorbing states (every action stays, so their row is ``(1 - gamma) e_s``) are split
    off: their values are known outright and enter the other states' right-hand sides, and
    their occupancy follows from the others'. The remaining (core) states are reordered by
    reverse Cuthill-McKee on the pattern of ``P`` (union over actions, plus the diagonal),
    which gives Deep Sea Treasure's 72 core states a bandwidth of 8. The slots' core systems
    then sit one after the other on the diagonal of a single banded matrix of ``B * S_core``
    rows and the same bandwidth, so one ``dgbtrf`` factorizes them all and one ``dgbtrs``
    each solves the values and (transposed) the occupancy. Partial pivoting inside the band
    never reaches across slots (the entries between two slots are zero), so this is each
    slot's own banded LU.

    Attributes
    ----------
    worthwhile : bool
        Whether the banded LU beats the dense one (see :data:`BAND_COST_RATIO`).
    """

    def __init__(self, model: MDPModel) -> None:
        n_all = model.n_states
        pattern = np.any(model.P != 0, axis=1) | np.eye(n_all, dtype=bool)
        absorbing = np.sum(pattern, axis=1) == 1  # only the diagonal: P[s, a, s] = 1 for all a
        core, sink = np.flatnonzero(~absorbing), np.flatnonzero(absorbing)
        sub = pattern[np.ix_(core, core)]
        order = np.asarray(
            reverse_cuthill_mckee(csr_matrix(sub | sub.T), symmetric_mode=True), dtype=np.intp
        )
        n = core.size
        self.perm = core[order]  # band row i holds state perm[i]
        self.sink = sink
        band_of = np.full(n_all, -1, dtype=np.intp)
        band_of[self.perm] = np.arange(n)
        sink_of = np.full(n_all, -1, dtype=np.intp)
        sink_of[sink] = np.arange(sink.size)
        rows, cols = np.nonzero(sub[np.ix_(order, order)])
        self.kl = int(np.max(rows - cols, initial=0))
        self.ku = int(np.max(cols - rows, initial=0))
        self.ldab = 2 * self.kl + self.ku + 1
        self.n = n
        self.gamma = model.gamma
        self.worthwhile = bool(
            n >= BAND_MIN_STATES and BAND_COST_RATIO * self.kl * (self.kl + self.ku + 1) <= n * n
        )
        s_idx, a_idx, t_idx, p = model._nz
        sa = s_idx * model.n_actions + a_idx
        coef = -model.gamma * p
        inner = ~absorbing[s_idx] & ~absorbing[t_idx]
        i, j = band_of[s_idx[inner]], band_of[t_idx[inner]]
        # A'[i, j] sits in a slot's block (column-major, (n, ldab) in C order) at column j,
        # band row kl + ku + i - j
        self._sa, self._coef = sa[inner], coef[inner]
        self._pos = j * self.ldab + self.kl + self.ku + i - j
        self._diag = np.arange(n) * self.ldab + self.kl + self.ku
        # the core-to-sink block A12 (transitions into absorbing states), (n, n_sink) per slot
        out = ~absorbing[s_idx] & absorbing[t_idx]
        self._sa12, self._coef12 = sa[out], coef[out]
        self._pos12 = band_of[s_idx[out]] * sink.size + sink_of[t_idx[out]]

    def matrix(self, pi: FloatArray) -> FloatArray:
        """The banded storage (ldab, B * S_core), Fortran-ordered, of every slot's core."""
        batch, size = pi.shape[0], self.n * self.ldab
        cells = (np.arange(batch)[:, None] * size + self._pos).ravel()
        values = (pi.reshape(batch, -1)[:, self._sa] * self._coef).ravel()
        ab = np.asarray(
            np.bincount(cells, weights=values, minlength=batch * size), dtype=np.float64
        ).reshape(batch, size)
        ab[:, self._diag] += 1.0
        return np.asarray(ab.reshape(batch * self.n, self.ldab).T, dtype=np.float64)

    def coupling(self, pi: FloatArray) -> FloatArray:
        """The block from core to absorbing states, (B, S_core, S_sink), rows in band order."""
        batch, size = pi.shape[0], self.n * self.sink.size
        cells = (np.arange(batch)[:, None] * size + self._pos12).ravel()
        values = (pi.reshape(batch, -1)[:, self._sa12] * self._coef12).ravel()
        out = np.bincount(cells, weights=values, minlength=batch * size)
        return np.asarray(out.reshape(batch, self.n, self.sink.size), dtype=np.float64)

    def solve_both(
        self, pi: FloatArray, rhs: FloatArray, rho: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """``flow^-1 rhs`` (B, S, K) and ``flow^-T rho`` (B, S) for policies (B, S, A)."""
        batch, n, k = pi.shape[0], self.n, rhs.shape[2]
        lu, piv, info = lapack.dgbtrf(self.matrix(pi), self.kl, self.ku, overwrite_ab=1)
        if info > 0:
            raise np.linalg.LinAlgError("Singular matrix")
        b = rhs[:, self.perm]
        r = np.broadcast_to(rho[self.perm], (batch, n))
        u = np.empty((batch, pi.shape[1], k))
        d_u = np.empty((batch, pi.shape[1]))
        if self.sink.size:
            a12 = self.coupling(pi)
            x2 = rhs[:, self.sink] / (1.0 - self.gamma)  # (B, S_sink, K)
            b = b - a12 @ x2
            u[:, self.sink] = x2
        x = lapack.dgbtrs(lu, self.kl, self.ku, b.reshape(batch * n, k), piv, overwrite_b=1)[0]
        y = lapack.dgbtrs(lu, self.kl, self.ku, r.reshape(-1), piv, trans=1)[0]
        y = y.reshape(batch, n)
        u[:, self.perm] = x.reshape(batch, n, k)
        d_u[:, self.perm] = y
        if self.sink.size:
            d_u[:, self.sink] = (rho[self.sink] - np.einsum("bcs,bc->bs", a12, y)) / (
                1.0 - self.gamma
            )
        return u, d_u


def _lu_solve_both(
    flow: FloatArray, rhs: FloatArray, rho: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """``flow^-1 rhs`` (B, S, K) and ``flow^-T rho`` (B, S) from one LU factorization per
    matrix.

    NumPy has no LU factorization to reuse (``np.linalg.solve`` factorizes anew at each
    call) and SciPy's batched ``lu_factor``/``lu_solve`` loop in Python with more overhead
    than LAPACK's ``getrf``/``getrs`` called directly, which is what this does.
    """
    batch, n = flow.shape[0], flow.shape[1]
    x = np.empty((batch, n, rhs.shape[2]))
    y = np.empty((batch, n))
    for b in range(batch):
        lu, piv, info = lapack.dgetrf(flow[b])
        if info > 0:
            raise np.linalg.LinAlgError("Singular matrix")
        x[b] = lapack.dgetrs(lu, piv, rhs[b])[0]
        y[b] = lapack.dgetrs(lu, piv, rho, trans=1)[0]
    return x, y


def torch_policy_gradients(
    model: MDPModel, tensors: dict[str, Any], logits: Any, rewards: Any
) -> Any:
    """:meth:`MDPModel._policy_gradients` for one reward per slot, in torch: logits and
    rewards (B, S, A) float64 tensors on one device, ``tensors`` the model's ``P``, ``rho``
    and ``log_ref`` there. One batched LU factorization serves the values and the occupancy.
    """
    import torch

    gamma, beta = model.gamma, model.beta
    log_pi = torch.log_softmax(logits, dim=-1)
    pi = log_pi.exp()
    P, rho, log_ref = tensors["P"], tensors["rho"], tensors["log_ref"]
    n = model.n_states
    flow = torch.eye(n, dtype=logits.dtype, device=logits.device) - gamma * torch.einsum(
        "bsa,sat->bst", pi, P
    )
    kl = torch.where(pi > 0, pi * (log_pi - log_ref), torch.zeros_like(pi)).sum(-1)
    c = (pi * rewards).sum(-1) - beta * kl  # (B, S)
    mean = c.mean(-1, keepdim=True)
    lu, pivots = torch.linalg.lu_factor(flow)
    u = torch.linalg.lu_solve(lu, pivots, (c - mean).unsqueeze(-1)).squeeze(-1)
    d_u = torch.linalg.lu_solve(
        lu, pivots, rho.expand(pi.shape[0], n).unsqueeze(-1), adjoint=True
    ).squeeze(-1)
    v = u + mean / (1.0 - gamma)
    q = rewards + gamma * torch.einsum("sat,bt->bsa", P, v)
    adv = q - beta * (log_pi - log_ref) - v.unsqueeze(-1)
    return -model._factor * d_u.unsqueeze(-1) * pi * adv
