"""KL-regularized tabular MDPs of ``M`` rewards: :class:`ManyObjectiveMDP` and
:func:`deep_sea_treasure_pressure` (Deep Sea Treasure with a depth penalty)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial import cKDTree

from paretosurf._utils.validation import (
    check_positive,
    check_positive_int,
)
from paretosurf.problems.gym import TabularMDP, TabularModel, tabular_deep_sea_treasure
from paretosurf.problems.many.base import FloatArray, ManyObjectiveProblem, weight_rows
from paretosurf.problems.mdp import RegularizedMDP
from paretosurf.problems.sampling import dense_front_sample

__all__ = ["ManyObjectiveMDP", "deep_sea_treasure_pressure"]


class ManyObjectiveMDP(ManyObjectiveProblem):
    """A KL-regularized tabular MDP with ``M >= 2`` rewards behind the ``M``-objective interface.

    Wraps a :class:`~paretosurf.problems.mdp.RegularizedMDP` (kept as ``.mdp``): the decision
    is a policy (S, A), objective ``m`` is the MDP's (minimized) negated regularized return of
    reward ``m``, and the exact solve at a weight vector is the MDP's soft policy iteration on
    the reward ``sum_m w_m r_m`` (:meth:`RegularizedMDP.solve_weights
    <paretosurf.problems.mdp.RegularizedMDP.solve_weights>`), warm-started from a solver
    state's policy where there is one. Many weights are solved in batches of ``batch_size``.

    Parameters
    ----------
    mdp : RegularizedMDP
    batch_size : int
        Weights solved together (memory grows like ``batch_size * S^2``).

    Examples
    --------
    >>> from paretosurf.problems.many import ManyObjectiveMDP
    >>> from paretosurf.problems.gym import fishwood
    >>> prob = ManyObjectiveMDP(fishwood(gamma=0.9))
    >>> sol = prob.solver().solve(0.5)                    # M = 2: w means (w, 1 - w)
    >>> bool(abs(sol.objectives - prob.mdp.front([0.5])[0]).max() < 1e-12)
    True
    """

    def __init__(self, mdp: RegularizedMDP, *, batch_size: int = 256) -> None:
        if not isinstance(mdp, RegularizedMDP):
            raise TypeError(f"mdp must be a RegularizedMDP, got {type(mdp).__name__}")
        self.mdp = mdp
        self.n_objectives = mdp.n_objectives
        self.batch_size = check_positive_int(batch_size, name="batch_size")

    def objectives(self, x: ArrayLike) -> FloatArray:
        """Objective vector (M,) of a policy (S, A)."""
        return self.mdp.objectives(x)

    def objectives_many(self, xs: ArrayLike) -> FloatArray:
        """Objective vectors (B, M) of policies (B, S, A)."""
        return self.mdp.objectives_many(xs)

    def _solve_rows(
        self, weights: FloatArray, states: Sequence[Any] | None = None
    ) -> tuple[list[Any], FloatArray]:
        policies: list[Any] = []
        objs = [np.empty((0, self.n_objectives))]
        for start in range(0, weights.shape[0], self.batch_size):
            chunk = weights[start : start + self.batch_size]
            warm = None if states is None else list(states[start : start + self.batch_size])
            if warm is not None and all(s is None for s in warm):
                warm = None
            pis = self.mdp.solve_weights(chunk, warm)
            policies.extend(pis)
            objs.append(self.mdp.objectives_many(pis))
        return policies, np.concatenate(objs).reshape(-1, self.n_objectives)

    def reference_front(
        self, resolution: float = 0.01, *, max_points: int = 200_000, divisions: int | None = None
    ) -> FloatArray:
        """A dense sample (P, M) of the whole front (see
        :meth:`ManyObjectiveProblem.reference_front`); each new weight's solve is
        warm-started from the policy of the nearest weight solved before, which halves the
        soft policy iterations. At ``resolution = 0.01`` the DST front with pressure takes
        about 12,000 solves (some 10 s)."""
        solved_w: list[FloatArray] = []
        solved_pi: list[FloatArray] = []

        def front(weights: FloatArray) -> FloatArray:
            rows, _ = weight_rows(weights, self.n_objectives, batch=True)
            states: list[Any] | None = None
            if solved_w:
                known = np.concatenate(solved_w)
                _, nearest = cKDTree(known).query(rows)
                policies = np.concatenate(solved_pi)
                states = [policies[i] for i in nearest]
            pis, objs = self._solve_rows(rows, states)
            solved_w.append(rows)
            solved_pi.append(np.stack(pis))
            return objs

        return dense_front_sample(
            front,
            self.n_objectives,
            resolution=resolution,
            max_points=max_points,
            divisions=divisions,
        )

    def __repr__(self) -> str:
        return f"ManyObjectiveMDP({self.mdp!r})"


#: Default pressure scale of :func:`deep_sea_treasure_pressure` (reward ``-depth / 10``).
DST_PRESSURE = 0.1


def deep_sea_treasure_pressure(
    map: str = "concave",
    gamma: float = 0.999,
    beta: float = 1.5,
    pressure: float = DST_PRESSURE,
    *,
    scale: str = "normalized",
) -> ManyObjectiveMDP:
    """Deep Sea Treasure with a third reward, a depth ("pressure") penalty: three objectives.

    The model is :func:`~paretosurf.problems.gym.tabular_deep_sea_treasure`'s (rewards
    ``[treasure, time]``, maximized) with ``R[2] = -pressure * depth`` for every step taken from
    a water cell, ``depth`` the row index (0 at the surface, 10 at the deepest treasure) of the
    cell the submarine is in when it acts; treasure cells and the terminal state pay 0, like the
    other rewards. The problem is the KL-regularized :class:`~paretosurf.problems.gym.TabularMDP`
    of that model (kept as ``.mdp``, the model as ``.mdp.model``) behind the ``M``-objective
    interface (:class:`ManyObjectiveMDP`): objectives (minimized) are the negated regularized
    returns of (treasure, time, pressure); ``w = (w_treasure, w_time, w_pressure)``.

    The three objectives conflict pairwise, but unevenly. The deep treasures pay most and cost
    the most time and pressure (treasure-time and treasure-pressure: each corner policy is the
    worst of the three in the other objective). Time and pressure agree more: the quickest
    treasure (1, one step down) is also the shallowest, and the only way to avoid pressure,
    staying at the surface, costs KL; they part through the KL term, which every objective
    carries. With the default ``pressure = 0.1`` (``gamma = 0.999``, ``beta = 1.5``) each of
    the two corner policies costs 3-5 % of the front's range more in the other's objective;
    smaller scales widen that gap a little (7-8 % at 0.01) but shrink the pressure range, larger
    ones narrow it (under 1 % at 0.5).

    Parameters
    ----------
    map : {"concave", "convex"}
        DST map, see :func:`~paretosurf.problems.gym.tabular_deep_sea_treasure`.
    gamma, beta : float
        Discount factor and KL strength (the paper's DST values by default).
    pressure : float
        Pressure penalty per step and unit of depth, > 0.
    scale : {"normalized", "discounted"}
        See :class:`~paretosurf.problems.mdp.RegularizedMDP`.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.problems.many import deep_sea_treasure_pressure
    >>> prob = deep_sea_treasure_pressure()
    >>> prob.n_objectives, prob.mdp.model.objective_labels
    (3, ('treasure', 'time', 'pressure'))
    >>> corners = prob.front(np.eye(3))        # each corner is best in its own objective
    >>> bool(np.all(np.argmin(corners, axis=0) == [0, 1, 2]))
    True
    """
    p = check_positive(pressure, name="pressure")
    base = tabular_deep_sea_treasure(map)
    depth = np.array(
        [lab[0] if isinstance(lab, tuple) else 0 for lab in base.state_labels], dtype=np.float64
    )
    water = base.R[1] != 0.0  # (S, A): the steps that pay time are the moves from water cells
    r_pressure = np.where(water, -p * depth[:, None], 0.0)
    model = TabularModel(
        base.P,
        np.concatenate([base.R, r_pressure[None]]),
        base.rho,
        base.state_labels,
        base.action_labels,
        (*base.objective_labels, "pressure"),
        base.terminal_state,
        f"{base.name}-pressure",
    )
    return ManyObjectiveMDP(TabularMDP(model, gamma, beta, scale=scale))
