"""The inner-solver contract: what a single-objective solver gives and receives.

:class:`Solution`, the :class:`InnerSolver` protocol, :class:`GradientSolver`,
:func:`as_solver`, the identity of a solver that a resumed run checks, and how a K-step
solver starts a run's slots (:func:`gradient_starts`, :class:`StartUp`).
"""

from paretosurf.solvers._identity import (
    FORCE_HINT,
    NOT_SETTINGS,
    SHAPE_FORCE_HINT,
    TOLD_SOLVER,
    check_same_solver,
    check_state_shapes,
    solver_identity,
    solver_settings,
)
from paretosurf.solvers._protocol import (
    BatchSolver,
    GradientSolver,
    GradientState,
    InnerSolver,
    InnerSolverError,
    Solution,
    SolverLike,
    StepRule,
    Weight,
    add_evaluations,
    as_solution,
    as_solver,
    as_weight,
    count_steps,
    format_weight,
    solver_name,
    solver_objectives,
    users_solver,
    weight_to_json,
)
from paretosurf.solvers._start import (
    INTERIOR_STARTS,
    StartUp,
    check_interior_start,
    gradient_starts,
)

__all__ = [
    "FORCE_HINT",
    "INTERIOR_STARTS",
    "NOT_SETTINGS",
    "SHAPE_FORCE_HINT",
    "TOLD_SOLVER",
    "BatchSolver",
    "GradientSolver",
    "GradientState",
    "InnerSolver",
    "InnerSolverError",
    "Solution",
    "SolverLike",
    "StartUp",
    "StepRule",
    "Weight",
    "add_evaluations",
    "as_solution",
    "as_solver",
    "as_weight",
    "check_interior_start",
    "check_same_solver",
    "check_state_shapes",
    "count_steps",
    "format_weight",
    "gradient_starts",
    "solver_identity",
    "solver_name",
    "solver_objectives",
    "solver_settings",
    "users_solver",
    "weight_to_json",
]
