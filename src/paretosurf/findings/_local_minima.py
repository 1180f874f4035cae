"""Solves stopped in local minima (``local_minima``): points another slot's point beats under
the solver's own scalarization, round after round, while they stay put
(:func:`local_minimum_slots`). A short solve would keep closing its lag, and noise would move
the points about; more steps or averaging do not leave a local minimum (:data:`LOCAL_REMEDY`)."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from paretosurf.adapters.scalarization import SCALARIZATIONS, Scalarization, ideal_margin
from paretosurf.findings._common import FloatArray, _Round, _short
from paretosurf.findings._finding import Finding

if TYPE_CHECKING:
    from paretosurf.findings._evidence import CurveEvidence, SurfaceEvidence

#: ``local_minima``: a point is beaten when another point's scalarized value is lower by more
#: than this share of the spread of all the points' values at that weight: far above a
#: converged solver's tolerance (1e-6 and below) and the lags of a policy-gradient solver
#: creeping along the plateaus of a non-convex front (Deep Sea Treasure's, 1% to 4%), and
#: below the lag of a point a whole basin away (above 20% in the tests' multimodal problem);
LOCAL_MARGIN = 0.05
#: ... in each of the last rounds (with the same slots) ...
LOCAL_ROUNDS = 3
#: ... with a lag that did not shrink below this share of its first value over them (a
#: warm-started short solve closes it round after round) ...
LOCAL_SHRINK = 0.8
#: ... while the point moved, from round to round, by less than this share of its lag
#: (measured in the scalarized value at its weight; noise moves it about by as much as the
#: lag).
LOCAL_STILL = 0.5
#: The remedy of points dominated because their solves stopped in local minima.
LOCAL_REMEDY = (
    "multi-start (several starting points per weight, keep the best) or a global "
    "inner solver (scipy.optimize.differential_evolution or basinhopping, a pymoo "
    "single-objective algorithm such as GA, as solve(weight, state)); not more "
    "steps"
)
#: The remedy of weighted sums on a front that is non-convex between its ends.
NONCONVEX_REMEDY = (
    "every point lies on or above the chord between the ends, as on a concave front, which "
    "weighted sums cannot reach: use a scalarization that reaches every point of a "
    "non-convex front, scalarization='tchebycheff' (or 'modified_tchebycheff') in "
    "from_scipy and from_pymoo"
)


def check_local_minima(ev: CurveEvidence | SurfaceEvidence) -> list[Finding]:
    """``local_minima``: the slots in local minima that no other finding explains."""
    return _local_finding(ev.weights, ev.points, ev.local, ev.kind, ev.units, ev.history)


def _local_slots(
    weights: FloatArray,
    points: FloatArray,
    history: Sequence[_Round] | None,
    kind: str | None,
    units: tuple[ArrayLike | None, ArrayLike | None],
    said: set[int],
) -> list[int]:
    """The slots in local minima (:func:`local_minimum_slots`) under the solver's
    scalarization ``kind`` (none when it is not known) with its ideal point and scales
    (``units``), less those another finding has ``said``."""
    if kind is None:
        return []
    ideal, scales = units
    found = local_minimum_slots(
        weights, points, history, scalarization=kind, ideal=ideal, scales=scales
    )
    return [i for i in found if i not in said]


def _local_finding(
    weights: FloatArray,
    points: FloatArray,
    local: Sequence[int],
    kind: str | None,
    units: tuple[ArrayLike | None, ArrayLike | None],
    history: Sequence[_Round] | None,
) -> list[Finding]:
    """The ``local_minima`` finding of the slots ``local`` (none when there are none);
    ``units``: the scalarization's ideal point and scales."""
    if not local:
        return []
    ideal, scales = units
    return [
        local_minima_finding(
            weights,
            points,
            local,
            scalarization=kind or "",
            ideal=ideal,
            scales=scales,
            history=history,
        )
    ]


def _scalarizer(
    kind: str,
    ideal: ArrayLike | None,
    points: FloatArray,
    history: Sequence[_Round],
    scales: ArrayLike | None = None,
) -> Scalarization:
    """The solver's scalarization, to score found points at other weights: with its ideal
    point when it has one, else (a solver that does not say) with the best values found less
    the adapters' margin, the estimate they keep; in the solver's ``scales`` where it has
    them (and they fit)."""
    if kind not in SCALARIZATIONS or kind == "linear":
        return Scalarization("linear")
    z = None if ideal is None else np.asarray(ideal, dtype=np.float64).reshape(-1)
    if z is None or z.size != points.shape[1] or not np.all(np.isfinite(z)):
        seen = [points] + [
            np.asarray(r.points, dtype=np.float64)
            for r in history
            if np.ndim(r.points) == 2 and np.shape(r.points)[1] == points.shape[1]
        ]
        stack = np.vstack(seen)
        best, worst = stack.min(axis=0), stack.max(axis=0)
        z = best - ideal_margin(best, worst)
    units = None if scales is None else np.asarray(scales, dtype=np.float64).reshape(-1)
    if units is not None and (units.size != points.shape[1] or not np.all(units > 0)):
        units = None
    return Scalarization(kind, ideal=z, scales=units)


@functools.cache
def _simplex_grid(m: int) -> FloatArray:
    """Weight vectors that cover the simplex of ``m`` objectives: 201 scalar weights for two,
    a lattice of about 200 vectors otherwise. Made once per ``m`` (read-only): at small N
    making it cost more than the lags."""
    grid = _make_simplex_grid(m)
    grid.setflags(write=False)
    return grid


def _make_simplex_grid(m: int) -> FloatArray:
    """:func:`_simplex_grid`, made afresh."""
    if m == 2:
        w = np.linspace(0.0, 1.0, 201)
        return np.c_[w, 1.0 - w]
    parts = 1
    while math.comb(parts + 1 + m - 1, m - 1) <= 200:
        parts += 1
    rows = [
        np.array(c, dtype=np.float64) / parts
        for c in itertools.product(range(parts + 1), repeat=m - 1)
        if sum(c) <= parts
    ]
    return np.array([np.append(r, 1.0 - r.sum()) for r in rows])


def _envelope_weights(q: FloatArray) -> FloatArray:
    """The weight vectors ``(w, 1 - w)`` at which the best point of the weighted sum changes:
    where consecutive vertices of the lower-left convex hull of the two-objective points
    ``q`` score alike (the lag of a point above the hull is smallest at one of them)."""
    order = np.lexsort((q[:, 1], q[:, 0]))
    hull: list[FloatArray] = []
    for x in q[order]:
        while len(hull) >= 2 and _turn(hull[-2], hull[-1], x) <= 0:
            hull.pop()
        hull.append(x)
    out = []
    for a, b in itertools.pairwise(hull):
        rise, fall = b[0] - a[0], a[1] - b[1]  # f1 rises and f2 falls from a to b
        if rise > 0 and fall > 0:
            w = fall / (rise + fall)  # w a1 + (1 - w) a2 = w b1 + (1 - w) b2
            out.append((w, 1.0 - w))
    return np.array(out, dtype=np.float64).reshape(-1, 2)


def _turn(o: FloatArray, a: FloatArray, b: FloatArray) -> float:
    """The cross product of ``a - o`` and ``b - o`` (positive: a left turn)."""
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def _as_vectors(weights: FloatArray) -> FloatArray:
    """Scalar weights ``w`` as the vectors ``(w, 1 - w)``; weight vectors as they are."""
    return np.c_[weights, 1.0 - weights] if weights.ndim == 1 else weights


def _relative_lags(
    sc: Scalarization, weights: FloatArray, points: FloatArray, previous: FloatArray | None
) -> tuple[FloatArray, FloatArray]:
    """Per slot: how far its point lags behind the best point, as a share of the spread of
    the points' values, and how far it moved from ``previous`` (the slot's point a round
    before) in the same units.

    Under weighted sums the lag is the smallest over every weight (the point's distance
    above the lower convex hull of the points): invariant to positive rescalings of the
    objectives, which a solver may scalarize instead of the objectives it reports (the gear
    toy does), and so independent of the weight the solver was given. Under the other
    scalarizations (of the adapters, which scalarize the objectives they report) it is the
    lag at the slot's own weight.
    """
    p = len(points)
    if sc.kind == "linear":
        # the lags are the same in objectives divided by their ranges, at the weights
        # rescaled alike (a positive rescaling of the rows): there the grid covers the front
        r = points.max(axis=0) - points.min(axis=0)
        r = np.where(r > 0, r, 1.0)
        q = points / r
        own = _as_vectors(weights) * r
        grid = np.vstack(
            [
                _simplex_grid(points.shape[1]),
                own / own.sum(axis=1, keepdims=True),
                *([_envelope_weights(q)] if points.shape[1] == 2 else []),
            ]
        )
        values = grid @ q.T  # [weight, point]
        low = values.min(axis=1)
        spread = values.max(axis=1) - low
        share = np.where(spread > 0, 1.0 / np.where(spread > 0, spread, 1.0), 0.0)[:, None]
        # ((values - low) * share).min(axis=0), in place: (weights, points) can be a few
        # thousand by a thousand at N = 1000, and two temporaries of that size cost more
        # than the arithmetic
        np.subtract(values, low[:, None], out=values)
        np.multiply(values, share, out=values)
        lag = values.min(axis=0)
        if previous is None:
            return lag, np.zeros(p)
        moved = (np.abs(grid @ ((points - previous) / r).T) * share).max(axis=0)
        return lag, moved
    if sc.kind == "asf" and weights.ndim == 1:  # (a scalar weight cannot take asf)
        sc = sc.with_kind("modified_tchebycheff")
    lag, moved = np.zeros(p), np.zeros(p)
    for i, w in enumerate(weights):
        v = np.asarray(sc(points, w), dtype=np.float64)
        spread = float(v.max() - v.min())
        if spread <= 0:
            continue
        lag[i] = (v[i] - v.min()) / spread
        if previous is not None:
            moved[i] = abs(v[i] - float(sc(previous[i], w))) / spread
    return lag, moved


def _best_at(
    sc: Scalarization, weights: FloatArray, points: FloatArray, i: int
) -> tuple[int, float]:
    """The point best at slot ``i``'s weight, and slot ``i``'s lag behind it there as a share
    of the spread of the points' values."""
    if sc.kind == "asf" and weights.ndim == 1:
        sc = sc.with_kind("modified_tchebycheff")
    v = (
        _as_vectors(weights)[i] @ points.T
        if sc.kind == "linear"
        else np.asarray(sc(points, weights[i]), dtype=np.float64)
    )
    spread = float(v.max() - v.min())
    return int(np.argmin(v)), (float(v[i] - v.min()) / spread if spread > 0 else 0.0)


def local_minimum_slots(
    weights: FloatArray,
    points: FloatArray,
    history: Sequence[_Round] | None,
    *,
    scalarization: str = "linear",
    ideal: ArrayLike | None = None,
    scales: ArrayLike | None = None,
) -> list[int]:
    """Slots whose solves converged to a local minimum of the solver's scalarized problem.

    A slot's point lags behind another slot's point, under ``scalarization`` (from ``ideal``
    for the kinds that use one), by more than ``LOCAL_MARGIN`` of the spread of the points'
    values: at every weight for weighted sums (it lies above the lower convex hull of the
    points, whatever the weight the solver was given or the scales it weighs the objectives
    in), at its own weight otherwise. It does so in each of the last ``LOCAL_ROUNDS`` rounds
    of ``history`` (which must end with ``points``), its lag did not shrink below
    ``LOCAL_SHRINK`` of itself, and its point moved by less than ``LOCAL_STILL`` of the lag
    from round to round: a warm-started short solve closes its lag round after round, and
    noise moves a point about by as much as its lag. Under weighted sums a point that lies on
    a point another weight reaches optimally is left out: it is an end of a concave stretch
    of the front, which a jump reports.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace as Round
    >>> from paretosurf.findings import local_minimum_slots
    >>> w = np.linspace(0, 1, 5)
    >>> front = np.c_[(1 - w) ** 2, w ** 2]
    >>> stuck = front.copy(); stuck[2] += 0.2          # slot 2 in a basin 0.2 above the front
    >>> local_minimum_slots(w, stuck, [Round(weights=w, points=stuck)] * 3)
    [2]
    >>> local_minimum_slots(w, front, [Round(weights=w, points=front)] * 3)
    []
    """
    p, m = points.shape
    rounds = [
        r
        for r in list(history or ())[-LOCAL_ROUNDS:]
        if np.shape(r.points) == (p, m) and np.shape(r.weights) == np.shape(weights)
    ]
    if len(rounds) < LOCAL_ROUNDS or p < 3:
        return []  # no evidence that the solves converged
    if not np.array_equal(np.asarray(rounds[-1].points, dtype=np.float64), points):
        return []  # averaged estimates, not the solves' own points
    sc = _scalarizer(scalarization, ideal, points, history or (), scales)
    # a slot is beaten only if it lags by more than the margin in the last round too: where
    # none does (a run that converged), the other rounds' lags and the moves are not needed
    # (the lags do not depend on the previous points, so this one is the loop's last lag)
    last, _ = _relative_lags(sc, np.asarray(rounds[-1].weights, dtype=np.float64), points, None)
    if not np.any(last > LOCAL_MARGIN):
        return []
    lags, moves = [], []
    previous: FloatArray | None = None
    for r in rounds:
        x = np.asarray(r.points, dtype=np.float64)
        lag, moved = _relative_lags(sc, np.asarray(r.weights, dtype=np.float64), x, previous)
        lags.append(lag)
        moves.append(moved)
        previous = x
    lag = np.stack(lags)  # [round, slot]
    beaten = np.all(lag > LOCAL_MARGIN, axis=0)
    kept = lag[-1] >= LOCAL_SHRINK * lag[0]
    still = np.stack(moves[1:]).max(axis=0) <= LOCAL_STILL * lag[-1]
    slots = [i for i in range(p) if beaten[i] and kept[i] and still[i]]
    if slots and sc.kind == "linear":
        level = np.maximum(np.abs(points).max(axis=0), 1.0)
        optimal = lag[-1] <= LOCAL_MARGIN
        slots = [
            i
            for i in slots
            if not np.any(optimal & np.all(np.abs(points - points[i]) <= 1e-9 * level, axis=1))
        ]
    return slots


def local_minima_finding(
    weights: FloatArray,
    points: FloatArray,
    slots: Sequence[int],
    *,
    scalarization: str = "linear",
    ideal: ArrayLike | None = None,
    scales: ArrayLike | None = None,
    history: Sequence[_Round] | None = None,
    converged: Sequence[int] = (),
) -> Finding:
    """The ``local_minima`` finding of ``slots`` (:func:`local_minimum_slots`);
    ``converged``: those of them whose solves reported success."""
    p = len(points)
    sc = _scalarizer(scalarization, ideal, points, history or (), scales)
    what = {
        "linear": "the weighted sum",
        "tchebycheff": "the Tchebycheff scalarization",
        "modified_tchebycheff": "the modified Tchebycheff scalarization",
        "asf": "the achievement scalarizing function (ASF)",
    }.get(sc.kind, "its scalarization")
    where = (
        "at every weight (they lie above the lower convex hull of the points)"
        if sc.kind == "linear"
        else "at their own weights, from the solver's ideal point"
    )
    beaten = []
    for i in list(slots)[:4]:
        j, share = _best_at(sc, weights, points, i)
        beaten.append(
            f"slot {i} by slot {j}'s point ({share:.0%} of the values' spread at its weight)"
        )
    by = ", ".join(beaten) + (", ..." if len(slots) > 4 else "")
    said = [i for i in converged if i in set(slots)]
    evidence = f"; the solver reports success for {len(said)} of these solves" if said else ""
    return Finding(
        "local_minima",
        f"{len(slots)} of {p} points are beaten under the solver's own "
        f"scalarization ({what}) {where} by other slots' solutions ({by}) in each of the "
        f"last {LOCAL_ROUNDS} rounds, by a lag that did not shrink (to below "
        f"{LOCAL_SHRINK:.0%} of itself) while the points stayed put (moves under "
        f"{LOCAL_STILL:.0%} of the lag){evidence}. The solves converged, to local minima of "
        "a multimodal scalarized problem: a short solve would keep closing the lag round "
        "after round, and noise would move the points about; a solver whose steps have "
        "become very small can look the same (one run with more steps per call tells them "
        "apart)",
        remedy=(
            f"{NONCONVEX_REMEDY}; or {LOCAL_REMEDY}"
            if sc.kind == "linear"
            and points.shape[1] == 2
            and _above_chord(points, np.ptp(points, axis=0))
            else LOCAL_REMEDY
        ),
        slots=tuple(int(i) for i in slots),
        summary=f"{len(slots)} of {p} points stopped in local minima",
    )


def _above_chord(points: FloatArray, ranges: FloatArray) -> bool:
    """Whether no point lies below the chord between the points' ends (two objectives: the
    point best in objective 1, the least objective 2 among ties, and the other way round),
    towards the ideal point, by more than ``1e-3`` of the ranges: no point bulges towards
    the ideal point, as on a concave front, where a weighted sum's only minimizers are the
    ends and every other point a solve stops at is a local minimum."""
    scale = np.where(ranges > 0, ranges, 1.0)
    u = (points - points.min(axis=0)) / scale
    ends = []
    for k in (0, 1):
        ties = np.flatnonzero(u[:, k] <= 1e-3)
        ends.append(u[ties[np.argmin(u[ties, 1 - k])]])
    a, b = ends
    normal = np.array([b[1] - a[1], a[0] - b[0]])  # (perpendicular to b - a) ...
    if float(normal @ (np.zeros(2) - a)) < 0:  # ... pointing to the ideal point's side
        normal = -normal
    size = float(np.linalg.norm(normal))
    if not size > 0:
        return False
    return bool(np.all((u - a) @ normal / size <= 1e-3))


def _nonconvex_minima(slots: list[int], p: int) -> Finding:
    """The ``local_minima`` finding of weighted sums on a front that bulges away from the
    ideal point (concave between its ends): slots that keep their points as the weights
    move, on points beaten at their own weights, sit in local minima of the weighted sum."""
    return Finding(
        "local_minima",
        f"{len(slots)} of the {p} slots ({_short(slots)}) keep points that other points beat "
        "at their own weights while the weights move, and every point lies on or above the "
        "chord between the front's ends: the front is non-convex (concave) there, where a "
        "weighted sum's only minimizers are the ends, and the solves stop in local minima "
        "(they take steps; there is nothing lower nearby)",
        remedy=NONCONVEX_REMEDY,
        slots=tuple(slots),
        summary=f"weighted sums on a non-convex front: {len(slots)} slots in local minima",
    )
