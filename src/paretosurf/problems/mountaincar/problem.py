"""MO-MountainCar with the paper's two objectives, as a benchmark problem.

Deep RL has no exact solver and no exact front: :class:`MOMountainCar` names the settings,
makes the soft-DQN inner solver and says that its front is unknown (``reference_front`` and
``cdf`` return ``None``), so the benchmark scores methods against the non-dominated union of
their points, with a fixed HV reference point (:data:`HV_REFERENCE`).
"""

from __future__ import annotations

import math
from typing import Any

from paretosurf.problems.mountaincar.dqn import SoftDQNSolver
from paretosurf.problems.mountaincar.simulator import GAMMA, HORIZON

__all__ = ["HV_REFERENCE", "MOMountainCar"]

BETA = 0.05


def worst_objective(beta: float = BETA, gamma: float = GAMMA, horizon: int = HORIZON) -> float:
    """An upper bound of either objective: every one of ``horizon`` steps costs at most 1 plus
    ``beta * ln 3`` (the largest KL from the uniform policy over three actions).

    Examples
    --------
    >>> round(worst_objective(), 2)
    133.56
    """
    return (1 + beta * math.log(3)) * (1 - gamma**horizon) / (1 - gamma)


#: The HV reference point (135, 135): beyond the worst value any policy can have on either
#: objective (:func:`worst_objective`, 133.56), so every policy's point counts.
HV_REFERENCE = (135.0, 135.0)


class MOMountainCar:
    """MO-MountainCar (``mo-mountaincar-v0``) with the time penalty and the forward-push
    penalty, gamma 0.995, beta 0.05 against the uniform policy.

    Parameters
    ----------
    beta, gamma : float
        KL coefficient and discount.
    device : str
        Where the solver's networks and simulator run ("cpu" or "cuda").
    solver_options : dict, optional
        Further :class:`~paretosurf.problems.mountaincar.dqn.SoftDQNSolver` keywords.

    Examples
    --------
    >>> problem = MOMountainCar()
    >>> problem.reference_front(100) is None, problem.cdf() is None
    (True, True)
    >>> problem.gradient_solver(steps=100, seed=3)
    SoftDQNSolver(episodes=100, n_envs=20, beta=0.05, gamma=0.995, seed=3)
    """

    def __init__(
        self,
        *,
        beta: float = BETA,
        gamma: float = GAMMA,
        device: str = "cpu",
        solver_options: dict[str, Any] | None = None,
    ) -> None:
        self.beta = float(beta)
        self.gamma = float(gamma)
        self.device = device
        self.solver_options = dict(solver_options or {})

    def __repr__(self) -> str:
        return f"MOMountainCar(beta={self.beta}, gamma={self.gamma})"

    def reference_front(self, n_points: int = 0) -> None:
        """``None``: the front of a deep-RL problem is not known exactly."""
        return None

    def cdf(self) -> None:
        """``None``: the true weight-to-front CDF is not known."""
        return None

    def solver(self) -> Any:
        """There is no exact solver; raises ``ValueError``."""
        raise ValueError("MO-MountainCar has no exact solver; use gradient_solver() (the soft DQN)")

    def gradient_solver(
        self, *, steps: int = 100, seed: int = 0, lr: float = 1e-3, **options: Any
    ) -> SoftDQNSolver:
        """The soft-DQN inner solver with a budget of ``steps`` training episodes per call
        (``options`` go to :class:`SoftDQNSolver`; ``device`` defaults to the problem's)."""
        settings = {"device": self.device, **self.solver_options, **options}
        return SoftDQNSolver(
            episodes=steps, beta=self.beta, gamma=self.gamma, lr=lr, seed=seed, **settings
        )
