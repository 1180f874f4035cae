"""The front's ends: an end point only weakly Pareto-optimal (``endpoint``: at ``w = 0`` or
``w = 1``, or a corner of the simplex, the scalarized problem ignores an objective and the
solver stopped on the flat face it leaves), and an end whose scalarized problem has no
minimizer (``no_minimizer``: its point ran away round after round)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paretosurf.curves import median_of
from paretosurf.findings._common import FloatArray, _Round, _short
from paretosurf.findings._dominated import TIE_TOL
from paretosurf.findings._finding import Finding
from paretosurf.findings._stuck import SAME_POINT

if TYPE_CHECKING:
    from paretosurf.findings._evidence import CurveEvidence, Evidence, SurfaceEvidence

#: ``no_minimizer``: at least this many consecutive rounds in which an end slot's own
#: objective improved and another worsened; ...
RUNAWAY_ROUNDS = 3
#: ... by steps whose ratio from one round to the next (median of the last four) is at least
#: this: a solve converging to a minimizer takes steps that shrink geometrically, by a factor
#: per round well below 1 (0.75 to 0.85 for the slow 3-step gradient solver of the gear toy),
#: where one running along a problem without a minimizer does not (Adam on logistic loss
#: moves the weights' norm by a constant amount per round: 1.0; gradient descent by amounts
#: that shrink like 1 / t: 0.93 and rising); a ratio below 1 must also not fall over those
#: rounds: a slow solver converging linearly, or faster, keeps it steady or lowers it (the
#: 1-step gradient solver of the gear toy: 0.94, 0.92, 0.91), where steps shrinking like 1 / t
#: raise it towards 1 (0.81, 0.91, 0.94, ..., 0.975 on logistic loss);
RUNAWAY_RATE = 0.9
#: ... and the worsening objective grew over those rounds by at least this share of its range
#: over the points (a drift that makes up the front, not solver noise).
RUNAWAY_SHARE = 0.5


def check_endpoints(ev: CurveEvidence) -> list[Finding]:
    """``endpoint`` (a curve): the ends only weakly Pareto-optimal, or that left the front along
    one objective (:func:`_flat_ends`)."""
    ends = ev.endpoints
    if not ends:
        return []
    weights, aims_even = ev.weights, ev.aims_even
    names = " and ".join(f"w = {weights[i]:.6g}" for i in ends)
    verb = "is" if len(ends) == 1 else "are"
    return [
        Finding(
            "endpoint",
            f"the point{'s' if len(ends) > 1 else ''} at {names} {verb} only "
            "weakly Pareto-optimal: another point is as good in one objective and better in "
            "the other, or far better in it at almost the same value of the first (at that "
            "weight the scalarized problem ignores one objective, and the solver stopped on "
            "the flat face it leaves); pass "
            + (
                "weight_bounds='auto' to solve inside [0, 1] as little as the ends allow "
                "(the smallest bounds at which the end solves still have minimizers)"
                if aims_even
                else "weight_bounds=(1e-3, 1 - 1e-3) to solve slightly inside [0, 1] (in "
                "the run's units)"
            ),
            remedy="{weight_bounds}",
            options={"weight_bounds": "auto" if aims_even else (1e-3, 0.999)},
            slots=tuple(ends),
            summary=f"the point at {names} is only weakly Pareto-optimal",
        )
    ]


def check_corners(ev: SurfaceEvidence) -> list[Finding]:
    """``endpoint`` (a surface): the corners of the simplex only weakly Pareto-optimal."""
    weak_corners = ev.endpoints
    if not weak_corners:
        return []
    weights = ev.weights
    m = weights.shape[1]
    return [
        Finding(
            "endpoint",
            f"the corner point{'s' if len(weak_corners) > 1 else ''} of slot"
            f"{'s' if len(weak_corners) > 1 else ''} {_short(weak_corners)} "
            f"{'are' if len(weak_corners) > 1 else 'is'} only weakly Pareto-optimal (at a "
            "corner the scalarized problem ignores the other objectives and the solver "
            f"stopped on the flat face it leaves); pass weight_bounds=(1e-3, 1 - {m - 1} * "
            "1e-3) to solve slightly inside the simplex",
            remedy="{weight_bounds}",
            options={"weight_bounds": (1e-3, 1 - (m - 1) * 1e-3)},
            slots=tuple(weak_corners),
            summary=f"corner slots {_short(weak_corners)} only weakly Pareto-optimal",
        )
    ]


def check_no_minimizer(ev: Evidence) -> list[Finding]:
    """``no_minimizer``: the end slots whose points ran away over the history
    (:func:`_runaway_ends`)."""
    runaway = ev.runaway
    return [_no_minimizer_finding(ev.weights, runaway)] if runaway else []


@dataclass(frozen=True)
class _Runaway:
    """An end slot whose point ran along a problem without a minimizer: its ``own`` objective
    (the one its weight keeps) fell and objective ``other`` rose in every one of ``rounds``
    consecutive rounds, from ``start`` to ``end`` (the two objectives' values), the rises
    shrinking by the factor ``rate`` a round; ``settled``:
    whether later rounds left it where it was (the solver's tolerance stopped it)."""

    slot: int
    own: int
    other: int
    rounds: int
    start: tuple[float, float]
    end: tuple[float, float]
    rate: float
    settled: bool


def _end_slots(weights: FloatArray) -> list[tuple[int, int]]:
    """``(slot, own objective)`` of the slots at an end weight: ``w = 0`` keeps objective 2,
    ``w = 1`` objective 1, a corner ``e_m`` of the simplex objective ``m``."""
    if weights.ndim == 1:
        out = []
        if len(weights) and weights[0] == 0.0:
            out.append((0, 1))
        if len(weights) > 1 and weights[-1] == 1.0:
            out.append((len(weights) - 1, 0))
        return out
    return [
        (i, int(np.argmax(weights[i]))) for i in range(len(weights)) if np.max(weights[i]) == 1.0
    ]


def _runaway_ends(
    weights: FloatArray, points: FloatArray, ranges: FloatArray, history: Sequence[_Round] | None
) -> list[_Runaway]:
    """End slots whose points, over the history, ran along a scalarized problem without a
    minimizer: their own objective fell and another rose in each of ``RUNAWAY_ROUNDS`` or
    more consecutive rounds (a run, possibly followed by rounds that left the point where it
    was: the solver's tolerance), the rises shrinking by a factor of ``RUNAWAY_RATE`` or more
    a round (median of the last four ratios; geometric convergence shrinks them faster), that
    factor 1 or more or rising over those rounds (a slow solver converging linearly keeps it
    steady or lowers it), and the rises adding up to ``RUNAWAY_SHARE`` of that objective's
    range over ``points``."""
    if not history:
        return []
    m = points.shape[1]
    rounds = list(history)
    out = []
    for slot, own in _end_slots(weights):
        end = weights[slot]
        series: list[FloatArray] = []
        for r in reversed(rounds):  # the last rounds that solved the end weight
            w = np.asarray(r.weights, dtype=np.float64)
            x = np.asarray(r.points, dtype=np.float64)
            if x.ndim != 2 or x.shape[1] != m or w.shape[1:] != end.shape or len(w) != len(x):
                break
            at = np.flatnonzero(np.all((w == end).reshape(len(w), -1), axis=1))
            if at.size == 0:
                break
            series.append(x[int(at[0])])
        if len(series) < RUNAWAY_ROUNDS + 1:
            continue
        x = np.stack(series[::-1])
        d = np.diff(x, axis=0)
        tie = SAME_POINT * np.maximum(np.abs(x).max(axis=0), 1.0)
        others = [k for k in range(m) if k != own]
        other = max(others, key=lambda k: float(x[-1, k] - x[0, k]))
        running = (d[:, own] < -tie[own]) & (d[:, other] > tie[other])
        settled = np.all(np.abs(d) <= tie, axis=1)
        t = len(d)
        while t > 0 and settled[t - 1]:
            t -= 1
        length = 0
        while t - length > 0 and running[t - length - 1]:
            length += 1
        if length < RUNAWAY_ROUNDS:
            continue
        rises = d[t - length : t, other]
        ratios = (rises[1:] / rises[:-1])[-4:]
        rate = median_of(ratios)  # (np.median's value, without its overhead)
        growth = float(x[t, other] - x[t - length, other])
        # steps shrinking by a steady or falling ratio below 1 converge (geometrically, if
        # slowly); a runaway's ratio is 1 or more, or rises towards 1
        slowing = rate >= 1.0 or float(ratios[-1]) > float(ratios[0])
        if rate < RUNAWAY_RATE or not slowing or growth < RUNAWAY_SHARE * float(ranges[other]):
            continue
        out.append(
            _Runaway(
                slot,
                own,
                other,
                length,
                (float(x[t - length, own]), float(x[t - length, other])),
                (float(x[t, own]), float(x[t, other])),
                rate,
                t < len(d),
            )
        )
    return out


def _no_minimizer_finding(weights: FloatArray, runaway: list[_Runaway]) -> Finding:
    """The ``no_minimizer`` finding of the end slots in ``runaway``."""
    surface = weights.ndim == 2
    parts = []
    for r in runaway:
        where = (
            f"the corner slot {r.slot} (weight on objective {r.own + 1} alone)"
            if surface
            else f"w = {float(weights[r.slot]):g} (slot {r.slot})"
        )
        shrink = (
            "did not shrink"
            if r.rate >= 1.0
            else f"shrank by a factor of only {r.rate:.2f} a round, rising towards 1"
        )
        part = (
            f"at {where} objective {r.own + 1} improved in each of {r.rounds} consecutive "
            f"rounds (from {r.start[0]:.4g} to {r.end[0]:.4g}) while objective "
            f"{r.other + 1} rose (from {r.start[1]:.4g} to {r.end[1]:.4g}) by steps that "
            f"{shrink}, where a solve converging to a minimizer takes steps that shrink "
            "geometrically, by a steady or falling factor"
        )
        if r.settled:
            part += (
                "; then the solver stopped (its tolerance), at a place the budget chose, "
                "not a minimizer"
            )
        parts.append(part)
    m = weights.shape[1] if surface else 2
    bounds = (1e-3, 1 - (m - 1) * 1e-3)
    inside = "the simplex" if surface else "[0, 1]"
    first = runaway[0]
    name = f"corner slot {first.slot}" if surface else f"w = {float(weights[first.slot]):g}"
    return Finding(
        "no_minimizer",
        "; ".join(parts) + ": the scalarized problem at the end has no "
        "minimizer (objective " + str(first.own + 1) + " only approaches its infimum as "
        f"objective {first.other + 1} grows without bound, as logistic loss on separable data "
        "does at w = 1 while the weights' norm grows), so the end point is wherever the "
        "solver stopped, and more steps or rounds only move it further; solve slightly "
        f"inside {inside} with weight_bounds={bounds!r}, where each problem has a minimizer "
        "(or bound the variables, or add a regularizer to the objective)",
        remedy="solve inside the ends: {weight_bounds}",
        options={"weight_bounds": bounds},
        slots=tuple(r.slot for r in runaway),
        summary=f"no minimizer at {name}: objective {first.other + 1} grows each round",
    )


def _flat_ends(
    weights: FloatArray, gaps: FloatArray, extent: float, points: FloatArray, ranges: FloatArray
) -> list[int]:
    """Endpoints that left the front along one objective: the gap to the neighbour spans a
    fifth of the front and at least twice the median gap, over a weight interval far
    narrower than the even spacing, moving along one objective only (the scalarized problem
    at the end ignores the other objective; looser than the first test of
    :func:`~paretosurf.findings._jumps._jumps`, which must also hold for interior gaps, so
    that such a jump at an end always passes it; an end gap that passes it is no jump)."""
    if gaps.size < 2 or extent <= 0:
        return []
    median = median_of(np.asarray(gaps, dtype=np.float64))  # (np.median's, to the last bit)
    out = []
    for i, end in ((0, 0), (gaps.size - 1, gaps.size)):
        narrow = weights[i + 1] - weights[i] < 0.01 / gaps.size
        if (
            narrow
            and gaps[i] > 0.2 * extent
            and gaps[i] > 2.0 * median
            and _axis_parallel(points[i], points[i + 1], ranges)
        ):
            out.append(end)
    return out


def _axis_parallel(a: FloatArray, b: FloatArray, ranges: FloatArray) -> bool:
    """Whether the step from ``a`` to ``b`` moves along one objective only (relative to the
    objectives' ranges, the other moves less than 1e-3 as much)."""
    step = np.abs(b - a) / np.where(ranges > 0, ranges, 1.0)
    return bool(step.min() < 1e-3 * step.max())


def _tied_and_beaten(
    points: FloatArray, i: int, own: int, ranges: FloatArray, own_tol: float = TIE_TOL
) -> bool:
    """Whether some other point ties point ``i`` in objective ``own`` (within ``own_tol`` of
    its range), is no worse in the others (beyond a tie) and better in one: point ``i``
    stopped on the flat face its weight leaves (a point better in ``own`` itself would only
    show that its solve fell short, by noise or too few steps)."""
    scale = np.where(ranges > 0, ranges, 1.0)
    tie = TIE_TOL * scale
    others = np.arange(points.shape[1]) != own
    tied = np.abs(points[:, own] - points[i, own]) <= own_tol * scale[own]
    no_worse = np.all(points[:, others] <= points[i, others] + tie[others], axis=1)
    better = np.any(points[:, others] < points[i, others] - tie[others], axis=1)
    found = tied & no_worse & better
    found[i] = False
    return bool(np.any(found))
