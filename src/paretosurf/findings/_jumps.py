"""Gaps the front jumps across (``jump``): a stretch of the front no weight reaches, or, beside
a point another point beats at its own weight, a solve that stopped short of the optimum
(``unconverged``). :func:`jump_gaps` is the criterion, which :mod:`paretosurf.curves` also
splits a front by."""

from __future__ import annotations

from collections.abc import Sequence
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
from paretosurf.findings._ranges import SCALE_RATIO

if TYPE_CHECKING:
    from paretosurf.findings._evidence import CurveEvidence

#: A gap within this many times the balance weight of an end (``squeezed_balance``) lies in
#: the sliver of weights that objectives of disparate ranges squeeze the front into.
SQUEEZE = 10.0
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
    point in a local minimum, or at an end that left the front or runs away. Gaps that lie
    where the objectives' disparate ranges squeeze the front (:func:`squeezed_balance`) are
    named as such, with ``weight_bounds="auto"`` for remedy."""
    real = ev.real
    if not real:
        return []
    if ev.weighted_sum and ev.points.shape[1] == 2:
        balance = squeezed_balance(ev.weights, ev.ranges, real)
        if balance is not None:
            return [_squeezed_finding(ev.weights, ev.ranges, real, balance)]
    return [_jump_finding(ev.weights, real, ev.front_minima, ev.weighted_sum)]


def squeezed_balance(
    weights: FloatArray, ranges: FloatArray, jumps: Sequence[Jump]
) -> float | None:
    """The weight at which a weighted sum of the raw objectives weighs both alike, when the
    objectives' ranges differ by more than :data:`SCALE_RATIO` and every gap of ``jumps``
    lies within :data:`SQUEEZE` times that weight of the end it is near; else ``None``.

    With ranges ``r1`` and ``r2``, ``w * f1 + (1 - w) * f2`` trades the objectives evenly near
    ``w = r2 / (r1 + r2)``: objectives in units a million apart squeeze the whole front into
    weights within a millionth of one end, where a run laid out in weights cannot tell its
    points apart and leaves gaps that are no jump of the front.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([0.0, 5e-9, 0.1, 0.5, 1.0])
    >>> gaps = [Jump(0, 0.24)]
    >>> float(squeezed_balance(w, np.array([4000.0, 3e-4]), gaps))  # doctest: +ELLIPSIS
    7.4999...e-08
    >>> squeezed_balance(w, np.array([1.0, 2.0]), gaps) is None  # ranges alike
    True
    """
    r1, r2 = (float(r) for r in ranges)
    if min(r1, r2) <= 0 or max(r1, r2) <= SCALE_RATIO * min(r1, r2):
        return None
    balance = r2 / (r1 + r2)
    for jump in jumps:
        low, high = float(weights[jump.i]), float(weights[jump.i + 1])
        near_zero = high <= SQUEEZE * balance
        near_one = low >= 1.0 - SQUEEZE * (1.0 - balance)
        if not (near_zero if balance < 0.5 else near_one):
            return None
    return balance


def _squeezed_finding(
    weights: FloatArray, ranges: FloatArray, jumps: Sequence[Jump], balance: float
) -> Finding:
    """The ``jump`` finding for gaps that the objectives' ranges squeeze into a sliver of
    weights (:func:`squeezed_balance`): its remedy is weights in the run's units."""
    where = " and ".join(
        f"{_between(weights[j.i], weights[j.i + 1])} ({j.share:.0%} of its length)" for j in jumps
    )
    r1, r2 = (float(r) for r in ranges)
    side = f"below about {balance:.3g}" if balance < 0.5 else f"above about {balance:.6g}"
    return Finding(
        "jump",
        f"the front jumps {where}, where the objectives' ranges ({r1:.3g} and {r2:.3g}, a "
        f"factor of {max(r1, r2) / min(r1, r2):.3g} apart) squeeze the whole front into "
        f"weights {side}: weighted sums of the raw objectives reach that stretch only at "
        "weights too close together to lay points out by, so the gap need not be a jump of "
        "the front; spread the weights in the run's units (weight_bounds='auto': each objective "
        "divided by its range before the weights apply), or give the objectives comparable "
        "units",
        remedy="{weight_bounds}",
        options={"weight_bounds": "auto"},
        summary=f"the front squeezed into weights {side} by the objectives' units",
        slots=tuple(j for jump in jumps for j in (jump.i, jump.i + 1)),
    )


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
