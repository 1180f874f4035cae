"""The inner-solver contract: what a single-objective solver gives and receives.

:class:`Solution`, the :class:`InnerSolver` protocol, :class:`GradientSolver`,
:func:`as_solver`, and the identity of a solver that a resumed run checks.
"""

from paretosurf.solvers._identity import (
    FORCE_HINT,
    NOT_SETTINGS,
    SHAPE_FORCE_HINT,
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
    users_solver,
    weight_to_json,
)

__all__ = [
    "FORCE_HINT",
    "NOT_SETTINGS",
    "SHAPE_FORCE_HINT",
    "BatchSolver",
    "GradientSolver",
    "GradientState",
    "InnerSolver",
    "InnerSolverError",
    "Solution",
    "SolverLike",
    "StepRule",
    "Weight",
    "add_evaluations",
    "as_solution",
    "as_solver",
    "as_weight",
    "check_same_solver",
    "check_state_shapes",
    "count_steps",
    "format_weight",
    "solver_identity",
    "solver_name",
    "solver_settings",
    "users_solver",
    "weight_to_json",
]
