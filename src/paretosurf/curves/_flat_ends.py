"""The weights known to reach the end points of a front, remembered across rounds.

Where the scalarized problem's solution stays at an end of the front for a whole interval of
weights (a weighted sum on a front whose end is not tangent to an axis: ZDT1's end
``(1, 0)`` for every weight below 1/3), the arc-length CDF is flat on that interval. A round
sees the flat stretch only up to its last slot that reached the end, and the CDF estimate
then spreads the first chord over the whole interval between that slot and the next one: the
next round's first weights fall back into the flat stretch, land on the end again, and the
spacing oscillates for rounds. Remembering the largest weight that reached the low end (and
the smallest that reached the high end) in any round, and adding it as a knot of the
estimate with no arc length before it, keeps the first chord where the front really is.

The knot only changes the CDF between two slots, so a fixed point of SURF is unchanged: its
weights sit at knots whose levels are ``n / N``. A later round that contradicts the evidence
(a weight inside the remembered stretch that reaches another point) replaces it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["EndReach", "end_runs", "update_reach", "with_end_knots"]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


class EndReach(NamedTuple):
    """The largest weight known to reach the low end's point (``low``; 0: only the first
    slot) and the smallest known to reach the high end's (``high``; 1: only the last), and
    those points (objective vectors)."""

    low: float = 0.0
    high: float = 1.0
    low_point: tuple[float, ...] = ()
    high_point: tuple[float, ...] = ()


def end_runs(same: BoolArray) -> tuple[int, int]:
    """The last slot whose point is the low end's and the first whose point is the high
    end's, from the zero-length chords ``same`` (n - 1 of them for n slots)."""
    n = len(same) + 1
    first = 0
    while first < n - 1 and same[first]:
        first += 1
    last = n - 1
    while last > first and same[last - 1]:
        last -= 1
    return first, last


def update_reach(
    previous: EndReach | None,
    weights: FloatArray,
    points: FloatArray,
    same: BoolArray,
    tol: float,
) -> EndReach:
    """Fold a round's evidence into ``previous``.

    Parameters
    ----------
    previous : EndReach or None
        What earlier rounds showed (``None``: nothing yet).
    weights : ndarray of shape (n,)
        The round's weights, increasing from 0 to 1 (n >= 2).
    points : ndarray of shape (n, m)
        The round's points (objective vectors).
    same : ndarray of bool, shape (n - 1,)
        Whether each chord between consecutive points has (numerically) no length.
    tol : float
        The distance (between objective vectors) within which an end's point counts as the
        one ``previous`` saw.

    Returns
    -------
    EndReach
        The round's own reach of each end, widened by ``previous`` where the end's point is
        the one it saw and no weight of the round contradicts it (reaches another point
        inside the remembered stretch).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves._flat_ends import update_reach
    >>> w = np.array([0.0, 0.2, 0.4, 0.7, 1.0])
    >>> pts = np.array([[1.0, 0.0], [1.0, 0.0], [0.5, 0.3], [0.2, 0.7], [0.0, 1.0]])
    >>> seen = update_reach(None, w, pts, np.array([True, False, False, False]), 1e-9)
    >>> seen.low, seen.high
    (0.2, 1.0)
    >>> w2 = np.array([0.0, 0.3, 0.5, 0.8, 1.0])
    >>> distinct = np.array([False, False, False, False])
    >>> update_reach(seen, w2, pts, distinct, 1e-9).low      # nothing contradicts 0.2
    0.2
    >>> w3 = np.array([0.0, 0.1, 0.5, 0.8, 1.0])
    >>> update_reach(seen, w3, pts, distinct, 1e-9).low      # 0.1 reached another point
    0.0
    """
    n = len(weights)
    first, last = end_runs(same)
    low, high = float(weights[first]), float(weights[last])
    lo_point = tuple(float(v) for v in points[0])
    hi_point = tuple(float(v) for v in points[-1])
    if previous is not None:
        if (
            first + 1 < n
            and previous.low < weights[first + 1]
            and _close(previous.low_point, lo_point, tol)
        ):
            low = max(low, previous.low)  # no weight up to previous.low reached another point
        if (
            last >= 1
            and previous.high > weights[last - 1]
            and _close(previous.high_point, hi_point, tol)
        ):
            high = min(high, previous.high)
    return EndReach(low, high, lo_point, hi_point)


def _close(a: tuple[float, ...], b: tuple[float, ...], tol: float) -> bool:
    return len(a) == len(b) and float(np.linalg.norm(np.subtract(a, b))) <= tol


def with_end_knots(
    weights: FloatArray,
    coordinates: FloatArray,
    same: BoolArray,
    reach: EndReach,
    breaks: Sequence[int] = (),
) -> tuple[FloatArray, FloatArray, list[int]]:
    """The round's weights and points with a knot added at each remembered reach that lies
    between the end's last slot and the next one (a copy of the end's point, so that its
    chord has no length).

    Parameters
    ----------
    weights, coordinates : ndarray
        The round's weights (increasing) and points in the run's coordinates.
    same : ndarray of bool
        Whether each chord has no length (see :func:`update_reach`).
    reach : EndReach
        What the rounds so far showed.
    breaks : sequence of int
        Indices of chords (chord ``i`` joins points ``i`` and ``i + 1``) to carry over.

    Returns
    -------
    weights, coordinates : ndarray
        With zero, one or two rows added.
    breaks : list of int
        ``breaks`` as indices of the same chords among the new rows.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves._flat_ends import EndReach, with_end_knots
    >>> w = np.array([0.0, 0.5, 1.0])
    >>> pts = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    >>> w2, p2, b2 = with_end_knots(w, pts, np.array([False, False]), EndReach(0.3, 1.0), [0, 1])
    >>> w2.tolist(), p2[1].tolist(), b2
    ([0.0, 0.3, 0.5, 1.0], [1.0, 0.0], [1, 2])
    """
    w = np.asarray(weights, dtype=np.float64)
    c = np.asarray(coordinates, dtype=np.float64)
    marks = [int(b) for b in breaks]
    first, last = end_runs(same)
    if last >= 1 and last - 1 >= first and w[last - 1] < reach.high < w[last]:
        # a copy of the high end's point before it: the chords from `last` on move up one
        w, c = np.insert(w, last, reach.high), np.insert(c, last, c[last], axis=0)
        marks = [b + 1 if b >= last else b for b in marks]
    if first + 1 < len(w) and w[first] < reach.low < w[first + 1]:
        # a copy of the low end's point after it: the chords from `first` on move up one
        w, c = np.insert(w, first + 1, reach.low), np.insert(c, first + 1, c[first], axis=0)
        marks = [b + 1 if b >= first else b for b in marks]
    return w, c, marks
