"""Bi-objective problems with exact solvers and, where known, closed-form fronts and CDFs.

Every problem subclasses :class:`BiObjectiveProblem`: ``solver()`` (exact inner solver),
``front(w)``, ``speed(w)``, ``cdf()`` (true arc-length CDF), ``optimal_weights(N)`` (Rule 1),
``reference_front(n_points)`` and, with one signature for all,
``gradient_solver(*, steps, lr=None, optimizer=None, init=None)`` (K = ``steps`` warm-started
steps; ``None`` means the problem's ``default_lr`` / ``default_optimizer`` / default start).
"""

from paretosurf.problems.bandit import EntropicBandit, draw_offline_dataset, paper_rewards
from paretosurf.problems.base import BiObjectiveProblem, ExactSolver
from paretosurf.problems.gym import (
    TabularMDP,
    TabularModel,
    deep_sea_treasure,
    fishwood,
    tabular_deep_sea_treasure,
    tabular_fishwood,
)
from paretosurf.problems.many import (
    DTLZ2,
    DTLZ7,
    InvertedDTLZ2,
    ManyExactSolver,
    ManyObjectiveMDP,
    ManyObjectiveProblem,
    QuadraticGradientSolver,
    QuadraticM,
    deep_sea_treasure_pressure,
)
from paretosurf.problems.mdp import MDPAssumptionReport, RegularizedMDP
from paretosurf.problems.quadratic import GearToy, Quadratic, Quadratic1D
from paretosurf.problems.sampling import dense_front_sample

__all__ = [
    "DTLZ2",
    "DTLZ7",
    "BiObjectiveProblem",
    "EntropicBandit",
    "ExactSolver",
    "GearToy",
    "InvertedDTLZ2",
    "MDPAssumptionReport",
    "ManyExactSolver",
    "ManyObjectiveMDP",
    "ManyObjectiveProblem",
    "Quadratic",
    "Quadratic1D",
    "QuadraticGradientSolver",
    "QuadraticM",
    "RegularizedMDP",
    "TabularMDP",
    "TabularModel",
    "deep_sea_treasure",
    "deep_sea_treasure_pressure",
    "dense_front_sample",
    "draw_offline_dataset",
    "fishwood",
    "paper_rewards",
    "tabular_deep_sea_treasure",
    "tabular_fishwood",
]
