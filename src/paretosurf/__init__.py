"""paretosurf: Pareto points evenly spaced along the front, from a single-objective solver.

The main entry point is :func:`surf` (:func:`surf_simplex` for three or more objectives);
see the README for a ten-line example. Every method returns a :class:`Result` and warns with
:class:`ParetoWarning`; :func:`run` runs any :class:`Method` (the methods the library ships
are listed in :data:`paretosurf.methods.METHODS`), and :mod:`paretosurf.testing` checks a new
one against the contract every method keeps.

``SurfResult`` and ``SurfWarning`` are the earlier names of :class:`Result` and
:class:`ParetoWarning` (the same classes).
"""

from paretosurf import adapters, baselines, metrics, problems, states
from paretosurf.cdf import ArcLengthCDF
from paretosurf.driver import Method, Round, RunOptions, run
from paretosurf.executors import ExecutorLostError, LocalExecutor, ProcessExecutor, RayExecutor
from paretosurf.findings import ParetoWarning, SurfWarning
from paretosurf.result import IterationRecord, Result, SurfResult
from paretosurf.rules import SpeedCDF, weights_from_front, weights_from_speed
from paretosurf.solvers import GradientSolver, InnerSolver, InnerSolverError, Solution
from paretosurf.surf import surf
from paretosurf.surf_simplex import surf_simplex

__version__ = "0.1.0"  # the one place the version is written: pyproject.toml reads it

__all__ = [
    "ArcLengthCDF",
    "ExecutorLostError",
    "GradientSolver",
    "InnerSolver",
    "InnerSolverError",
    "IterationRecord",
    "LocalExecutor",
    "Method",
    "ParetoWarning",
    "ProcessExecutor",
    "RayExecutor",
    "Result",
    "Round",
    "RunOptions",
    "Solution",
    "SpeedCDF",
    "SurfResult",
    "SurfWarning",
    "__version__",
    "adapters",
    "baselines",
    "metrics",
    "problems",
    "run",
    "states",
    "surf",
    "surf_simplex",
    "weights_from_front",
    "weights_from_speed",
]
