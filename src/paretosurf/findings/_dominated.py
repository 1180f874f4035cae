"""Dominated points (``dominated``): points the result's own points dominate
(moocore's non-dominated filter), and points that a point an earlier round found dominates
by more than :data:`EARLIER_MARGIN` in every objective (a poorer basin than one the run has
seen); one finding names both."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import moocore
import numpy as np
from numpy.typing import NDArray

from paretosurf.findings._common import FloatArray, _Round, _short
from paretosurf.findings._finding import Finding
from paretosurf.findings._local_minima import LOCAL_REMEDY

if TYPE_CHECKING:
    from paretosurf.findings._evidence import CurveEvidence, SurfaceEvidence

#: Differences in an objective below this fraction of its range are ties (weak dominance):
#: rounding-level only, since near an endpoint a smooth front is tangent to an axis and its
#: points legitimately differ there by tiny amounts in one objective.
TIE_TOL = 1e-9
#: ``dominated`` by an earlier round: a final point counts as dominated by a point that an
#: earlier round found when that point is better by more than this share of the final points'
#: range in every objective: a poorer basin, not a solver's tolerance or the lag of a point
#: still converging.
EARLIER_MARGIN = 0.05


def check_dominated(ev: CurveEvidence | SurfaceEvidence) -> list[Finding]:
    """``dominated``: the points other than the ends or corners the ``endpoint`` check judges
    and the ends still running away; points in local minima are dominated for that reason."""
    return _dominated_findings(
        ev.points, ev.weak, set(ev.endpoints) | ev.running, ev.moving_average, ev.local, ev.history
    )


def _weakly_dominated(points: FloatArray, ranges: FloatArray) -> NDArray[np.bool_]:
    """Rows some other row beats in one objective by more than a tie while being no worse
    (beyond a tie) in the others."""
    tie = TIE_TOL * np.where(ranges > 0, ranges, 1.0)
    if points.ndim == 2 and points.shape[1] == 2 and np.all(np.isfinite(points)):
        return _weakly_dominated_2d(points, tie)
    better_or_tie = np.all(points[None, :, :] <= points[:, None, :] + tie, axis=2)
    strictly = np.any(points[None, :, :] < points[:, None, :] - tie, axis=2)
    beaten = better_or_tie & strictly
    np.fill_diagonal(beaten, False)
    return np.asarray(beaten.any(axis=1), dtype=bool)


def _weakly_dominated_2d(points: FloatArray, tie: FloatArray) -> NDArray[np.bool_]:
    """:func:`_weakly_dominated` of finite two-objective ``points`` in ``O(n log n)`` instead
    of comparing every pair: row ``j`` beats row ``i`` exactly when ``p_j0 < p_i0 - t0`` and
    ``p_j1 <= p_i1 + t1``, or ``p_j0 <= p_i0 + t0`` and ``p_j1 < p_i1 - t1`` (a strict win
    in one objective is no loss beyond a tie in it; no row beats itself). With the rows
    sorted by their first objective, those that pass the first test are a prefix, and one of
    them passes the second exactly when the prefix's least second objective does: the same
    float comparisons as the pairwise test's, so the same rows."""
    order = np.argsort(points[:, 0], kind="stable")
    first = points[order, 0]
    least = np.minimum.accumulate(points[order, 1])  # the least second objective of each prefix
    x, y = points[:, 0], points[:, 1]
    strict = np.searchsorted(first, x - tie[0], side="left")  # rows with p_j0 < p_i0 - t0
    loose = np.searchsorted(first, x + tie[0], side="right")  # rows with p_j0 <= p_i0 + t0
    by_first = (strict > 0) & (least[np.maximum(strict - 1, 0)] <= y + tie[1])
    by_second = (loose > 0) & (least[np.maximum(loose - 1, 0)] < y - tie[1])
    return np.asarray(by_first | by_second, dtype=bool)


def dominated_in_local_minima(finding: Finding) -> Finding:
    """A ``dominated`` finding whose points all stopped in local minima, told so: more steps
    or averaging, its usual remedy, do not move such points."""
    head = finding.message.split(";")[0]
    return Finding(
        "dominated",
        f"{head}; their solves stopped in local minima (see "
        "local_minima), which more steps per call, more rounds or averaging do not "
        "leave",
        remedy=LOCAL_REMEDY,
        slots=finding.slots,
        summary=finding.summary,
    )


def _dominated_by_earlier(
    points: FloatArray,
    history: Sequence[_Round] | None,
    candidates: Sequence[int],
    moving_average: float | None,
) -> list[Finding]:
    """The "dominated" finding for the ``candidates`` that a point found in an earlier round
    dominates by more than :data:`EARLIER_MARGIN` of the range in every objective: their
    solves ended in a poorer basin than one the run has seen (a local solver whose slots all
    left a piece of a disconnected front, say), which no point of the result shows. Averaged
    runs (``moving_average``) are left out: their history holds the raw noisy estimates."""
    if not history or moving_average is not None or not candidates:
        return []
    m = points.shape[1]
    earlier = [
        np.asarray(r.points, dtype=np.float64)
        for r in history
        if np.ndim(r.points) == 2 and np.shape(r.points)[1] == m
    ]
    if not earlier:
        return []
    seen = np.vstack(earlier)
    seen = seen[np.all(np.isfinite(seen), axis=1)]
    ranges = np.ptp(points, axis=0)
    if not seen.size or not np.all(ranges > 0):
        return []
    margin = EARLIER_MARGIN * ranges
    # only the non-dominated points seen can matter: whatever beats a point by the margin
    # is itself beaten (or equalled) by one of them, and the one nearest in the sum of the
    # objectives is one of them (moocore's filter keeps their order and duplicates)
    seen = seen[moocore.is_nondominated(seen, keep_weakly=True)]
    if m == 2 and np.all(np.isfinite(points)):
        candidates = _beaten_by_any(seen, points, candidates, margin)
    beaten: dict[int, FloatArray] = {}
    for i in candidates:
        better = seen[np.all(seen < points[i] - margin, axis=1)]
        if len(better):
            beaten[i] = better[np.argmin(np.sum((better - points[i]) / ranges, axis=1))]
    if not beaten:
        return []
    slots = sorted(beaten)
    shown = ", ".join(
        f"slot {i} by {np.array2string(beaten[i], precision=4, separator=', ')}" for i in slots[:3]
    ) + (", ..." if len(slots) > 3 else "")
    return [
        Finding(
            "dominated",
            f"{len(slots)} of {len(points)} points are dominated, by more than "
            f"{EARLIER_MARGIN:.0%} of the points' range in every objective, by points that "
            f"earlier rounds of the run found ({shown}): their solves ended in a poorer basin "
            "than one the run has seen. Start each slot from the best solution found "
            "(warm_start='best'), or use an inner solver that searches beyond a slot's basin "
            "(paretosurf.adapters.from_pymoo_global)",
            remedy="warm_start='best' or a global inner solver (from_pymoo_global)",
            slots=tuple(slots),
            summary=f"{len(slots)} of {len(points)} points dominated by earlier rounds' points",
        )
    ]


def _beaten_by_any(
    seen: FloatArray, points: FloatArray, candidates: Sequence[int], margin: FloatArray
) -> list[int]:
    """The ``candidates`` that some row of ``seen`` (finite, two objectives) beats by more
    than ``margin`` in both objectives, ``seen < points[i] - margin``, found in
    ``O((n + c) log n)`` instead of a scan of ``seen`` per candidate: with ``seen`` sorted by
    its first objective, the rows below ``points[i, 0] - margin[0]`` are a prefix, and one
    of them is below ``points[i, 1] - margin[1]`` exactly when the prefix's least second
    objective is. The same float comparisons as the scan's, so the same candidates."""
    if not len(candidates) or not len(seen):
        return []
    order = np.argsort(seen[:, 0], kind="stable")
    first = seen[order, 0]
    least = np.minimum.accumulate(seen[order, 1])  # the least second objective of each prefix
    slots = np.asarray(candidates, dtype=np.intp)
    bounds = points[slots] - margin  # (as the scan computes them)
    below = np.searchsorted(first, bounds[:, 0], side="left")  # rows with first < bound
    hit = (below > 0) & (least[np.maximum(below - 1, 0)] < bounds[:, 1])
    return [int(i) for i in slots[hit]]


def _dominated_findings(
    points: FloatArray,
    weak: NDArray[np.bool_],
    excluded: set[int],
    moving_average: float | None,
    local: Sequence[int],
    history: Sequence[_Round] | None,
) -> list[Finding]:
    """The ``dominated`` finding (at most one) of the points other than ``excluded`` (ends
    or corners judged elsewhere, slots still running): those the result's own points
    dominate (:func:`_dominated`), and those that earlier rounds' points dominate
    (:func:`_dominated_by_earlier`)."""
    p = len(points)
    within = _dominated(
        points, weak, [i for i in range(p) if i not in excluded], moving_average, local
    )
    earlier = _dominated_by_earlier(
        points, history, [i for i in range(p) if i not in excluded and not weak[i]], moving_average
    )
    return _merged(within, earlier, p)


def _merged(within: list[Finding], earlier: list[Finding], n_points: int) -> list[Finding]:
    """One ``dominated`` finding from those of :func:`_dominated` (points the result's own
    points dominate) and :func:`_dominated_by_earlier` (points earlier rounds' points
    dominate), which name different slots."""
    if not within or not earlier:
        return within + earlier
    a, b = within[0], earlier[0]
    slots = tuple(sorted({*a.slots, *b.slots}))
    return [
        Finding(
            "dominated",
            f"{a.message}; besides, {b.message}",
            remedy=a.remedy,
            options=a.options,
            slots=slots,
            summary=(
                f"{len(slots)} of {n_points} points dominated ({len(b.slots)} by earlier rounds')"
            ),
        )
    ]


def _dominated(
    points: FloatArray,
    weak: NDArray[np.bool_],
    candidates: Sequence[int],
    moving_average: float | None,
    local: Sequence[int] = (),
) -> list[Finding]:
    """The "dominated" finding for the ``candidates`` (slots other than the endpoints or
    corners) that other points dominate, if any; ``local``: slots whose solves stopped in
    local minima (their remedy is another)."""
    nondominated = moocore.is_nondominated(points)
    inner = [i for i in candidates if not nondominated[i] and weak[i]]
    if not inner:
        return []
    remedy = (
        "let the solver converge further (more steps per call or more rounds), or "
        f"average longer (a moving_average rate below {moving_average:g})"
        if moving_average is not None
        else "let the solver converge further (more steps per call or more rounds), or "
        "average noisy estimates with moving_average=0.2"
    )
    in_local = [i for i in inner if i in set(local)]
    if in_local and len(in_local) < len(inner):
        remedy += (
            f" (slot{'s' if len(in_local) > 1 else ''} {_short(in_local)} stopped in "
            "local minima: see local_minima)"
        )
    found = Finding(
        "dominated",
        f"{len(inner)} of {len(points)} points are dominated by "
        f"others (slots {_short(inner)}); {remedy}",
        remedy=(
            "more steps per call or more rounds, or a lower {moving_average}"
            if moving_average is not None
            else "more steps per call or more rounds, or {moving_average}"
        ),
        options={"moving_average": 0.2 if moving_average is None else moving_average / 2},
        slots=tuple(inner),
        summary=f"{len(inner)} of {len(points)} points dominated",
    )
    return [dominated_in_local_minima(found) if len(in_local) == len(inner) else found]
