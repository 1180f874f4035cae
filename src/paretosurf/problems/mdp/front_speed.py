"""The exact front speed of a two-objective regularized MDP, and what it needs.

Write ``L(w)`` for the optimal value of the scalarized problem ``w f_1 + (1 - w) f_2`` and
``D = R_1 - R_2``. Differentiating the KKT system of the occupancy problem gives Proposition 1
of the paper, ``v(w) = sqrt(w^2 + (1 - w)^2) |D^T dmu_w/dw|`` with ``dmu/dw`` from the
constraint-augmented Hessian. Differentiating the soft Bellman equations instead gives the same
number in closed form,

``D^T dmu_w/dw = -L''(w) = (1 / beta) sum_s d_w(s) Var_{a ~ pi_w(.|s)}[Q^D_w(s, a)]``,

where ``d_w`` is the normalized state occupancy and ``Q^D_w`` the (unregularized) Q function of
the reward difference ``D`` under ``pi_w``: a weighted conditional variance, which also shows
that ``v > 0`` unless ``Q^D`` is action-independent wherever the optimal policy goes.
:func:`speed` uses this form by default (an ``|S|``-sized solve per weight, and it needs no
exploration condition); ``method="hessian"`` evaluates Proposition 1 literally.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import check_positive
from paretosurf.problems.base import as_weight_array
from paretosurf.problems.mdp.model import MDPModel
from paretosurf.problems.mdp.policy_iteration import solve_weights

__all__ = ["curvature", "curvature_of_policies", "speed"]

FloatArray = NDArray[np.float64]


def curvature_of_policies(mdp: MDPModel, pi: FloatArray) -> FloatArray:
    """``(1 / beta) sum_s d(s) Var_{pi(.|s)} Q^D(s, .)`` for optimal policies (B, S, A)."""
    centered = mdp._centered_difference_q(pi)
    var = np.sum(pi * centered**2, axis=-1)  # (B, S)
    d = mdp.state_occupancy(pi)
    return np.asarray(np.sum(d * var, axis=-1) / mdp.beta, dtype=np.float64)


def _hessian_parts(mdp: MDPModel, mu: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Hessian ``beta (Diag(1/x) - E Diag(1/E^T x) E^T)`` and flow Jacobian ``J``."""
    s, a = mdp.n_states, mdp.n_actions
    x = mu.reshape(s * a)
    e_mat = np.repeat(np.eye(s), a, axis=0)  # (SA, S)
    p_mat = mdp.P.reshape(s * a, s)
    jac = (e_mat - mdp.gamma * p_mat).T  # (S, SA)
    d = mu.sum(axis=1)
    hess = mdp.beta * (np.diag(1.0 / x) - e_mat @ np.diag(1.0 / d) @ e_mat.T)
    return hess, jac


def _curvature_hessian(mdp: MDPModel, w_flat: FloatArray, c: float, d_min: float) -> FloatArray:
    """Proposition 1, literally: ``D^T (H~^-1 - H~^-1 J^T (J H~^-1 J^T)^-1 J H~^-1) D``."""
    pis = solve_weights(mdp, w_flat)
    diff = (mdp.R[0] - mdp.R[1]).reshape(-1)
    out = np.empty(w_flat.size)
    for i, pi in enumerate(pis):
        mu = mdp.occupancy(pi)
        dmin = float(mu.sum(axis=1).min())
        if not dmin >= d_min or float(mu.min()) <= 0.0:
            raise ValueError(
                f"the sufficient exploration condition fails at w = {w_flat[i]:.6g}: the "
                f"smallest state occupancy is {dmin:.3g} < d_min = {d_min:g}, so the "
                "occupancy Hessian of Proposition 1 is singular; use method='bellman', "
                "which does not need the condition"
            )
        hess, jac = _hessian_parts(mdp, mu)
        h_aug = hess + c * jac.T @ jac
        sol = np.linalg.solve(h_aug, np.column_stack([diff, jac.T]))
        h_d, h_jt = sol[:, 0], sol[:, 1:]
        schur = jac @ h_jt
        jd = jac @ h_d
        out[i] = diff @ h_d - jd @ np.linalg.solve(schur, jd)
    return out


def curvature(
    mdp: MDPModel, w: ArrayLike, *, method: str = "bellman", c: float = 1.0, d_min: float = 1e-8
) -> FloatArray:
    """``q(w) = (R_1 - R_2)^T dmu_w/dw = -L''(w)`` (normalized scale), same shape as ``w``.

    See :meth:`RegularizedMDP.curvature <paretosurf.problems.mdp.RegularizedMDP.curvature>`.
    """
    mdp._require_two("curvature")
    w_arr = as_weight_array(w)
    flat = np.atleast_1d(w_arr).ravel()
    if method == "bellman":
        q = curvature_of_policies(mdp, solve_weights(mdp, flat))
    elif method == "hessian":
        q = _curvature_hessian(
            mdp, flat, check_positive(c, name="c"), check_positive(d_min, name="d_min")
        )
    else:
        raise ValueError(f"method must be 'bellman' or 'hessian', got {method!r}")
    return np.asarray(q.reshape(w_arr.shape), dtype=np.float64)


def speed(
    mdp: MDPModel, w: ArrayLike, *, method: str = "bellman", c: float = 1.0, d_min: float = 1e-8
) -> FloatArray:
    """Exact front speed ``v(w) = sqrt(w^2 + (1 - w)^2) |q(w)| / s`` in the problem's scale.

    See :meth:`RegularizedMDP.speed <paretosurf.problems.mdp.RegularizedMDP.speed>`.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.mdp import RegularizedMDP
    >>> from paretosurf.problems.mdp.front_speed import speed
    >>> P = np.zeros((2, 2, 2))
    >>> P[0, 0, 0] = P[0, 1, 1] = P[1, 0, 1] = P[1, 1, 0] = 1.0
    >>> R = np.array([[[1.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [1.0, 1.0]]])
    >>> mdp = RegularizedMDP(P, R, gamma=0.9, rho=[1.0, 0.0], beta=0.5)
    >>> v = speed(mdp, [0.25, 0.5])
    >>> bool(np.allclose(v, speed(mdp, [0.25, 0.5], method="hessian"), rtol=1e-6))
    True
    """
    w_arr = as_weight_array(w, name="w")
    q = curvature(mdp, w_arr, method=method, c=c, d_min=d_min)
    factor = np.sqrt(w_arr**2 + (1.0 - w_arr) ** 2) / (1.0 - mdp.gamma) * mdp._factor
    return np.asarray(factor * np.abs(q), dtype=np.float64)
