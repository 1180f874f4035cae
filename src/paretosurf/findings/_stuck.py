"""A solver that is stuck (``stuck``): it returns one point whatever the weight, most slots
never left the point they started on, or no point changed over the rounds while the weights
moved (:func:`frozen_and_beaten`, which also tells the loop that more rounds cannot help)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from paretosurf.findings._collapse import WEIGHT_TOL
from paretosurf.findings._common import FloatArray, _Round, _short
from paretosurf.findings._finding import Finding
from paretosurf.findings._local_minima import _above_chord, _nonconvex_minima

if TYPE_CHECKING:
    from paretosurf.findings._evidence import Evidence

#: Points closer than this fraction of the objectives' magnitude (``max(|f|, 1)``) are one
#: point for the ``stuck`` checks (which cannot measure against the front's extent: a stuck
#: solver's front has none).
SAME_POINT = 1e-12
#: The share of the slots (and at least 3) on one point that never moved for a solver to be
#: stuck at its start.
STUCK_SHARE = 0.5
#: The rounds (at least) in which no point may move while the weights move by at least
#: ``STUCK_WEIGHT_MOVE`` of the even spacing (median over the slots) for a solver to be stuck
#: on its warm starts.
STUCK_ROUNDS = 3
STUCK_WEIGHT_MOVE = 0.1
#: ... unless every point lies within this share of the range of an objective's best: the
#: slots sit at the ends of a stretch of the front that weighted sums skip (concave).
END_SHARE = 1e-3


def check_one_point(ev: Evidence) -> list[Finding]:
    """``stuck``: every slot, at different weights, on one point (every objective constant over
    the points, which ``constant`` would wrongly blame on the objectives)."""
    if ev.constant.size != ev.points.shape[1]:
        return []
    one = _one_point(ev.weights, ev.points)
    return [] if one is None else [one]


def check_stuck(ev: Evidence) -> list[Finding]:
    """``stuck`` from the history (:func:`_stuck`)."""
    still = _stuck(
        ev.weights,
        ev.points,
        ev.ranges,
        ev.history,
        ev.weighted_sum,
        own_lagging=lambda: ev.own_weight_lagging,
    )
    return [] if still is None else [still]


def _same_point(a: FloatArray, b: FloatArray, level: FloatArray) -> NDArray[np.bool_]:
    """Whether the rows of ``a`` equal ``b`` up to ``SAME_POINT`` times ``level``."""
    return np.asarray(np.all(np.abs(a - b) <= SAME_POINT * level, axis=-1), dtype=bool)


def _weight_spread(weights: FloatArray) -> float:
    """The largest distance between two of the weights (scalars or weight vectors)."""
    w = weights.reshape(len(weights), -1)
    return float(np.max(np.abs(w - w[0]).sum(axis=1))) if len(w) else 0.0


def _stuck_remedy() -> str:
    return (
        "check that the solver uses the weight it is given and takes steps (a learning "
        "rate and a step budget above 0, gradients that reach the parameters)"
    )


def _one_point(weights: FloatArray, points: FloatArray) -> Finding | None:
    """The ``stuck`` finding when every slot (at different weights) returned one point;
    ``None`` otherwise."""
    p = len(points)
    if p < 2 or _weight_spread(weights) <= WEIGHT_TOL:
        return None
    values = ", ".join(f"{v:.6g}" for v in points[0])
    lo, hi = (
        (
            "weights from 0 to 1"
            if weights.ndim == 1 and weights[0] == 0.0 and weights[-1] == 1.0
            else "different weights"
        ),
        "",
    )
    return Finding(
        "stuck",
        f"all {p} points are one point ({values}) at {lo}{hi}: the solver returned "
        "the same point for every weight. It takes no steps (a learning rate or a step "
        "budget of 0, gradients that do not reach the parameters, a NaN at its first step: "
        "see a non_finite finding), ignores the weight it is given, or both objectives have "
        "one common minimizer (then there is no trade-off to spread points along)",
        remedy=_stuck_remedy(),
        slots=tuple(range(p)),
        summary=f"all {p} points are one point: the solver does not move",
    )


def _stuck(
    weights: FloatArray,
    points: FloatArray,
    ranges: FloatArray,
    history: Sequence[_Round] | None,
    weighted_sum: bool,
    own_lagging: Callable[[], list[int]] | None = None,
) -> Finding | None:
    """The ``stuck`` finding from the history, or ``None``; ``own_lagging``, where given, gives
    :func:`_linear_lagging` of the points (the evidence keeps it for the other checks).

    - Most slots (``STUCK_SHARE``, at least 3, not all) on one point that is not the best
      point of any objective among the points (no end of the front), that none of them has
      left since the first round, and that the weighted sum beats at the weight of one of
      them (so that it is not a kink of the front, which an exact solver returns for a whole
      range of weights): their solves never moved from the start, while the others' did. (A
      stretch of a non-convex front that weighted sums skip sends slots to its ends: points
      that are the best of an objective, or that move with their weights.)
    - Under weighted sums, no point changed over the history (``STUCK_ROUNDS`` rounds or
      more) while the weights moved, by ``STUCK_WEIGHT_MOVE`` of the even spacing (median
      over the slots), and some point is beaten at its own weight: the solver returns its
      warm starts. (An exact solver on a front of few points keeps its points too, but each
      is the best at its weight.)
    """
    if not history or not weighted_sum:
        return None
    p, m = points.shape
    level = np.maximum(np.abs(points).max(axis=0), 1.0)
    rounds = [
        r
        for r in history
        if np.shape(r.points) == (p, m) and np.shape(r.weights) == np.shape(weights)
    ]
    if len(rounds) < 2 or p < 3:
        return None
    x = np.stack([np.asarray(r.points, dtype=np.float64) for r in rounds])  # [round, slot]
    never = np.all(np.all(np.abs(x - x[-1]) <= SAME_POINT * level, axis=2), axis=0)
    # points beaten at their own weights, other than those on a point another weight reaches
    # optimally (the ends of a stretch weighted sums skip, where slots stay for good)
    beaten = set(
        own_lagging() if own_lagging is not None else _linear_lagging(weights, points, ranges)
    )
    lagging = {
        i
        for i in beaten
        if not any(
            j not in beaten and bool(_same_point(points[j], points[i], level)) for j in range(p)
        )
    }
    best = points.min(axis=0)
    # the slots that can head a group of stuck slots: none where no point is beaten (the
    # group needs one), and only points that are no best of an objective; the tests below
    # are each slot's own, so leaving the others out first finds the same group, without a
    # comparison of every pair of points (O(p^2) at a run's end)
    inside = ~np.any(points <= best + SAME_POINT * level, axis=1)
    heads = [int(i) for i in np.flatnonzero(inside)] if beaten else []
    for i in heads:
        on = [int(k) for k in np.flatnonzero(_same_point(points, points[i], level))]
        if on[0] != i or not max(3, math.ceil(STUCK_SHARE * p)) <= len(on) < p:
            continue
        if not all(never[on]) or not beaten & set(on):
            continue
        return Finding(
            "stuck",
            f"{len(on)} of the {p} slots ({_short(on)}) returned one point in every "
            "round, whatever their weights, and it is not optimal at all of them (another "
            "point beats it at the weight of one of them): their solves never moved from "
            "their start (a solver that takes no steps there, or whose steps fail: a NaN, a "
            "zero gradient), while the other slots' did",
            remedy=_stuck_remedy(),
            slots=tuple(on),
            summary=f"{len(on)} of {p} slots never moved from one point",
        )
    if len(rounds) < STUCK_ROUNDS or not bool(np.all(never)):
        return None
    if bool(np.all(np.any(points <= best + END_SHARE * ranges, axis=1))):
        return None  # every point at an end of the front: a stretch weighted sums skip
    w = np.stack([np.asarray(r.weights, dtype=np.float64).reshape(p, -1) for r in rounds])
    moved = float(np.median(np.abs(w[-1] - w[0]).sum(axis=1)))
    if moved < STUCK_WEIGHT_MOVE / (p - 1) or not lagging:
        return None
    if m == 2 and _above_chord(points, ranges):
        return _nonconvex_minima(sorted(lagging), p)
    return Finding(
        "stuck",
        f"no point changed over the {len(rounds)} rounds while the weights moved (by "
        f"a median of {moved:.3g}), and some points are not optimal at their own weights: "
        "the solver returns the state it is given (its warm start) without taking steps",
        remedy=_stuck_remedy(),
        slots=tuple(range(p)),
        summary=f"points unchanged over {len(rounds)} rounds as the weights moved",
    )


def frozen_and_beaten(
    rounds: Sequence[tuple[FloatArray, FloatArray]], *, min_move: float = STUCK_WEIGHT_MOVE
) -> bool:
    """Whether a weighted-sum run with two objectives can no longer change: over the
    ``rounds`` (``(weights, points)`` pairs, oldest first, all of one shape) no point changed
    while the weights moved (a median of at least ``min_move`` of the even spacing), and some
    point is beaten at its own weight by another (so that the points are not an exact
    solver's on a front of few points, each the best at its weight): the solves return the
    points they started from, stuck or in local minima, and more rounds repeat them.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings import frozen_and_beaten
    >>> pts = np.array([[1.0, 0.0], [0.9, 0.9], [0.8, 0.8], [0.7, 0.95], [0.0, 1.0]])
    >>> inner = np.array([0.3, 0.5, 0.7])                # the inner points: beaten by the ends
    >>> moving = [(np.r_[0.0, inner + 0.05 * r, 1.0], pts) for r in range(4)]
    >>> frozen_and_beaten(moving)
    True
    >>> few = np.array([[1.0, 0.0], [0.3, 0.3], [0.3, 0.3], [0.0, 1.0], [0.0, 1.0]])
    >>> frozen_and_beaten([(w, few) for w, _ in moving])   # each the best at its weight
    False
    """
    if len(rounds) < 2:
        return False
    weights = [np.asarray(w, dtype=np.float64) for w, _ in rounds]
    points = [np.asarray(p, dtype=np.float64) for _, p in rounds]
    last = points[-1]
    if last.ndim != 2 or last.shape[1] != 2 or len(last) < 3 or weights[-1].ndim != 1:
        return False
    shapes = zip(weights, points, strict=True)
    if any(p.shape != last.shape or w.shape != weights[-1].shape for w, p in shapes):
        return False
    level = SAME_POINT * np.maximum(np.abs(last).max(axis=0), 1.0)
    if not all(bool(np.all(np.abs(p - last) <= level)) for p in points):
        return False
    moved = float(np.median(np.abs(weights[-1] - weights[0])))
    if moved < min_move / (len(last) - 1):
        return False
    ranges = np.ptp(last, axis=0)
    return bool(_beaten_at_own_weight(weights[-1], last, ranges))


def _linear_lagging(weights: FloatArray, points: FloatArray, ranges: FloatArray) -> list[int]:
    """Points another point beats at their own weight in the weighted sum (scalar weights or
    weight vectors) by more than 1e-3 of that sum's range."""
    if weights.ndim == 1:
        return _beaten_at_own_weight(weights, points, ranges)
    values = weights @ points.T  # [i, j]: j at w_i
    scale = weights @ ranges
    lag = np.diag(values) - values.min(axis=1)
    return [int(i) for i in np.flatnonzero(lag > 1e-3 * np.where(scale > 0, scale, 1.0))]


def _beaten_at_own_weight(weights: FloatArray, points: FloatArray, ranges: FloatArray) -> list[int]:
    """Points that another point beats at their own weight, ``w f1 + (1 - w) f2``, by more
    than 1e-3 of that sum's range: an exact solver's point is the best at its weight."""
    w = weights[:, None]
    values = w * points[None, :, 0]  # [i, j]: j at w_i (the sum in place: P x P at N = 1000)
    values += (1 - w) * points[None, :, 1]
    scale = weights * ranges[0] + (1 - weights) * ranges[1]
    lag = np.diag(values) - values.min(axis=1)
    return [int(i) for i in np.flatnonzero(lag > 1e-3 * np.where(scale > 0, scale, 1.0))]
