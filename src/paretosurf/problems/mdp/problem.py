"""The public problem class, :class:`RegularizedMDP`: the model plus the solves.

:class:`RegularizedMDP` is :class:`~paretosurf.problems.mdp.model.MDPModel` (construction,
validation, evaluation) with the methods that need an optimal solve; each delegates to the
module that implements it: :mod:`~paretosurf.problems.mdp.policy_iteration` (exact solves),
:mod:`~paretosurf.problems.mdp.front_speed` (curvature, speed, CDF),
:mod:`~paretosurf.problems.mdp.assumptions` and :mod:`~paretosurf.problems.mdp.solvers` (inner
solvers).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

import paretosurf.problems.mdp.assumptions as assumptions
import paretosurf.problems.mdp.front_speed as front_speed
import paretosurf.problems.mdp.policy_iteration as policy_iteration
from paretosurf.curves import PiecewiseChebyshev, SpeedCDF
from paretosurf.problems.base import InitParams, as_weight_array
from paretosurf.problems.mdp.assumptions import MDPAssumptionReport
from paretosurf.problems.mdp.model import MDPModel
from paretosurf.problems.mdp.solvers import MDPExactSolver, MDPGradientSolver

__all__ = ["RegularizedMDP"]

FloatArray = NDArray[np.float64]


class RegularizedMDP(MDPModel):
    """A KL-regularized tabular MDP with ``M >= 2`` rewards, as a multi-objective problem.

    The decision variable is a stochastic policy ``pi`` of shape ``(S, A)``; objective ``m``
    (minimized) is the negated KL-regularized discounted return of reward ``r_m`` (see
    :mod:`paretosurf.problems.mdp`). For two objectives the scalarized problem is
    ``w h_1 + (1 - w) h_2`` (``w`` weighs objective 1); for more, :meth:`solve_weights` takes
    weight vectors in the simplex.

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

    Probability rows (``P[s, a]``, ``rho``, ``ref_policy``, policies, weight vectors) must sum
    to 1 within ``SIMPLEX_TOL = 1e-8``.

    Attributes
    ----------
    n_states, n_actions, n_objectives : int
    P, R, rho, ref_policy : ndarray
        Validated float64 copies.
    default_lr, default_optimizer
        :meth:`gradient_solver` defaults: 0.02, Adam.
    warmup_steps, interior_start
        How :meth:`gradient_solver`'s runs start their slots when given no warm starts
        (:meth:`MDPGradientSolver.initial_states`): the end slots first solved with
        ``warmup_steps`` steps each, the interior slots from the solver's default start
        (``"default"``) or from the warmed-up ``w = 1`` end (``"endpoint1"``). Default 0 and
        ``"default"`` (every slot from the reference policy);
        :func:`~paretosurf.problems.deep_sea_treasure` sets the paper's 500 and
        ``"endpoint1"``.

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

    default_lr: ClassVar[float] = 0.02
    default_optimizer: ClassVar[str] = "adam"
    warmup_steps: int = 0
    interior_start: str = "default"

    # ------------------------------------------------------------------ exact solves
    def solve_weights(self, weights: ArrayLike, states: Sequence[Any] | None = None) -> FloatArray:
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
        return policy_iteration.solve_weights(self, weights, states)

    def argmin(self, w: float, state: ArrayLike | None = None) -> FloatArray:
        """The optimal policy (S, A) of ``w h_1 + (1 - w) h_2`` (two objectives only).

        ``state`` is an optional warm-start policy.
        """
        self._require_two("argmin")
        w_arr = as_weight_array(w, name="w")
        if w_arr.ndim != 0:
            raise ValueError(f"w must be a single weight in [0, 1], got shape {w_arr.shape}")
        return self.solve_weights(w_arr[None], [state])[0]

    def front(self, w: ArrayLike) -> FloatArray:
        """Exact Pareto front at weights ``w`` (any shape, flattened) -> points (K, 2).

        All weights are solved together (batched soft policy iteration).
        """
        self._require_two("front")
        w_arr = np.atleast_1d(as_weight_array(w)).ravel()
        return self.objectives_many(self.solve_weights(w_arr))

    # ------------------------------------------------------------------ front speed
    def curvature(
        self, w: ArrayLike, *, method: str = "bellman", c: float = 1.0, d_min: float = 1e-8
    ) -> FloatArray:
        """``q(w) = (R_1 - R_2)^T dmu_w/dw = -L''(w)`` (normalized scale), same shape as ``w``.

        The front moves with ``df_1/dw = -(1 - w) q`` and ``df_2/dw = w q`` (normalized scale).
        See :meth:`speed` for ``method``, ``c`` and ``d_min``.
        """
        return front_speed.curvature(self, w, method=method, c=c, d_min=d_min)

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
            from the soft Bellman equations (see :mod:`paretosurf.problems.mdp.front_speed`);
            cheap and valid for any MDP. ``"hessian"``: Proposition 1 of the paper with the
            constraint-augmented Hessian ``H~ = H + c J^T J``; needs the sufficient exploration
            condition and costs a dense ``(SA)^3`` solve per weight.
        c : float
            Augmentation constant of ``"hessian"`` (the result does not depend on it).
        d_min : float
            ``"hessian"`` raises ``ValueError`` when a state occupancy is below ``d_min``.

        Returns
        -------
        ndarray
            Speeds, same shape as ``w``.
        """
        return front_speed.speed(self, w, method=method, c=c, d_min=d_min)

    @cached_property
    def _speed_cdf(self) -> SpeedCDF:
        self._require_two("cdf")
        return SpeedCDF(PiecewiseChebyshev(self.speed))

    def cdf(self) -> SpeedCDF:
        """The true arc-length CDF ``Phi`` of the exact front (cached).

        Built from the exact speed through an adaptive piecewise Chebyshev interpolant (the
        speed is analytic in ``w``; panels are refined until the interpolant's trailing
        coefficients fall below ``1e-11`` of the peak speed), so ``Phi``, its inverse and
        :meth:`reference_front` cost about a thousand exact solves in total, however many
        times they are evaluated.
        """
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
        return assumptions.check_assumptions(self, weights, d_min=d_min, min_tradeoff=min_tradeoff)

    # ------------------------------------------------------------------ inner solvers
    def solver(self) -> MDPExactSolver:  # type: ignore[override]
        """Exact inner solver (soft policy iteration, warm-started from the slot's policy)."""
        self._require_two("solver")
        return MDPExactSolver(self)

    def gradient_solver(
        self,
        *,
        steps: int,
        lr: float | None = None,
        optimizer: str | None = None,
        init: InitParams | None = None,
        reset_optimizer: bool = False,
    ) -> MDPGradientSolver:
        """Inexact inner solver: ``steps`` warm-started Adam (or SGD) steps on tabular logits.

        The signature and parameters are those of :meth:`BiObjectiveProblem.gradient_solver`;
        defaults ``lr = 0.02``, Adam; ``init`` is logits of shape (S, A) (or ``init(w)``
        returning them), default ``log pi_ref``. A run given no warm starts starts as the
        paper's protocol for the problem does (:attr:`warmup_steps`, :attr:`interior_start`;
        :meth:`MDPGradientSolver.initial_states`), so that ``ps.surf(deep_sea_treasure()
        .gradient_solver(steps=100), 15)`` reaches the whole front. See
        :class:`MDPGradientSolver`, whose constructor also takes Adam's ``betas`` and
        ``eps``, the start-up's ``warmup_steps`` and ``interior_start``, ``kernel`` (the
        compiled numba step of the ``fast`` extra, used by default where numba is installed,
        or numpy's) and ``device``, the torch backend
        (``MDPGradientSolver(problem, steps=K, device="cuda")``): this method keeps the
        signature every problem shares.
        """
        self._require_two("gradient_solver")
        return MDPGradientSolver(
            self,
            steps=steps,
            lr=lr,
            optimizer=optimizer,
            init=init,
            reset_optimizer=reset_optimizer,
        )
