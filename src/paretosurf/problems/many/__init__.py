"""Test problems with ``M >= 2`` objectives (meant for ``M >= 3``) and exact inner solvers.

Every problem here minimizes ``M`` objectives and is scalarized with a weight *vector* ``w`` on
the simplex (weight ``w_m`` on objective ``m``): ``min_x sum_m w_m h_m(x)``. They share one
interface, :class:`ManyObjectiveProblem`:

* ``n_objectives``; ``objectives(x) -> (M,)``; ``argmin(w) -> x`` (the exact minimizer);
* ``front(W)``: the exact front points ``f_PF(w) = h(argmin(w))``, vectorised: weights (B, M)
  to points (B, M), or one (M,) vector to one (M,) point;
* ``solver()``: an exact inner solver, ``solve(weight, state=None) -> Solution(objectives,
  state=x)`` and ``solve_many(weights, states)``;
* ``reference_front(resolution=0.01)``: a dense sample of the whole front for covering-radius and
  IGD metrics (:func:`~paretosurf.problems.sampling.dense_front_sample`).

Weights: a vector of shape (M,) (or rows of shape (B, M)) of non-negative entries summing to 1
(within ``1e-8``; rows are renormalised). For ``M = 2`` a scalar ``w`` also works and means
``(w, 1 - w)``, the library's bi-objective convention, as the driver hands scalar weights to
two-objective solvers and vectors to ``M >= 3`` ones.

Problems:

* :class:`QuadraticM` -- ``h_m(x) = 0.5 (x - b_m)^T Q_m (x - b_m)``, closed-form minimizer,
  random instances with distorted fronts, and a K-step gradient solver;
* :class:`InvertedDTLZ2` -- a convex DTLZ2-style front ``r * (1 - u)``, ``u`` on the unit
  sphere, in closed form;
* :class:`DTLZ7` -- a disconnected front of ``2^(M-1)`` pieces (4 for ``M = 3``), with a
  dense sample of the whole front (:meth:`DTLZ7.pareto_front`);
* :func:`deep_sea_treasure_pressure` -- Deep Sea Treasure with a third reward, a depth
  ("pressure") penalty, as a KL-regularized tabular MDP (:class:`ManyObjectiveMDP`).

The package mirrors the two-objective problems: :mod:`~paretosurf.problems.many.base` (weight
rows, the interface and the exact solver), :mod:`~paretosurf.problems.many.quadratic`,
:mod:`~paretosurf.problems.many.dtlz`, :mod:`~paretosurf.problems.many.dtlz7` and
:mod:`~paretosurf.problems.many.mdp`; every name is importable from ``paretosurf.problems.many``.
"""

from paretosurf.problems.many.base import ManyExactSolver, ManyObjectiveProblem, weight_rows
from paretosurf.problems.many.dtlz import DTLZ2, InvertedDTLZ2
from paretosurf.problems.many.dtlz7 import DTLZ7
from paretosurf.problems.many.mdp import (
    DST_PRESSURE as DST_PRESSURE,
)
from paretosurf.problems.many.mdp import (
    ManyObjectiveMDP,
    deep_sea_treasure_pressure,
)
from paretosurf.problems.many.quadratic import QuadraticGradientSolver, QuadraticM

__all__ = [
    "DTLZ2",
    "DTLZ7",
    "InvertedDTLZ2",
    "ManyExactSolver",
    "ManyObjectiveMDP",
    "ManyObjectiveProblem",
    "QuadraticGradientSolver",
    "QuadraticM",
    "deep_sea_treasure_pressure",
    "weight_rows",
]
