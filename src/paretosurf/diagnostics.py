"""Moved: the checks of a run's points are :mod:`paretosurf.findings` now (``diagnose``,
``diagnose_surface``, ...). This module re-exports the names it had, with a
:class:`DeprecationWarning`, until paretosurf 0.2."""

from paretosurf._utils.renamed import renamed_attributes, warn_moved
from paretosurf.curves import (
    JUMP_CROSSING_RATE,
    JUMP_FACTOR,
    JUMP_NARROW,
    JUMP_NEAR,
    JUMP_RATE,
    JUMP_ROUNDS,
    RESOLVED_GAP,
)
from paretosurf.findings import (
    EARLIER_MARGIN,
    JUMP_GAP,
    LOCAL_ROUNDS,
    WEIGHT_TOL,
    Finding,
    ParetoWarning,
    coincident_pairs,
    degenerate_finding,
    diagnose,
    diagnose_surface,
    dominated_in_local_minima,
    frozen_and_beaten,
    jump_gaps,
    local_minima_finding,
    local_minimum_slots,
)
from paretosurf.findings._collapse import RELATIVE_TOL
from paretosurf.findings._common import FloatArray
from paretosurf.findings._dominated import TIE_TOL
from paretosurf.findings._ends import RUNAWAY_RATE, RUNAWAY_ROUNDS, RUNAWAY_SHARE
from paretosurf.findings._jumps import STUCK_TOL
from paretosurf.findings._local_minima import (
    LOCAL_MARGIN,
    LOCAL_REMEDY,
    LOCAL_SHRINK,
    LOCAL_STILL,
    NONCONVEX_REMEDY,
)
from paretosurf.findings._order import ORDER_TOL, REVERSED_SHARE, SEPARATED_WEIGHTS
from paretosurf.findings._ranges import SCALE_RATIO
from paretosurf.findings._stuck import (
    END_SHARE,
    SAME_POINT,
    STUCK_ROUNDS,
    STUCK_SHARE,
    STUCK_WEIGHT_MOVE,
)

__all__ = [
    "EARLIER_MARGIN",
    "END_SHARE",
    "JUMP_CROSSING_RATE",
    "JUMP_FACTOR",
    "JUMP_GAP",
    "JUMP_NARROW",
    "JUMP_NEAR",
    "JUMP_RATE",
    "JUMP_ROUNDS",
    "LOCAL_MARGIN",
    "LOCAL_REMEDY",
    "LOCAL_ROUNDS",
    "LOCAL_SHRINK",
    "LOCAL_STILL",
    "NONCONVEX_REMEDY",
    "ORDER_TOL",
    "RELATIVE_TOL",
    "RESOLVED_GAP",
    "REVERSED_SHARE",
    "RUNAWAY_RATE",
    "RUNAWAY_ROUNDS",
    "RUNAWAY_SHARE",
    "SAME_POINT",
    "SCALE_RATIO",
    "SEPARATED_WEIGHTS",
    "STUCK_ROUNDS",
    "STUCK_SHARE",
    "STUCK_TOL",
    "STUCK_WEIGHT_MOVE",
    "TIE_TOL",
    "WEIGHT_TOL",
    "Finding",
    "FloatArray",
    "ParetoWarning",
    "coincident_pairs",
    "degenerate_finding",
    "diagnose",
    "diagnose_surface",
    "dominated_in_local_minima",
    "frozen_and_beaten",
    "jump_gaps",
    "local_minima_finding",
    "local_minimum_slots",
]

warn_moved(__name__, "paretosurf.findings")

#: ``SurfWarning``: the earlier name of :class:`ParetoWarning`, with a warning.
__getattr__ = renamed_attributes(
    __name__, {"SurfWarning": ("ParetoWarning", lambda: ParetoWarning)}
)
