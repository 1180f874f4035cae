"""MO-MountainCar: a batched simulator, a soft (KL-regularized) DQN inner solver, and the
benchmark problem (the paper's Table 1 row). Needs the ``rl`` extra (torch).

Examples
--------
>>> from paretosurf.problems.mountaincar import MOMountainCar
>>> solver = MOMountainCar().gradient_solver(steps=4, n_envs=4, eval_episodes=4)
>>> solver.solve(1.0, None).objectives.shape
(2,)
"""

from paretosurf.problems.mountaincar.dqn import DQNState, SoftDQNSolver
from paretosurf.problems.mountaincar.problem import HV_REFERENCE, MOMountainCar
from paretosurf.problems.mountaincar.simulator import (
    GAMMA,
    HORIZON,
    MountainCarBatch,
    step_dynamics,
)

__all__ = [
    "GAMMA",
    "HORIZON",
    "HV_REFERENCE",
    "DQNState",
    "MOMountainCar",
    "MountainCarBatch",
    "SoftDQNSolver",
    "step_dynamics",
]
