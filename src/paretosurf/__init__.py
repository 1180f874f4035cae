"""paretosurf: Pareto points evenly spaced along the front, from a single-objective solver.

The main entry point is :func:`surf`; see the README for a ten-line example.
"""

from paretosurf import adapters, baselines, metrics, problems, states
from paretosurf.cdf import ArcLengthCDF
from paretosurf.diagnostics import SurfWarning
from paretosurf.executors import ExecutorLostError, LocalExecutor, ProcessExecutor, RayExecutor
from paretosurf.result import IterationRecord, SurfResult
from paretosurf.rules import SpeedCDF, weights_from_front, weights_from_speed
from paretosurf.solvers import GradientSolver, InnerSolver, InnerSolverError, Solution
from paretosurf.surf import surf
from paretosurf.surf_simplex import surf_simplex

__version__ = "0.1.0"

__all__ = [
    "ArcLengthCDF",
    "ExecutorLostError",
    "GradientSolver",
    "InnerSolver",
    "InnerSolverError",
    "IterationRecord",
    "LocalExecutor",
    "ProcessExecutor",
    "RayExecutor",
    "Solution",
    "SpeedCDF",
    "SurfResult",
    "SurfWarning",
    "__version__",
    "adapters",
    "baselines",
    "metrics",
    "problems",
    "states",
    "surf",
    "surf_simplex",
    "weights_from_front",
    "weights_from_speed",
]
