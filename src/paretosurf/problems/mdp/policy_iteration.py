"""The exact solve of a regularized MDP: soft policy iteration, batched and by continuation.

The scalarized problem with weights ``w_m`` is the regularized MDP with reward
``sum_m w_m r_m``. Its unique optimal policy solves the soft Bellman equations

``Q(s, a) = r_w(s, a) + gamma sum_s' P(s'|s, a) V(s')``,
``V(s) = beta log sum_a pi_ref(a|s) exp(Q(s, a) / beta)``,
``pi(a|s) = pi_ref(a|s) exp((Q(s, a) - V(s)) / beta)``,

and is computed exactly by soft policy iteration with exact policy evaluation (one linear
solve of size ``|S|`` per iteration), which is Newton's method on the soft Bellman equation and
converges quadratically, in a handful of iterations even for ``gamma = 0.999``. It stops when
the policy changes by at most ``1e-13`` (or, when ``gamma`` is near 1 and ``beta`` small, once
the change is below ``1e-10`` and stops shrinking: the floating-point noise floor).

Many scalar weights without warm starts are solved by continuation: a coarse subset from the
reference policy, then the rest from their nearest solved neighbour moved along the exact
tangent ``d log pi_w / dw = (Q^D - V^D) / beta``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import log_softmax

from paretosurf.problems.mdp.model import MDPModel, exact_log_softmax, pair_einsum

__all__ = ["fused_exact_solve", "soft_policy_iteration", "solve_weights", "solve_with_iters"]

FloatArray = NDArray[np.float64]

#: :func:`soft_policy_iteration`'s defaults: the policy change it stops at, the noise floor
#: below which a change that no longer shrinks stops it, and the most iterations.
POLICY_TOL = 1e-13
POLICY_FLOOR = 1e-10
POLICY_MAX_ITER = 100

# Batches of more scalar weights than this are solved coarse-to-fine, refining by this factor.
_CONTINUATION_MIN = 16
_CONTINUATION_FACTOR = 10


def soft_policy_iteration(
    mdp: MDPModel,
    rewards: FloatArray,
    log_pi0: FloatArray,
    *,
    tol: float = POLICY_TOL,
    floor: float = POLICY_FLOOR,
    max_iter: int = POLICY_MAX_ITER,
) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
    """Soft policy iteration for a batch of rewards (B, S, A); returns (pi, log pi, iters).

    Starts from the log-policies ``log_pi0`` (B, S, A). Stops when the largest policy change is
    ``<= tol``, or when it is ``<= floor`` and no longer shrinking (the floating-point noise
    floor, reached with ``gamma`` near 1 and a small ``beta``, where Newton's method cannot make
    further progress).

    Raises
    ------
    RuntimeError
        If some policy has not converged after ``max_iter`` iterations.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.mdp import RegularizedMDP
    >>> from paretosurf.problems.mdp.policy_iteration import soft_policy_iteration
    >>> rng = np.random.default_rng(0)
    >>> P = rng.dirichlet(np.ones(3), size=(3, 2))
    >>> mdp = RegularizedMDP(P, rng.normal(size=(2, 3, 2)), 0.9, np.ones(3) / 3, 0.5)
    >>> rewards = mdp.scalarized_reward(0.3)[None]
    >>> pi, log_pi, iters = soft_policy_iteration(mdp, rewards, np.log(mdp.ref_policy)[None])
    >>> bool(np.allclose(pi[0], mdp.argmin(0.3), atol=1e-13)), bool(iters[0] < 10)
    (True, True)
    """
    log_pi = log_pi0.copy()
    pi = np.exp(log_pi)
    batch = rewards.shape[0]
    iters = np.zeros(batch, dtype=np.int64)
    active = np.arange(batch)
    deltas = np.full(batch, np.inf)
    for _ in range(max_iter):
        p, lp, r = pi[active], log_pi[active], rewards[active]
        flow = mdp._flow_matrices(p)
        u, _ = mdp._soft_values_centered(p, lp, r[:, None], flow)
        q = r + mdp.gamma * pair_einsum("sat,bt->bsa", mdp.P, u[:, 0])
        lp_new = exact_log_softmax(mdp._log_ref + q / mdp.beta)
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


def _initial_log_policies(mdp: MDPModel, batch: int, states: Sequence[Any] | None) -> FloatArray:
    log_pi = np.broadcast_to(mdp._log_ref, (batch, mdp.n_states, mdp.n_actions)).copy()
    if states is None:
        return log_pi
    if len(states) != batch:
        raise ValueError(f"states must hold one entry per weight ({batch}), got {len(states)}")
    given = [i for i, st in enumerate(states) if st is not None]
    if not given:
        return log_pi
    # the warm starts checked and logged together, when they are (S, A) policies (the
    # exact solver's own states); otherwise, or if one fails the check, one by one, so that
    # the message names it
    shape = (mdp.n_states, mdp.n_actions)
    if all(np.shape(states[i]) == shape for i in given):
        stacked = np.array([states[i] for i in given], dtype=np.float64)
        try:
            pi = mdp._check_policy(stacked, name="states")
        except ValueError:
            pass
        else:
            log_pi[given] = mdp._safe_log(pi)
            return log_pi
    for i in given:
        pi = mdp._check_policy(states[i], name=f"states[{i}]")
        log_pi[i] = mdp._safe_log(pi)
    return log_pi


def solve_weights(
    mdp: MDPModel, weights: ArrayLike, states: Sequence[Any] | None = None
) -> FloatArray:
    """Exact optimal policies (B, S, A) for a batch of weights; see
    :meth:`RegularizedMDP.solve_weights <paretosurf.problems.mdp.RegularizedMDP.solve_weights>`.
    """
    pi, _, _ = solve_with_iters(mdp, weights, states)
    return pi


def solve_with_iters(
    mdp: MDPModel, weights: ArrayLike, states: Sequence[Any] | None
) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
    """Optimal policies, their logs and the policy iterations each took, for a batch of
    weights (scalars or simplex vectors) with optional warm-start policies."""
    mat = mdp._weight_matrix(weights)
    batch = mat.shape[0]
    if _by_continuation(mdp, batch, states):
        return _solve_by_continuation(mdp, mat[:, 0])
    rewards = np.einsum("bm,msa->bsa", mat, mdp.R)
    return soft_policy_iteration(mdp, rewards, _initial_log_policies(mdp, batch, states))


def fused_exact_solve(
    mdp: MDPModel, weights: FloatArray, states: Sequence[Any], kernel: str
) -> tuple[FloatArray, NDArray[np.int64], FloatArray] | None:
    """The exact solve of :class:`~paretosurf.problems.mdp.MDPExactSolver` in the compiled
    kernel (:func:`~paretosurf.problems.mdp._fused.fused_policy_iteration`): the optimal
    policies, the iterations each took and their objectives; ``None`` where ``kernel`` is
    not ``"numba"`` or the batch goes by continuation (see :func:`solve_with_iters`)."""
    if kernel != "numba":
        return None
    mat = mdp._weight_matrix(weights)
    batch = mat.shape[0]
    if _by_continuation(mdp, batch, states):
        return None
    from paretosurf.problems.mdp._fused import fused_policy_iteration

    rewards = np.einsum("bm,msa->bsa", mat, mdp.R)
    pi, _, iters, objectives = fused_policy_iteration(
        mdp,
        rewards,
        _initial_log_policies(mdp, batch, states),
        tol=POLICY_TOL,
        floor=POLICY_FLOOR,
        max_iter=POLICY_MAX_ITER,
    )
    return pi, iters, objectives


def _by_continuation(mdp: MDPModel, batch: int, states: Sequence[Any] | None) -> bool:
    """Whether a batch goes by continuation: many scalar weights, none warm-started."""
    cold = states is None or all(st is None for st in states)
    return cold and mdp.n_objectives == 2 and batch > _CONTINUATION_MIN


def _solve_by_continuation(
    mdp: MDPModel, w: FloatArray
) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
    """Many scalar weights: coarse-to-fine, each level warm-started by a tangent step."""
    order = np.argsort(w, kind="stable")
    ws = w[order]
    n = ws.size
    s, a = mdp.n_states, mdp.n_actions
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
            start = np.broadcast_to(mdp._log_ref, (level.size, s, a)).copy()
        else:
            known = np.flatnonzero(solved)
            pos = np.searchsorted(ws[known], ws[level])
            left = known[np.clip(pos - 1, 0, known.size - 1)]
            right = known[np.clip(pos, 0, known.size - 1)]
            nearest = np.where(
                np.abs(ws[level] - ws[left]) <= np.abs(ws[right] - ws[level]), left, right
            )
            step = (ws[level] - ws[nearest])[:, None, None]
            start = log_softmax(log_pi[nearest] + step * tangent[nearest] / mdp.beta, axis=-1)
        wl = ws[level, None, None]
        rewards = wl * mdp.R[0] + (1.0 - wl) * mdp.R[1]
        p, lp, it = soft_policy_iteration(mdp, rewards, start)
        pi[level], log_pi[level], iters[level] = p, lp, it
        if stride > 1:
            tangent[level] = mdp._centered_difference_q(p)
        solved[level] = True
    inverse = np.empty_like(order)
    inverse[order] = np.arange(n)
    return pi[inverse], log_pi[inverse], iters[inverse]
