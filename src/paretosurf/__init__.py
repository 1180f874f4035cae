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
:class:`Study` runs any method whose solves run outside, by asking for them and telling their
results (:mod:`paretosurf.jobs`).
The subpackages :mod:`~paretosurf.plotting`, :mod:`~paretosurf.methods`,
:mod:`~paretosurf.testing`, :mod:`~paretosurf.llm` and :mod:`~paretosurf.bench` are
attributes of the package, imported at first use, so that ``import paretosurf`` imports none
of their dependencies (matplotlib, torch, pytest).

``SurfResult`` and ``SurfWarning``, the earlier names of :class:`Result` and
:class:`ParetoWarning`, still work with a :class:`DeprecationWarning` until version 0.2.
"""

import importlib
from typing import TYPE_CHECKING

from paretosurf import adapters, executors, metrics, problems
from paretosurf._utils.moved import MOVED_MODULES
from paretosurf._utils.renamed import install_moved_modules, renamed_attributes
from paretosurf._version import __version__
from paretosurf.curves import ArcLengthCDF, Piece, SpeedCDF, weights_from_front, weights_from_speed
from paretosurf.executors import (
    Executor,
    ExecutorLostError,
    LocalExecutor,
    ManagedExecutor,
    ProcessExecutor,
    RayExecutor,
    SlurmExecutor,
)
from paretosurf.findings import Finding, ParetoWarning
from paretosurf.jobs import Study
from paretosurf.loop import Method, Round, RoundOutcome, RunOptions, run
from paretosurf.methods import SlotMethod, surf, surf_simplex
from paretosurf.result import IterationRecord, Result
from paretosurf.solvers import GradientSolver, InnerSolver, InnerSolverError, Solution
from paretosurf.storage import StatePool
from paretosurf.surfaces import SurfacePiece

install_moved_modules(MOVED_MODULES)

if TYPE_CHECKING:  # pragma: no cover - the lazy subpackages, for type checkers
    from paretosurf import bench, llm, plotting, testing


#: Subpackages imported at first access (their dependencies are optional or heavy).
LAZY_SUBPACKAGES = ("bench", "llm", "plotting", "testing")

#: Layers of the package that are attributes of it (imported with it).
SUBPACKAGES = ("curves", "findings", "jobs", "loop", "methods", "solvers", "storage", "surfaces")

#: The stand-ins of the modules that moved, by their earlier name in this package.
MOVED_MODULES_STANDINS = {
    old.rpartition(".")[2]: importlib.import_module(old)
    for old in MOVED_MODULES
    if old.count(".") == 1
}

_renamed = renamed_attributes(
    __name__,
    {
        "SurfResult": ("Result", lambda: Result),
        "SurfWarning": ("ParetoWarning", lambda: ParetoWarning),
    },
)


def __getattr__(name: str) -> object:
    """The lazy subpackages (:data:`LAZY_SUBPACKAGES`) and the earlier names."""
    if name in LAZY_SUBPACKAGES or name == "baselines":
        return importlib.import_module(f"{__name__}.{name}")
    if f"{__name__}.{name}" in MOVED_MODULES:
        # a module that moved into a subpackage: its stand-in warns at each name read from it
        return MOVED_MODULES_STANDINS[name]
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
    "SlurmExecutor",
    "Solution",
    "SpeedCDF",
    "StatePool",
    "Study",
    "SurfacePiece",
    "__version__",
    "adapters",
    "bench",
    "curves",
    "executors",
    "findings",
    "jobs",
    "llm",
    "loop",
    "methods",
    "metrics",
    "plotting",
    "problems",
    "run",
    "solvers",
    "storage",
    "surf",
    "surf_simplex",
    "surfaces",
    "testing",
    "weights_from_front",
    "weights_from_speed",
]
