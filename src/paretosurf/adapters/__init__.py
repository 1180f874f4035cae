"""Bring objectives, not a solver: inner solvers built from plain objective functions.

Each function here turns two minimized objectives into a warm-started, budgeted inner solver
(``solve(weight, state) -> Solution``) that every method of the library accepts
(:func:`paretosurf.surf`, :mod:`paretosurf.baselines`):

- :func:`from_scipy`: ``objectives(x) -> (h1, h2)`` solved per weight with
  ``scipy.optimize.minimize`` (bounds, constraints, Jacobians as scipy takes them).
- :func:`from_pymoo`: a two-objective pymoo ``Problem``, through the same scipy machinery.
- :func:`from_pymoo_global`: objectives (or a pymoo ``Problem``) solved per weight by a pymoo
  single-objective algorithm over the whole box (GA, DE, pattern search), warm-started from its
  last population and polished with scipy: for scalarized problems with several basins, where a
  local solve stays in the one it starts in.
- :func:`from_torch`: a torch model and its two losses (multi-task learning), ``steps``
  optimizer steps per call.

Each takes ``scalarization="linear"`` (SURF's paper), ``"tchebycheff"``,
``"modified_tchebycheff"`` or, for weight vectors, ``"asf"`` (:class:`Scalarization`); the
last three reach every Pareto point, also on concave fronts, where the linear one only reaches
their convex hull. :func:`from_scipy` and :func:`from_pymoo` default to ``"auto"``: with two
objectives and a finite box they find the front's ends when made, and take the weighted sum
unless the front is non-convex between them (then ``"tchebycheff"``; ``scalarization_note``
says why). ``"asf"`` puts each solution on the ray from the ideal point along the weight
vector: the layout :func:`paretosurf.surf_simplex` needs on fronts where objectives reach their
ideal values together (DTLZ-like). With three or more objectives whose scales differ by more
than a factor 50, :func:`from_scipy` and :func:`from_pymoo` measure them in units of their
extents, estimated when the solver is made (``scalarization.scales``), so that the weights of
the simplex act alike on objectives of any units: an objective times 100 gives the same run,
its points times 100 in that objective.

The ideal point of the last three is given (``ideal=...``: it stays there) or, in
:func:`from_scipy` and :func:`from_pymoo`, estimated from corner solves; either way the solver
has ``observe(points)``, which the run calls after each round: an estimate moves down (never
up) to stay below every objective value found, a given ideal stays and the objectives that
went below it are recorded (``solver.ideal_beaten``). See :class:`IdealPoint`; for linear
scalarization ``observe`` is a no-op.

Modules: :mod:`~paretosurf.adapters.scalarization` (the scalarizations),
:mod:`~paretosurf.adapters.scipy_solver`, :mod:`~paretosurf.adapters.pymoo_solver`,
:mod:`~paretosurf.adapters.pymoo_inner`, :mod:`~paretosurf.adapters.torch_solver`. Importing
this package imports neither torch nor pymoo; :func:`from_torch` needs the ``rl`` extra,
:func:`from_pymoo` and :func:`from_pymoo_global` pymoo (the ``many`` extra).

Examples
--------
>>> import numpy as np
>>> import paretosurf as ps
>>> from paretosurf.adapters import from_scipy
>>> def objectives(x):                      # a concave front: f2 = 1 - f1^2 for f1 in [0, 1]
...     return np.array([x[0], 1.0 - x[0] ** 2])
>>> solver = from_scipy(objectives, x0=[0.5], bounds=[(0.0, 1.0)],
...                     scalarization="tchebycheff")
>>> res = ps.surf(solver, 4, iterations=20)
>>> np.round(res.points[:, 0], 2).tolist()  # interior points too, evenly spaced by arc length
[1.0, 0.82, 0.61, 0.35, 0.0]
"""

from paretosurf.adapters.pymoo_inner import PymooGlobalSolver, from_pymoo_global
from paretosurf.adapters.pymoo_solver import from_pymoo
from paretosurf.adapters.scalarization import (
    SCALARIZATIONS,
    IdealPoint,
    Scalarization,
    as_scalarization,
    weight_vector,
)
from paretosurf.adapters.scipy_solver import ScipySolver, from_scipy
from paretosurf.adapters.torch_solver import TorchSolver, from_torch

__all__ = [
    "SCALARIZATIONS",
    "IdealPoint",
    "PymooGlobalSolver",
    "Scalarization",
    "ScipySolver",
    "TorchSolver",
    "as_scalarization",
    "from_pymoo",
    "from_pymoo_global",
    "from_scipy",
    "from_torch",
    "weight_vector",
]
