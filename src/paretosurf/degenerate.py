"""Moved: the ``degenerate`` finding is :mod:`paretosurf.findings` now (``degenerate_finding``,
``conflict_free_pairs``, ``curve_share``). This module re-exports the names it had, with a
:class:`DeprecationWarning`, until paretosurf 0.2."""

from paretosurf._utils.renamed import warn_moved
from paretosurf.findings import Finding, conflict_free_pairs, curve_share, degenerate_finding
from paretosurf.findings._degenerate import (
    CONFLICT_TOL,
    CONSTANT_SHARE,
    CURVE_RATIO,
    CURVE_SHARE,
    MIN_POINTS,
    FloatArray,
)

__all__ = [
    "CONFLICT_TOL",
    "CONSTANT_SHARE",
    "CURVE_RATIO",
    "CURVE_SHARE",
    "MIN_POINTS",
    "Finding",
    "FloatArray",
    "conflict_free_pairs",
    "curve_share",
    "degenerate_finding",
]

warn_moved(__name__, "paretosurf.findings")
