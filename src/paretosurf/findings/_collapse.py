"""Points that are not distinct (``collapsed``): on a curve, fewer distinct points than slots
or weights closer than :data:`WEIGHT_TOL`, with the cause the later findings name where one
does; on a surface, points that coincide (:func:`coincident_pairs`). Weights that close whose
points are still well apart are a matter of floating-point resolution (``precision``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paretosurf.findings._common import _TCHEBYCHEFF, _TCHEBYCHEFF_IDEAL, FloatArray
from paretosurf.findings._finding import Finding

if TYPE_CHECKING:
    from paretosurf.findings._evidence import CurveEvidence, SurfaceEvidence

#: Two weights closer than this are the same weight.
WEIGHT_TOL = 1e-9
#: Distances below this fraction of the front's extent are zero (rounding, not geometry).
RELATIVE_TOL = 1e-9


def check_collapsed(ev: CurveEvidence) -> list[Finding]:
    """``collapsed`` (a curve): fewer distinct points than slots, or weights within
    :data:`WEIGHT_TOL` of each other whose points are not well apart; the causes the later
    findings name (no minimizer at an end, a weakly Pareto-optimal end, a jump, a short solve
    beside a gap) are said to be the cause."""
    if not ev.collapsed:
        return []
    p, distinct, close_weights = ev.p, ev.distinct, ev.close_weights
    runaway, ends, real, short = ev.runaway, ev.endpoints, ev.real, ev.short
    weighted_sum, aims_even, coords, tol = ev.weighted_sum, ev.aims_even, ev.coords, ev.tol
    detail = (
        f"only {distinct} distinct points among {p}"
        if distinct < p
        else f"{close_weights + 1} weights within {WEIGHT_TOL:g} of each other"
    )
    causes = []
    if runaway:
        causes.append("an end's scalarized problem has no minimizer (see below)")
    if ends:
        causes.append("an endpoint is only weakly Pareto-optimal (see below)")
    if real:
        causes.append(
            "the front has a jump that weighted sums cannot cross (see below)"
            if weighted_sum
            else "the front has a jump (see below)"
        )
    if short:
        causes.append("points next to a gap are not optimal at their own weights (see below)")
    if causes:
        remedy, detail_remedy = "see the other findings", "; ".join(causes)
    elif not aims_even and weighted_sum and _clusters_meet(coords, tol):
        # consecutive weights switch between two shared points: the stretch between them
        # is one that weighted sums skip (non-convex, or straight), or one that this
        # method's weights skip; the points cannot tell which
        detail_remedy = (
            "several weights reach each of two points between which the "
            "weights switch with no point between: either weighted sums "
            "skip the stretch between them (it is non-convex, or straight; "
            "a Tchebycheff scalarization, scalarization='tchebycheff' in "
            "paretosurf.adapters, reaches every Pareto point"
            + _TCHEBYCHEFF_IDEAL
            + "), or this method's weights skip it "
            "(SURF, ps.surf, places its weights along the front)"
        )
        remedy = (
            "SURF (ps.surf) to place weights along the front; if it reports a jump "
            "there, " + _TCHEBYCHEFF
        )
    elif not aims_even:
        detail_remedy = (
            "several weights reach one point (a kink of the front, whose "
            "point is the optimum of a range of weights): this "
            "method's weights do not follow the front"
        )
        remedy = (
            "SURF places its weights by arc length (ps.surf), one where several reach one point"
        )
    elif weighted_sum:
        detail_remedy = (
            "parts of the front are reached at a single weight or not at "
            "all; a Tchebycheff scalarization (paretosurf.adapters, "
            "scalarization='tchebycheff') reaches every Pareto point" + _TCHEBYCHEFF_IDEAL
        )
        remedy = _TCHEBYCHEFF
    else:
        detail_remedy = (
            "the solver's scalarization reaches these points from several "
            "weights: its ideal point may lie above some objective values, "
            "or its solves stop in local minima"
        )
        remedy = (
            "check the solver's ideal point; a global inner solver if its solves "
            "stop in local minima"
        )
    coinciding = (p - distinct) if distinct < p else close_weights + 1
    return [
        Finding(
            "collapsed",
            f"points have collapsed: {detail}; {detail_remedy}",
            remedy=remedy,
            summary=(
                f"{coinciding} of {p} points coincide with others"
                if distinct < p
                else f"{coinciding} weights within {WEIGHT_TOL:g}"
            ),
        )
    ]


def check_precision(ev: CurveEvidence) -> list[Finding]:
    """``precision`` (advice) where the points have not collapsed: weights within
    :data:`WEIGHT_TOL` of each other whose points are well apart (objectives of very different
    scales), other than across a jump."""
    if ev.collapsed or not ev.resolved_close:
        return []
    resolved_close = ev.resolved_close
    return [
        Finding(
            "precision",
            f"{resolved_close + 1} weights lie within {WEIGHT_TOL:g} of each "
            "other although their points are well apart: the objectives' scales differ so "
            "much that the weights are at the limit of floating-point resolution; scale the "
            "objectives to comparable ranges inside the solver",
            fatal=False,
            remedy="scale the objectives to comparable ranges inside the solver",
        )
    ]


def check_coincident(ev: SurfaceEvidence) -> list[Finding]:
    """``collapsed`` (a surface): points that coincide (:func:`coincident_pairs`), with the
    causes the solver's scalarization allows."""
    p = ev.p
    pairs = coincident_pairs(ev.coords)
    if not pairs:
        return []
    scalarization, weighted_sum, aims_even = ev.scalarization, ev.weighted_sum, ev.aims_even
    merged = len({j for pair in pairs for j in pair})
    causes = (
        "Different weights reach one point where the front is non-convex "
        "(weighted sums jump over it; scalarization='tchebycheff' of "
        "paretosurf.adapters reaches every Pareto point), where objectives reach "
        "their ideal values together (linear and Tchebycheff weights then send "
        "whole edges of the simplex to one point; scalarization='asf' puts each "
        "point on the ray along its weight vector), or where the solver stops at a "
        "local minimum or on a flat face"
    )
    remedy = (
        "scalarization='asf' (or 'tchebycheff') in paretosurf.adapters, or a "
        "global inner solver if its solves stop in local minima"
    )
    if scalarization == "asf":
        causes = (
            "The solver's scalarization ('asf') reaches every Pareto point on the "
            "ray from its ideal point along the weight vector, so different weights "
            "reach one point when its ideal point lies above some objective values, "
            "when its solves stop at a local minimum, or where the front has a hole "
            "(a disconnected front: no spacing can fill it)"
        )
        remedy = (
            "check the solver's ideal point; a global inner solver if its solves "
            "stop in local minima"
        )
    elif not weighted_sum:
        causes = (
            "The solver's scalarization (not a weighted sum) reaches every Pareto "
            "point from an ideal point below every objective value, so different "
            "weights reach one point where objectives reach their ideal values "
            "together (Tchebycheff weights then send whole edges of the simplex to "
            "one point; scalarization='asf' puts each point on the ray along its "
            "weight vector), where its ideal point lies above some objective "
            "values, or where its solves stop at a local minimum"
        )
        remedy = (
            "scalarization='asf' in paretosurf.adapters where objectives reach "
            "their ideal values together; else check the solver's ideal point, or "
            "a global inner solver if its solves stop in local minima"
        )
    if not aims_even:
        causes += (
            "; with fixed weights, a vertex of the front (a kink) takes every "
            "weight of its cone, which SURF-simplex (ps.surf_simplex) avoids by "
            "placing its weights along the front"
        )
        remedy += "; ps.surf_simplex at a kink of the front"
    return [
        Finding(
            "collapsed",
            f"points have collapsed: {merged} of {p} points coincide with another. {causes}",
            remedy=remedy,
            slots=tuple(sorted({j for pair in pairs for j in pair})),
            summary=f"{merged} of {p} points coincide with others",
        )
    ]


def _distinct(coords: FloatArray, tol: float) -> int:
    """Number of distinct rows (consecutive rows closer than ``tol`` are one)."""
    if len(coords) == 0:
        return 0
    gaps = np.linalg.norm(np.diff(coords, axis=0), axis=1)
    return 1 + int(np.sum(gaps > tol))


def coincident_pairs(
    coords: FloatArray, relative_tol: float = RELATIVE_TOL
) -> set[tuple[int, int]]:
    """Pairs ``(i, j)``, ``i < j``, of rows of ``coords`` closer than ``relative_tol`` times the
    diagonal of their bounding box: points that coincide.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings import coincident_pairs
    >>> coincident_pairs(np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]))
    {(1, 2)}
    """
    from scipy.spatial import cKDTree

    extent = float(np.linalg.norm(coords.max(axis=0) - coords.min(axis=0)))
    return {
        (int(i), int(j)) for i, j in cKDTree(coords).query_pairs(relative_tol * max(extent, 1e-300))
    }


def _clusters_meet(coords: FloatArray, tol: float) -> bool:
    """Whether two points that several slots each share are the points of consecutive
    slots: the weights switch from one to the other with no point between, so that the
    stretch between them is reached by no weight (weighted sums skip it: it is non-convex,
    or straight). At a kink of a convex front, the weights on either side of the shared point
    reach points of their own."""
    p = len(coords)
    near = np.linalg.norm(coords[:, None, :] - coords[None, :, :], axis=2) <= tol
    shared = near.sum(axis=1) > 1
    return any(shared[i] and shared[i + 1] and not near[i, i + 1] for i in range(p - 1))
