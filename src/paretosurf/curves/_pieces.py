"""The pieces of a disconnected front: where a round's points break, and how SURF shares its
points among the pieces.

A front may fall apart into pieces (ZDT3's five; a model with discrete choices; a design
space with islands). The gaps between them hold no Pareto point, so they are no arc length:
SURF spreads its N + 1 points by arc length *within* the pieces. This module finds the
pieces of one round and lays out the next round's weights:

- :func:`find_breaks`: the chords between consecutive points (in weight order) that cross a
  gap. A chord is a gap when the diagnostics call it a jump
  (:func:`paretosurf.curves.jump_gaps`, the criterion of the ``jump`` finding), when it
  is long and follows points that coincide (several weights reaching one end of a piece, then
  the next piece), or, for a solver that declares a Tchebycheff scalarization, when a point
  beside it is a *corner* solution: the minimizer of a Tchebycheff scalarization lies on the
  ray from the ideal point along its weight, unless that ray passes through a gap; the
  minimizer is then the end of a piece, off the ray (:func:`ray_offsets`).
- :func:`allocate`: how many points each piece gets: one at least, two (its ends) where it has
  length and there is room, and the N + 1 - P segments shared in proportion to the pieces'
  arc lengths (largest remainder), so that consecutive points are as evenly spaced as the
  pieces allow.
- :func:`piece_targets`: the arc-length levels of the points within the pieces, with the
  pieces' own end points at their ends.
- :func:`limit_end_weight`: for a Tchebycheff scalarization, the weight whose ray reaches an
  end of a piece that no weight reaches on its own (a weakly dominated limit, as every left
  end of ZDT3's pieces), from the piece's two outermost points and the point across the gap.

:class:`Piece` is the record a result reports (``res.pieces``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf.curves._gaps import JUMP_GAP, chord_lengths, jump_gaps, median_of

__all__ = [
    "DUPLICATE_TOL",
    "RAY_GAP",
    "RAY_TOL",
    "Piece",
    "allocate",
    "filled_chords",
    "find_breaks",
    "limit_end_weight",
    "nondominated",
    "piece_targets",
    "pieces_from_breaks",
    "ray_offsets",
    "resolved_offsets",
]

FloatArray = NDArray[np.float64]

#: Consecutive points closer than this share of the front's length (gaps excluded) are one
#: point: several weights that reach the same end of a piece (solves that stop at a
#: tolerance, such as a population search and its polish, leave them apart by about 1e-5).
DUPLICATE_TOL = 1e-4
#: A point whose Tchebycheff terms differ by more than this share of their sum at its own
#: weight is off its weight's ray (a corner solution: the end of a piece). A converged solve
#: of an interior point has them equal up to the augmentation (``rho``, 1e-4 by default) and
#: the solver's tolerance.
RAY_TOL = 1e-2
#: ... and shows a gap only where its weight's ray crosses the chord to the neighbouring point
#: (the one the offset points to) at least this share of the even spacing (the chords' total
#: over the P - 1 segments) away from it: the stretch that the solve shows to hold no Pareto
#: point. A solver that places its points only to within a small distance along the front
#: (a population search and its polish on ZDT6, where most of the box maps onto one end; a
#: front known at sample points) leaves each point off its ray by that much, and near an end
#: of the front, where one of the Tchebycheff terms is nearly zero, that small distance is a
#: large relative offset: no gap at the run's resolution.
RAY_GAP = 0.15
#: A point found inside the box two consecutive points span (better than each in one
#: objective, worse in the other), and farther than this share of the chord between them
#: from each (the ends of a piece that a solve found only near its true end), shows a part
#: of the front between them: their chord crosses no gap. (Where the front breaks between
#: two Pareto-optimal points, every point in that box would put a Pareto point there.)
FILL_NEAR = 0.1


@dataclass(frozen=True)
class Piece:
    """One connected piece of the front as a round found it.

    Attributes
    ----------
    first, last : int
        Its first and last slot (in weight order, inclusive).
    length : float
        Its arc length (sum of the chords between its points, in the run's coordinates).
    share : int
        The number of points the next round gives it: its share under :func:`allocate` when
        SURF lays its weights out by pieces (``warm_start="best"``), otherwise the points it
        has (the weights then follow the one-piece rule).
    """

    first: int
    last: int
    length: float
    share: int

    @property
    def slots(self) -> tuple[int, ...]:
        """Its slots, in weight order."""
        return tuple(range(self.first, self.last + 1))

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form; :meth:`from_dict` inverts it."""
        return {
            "first": self.first,
            "last": self.last,
            "length": self.length,
            "share": self.share,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Piece:
        """Inverse of :meth:`to_dict`."""
        return cls(int(data["first"]), int(data["last"]), float(data["length"]), int(data["share"]))


def ray_offsets(
    weights: FloatArray,
    points: FloatArray,
    coefficients: FloatArray,
    ideals: FloatArray,
) -> FloatArray:
    """How far each point lies off the ray of its weight under a Tchebycheff scalarization:
    ``(a1 - a2) / (a1 + a2)`` with the terms ``a_m = c_m (h_m - z_m)``.

    Zero on the ray (where a converged Tchebycheff solve of an interior point lands);
    negative when objective 2's term is the larger (the ray passes *before* the point in
    weight order: the point starts a piece), positive when objective 1's is (the point ends a
    piece).

    Parameters
    ----------
    weights : ndarray, shape (P,)
    points : ndarray, shape (P, 2)
    coefficients : ndarray, shape (P, 2)
        The scalarization's coefficients ``c(w)`` at each weight.
    ideals : ndarray, shape (P, 2)
        The ideal point each point was solved with.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves._pieces import ray_offsets
    >>> w = np.array([0.5, 0.5])
    >>> pts = np.array([[1.0, 1.0], [1.0, 3.0]])     # on the ray; objective 2 dominates
    >>> ray_offsets(w, pts, np.c_[w, 1 - w], np.zeros((2, 2))).tolist()
    [0.0, -0.5]
    """
    terms = coefficients * (points - ideals)
    total = terms.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(total > 0, (terms[:, 0] - terms[:, 1]) / np.where(total > 0, total, 1), 0)
    return np.asarray(out, dtype=np.float64)


def resolved_offsets(
    offsets: FloatArray,
    points: FloatArray,
    coords: FloatArray,
    coefficients: FloatArray,
    ideals: FloatArray,
) -> FloatArray:
    """:func:`ray_offsets` ``offsets`` less those that show no gap at the run's resolution
    (set to 0): a point off its ray by more than :data:`RAY_TOL` shows a gap between it and
    the neighbour its offset points to (the next point for a positive offset, the previous
    for a negative one) only where its weight's ray crosses the chord between them at least
    :data:`RAY_GAP` of the even spacing away from it (in ``coords``, where the run measures
    distances). The end points (whose rays are the axes) keep their offsets.

    Parameters
    ----------
    offsets : ndarray, shape (P,)
        :func:`ray_offsets` of the points.
    points : ndarray, shape (P, 2)
        The objectives, in weight order.
    coords : ndarray, shape (P, K)
        The points in the run's coordinates (an affine map of the objectives per axis, which
        keeps where a ray crosses a chord).
    coefficients, ideals : ndarray, shape (P, 2)
        As for :func:`ray_offsets`.

    Returns
    -------
    ndarray, shape (P,)

    Examples
    --------
    A point of a connected front found a hair beside its ray near the front's end (where
    the Tchebycheff terms make that a large relative offset), and a corner solution whose
    ray crosses the chord to the next piece halfway:

    >>> import numpy as np
    >>> from paretosurf.curves._pieces import ray_offsets, resolved_offsets
    >>> z = np.zeros((4, 2))
    >>> pts = np.array([[1.0, 0.0], [0.999, 0.002], [0.5, 0.5], [0.0, 1.0]])
    >>> w = np.array([0.0, 0.003, 0.5, 1.0])
    >>> off = ray_offsets(w, pts, np.c_[w, 1 - w], z)
    >>> round(float(off[1]), 2), float(resolved_offsets(off, pts, pts, np.c_[w, 1 - w], z)[1])
    (0.2, 0.0)
    >>> corner = np.array([[1.0, 0.0], [0.7, 0.1], [0.2, 0.7], [0.0, 1.0]])
    >>> w = np.array([0.0, 0.5, 0.75, 1.0])
    >>> off = ray_offsets(w, corner, np.c_[w, 1 - w], z)
    >>> kept = resolved_offsets(off, corner, corner, np.c_[w, 1 - w], z)
    >>> round(float(off[1]), 2), round(float(kept[1]), 2)
    (0.75, 0.75)
    """
    off = np.asarray(offsets, dtype=np.float64).copy()
    pts = np.asarray(points, dtype=np.float64)
    x = np.asarray(coords, dtype=np.float64)
    c = np.asarray(coefficients, dtype=np.float64)
    z = np.asarray(ideals, dtype=np.float64)
    p = len(off)
    if p < 3:
        return off
    chords = np.linalg.norm(np.diff(x, axis=0), axis=1)
    spacing = float(chords.sum()) / (p - 1)
    if not np.isfinite(spacing) or spacing <= 0:
        return off
    for k in range(1, p - 1):
        if abs(off[k]) <= RAY_TOL:
            continue
        j = k + 1 if off[k] > 0 else k - 1  # the neighbour the ray passes towards
        e, step = pts[k] - z[k], pts[j] - pts[k]
        # where c1 (e1 + t step1) = c2 (e2 + t step2): the ray of point k's weight
        den = c[k, 0] * step[0] - c[k, 1] * step[1]
        t = (c[k, 1] * e[1] - c[k, 0] * e[0]) / den if den != 0 else 0.0
        t = min(max(float(t), 0.0), 1.0) if np.isfinite(t) else 0.0
        if t * chords[min(k, j)] < RAY_GAP * spacing:
            off[k] = 0.0
    return off


def nondominated(points: FloatArray) -> FloatArray:
    """The finite rows of the two-objective ``points`` that no other row dominates, by
    increasing first objective (one of rows that coincide).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves._pieces import nondominated
    >>> nondominated(np.array([[0.0, 1.0], [0.5, 0.5], [0.6, 0.6], [1.0, 0.0]])).tolist()
    [[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]]
    """
    x = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    finite = np.isfinite(x)
    if not finite.all():
        x = x[finite[:, 0] & finite[:, 1]]
    if not len(x):
        return x
    x = x[np.lexsort((x[:, 1], x[:, 0]))]
    second = x[:, 1]
    best = np.minimum.accumulate(second)
    keep = np.empty(len(x), dtype=bool)
    keep[0] = True
    np.less(second[1:], best[:-1], out=keep[1:])
    return np.asarray(x[keep], dtype=np.float64)


def filled_chords(points: FloatArray, seen: FloatArray) -> set[int]:
    """The chords ``i`` between consecutive ``points`` (two objectives, in weight order)
    across which a point of ``seen`` (objectives found so far) shows a part of the front: it
    lies strictly inside the box points ``i`` and ``i + 1`` span, and farther than
    :data:`FILL_NEAR` of the chord from each of them (distances in objectives divided by the
    points' ranges).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.curves._pieces import filled_chords
    >>> pts = np.array([[1.0, 0.0], [0.8, 0.2], [0.2, 0.8], [0.0, 1.0]])
    >>> filled_chords(pts, np.array([[0.5, 0.45], [0.9, 0.3]]))      # (0.9, 0.3): no box
    {1}
    """
    x = np.asarray(points, dtype=np.float64)
    q = np.asarray(seen, dtype=np.float64).reshape(-1, 2)
    if x.ndim != 2 or x.shape[1] != 2 or len(x) < 2 or not len(q):
        return set()
    scale = np.ptp(x, axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    tie = 1e-9 * scale
    out = set()
    for i in range(len(x) - 1):
        a, b = x[i], x[i + 1]
        lo, hi = np.minimum(a, b) + tie, np.maximum(a, b) - tie
        inside = q[np.all((q > lo) & (q < hi), axis=1)]
        if not len(inside):
            continue
        chord = float(np.linalg.norm((b - a) / scale))
        near = FILL_NEAR * chord
        far_a = np.linalg.norm((inside - a) / scale, axis=1) > near
        far_b = np.linalg.norm((inside - b) / scale, axis=1) > near
        if np.any(far_a & far_b):
            out.add(i)
    return out


def find_breaks(
    weights: FloatArray,
    coords: FloatArray,
    *,
    offsets: FloatArray | None = None,
    points: FloatArray | None = None,
    seen: FloatArray | None = None,
    chords: FloatArray | None = None,
) -> list[int]:
    """The chords ``i`` (between points ``i`` and ``i + 1``, in weight order) that cross a
    gap of the front: a jump, a long chord after points that coincide, a point off its
    weight's Tchebycheff ray (``offsets``), unless a point found in the box the chord spans
    shows the front there (``points`` and ``seen``: :func:`filled_chords`).

    Parameters
    ----------
    weights : ndarray, shape (P,)
        Increasing weights.
    coords : ndarray, shape (P, M)
        The points in the coordinates the run measures distances in.
    offsets : ndarray, shape (P,), optional
        :func:`ray_offsets` of the points, for a solver with a Tchebycheff scalarization.
    points, seen : ndarray, shape (P, 2) and (K, 2), optional
        The points' objectives, and objectives found before (earlier rounds): a chord whose
        box holds one of them (or another of ``points``) crosses no gap.
    chords : ndarray, shape (P - 1,), optional
        The chords' lengths in ``coords`` (:func:`chord_lengths`), where the caller has them.

    Returns
    -------
    list of int
        Increasing chord indices.

    Examples
    --------
    Two pieces, the second reached by three weights at its first point:

    >>> import numpy as np
    >>> from paretosurf.curves._pieces import find_breaks
    >>> w = np.linspace(0, 1, 8)
    >>> x = np.array([[1.0, 0.0], [0.9, 0.1], [0.8, 0.2], [0.3, 0.6],
    ...               [0.3, 0.6], [0.3, 0.6], [0.2, 0.7], [0.1, 0.8]])
    >>> find_breaks(w, x)
    [2]
    """
    w = np.asarray(weights, dtype=np.float64)
    x = np.asarray(coords, dtype=np.float64)
    p = len(w)
    if p < 3 or x.ndim != 2:
        return []
    if chords is None:
        chords = chord_lengths(x)
    extent = float(chords.sum())
    if not np.isfinite(extent) or extent <= 0:
        return []
    ranges = x.max(axis=0) - x.min(axis=0)
    out = set(jump_gaps(w, chords, extent, x, ranges))
    same = chords <= DUPLICATE_TOL * extent
    # each chord's nearest chord of non-zero length on either side: points that coincide at
    # an end of the whole front are its end, not evidence of a gap
    apart_at = np.flatnonzero(~same)
    if apart_at.size > 1:
        median = median_of(chords[apart_at])
        # points that coincide (weights reaching one end of a piece), then a long chord
        beside = np.zeros(apart_at.size, dtype=bool)
        beside[1:] = apart_at[:-1] < apart_at[1:] - 1  # coinciding points before it
        beside[:-1] |= apart_at[1:] > apart_at[:-1] + 1  # ... or after it
        long = chords[apart_at] >= JUMP_GAP * median
        out.update(apart_at[beside & long].tolist())
    if offsets is not None:
        off = np.asarray(offsets, dtype=np.float64)
        inner = np.arange(len(chords))
        # point i ends a piece (its weight's ray passes after it), or point i + 1 starts one
        ends = ((off[:-1] > RAY_TOL) & (inner > 0)) | ((off[1:] < -RAY_TOL) & (inner + 1 < p - 1))
        out.update(np.flatnonzero(ends & ~same).tolist())
    if out and points is not None and np.shape(points) == (p, 2):
        known = np.asarray(points, dtype=np.float64)
        if seen is not None and np.size(seen):
            known = np.vstack([np.asarray(seen, dtype=np.float64).reshape(-1, 2), known])
        out -= filled_chords(np.asarray(points, dtype=np.float64), known)
    return sorted(out)


def pieces_from_breaks(breaks: Sequence[int], n_points: int) -> list[tuple[int, int]]:
    """The pieces' ``(first, last)`` slots for the chords ``breaks`` of ``n_points`` points.

    Examples
    --------
    >>> from paretosurf.curves._pieces import pieces_from_breaks
    >>> pieces_from_breaks([2, 4], 7)
    [(0, 2), (3, 4), (5, 6)]
    """
    bounds = [-1, *sorted(int(b) for b in breaks), n_points - 1]
    return [(a + 1, b) for a, b in itertools.pairwise(bounds)]


def allocate(
    lengths: Sequence[float], n_points: int, *, previous: Sequence[int] | None = None
) -> list[int]:
    """How many of ``n_points`` points each piece gets: every piece one; the
    ``n_points - P`` segments shared in proportion to the arc ``lengths`` (largest
    remainder, ties to the earlier piece), so that consecutive points are evenly spaced
    across the pieces; and each piece with length two (a point at each end) where there is
    room, taken from the pieces with the most.

    ``previous``: the shares of the round before (as many pieces), kept while each piece's
    segments stay within one of its proportional share, so that two pieces of nearly equal
    share do not trade a point back and forth as their measured lengths move (each trade
    moves every point of both pieces).

    Examples
    --------
    >>> from paretosurf.curves._pieces import allocate
    >>> allocate([1.0, 1.0, 2.0], 11)       # 8 segments: 2, 2, 4
    [3, 3, 5]
    >>> allocate([10.0, 0.1], 6)            # the short piece keeps both its ends
    [4, 2]
    >>> allocate([1.2, 0.9], 10)            # 8 segments: 4.57 and 3.43
    [6, 4]
    >>> allocate([1.2, 0.9], 10, previous=[5, 5])   # 4 and 4 segments, each within one
    [5, 5]
    >>> allocate([2.0, 1.0], 10, previous=[5, 5])   # 5.33 and 2.67: shared anew
    [6, 4]
    """
    a = np.asarray(lengths, dtype=np.float64)
    p = a.size
    if p == 0:
        return []
    if n_points < p:
        raise ValueError(f"{n_points} points cannot cover {p} pieces")
    segments = n_points - p
    total = float(a.sum())
    ideal = segments * a / total if total > 0 else np.full(p, segments / p)
    if previous is not None and len(previous) == p and sum(previous) == n_points:
        kept = np.asarray(previous, dtype=np.float64) - 1.0  # each piece's segments
        if np.all(np.abs(kept - ideal) < 1.0) and np.all((kept >= 1.0) | (a <= 0.0)):
            return [int(c) for c in previous]
    counts = np.floor(ideal).astype(int)
    rest = segments - int(counts.sum())
    order = sorted(range(p), key=lambda k: (-(ideal[k] - counts[k]), k))
    for k in order[:rest]:
        counts[k] += 1
    # a piece with length keeps both its ends where the others can spare a point
    for k in range(p):
        if a[k] > 0 and counts[k] == 0:
            donor = max(range(p), key=lambda j: (counts[j], -j))
            if counts[donor] >= 2:
                counts[donor] -= 1
                counts[k] += 1
    return [int(c) + 1 for c in counts]


def piece_targets(lengths: Sequence[float], shares: Sequence[int]) -> list[FloatArray]:
    """Per piece, the arc-length positions (from its start, in ``[0, length]``) of its
    ``share`` points, evenly spaced with one at each end (one point: the middle).

    Examples
    --------
    >>> from paretosurf.curves._pieces import piece_targets
    >>> [t.tolist() for t in piece_targets([2.0, 1.0], [3, 1])]
    [[0.0, 1.0, 2.0], [0.5]]
    """
    out = []
    for length, n in zip(lengths, shares, strict=True):
        if n == 1:
            out.append(np.array([0.5 * float(length)]))
        else:
            out.append(np.linspace(0.0, float(length), int(n)))
    return out


def limit_end_weight(
    end: FloatArray, inner: FloatArray, across: FloatArray, ideal: FloatArray
) -> float | None:
    """The weight whose Tchebycheff ray meets a piece at its end facing a gap, for an end
    that only a limit of weights reaches.

    A weight whose ray from the ``ideal`` point crosses a gap has its minimizer at the end
    of a piece: where that end is a properly Pareto-optimal point it is reached by a whole
    interval of weights (a corner solution). The other end of the gap may be a limit only:
    when the piece ends on the point that the end across the gap weakly dominates (the same
    ``f2``, a larger ``f1``, as every left end of ZDT3's pieces; or the same ``f1``), a ray
    through it ties with the point across, and every weight beyond lands across the gap.
    Weights approaching the tie from inside the piece reach points approaching that end.

    The end is found where the line through the piece's two outermost points, ``inner`` and
    ``end``, meets the coordinate it shares with ``across``: the ``f2`` of ``across`` when
    ``across`` lies at a smaller ``f1`` than ``end`` (a ray ties there only), else its ``f1``.
    Its ray's weight ``w``, with ``w (h1 - z1) = (1 - w) (h2 - z2)``, is returned.

    Parameters
    ----------
    end, inner : ndarray of shape (2,)
        The piece's point nearest the gap and the one next to it.
    across : ndarray of shape (2,)
        The point across the gap (the neighbouring piece's end).
    ideal : ndarray of shape (2,)
        The Tchebycheff scalarization's ideal point.

    Returns
    -------
    float or None
        The weight in ``[0, 1]``, or ``None`` where the line does not reach that coordinate
        beyond ``end`` or its point is not above the ideal point.

    Examples
    --------
    A piece along ``f2 = 1 - f1`` that stops at ``f1 = 0.4`` where the next piece's end
    ``(0.2, 0.6)`` weakly dominates it; rays from the origin:

    >>> import numpy as np
    >>> from paretosurf.curves._pieces import limit_end_weight
    >>> w = limit_end_weight(
    ...     np.array([0.45, 0.55]), np.array([0.5, 0.5]), np.array([0.2, 0.6]), np.zeros(2)
    ... )
    >>> round(w, 6)                      # the ray through (0.4, 0.6): 0.6 / (0.4 + 0.6)
    0.6
    """
    e, i, q, z = (np.asarray(v, dtype=np.float64) for v in (end, inner, across, ideal))
    axis = 1 if q[0] < e[0] else 0  # the coordinate the limit end shares with ``across``
    step = e - i
    if step[axis] == 0.0:
        return None
    t = (q[axis] - e[axis]) / step[axis]
    if not np.isfinite(t) or t <= 0.0:
        return None
    excess = e + t * step - z
    total = float(excess.sum())
    if not np.all(excess > 0.0) or not np.isfinite(total):
        return None
    return float(excess[1] / total)
