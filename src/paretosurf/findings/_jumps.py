"""Gaps the front jumps across (``jump``): a stretch of the front no weight reaches, or, beside
a point another point beats at its own weight, a solve that stopped short of the optimum
(``unconverged``). :func:`jump_gaps` is the criterion, which :mod:`paretosurf.curves` also
splits a front by."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paretosurf.curves import Jump
from paretosurf.findings._common import (
    _TCHEBYCHEFF,
    _TCHEBYCHEFF_IDEAL,
    FloatArray,
    _short,
)
from paretosurf.findings._finding import Finding
from paretosurf.findings._order import SEPARATED_WEIGHTS

if TYPE_CHECKING:
    from paretosurf.findings._evidence import CurveEvidence

#: A point another point beats at its own weight that lies within this fraction of the
#: front's extent of a point another weight reaches optimally is a local minimum (the solver
#: converged, to the wrong one of the minima of a non-convex front), not a short solve.
STUCK_TOL = 1e-6


def check_unconverged(ev: CurveEvidence) -> list[Finding]:
    """``unconverged``: a gap that looks like a jump beside a point another point beats at its
    own weight (not in a local minimum): the solver stopped short, and the gap says nothing yet
    about the front's shape."""
    short = ev.short
    if not short:
        return []
    lagging, weights = ev.unconverged, ev.weights
    return [
        Finding(
            "unconverged",
            f"the points of slot{'s' if len(lagging) > 1 else ''} "
            f"{_short(lagging)} are not optimal at their own weights (another point found "
            "scores lower there), and a gap that looks like a jump ("
            f"{_between(weights[short[0].i], weights[short[0].i + 1])}) lies next to one "
            "of them: the solver stopped short of the optimum, either for too few steps (give "
            "it more steps per call or more rounds) or in a local minimum where the front is "
            "non-convex "
            "(weighted sums cannot reach such a stretch; a Tchebycheff scalarization, "
            "scalarization='tchebycheff' in paretosurf.adapters, does)",
            remedy="more steps per call or more rounds; " + _TCHEBYCHEFF + " if the solver "
            "stops in local minima of a non-convex front",
            slots=tuple(lagging),
            summary=f"slots {_short(lagging)} not optimal at their own weights",
        )
    ]


def check_jumps(ev: CurveEvidence) -> list[Finding]:
    """``jump``: the gaps the front jumps across, other than those beside a short solve or a
    point in a local minimum, or at an end that left the front or runs away."""
    real = ev.real
    if not real:
        return []
    return [_jump_finding(ev.weights, real, ev.front_minima, ev.weighted_sum)]


def _local_minima_of_front(
    weights: FloatArray, coords: FloatArray, lagging: list[int], tol: float
) -> list[int]:
    """The ``lagging`` slots (beaten at their own weights) whose points lie within ``tol`` of
    the point of a slot that is not lagging, at a weight at least ``SEPARATED_WEIGHTS``
    away: the solver converged there to a point another weight reaches optimally (a local
    minimum of the weighted sum on a non-convex front), where a short solve would stop
    anywhere."""
    optimal = [j for j in range(len(weights)) if j not in set(lagging)]
    if not optimal:
        return []
    out = []
    for k in lagging:
        near = np.linalg.norm(coords[optimal] - coords[k], axis=1) <= tol
        apart = np.abs(weights[optimal] - weights[k]) >= SEPARATED_WEIGHTS
        if np.any(near & apart):
            out.append(k)
    return out


def _jump_finding(
    weights: FloatArray, jumps: list[Jump], stuck: list[int], weighted_sum: bool = True
) -> Finding:
    """The ``jump`` finding for the gaps ``jumps``; ``stuck``: slots whose points are local
    minima of the weighted sum (see :func:`_local_minima_of_front`), named as the evidence they are;
    ``weighted_sum``: whether the solver minimizes the weighted sum (else the remedy is not
    another scalarization: the front is disconnected, or the solver's ideal point wrong)."""
    where = " and ".join(
        f"{_between(weights[j.i], weights[j.i + 1])} ({j.share:.0%} of its length)" for j in jumps
    )
    evidence = ""
    crossed = [j.crossing for j in jumps if j.crossing is not None]
    if crossed:
        k, a, b = crossed[0]
        evidence += (
            f"; the point of slot {k} flips across the gap from round to round as "
            f"its weight moves between {a:.6g} and {b:.6g}, so more rounds will not "
            "settle it"
        )
    if stuck:
        evidence += (
            f"; the points of slot{'s' if len(stuck) > 1 else ''} {_short(stuck)} "
            "are local minima of the weighted sum at their weights (points other "
            "weights reach, beaten at their own), so more steps will not move them"
        )
    first = jumps[0]
    summary = f"the front jumps {_between(weights[first.i], weights[first.i + 1])}"
    if not weighted_sum:
        return Finding(
            "jump",
            f"the front jumps {where}{evidence}: the solver's scalarization reaches "
            "no point in the gap, so the front is disconnected there (no Pareto point lies in "
            "it, and no spacing can close it); if the solver uses a Tchebycheff "
            "scalarization, its ideal point must be at or below every objective's smallest "
            "value, or it jumps over non-convex stretches too",
            summary=summary,
            remedy="none if the front is disconnected there; else check the solver's ideal point",
            slots=tuple(j for jump in jumps for j in (jump.i, jump.i + 1)),
        )
    return Finding(
        "jump",
        f"the front jumps {where}{evidence}: weighted sums cannot reach "
        "that stretch (the front is non-convex or disconnected there); use a Tchebycheff "
        "scalarization (paretosurf.adapters.from_scipy(..., scalarization='tchebycheff'))"
        + _TCHEBYCHEFF_IDEAL
        + "; a gap that stays under Tchebycheff holds no Pareto point "
        "(the front is disconnected there), and no spacing can close it",
        summary=summary,
        remedy=_TCHEBYCHEFF,
        slots=tuple(j for jump in jumps for j in (jump.i, jump.i + 1)),
    )


def _between(a: float, b: float) -> str:
    """``"between weights a and b"``, or ``"at weight a"`` when they print alike."""
    return (
        f"at weight {a:.6g}"
        if f"{a:.6g}" == f"{b:.6g}"
        else (f"between weights {a:.6g} and {b:.6g}")
    )
