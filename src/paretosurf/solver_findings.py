"""Moved: the findings about the inner solver are :mod:`paretosurf.findings` now
(``solver_findings``, ``diagnose_run``, ...). This module re-exports the names it had, with a
:class:`DeprecationWarning`, until paretosurf 0.2."""

from paretosurf._utils.renamed import warn_moved
from paretosurf.findings import (
    STRUCTURAL,
    Finding,
    declared_scalarization,
    diagnose,
    diagnose_run,
    dominated_in_local_minima,
    ideal_beaten_finding,
    local_minima_finding,
    local_minimum_slots,
    oscillating_finding,
    pieces_jump,
    revise,
    solver_findings,
    spacing_target,
    uneven_finding,
    unsettled_finding,
    unsuccessful_finding,
)
from paretosurf.findings._common import FloatArray
from paretosurf.findings._solver import declared_scales

__all__ = [
    "STRUCTURAL",
    "Finding",
    "FloatArray",
    "declared_scalarization",
    "declared_scales",
    "diagnose",
    "diagnose_run",
    "dominated_in_local_minima",
    "ideal_beaten_finding",
    "local_minima_finding",
    "local_minimum_slots",
    "oscillating_finding",
    "pieces_jump",
    "revise",
    "solver_findings",
    "spacing_target",
    "uneven_finding",
    "unsettled_finding",
    "unsuccessful_finding",
]

warn_moved(__name__, "paretosurf.findings")
