"""Gaps the front jumps across (``jump``): a stretch of the front no weight reaches, or, beside
a point another point beats at its own weight, a solve that stopped short of the optimum
(``unconverged``). :func:`jump_gaps` is the criterion, which :mod:`paretosurf.pieces` also
splits a front by."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paretosurf.findings._collapse import RESOLVED_GAP
from paretosurf.findings._common import (
    _TCHEBYCHEFF,
    _TCHEBYCHEFF_IDEAL,
    FloatArray,
    _Round,
    _short,
)
from paretosurf.findings._finding import Finding
from paretosurf.findings._order import SEPARATED_WEIGHTS

if TYPE_CHECKING:
    from paretosurf.findings._evidence import CurveEvidence

#: A gap this many times the median gap, at nearly the same weight, is a jump.
JUMP_FACTOR = 5.0
#: A gap at least this many times the median gap is a jump whatever its share of the front
#: when the weights tell so (below): on a continuous front, solved well, SURF evens the gaps,
#: so that no gap stays this much larger than the others.
JUMP_GAP = 1.5
#: ... when its points lie this many times farther apart per unit of weight than the front's
#: median rate (gap over weight interval): the weights are nearly equal where the points are
#: far apart, and on a continuous front a point moves with its weight at a rate that changes
#: gradually.
JUMP_RATE = 50.0
#: ... over a weight interval at most this share of the median one: evenly spaced weights
#: (Uniform-w) show where the front is steep, not whether it is continuous there; a gap that
#: persists where the method has drawn its weights together is one no weight reaches.
JUMP_NARROW = 0.5
#: ... or when a slot's point, in the last rounds of the history, went from one end of the
#: gap to the other and back (each time at a rate, distance over weight change, this many
#: times the median rate): the weight straddles the place where the front jumps.
JUMP_CROSSING_RATE = 3.0
#: A point within this fraction of a gap's length of one end of the gap is at that end.
JUMP_NEAR = 0.25
#: The number of last rounds of the history the crossing test looks at.
JUMP_ROUNDS = 6
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


@dataclass(frozen=True)
class _Jump:
    """A gap the front jumps across: between slots ``i`` and ``i + 1``, ``share`` of the
    front's length; ``crossing``: a slot whose point went across it between rounds, with the
    weights on either side, when the history showed it."""

    i: int
    share: float
    crossing: tuple[int, float, float] | None = None


def jump_gaps(
    weights: FloatArray,
    gaps: FloatArray,
    extent: float,
    points: FloatArray,
    ranges: FloatArray,
    history: Sequence[_Round] | None = None,
) -> list[int]:
    """The gaps (indices ``i`` of the chords between points ``i`` and ``i + 1``) that the
    ``jump`` finding calls jumps: the criterion :mod:`paretosurf.pieces` splits a front by.
    See :func:`_jumps` for the tests and the parameters."""
    return [j.i for j in _jumps(weights, gaps, extent, points, ranges, history)]


def _jumps(
    weights: FloatArray,
    gaps: FloatArray,
    extent: float,
    points: FloatArray,
    ranges: FloatArray,
    history: Sequence[_Round] | None = None,
) -> list[_Jump]:
    """The gaps the front jumps across, in the order of the weights.

    The largest gap is one when it is many times the median gap and a large share of the
    front, over a weight interval far narrower than the even spacing. So is any gap of at
    least ``JUMP_GAP`` times the median gap, whatever its share, when the weights show that
    the front is not continuous there: over a weight interval at most ``JUMP_NARROW`` times
    the median one, its points lie ``JUMP_RATE`` times farther apart per unit of weight than
    the front's median rate (gap over weight interval), or, in the last
    rounds of ``history``, a slot's point went from one end of the gap to the other and back,
    each time at ``JUMP_CROSSING_RATE`` times that rate (its weight straddles the jump, and
    SURF can then neither settle it nor fill the gap).

    Parameters
    ----------
    weights : ndarray, shape (P,)
        Increasing weights.
    gaps : ndarray, shape (P - 1,)
        Distances between consecutive points, in the run's coordinates.
    extent : float
        The front's length (the sum of ``gaps``).
    points : ndarray, shape (P, 2)
        The objectives; the crossing test measures the history's points (in objectives) in
        units of their ``ranges`` over these points.
    ranges : ndarray, shape (2,)
        The objectives' ranges over ``points``.
    history : sequence of IterationRecord, optional
        The run's rounds, oldest first (the crossing test uses the last ``JUMP_ROUNDS``).

    Returns
    -------
    list of _Jump
    """
    if gaps.size < 2 or extent <= 0:
        return []
    p = gaps.size + 1
    dw = np.diff(weights)
    median = float(np.median(gaps))
    out: dict[int, _Jump] = {}
    i = int(np.argmax(gaps))
    if (
        dw[i] < 0.01 / gaps.size
        and gaps[i] > JUMP_FACTOR * max(median, 1e-300)
        and gaps[i] > 0.2 * extent
    ):
        out[i] = _Jump(i, float(gaps[i] / extent))
    # the tests against the median need a front whose points are mostly apart (a collapsed
    # one has a median gap of zero, and the test above is the one that applies to it)
    if median <= RESOLVED_GAP * extent / (p - 1):
        return [out[k] for k in sorted(out)]
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.where(dw > 0, gaps / np.where(dw > 0, dw, 1.0), np.inf)
    rate = float(np.median(rates))
    if not math.isfinite(rate):
        return [out[k] for k in sorted(out)]
    narrow = dw <= JUMP_NARROW * float(np.median(dw))
    for j in (int(v) for v in np.flatnonzero(gaps >= JUMP_GAP * median)):
        if j in out:
            continue
        crossing = None
        if not narrow[j] or gaps[j] < JUMP_RATE * rate * max(float(dw[j]), 0.0):
            crossing = _crossing(j, points, ranges, history)
            if crossing is None:
                continue
        out[j] = _Jump(j, float(gaps[j] / extent), crossing)
    return [out[k] for k in sorted(out)]


def _crossing(
    j: int, points: FloatArray, ranges: FloatArray, history: Sequence[_Round] | None
) -> tuple[int, float, float] | None:
    """A slot whose point, in the last rounds of ``history``, went from one end of the gap
    between points ``j`` and ``j + 1`` to the other and back, each time at a rate (distance
    over weight change) of at least ``JUMP_CROSSING_RATE`` times the median rate of the
    rounds' fronts; ``(slot, weight on the j side, weight on the j + 1 side)`` of its last
    crossing, or ``None``.

    Distances are measured in the objectives divided by their ``ranges`` over ``points``.
    """
    if not history:
        return None
    p = len(points)
    rounds = [
        r
        for r in list(history)[-(JUMP_ROUNDS + 1) :]
        if np.ndim(r.weights) == 1
        and np.shape(r.weights)[0] == p
        and np.shape(r.points) == points.shape
    ]
    if len(rounds) < 3:
        return None
    scale = np.where(ranges > 0, ranges, 1.0)
    ends = points[[j, j + 1]] / scale
    gap = float(np.linalg.norm(ends[1] - ends[0]))
    w = np.stack([np.asarray(r.weights, dtype=np.float64) for r in rounds])  # [round, slot]
    x = np.stack([np.asarray(r.points, dtype=np.float64) / scale for r in rounds])
    # each round's median rate of its own front (its gaps over its weight intervals)
    steps = np.linalg.norm(np.diff(x, axis=1), axis=2)
    dw = np.diff(w, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.median(np.where(dw > 0, steps / np.where(dw > 0, dw, 1.0), np.inf), axis=1)
    # side[r, k]: 0 or 1 when slot k's point in round r is at that end of the gap, else -1
    near = np.linalg.norm(x[:, :, None, :] - ends[None, None, :, :], axis=3) <= JUMP_NEAR * gap
    side = np.where(near[:, :, 0], 0, np.where(near[:, :, 1], 1, -1))
    for k in range(p):
        found: list[tuple[int, float, float]] = []
        for r in range(1, len(rounds)):
            a, b = int(side[r - 1, k]), int(side[r, k])
            if a < 0 or b < 0 or a == b or not math.isfinite(float(rate[r])):
                continue
            moved = float(np.linalg.norm(x[r, k] - x[r - 1, k]))
            change = abs(float(w[r, k] - w[r - 1, k]))
            if moved >= JUMP_CROSSING_RATE * float(rate[r]) * change:
                before, after = float(w[r - 1, k]), float(w[r, k])
                found.append((a, before, after) if a == 0 else (a, after, before))
        if {a for a, _, _ in found} == {0, 1}:  # there and back
            _, w_j, w_next = found[-1]
            return k, w_j, w_next
    return None


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
    weights: FloatArray, jumps: list[_Jump], stuck: list[int], weighted_sum: bool = True
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
