"""paretosurf: Pareto points evenly spaced along the front, from a single-objective solver.

The main entry point is :func:`surf` (:func:`surf_simplex` for three or more objectives);
see the README for a ten-line example. Every method returns a :class:`Result` and warns with
:class:`ParetoWarning`; :func:`run` runs any :class:`Method` (the methods the library ships
are listed in :data:`paretosurf.methods.METHODS`), and :mod:`paretosurf.testing` checks a new
one against the contract every method keeps.

The types a run hands its user are here too: :class:`Finding` (``res.findings``),
:class:`Piece` and :class:`SurfacePiece` (``res.pieces``), :class:`RoundOutcome` and
:class:`StatePool` (what a :class:`Method` is told), :class:`SlotMethod` (the base of the
slot-based methods), :class:`Executor` and :class:`ManagedExecutor` (the executor protocols).
The subpackages :mod:`~paretosurf.plotting`, :mod:`~paretosurf.methods`,
:mod:`~paretosurf.testing`, :mod:`~paretosurf.llm` and :mod:`~paretosurf.bench` are
attributes of the package, imported at first use, so that ``import paretosurf`` imports none
of their dependencies (matplotlib, torch, pytest).

``SurfResult`` and ``SurfWarning``, the earlier names of :class:`Result` and
:class:`ParetoWarning`, still work with a :class:`DeprecationWarning` until version 0.2.
"""

import importlib
from typing import TYPE_CHECKING

from paretosurf import adapters, baselines, executors, metrics, problems, states
from paretosurf._renamed import renamed_attributes
from paretosurf._version import __version__
from paretosurf.cdf import ArcLengthCDF
from paretosurf.driver import Method, Round, RunOptions, run
from paretosurf.executors import (
    Executor,
    ExecutorLostError,
    LocalExecutor,
    ManagedExecutor,
    ProcessExecutor,
    RayExecutor,
)
from paretosurf.findings import Finding, ParetoWarning
from paretosurf.method import RoundOutcome
from paretosurf.pieces import Piece
from paretosurf.result import IterationRecord, Result
from paretosurf.rules import SpeedCDF, weights_from_front, weights_from_speed
from paretosurf.slots import SlotMethod
from paretosurf.solvers import GradientSolver, InnerSolver, InnerSolverError, Solution
from paretosurf.states import StatePool
from paretosurf.surf import surf
from paretosurf.surf_simplex import surf_simplex
from paretosurf.surface_pieces import SurfacePiece

if TYPE_CHECKING:  # pragma: no cover - the lazy subpackages, for type checkers
    from paretosurf import bench, llm, methods, plotting, testing


#: Subpackages imported at first access (their dependencies are optional or heavy).
LAZY_SUBPACKAGES = ("bench", "llm", "methods", "plotting", "testing")

_renamed = renamed_attributes(
    __name__,
    {
        "SurfResult": ("Result", lambda: Result),
        "SurfWarning": ("ParetoWarning", lambda: ParetoWarning),
    },
)


def __getattr__(name: str) -> object:
    """The lazy subpackages (:data:`LAZY_SUBPACKAGES`) and the earlier names."""
    if name in LAZY_SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    return _renamed(name)


def __dir__() -> list[str]:
    return sorted({*globals(), *LAZY_SUBPACKAGES})


__all__ = [
    "ArcLengthCDF",
    "Executor",
    "ExecutorLostError",
    "Finding",
    "GradientSolver",
    "InnerSolver",
    "InnerSolverError",
    "IterationRecord",
    "LocalExecutor",
    "ManagedExecutor",
    "Method",
    "ParetoWarning",
    "Piece",
    "ProcessExecutor",
    "RayExecutor",
    "Result",
    "Round",
    "RoundOutcome",
    "RunOptions",
    "SlotMethod",
    "Solution",
    "SpeedCDF",
    "StatePool",
    "SurfacePiece",
    "__version__",
    "adapters",
    "baselines",
    "bench",
    "executors",
    "llm",
    "methods",
    "metrics",
    "plotting",
    "problems",
    "run",
    "states",
    "surf",
    "surf_simplex",
    "testing",
    "weights_from_front",
    "weights_from_speed",
]
