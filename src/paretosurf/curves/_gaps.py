"""Where a front breaks: the gaps no weight reaches.

A two-objective front found at increasing weights is continuous where its points move with
their weights at a rate that changes gradually; a gap far larger than the others, over weights
nearly equal, or one a slot's point crossed back and forth between rounds, is a place where the
front jumps (a disconnected or non-convex front). :func:`find_jumps` is that criterion: the
``jump`` finding reports its gaps, and :func:`~paretosurf.curves.find_breaks` splits a front
into pieces at them.

Examples
--------
>>> import numpy as np
>>> w = np.linspace(0.0, 1.0, 6)
>>> points = np.array([[0, 1], [0.1, 0.9], [0.2, 0.8], [0.8, 0.2], [0.9, 0.1], [1, 0]], float)
>>> gaps = np.linalg.norm(np.diff(points, axis=0), axis=1)
>>> w[3] = w[2] + 1e-4  # the points jump across the gap at nearly the same weight
>>> jump_gaps(w, gaps, float(gaps.sum()), points, np.ptp(points, axis=0))
[2]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "JUMP_CROSSING_RATE",
    "JUMP_FACTOR",
    "JUMP_GAP",
    "JUMP_NARROW",
    "JUMP_NEAR",
    "JUMP_RATE",
    "JUMP_ROUNDS",
    "RESOLVED_GAP",
    "Jump",
    "RoundLike",
    "chord_lengths",
    "find_jumps",
    "jump_gaps",
    "median_of",
]

FloatArray = NDArray[np.float64]


class RoundLike(Protocol):
    """One round of a run's history (a :class:`~paretosurf.IterationRecord`): the weights
    solved at and the objectives found."""

    @property
    def weights(self) -> FloatArray: ...

    @property
    def points(self) -> FloatArray: ...


#: Points of weights closer than WEIGHT_TOL that lie at least this fraction of the mean gap
#: apart are resolved (objectives of very different scales), not collapsed.
RESOLVED_GAP = 0.01

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


@dataclass(frozen=True)
class Jump:
    """A gap the front jumps across: between slots ``i`` and ``i + 1``, ``share`` of the
    front's length; ``crossing``: a slot whose point went across it between rounds, with the
    weights on either side, when the history showed it."""

    i: int
    share: float
    crossing: tuple[int, float, float] | None = None


def chord_lengths(points: FloatArray) -> FloatArray:
    """The lengths of the chords between consecutive rows of ``points`` (P, M): exactly
    ``np.linalg.norm(np.diff(points, axis=0), axis=1)``, the same sums of squares, without
    ``norm``'s and ``diff``'s overhead.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves import chord_lengths
    >>> chord_lengths(np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 5.0]])).tolist()
    [5.0, 1.0]
    """
    x = np.asarray(points, dtype=np.float64)
    d = x[1:] - x[:-1]
    if d.ndim != 2 or not 0 < d.shape[1] < 8:
        return np.asarray(np.sqrt(np.add.reduce(d * d, axis=1)), dtype=np.float64)
    # (a sum over fewer than 8 columns adds them in order, as numpy's reduction does; a
    # reduction over the short last axis costs far more than these column operations)
    squares = d[:, 0] * d[:, 0]
    for j in range(1, d.shape[1]):
        squares += d[:, j] * d[:, j]
    return np.asarray(np.sqrt(squares), dtype=np.float64)


def median_of(values: FloatArray) -> float:
    """``float(np.median(values))`` of a 1-D float array, to the last bit, without
    ``np.median``'s overhead (which is most of its cost on the loop's short arrays): the
    middle element of the sorted values, or the mean ``(a + b) / 2`` of the middle two, as
    ``np.median`` computes it. Empty arrays and arrays with a NaN go to ``np.median``.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves._gaps import median_of
    >>> median_of(np.array([3.0, 1.0, 2.0])), median_of(np.array([4.0, 1.0, 2.0, np.inf]))
    (2.0, 3.0)
    """
    ordered = np.sort(values)
    n = ordered.size
    if n == 0 or ordered[-1] != ordered[-1]:  # (NaN sorts last)
        return float(np.median(values))
    half = n // 2
    if n % 2:
        return float(ordered[half])
    return float((ordered[half - 1] + ordered[half]) / 2.0)


def jump_gaps(
    weights: FloatArray,
    gaps: FloatArray,
    extent: float,
    points: FloatArray,
    ranges: FloatArray,
    history: Sequence[RoundLike] | None = None,
) -> list[int]:
    """The gaps (indices ``i`` of the chords between points ``i`` and ``i + 1``) that the
    ``jump`` finding calls jumps, and the criterion :func:`~paretosurf.curves.find_breaks` splits
    a front by.
    See :func:`_jumps` for the tests and the parameters."""
    return [j.i for j in find_jumps(weights, gaps, extent, points, ranges, history)]


def find_jumps(
    weights: FloatArray,
    gaps: FloatArray,
    extent: float,
    points: FloatArray,
    ranges: FloatArray,
    history: Sequence[RoundLike] | None = None,
) -> list[Jump]:
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
    list of Jump
    """
    if gaps.size < 2 or extent <= 0:
        return []
    p = gaps.size + 1
    w = np.asarray(weights)
    dw = w[1:] - w[:-1]
    median = median_of(gaps)
    out: dict[int, Jump] = {}
    i = int(np.argmax(gaps))
    if (
        dw[i] < 0.01 / gaps.size
        and gaps[i] > JUMP_FACTOR * max(median, 1e-300)
        and gaps[i] > 0.2 * extent
    ):
        out[i] = Jump(i, float(gaps[i] / extent))
    # the tests against the median need a front whose points are mostly apart (a collapsed
    # one has a median gap of zero, and the test above is the one that applies to it)
    if median <= RESOLVED_GAP * extent / (p - 1):
        return [out[k] for k in sorted(out)]
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.where(dw > 0, gaps / np.where(dw > 0, dw, 1.0), np.inf)
    rate = median_of(rates)
    if not math.isfinite(rate):
        return [out[k] for k in sorted(out)]
    narrow = dw <= JUMP_NARROW * median_of(dw)
    for j in (int(v) for v in np.flatnonzero(gaps >= JUMP_GAP * median)):
        if j in out:
            continue
        crossing = None
        if not narrow[j] or gaps[j] < JUMP_RATE * rate * max(float(dw[j]), 0.0):
            crossing = _crossing(j, points, ranges, history)
            if crossing is None:
                continue
        out[j] = Jump(j, float(gaps[j] / extent), crossing)
    return [out[k] for k in sorted(out)]


def _crossing(
    j: int, points: FloatArray, ranges: FloatArray, history: Sequence[RoundLike] | None
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
