"""The paper's regularity conditions for a regularized MDP, checked numerically.

:func:`check_assumptions` tests sufficient exploration (every state visited by every optimal
policy), LICQ (the flow matrix ``J = (E - gamma P)^T`` has full row rank) and a nonzero
trade-off (the objectives' gradient difference is not in the row space of ``J``, and, for two
objectives, the front never stalls), and reports them in an :class:`MDPAssumptionReport`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from paretosurf._utils.validation import check_positive
from paretosurf.problems.mdp.front_speed import curvature_of_policies
from paretosurf.problems.mdp.model import MDPModel
from paretosurf.problems.mdp.policy_iteration import solve_weights

__all__ = ["MDPAssumptionReport", "check_assumptions"]


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


def check_assumptions(
    mdp: MDPModel,
    weights: ArrayLike | None = None,
    *,
    d_min: float = 1e-8,
    min_tradeoff: float = 1e-8,
) -> MDPAssumptionReport:
    """Check the paper's conditions (exploration, LICQ, nonzero trade-off) numerically.

    See :meth:`RegularizedMDP.check_assumptions
    <paretosurf.problems.mdp.RegularizedMDP.check_assumptions>` for the parameters.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems import fishwood
    >>> from paretosurf.problems.mdp.assumptions import check_assumptions
    >>> report = check_assumptions(fishwood(), np.linspace(0, 1, 11))
    >>> report.ok, report.n_weights, report.full_row_rank
    (True, 11, True)
    >>> print(report.messages[1])
    [ok] LICQ: flow matrix J = (E - gamma P)^T has rank 2 of 2 rows
    """
    d_min = check_positive(d_min, name="d_min")
    min_tradeoff = check_positive(min_tradeoff, name="min_tradeoff")
    m = mdp.n_objectives
    if weights is None:
        if m == 2:
            weights = np.linspace(0.0, 1.0, 1001)
        else:
            weights = np.vstack([np.eye(m), np.full((1, m), 1.0 / m)])
    mat = mdp._weight_matrix(weights)
    pis = solve_weights(mdp, mat)
    occ = mdp.state_occupancy(pis)  # (B, S)
    per_weight = occ.min(axis=1)
    arg = int(np.argmin(per_weight))
    min_occ = float(per_weight[arg])
    arg_weight: Any = float(mat[arg, 0]) if m == 2 else mat[arg].copy()

    s, a = mdp.n_states, mdp.n_actions
    e_mat = np.repeat(np.eye(s), a, axis=0)
    jac = (e_mat - mdp.gamma * mdp.P.reshape(s * a, s)).T
    rank = int(np.linalg.matrix_rank(jac))
    # Projection onto ker(J) = complement of the row space of J.
    q_basis, _ = np.linalg.qr(jac.T)
    norms = []
    for i in range(m):
        for j in range(i + 1, m):
            d = (mdp.R[i] - mdp.R[j]).reshape(-1)
            norms.append(float(np.linalg.norm(d - q_basis @ (q_basis.T @ d))))
    tradeoff = min(norms)
    curv: float | None = None
    if m == 2:
        curv = float(np.min(np.abs(curvature_of_policies(mdp, pis))))

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
