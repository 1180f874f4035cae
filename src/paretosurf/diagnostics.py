"""Honest results: checks that a run's points are what was asked for, with the remedy named.

:func:`diagnose` looks at a run's final weights and points and returns one :class:`Finding`
per problem it sees; the driver turns them into the result's ``success`` and ``message`` and
into :class:`SurfWarning` warnings. The checks, in the coordinates the run measured distances
in (see :mod:`paretosurf.spacing`) and with tolerances relative to the front's extent:

- ``constant``: an objective does not vary over the points;
- ``scale``: with ``normalize="none"``, the objectives' ranges differ by more than 1e3;
- ``collapsed``: fewer distinct points than slots, or weights closer than a tolerance;
- ``jump``: consecutive points far apart at nearly the same weight (or, with the run's
  history, a slot whose point flips back and forth across a gap as its weight moves a little),
  a stretch of the front (non-convex or disconnected) that weighted sums cannot reach;
- ``endpoint``: a point at ``w = 0`` or ``w = 1`` only weakly Pareto-optimal (another point is
  as good in one objective and better in the other);
- ``dominated``: interior points dominated by others (moocore's non-dominated filter);
- ``noisy``: objectives out of the order linear scalarization guarantees (objective 1
  non-increasing and objective 2 non-decreasing in ``w``);
- ``unconverged``: a gap that looks like a jump next to a point another point beats at its
  own weight (the solver has not converged there; unless that point is one another weight
  reaches optimally: a local minimum of a non-convex front, which is a jump);
- ``reversed``: nearly every pair in the reverse of that order (a maximizing solver, or the
  weight on the wrong objective), or with both objectives falling (or both rising) with
  ``w``: one objective's sign flipped (a reward returned as is beside a loss);
- ``precision``: weights closer than a tolerance whose points are still well apart
  (objectives of very different scales); it only advises;
- ``stuck``: the solver returns one point whatever the weight: every slot on one point, most
  slots on one point in the middle of the front that none of them ever left (with the
  history), or every point unchanged over the rounds while the weights moved;
- ``no_minimizer``: with the history, an end slot (``w = 0``, ``w = 1``, a corner of the
  simplex) whose own objective kept improving round after round while another kept worsening,
  by steps that do not shrink as a converging solve's do (the scalarized problem at the end
  has no minimizer: logistic loss on separable data at ``w = 1``).

The remedies fit the run: a Tchebycheff scalarization is named only to a run that minimizes
weighted sums (``scalarization``, or ``weighted_sum``), SURF only to a method whose weights do
not follow the front (``aims_even=False``). The solver's own findings (NaN inside solves, local
minima) are in :mod:`paretosurf.solver_findings`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import moocore
import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf.adapters.scalarization import SCALARIZATIONS, Scalarization, ideal_margin
from paretosurf.degenerate import degenerate_finding
from paretosurf.findings import Finding, SurfWarning

__all__ = [
    "Finding",
    "SurfWarning",
    "coincident_pairs",
    "diagnose",
    "diagnose_surface",
    "dominated_in_local_minima",
    "jump_gaps",
    "local_minima_finding",
    "local_minimum_slots",
]

#: The remedy of a scalarization that weighted sums need to reach a stretch of the front.
_TCHEBYCHEFF = (
    "a Tchebycheff scalarization (scalarization='tchebycheff' in "
    "paretosurf.adapters), whose ideal point lies below every objective value"
)

FloatArray = NDArray[np.float64]

#: Two weights closer than this are the same weight.
WEIGHT_TOL = 1e-9
#: Distances below this fraction of the front's extent are zero (rounding, not geometry).
RELATIVE_TOL = 1e-9
#: Differences in an objective below this fraction of its range are ties (weak dominance):
#: rounding-level only, since near an endpoint a smooth front is tangent to an axis and its
#: points legitimately differ there by tiny amounts in one objective.
TIE_TOL = 1e-9
#: Steps against the order weighted sums guarantee smaller than this fraction of an
#: objective's range are solver tolerance, not noise.
ORDER_TOL = 1e-6
#: Objective ranges differing by more than this factor make raw coordinates lopsided.
SCALE_RATIO = 1e3
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
#: Weights closer than this are too close for their points' order to mean anything.
SEPARATED_WEIGHTS = 1e-6
#: Points of weights closer than WEIGHT_TOL that lie at least this fraction of the mean gap
#: apart are resolved (objectives of very different scales), not collapsed.
RESOLVED_GAP = 0.01
#: When at least this share of the neighbouring pairs is in the reverse order (objective 1
#: rising and objective 2 falling with w), the solver maximizes or swaps the weight.
REVERSED_SHARE = 0.75
#: Appended to the Tchebycheff remedies: a solver that already uses it needs a good ideal.
_TCHEBYCHEFF_IDEAL = (
    "; if the solver already uses it, its ideal point must be at or below "
    "every objective's smallest value"
)
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
#: ``no_minimizer``: at least this many consecutive rounds in which an end slot's own
#: objective improved and another worsened; ...
RUNAWAY_ROUNDS = 3
#: ... by steps whose ratio from one round to the next (median of the last four) is at least
#: this: a solve converging to a minimizer takes steps that shrink geometrically, by a factor
#: per round well below 1 (0.75 to 0.85 for the slow 3-step gradient solver of the gear toy),
#: where one running along a problem without a minimizer does not (Adam on logistic loss
#: moves the weights' norm by a constant amount per round: 1.0; gradient descent by amounts
#: that shrink like 1 / t: 0.93 and rising);
RUNAWAY_RATE = 0.9
#: ... and the worsening objective grew over those rounds by at least this share of its range
#: over the points (a drift that makes up the front, not solver noise).
RUNAWAY_SHARE = 0.5


class _Round(Protocol):
    """One round of a run's history (a :class:`~paretosurf.result.IterationRecord`): the
    weights solved at and the objectives found."""

    @property
    def weights(self) -> FloatArray: ...

    @property
    def points(self) -> FloatArray: ...


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


@dataclass(frozen=True)
class _Jump:
    """A gap the front jumps across: between slots ``i`` and ``i + 1``, ``share`` of the
    front's length; ``crossing``: a slot whose point went across it between rounds, with the
    weights on either side, when the history showed it."""

    i: int
    share: float
    crossing: tuple[int, float, float] | None = None


def _distinct(coords: FloatArray, tol: float) -> int:
    """Number of distinct rows (consecutive rows closer than ``tol`` are one)."""
    if len(coords) == 0:
        return 0
    gaps = np.linalg.norm(np.diff(coords, axis=0), axis=1)
    return 1 + int(np.sum(gaps > tol))


def _weakly_dominated(points: FloatArray, ranges: FloatArray) -> NDArray[np.bool_]:
    """Rows some other row beats in one objective by more than a tie while being no worse
    (beyond a tie) in the others."""
    tie = TIE_TOL * np.where(ranges > 0, ranges, 1.0)
    better_or_tie = np.all(points[None, :, :] <= points[:, None, :] + tie, axis=2)
    strictly = np.any(points[None, :, :] < points[:, None, :] - tie, axis=2)
    beaten = better_or_tie & strictly
    np.fill_diagonal(beaten, False)
    return np.asarray(beaten.any(axis=1), dtype=bool)


def diagnose(
    weights: FloatArray,
    points: FloatArray,
    coords: FloatArray,
    *,
    normalize: str,
    moving_average: float | None = None,
    ordered: bool = True,
    history: Sequence[_Round] | None = None,
    weighted_sum: bool = True,
    aims_even: bool = True,
    scalarization: str | None = None,
    ideal: ArrayLike | None = None,
    scales: ArrayLike | None = None,
) -> list[Finding]:
    """The problems of a run's final points.

    Parameters
    ----------
    weights : ndarray, shape (P,) or (P, M)
        The points' weights: increasing scalars (two objectives), or weight vectors on the
        simplex (a surface of M >= 3 objectives, see :func:`diagnose_surface`).
    points : ndarray, shape (P, M)
        Their objectives (minimized).
    coords : ndarray, shape (P, K)
        The points in the coordinates distances were measured in.
    normalize : str
        The run's ``normalize`` option (``"none"`` enables the scale check).
    moving_average : float, optional
        The run's moving-average rate (changes the remedy of the noise check).
    ordered : bool
        Whether the points come from linear scalarization at their weights, so that their
        objectives must be ordered (False for interpolated points such as Soup's).
    history : sequence of IterationRecord, optional
        The run's rounds up to the diagnosed one (``res.history``). With it, a slot whose point
        flips back and forth across a gap from round to round, while its weight moves little,
        shows a jump that a single round does not (the weight straddles it).
    weighted_sum : bool
        Whether the solver minimizes the weighted sum ``w f1 + (1 - w) f2`` (False for a
        Tchebycheff or other scalarization, whose points other points may beat in that sum
        at their weights though they are optimal). Only then is a point beaten at its own
        weight next to a jump a solve that stopped short (``unconverged``), and a jump a
        stretch that another scalarization may reach.
    aims_even : bool
        Whether the method places its weights by the front's arc length (SURF); points
        several weights share at a kink of the front are then no collapse a method with
        fixed weights (Uniform-w) cannot avoid, and the remedy differs.
    scalarization : str, optional
        The solver's scalarization kind (``"linear"``, ``"tchebycheff"``,
        ``"modified_tchebycheff"``, ``"asf"``); when given it decides ``weighted_sum``
        (``"linear"``), and the remedies name no scalarization the solver already uses.
        With it (or with ``weighted_sum``, for weighted sums) and the ``history``, points
        that other points beat at their own weights, round after round, while they stay put
        are solves stopped in local minima (``local_minima``, see
        :func:`local_minimum_slots`), not noise or dominated points to average away.
    ideal : array_like, optional
        The solver's ideal point, for the scalarizations that use one (else estimated from
        the points, as the adapters estimate it).

    Returns
    -------
    list of Finding

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.diagnostics import diagnose
    >>> w = np.linspace(0, 1, 5)
    >>> good = np.c_[1 - w, w ** 2]
    >>> diagnose(w, good, good, normalize="none")
    []
    >>> bad = good.copy(); bad[2] = bad[1]                 # two slots on one point
    >>> [f.code for f in diagnose(w, bad, bad, normalize="none")]
    ['collapsed']
    """
    findings: list[Finding] = []
    p = len(points)
    if p < 2 or points.ndim != 2 or points.shape[1] == 0:
        return findings
    if scalarization is not None:
        weighted_sum = scalarization == "linear"
    ranges = points.max(axis=0) - points.min(axis=0)
    level = np.maximum(np.abs(points).max(axis=0), 1.0)
    constant = np.flatnonzero(ranges <= 1e-12 * level)
    if constant.size == points.shape[1]:
        # every slot on one point: a solver that does not move (or ignores the weight), which
        # "no trade-off" would wrongly blame on the objectives
        one = _one_point(weights, points)
        if one is not None:
            return [one]
    if constant.size:
        which = " and ".join(f"objective {m + 1} (= {points[0, m]:.6g})" for m in constant)
        verb = "does" if constant.size == 1 else "do"
        findings.append(
            Finding(
                "constant",
                f"{which} {verb} not vary over the points: there is no trade-off to "
                "spread points along",
                remedy="check that the solver returns the objectives you meant",
                summary=f"{which} {verb} not vary: no trade-off",
            )
        )
        return findings
    if normalize == "none" and ranges.max() > SCALE_RATIO * ranges.min():
        big = int(np.argmax(ranges))
        findings.append(
            Finding(
                "scale",
                f"with normalize='none' the objectives' ranges differ by a factor of "
                f"{ranges.max() / ranges.min():.3g}, so distances (and the spacing) are dominated "
                f"by objective {big + 1}; use normalize='endpoints' to measure them in normalized "
                "coordinates",
                fatal=False,
                remedy="{normalize}",
                options={"normalize": "endpoints"},
                summary=f"objective ranges differ by {ranges.max() / ranges.min():.3g}x",
            )
        )
    if weights.ndim == 2:
        return findings + diagnose_surface(
            weights,
            points,
            coords,
            moving_average=moving_average,
            history=history,
            weighted_sum=weighted_sum,
            scalarization=scalarization,
            aims_even=aims_even,
            ideal=ideal,
            scales=scales,
        )
    still = _stuck(weights, points, ranges, history, weighted_sum)
    if still is not None:
        return [*findings, still]
    # an end slot running along a problem without a minimizer: its gap and its order are no
    # jump, flat face or short solve, and the remedy is to solve inside the ends
    runaway = _runaway_ends(weights, points, ranges, history)
    running = {r.slot for r in runaway}

    extent = float(np.sum(np.linalg.norm(np.diff(coords, axis=0), axis=1)))
    gaps = np.linalg.norm(np.diff(coords, axis=0), axis=1)
    tol = RELATIVE_TOL * max(extent, 1e-300)
    distinct = _distinct(coords, tol)
    # weights closer than WEIGHT_TOL whose points are still well apart are not a collapse:
    # objectives of very different scales put an even spread of points at weights that
    # differ by 1e-12 (the weights are then at the limit of floating-point resolution)
    close = np.diff(weights) < WEIGHT_TOL
    apart = gaps >= RESOLVED_GAP * extent / (p - 1)
    close_weights = int(np.sum(close & ~apart))
    jumps = _jumps(weights, gaps, extent, points, ranges, history)
    # (a gap the front jumps across at one weight is apart too, but no matter of precision)
    resolved = close & apart
    resolved[[j.i for j in jumps]] = False
    resolved_close = int(np.sum(resolved))
    weak = _weakly_dominated(points, ranges)
    # the order of points at (nearly) one weight is the solver's tolerance, not noise
    separated = np.diff(weights) >= SEPARATED_WEIGHTS
    wrong_order, reversed_order = _out_of_order(points, ranges, separated) if ordered else (0, 0)
    if reversed_order >= max(2, REVERSED_SHARE * int(np.sum(separated))):
        return [
            *findings,
            Finding(
                "reversed",
                f"objective 1 rises and objective 2 falls with w on {reversed_order} "
                f"of {p - 1} neighbouring pairs, the reverse of the order weighted sums of "
                "minimized objectives give: the solver looks like it maximizes (return costs, "
                "e.g. negated rewards) or puts w on objective 2 (it must minimize "
                "w * f1 + (1 - w) * f2)",
                remedy="return costs (minimized; negate rewards) and "
                "minimize w * f1 + (1 - w) * f2",
                summary="objectives in the reverse order: a maximizing solver?",
            ),
        ]
    flipped = _flipped_objective(points, ranges, separated) if ordered else None
    if flipped is not None:
        return [*findings, _flipped_finding(weights, flipped)]
    # with noisy points an endpoint beaten in its own objective (the one its weight keeps)
    # is likely noise; one that another point ties there and beats in the other objective
    # stopped on a flat face
    ends = [
        i
        for i in (0, p - 1)
        if weak[i] and (not wrong_order or _tied_and_beaten(points, i, 1 if i == 0 else 0, ranges))
    ]
    # a large gap next to an endpoint along one objective only: the endpoint left the front
    # (at that weight the scalarized problem ignores the other objective), so that gap is no
    # jump of the front
    flat = _flat_ends(weights, gaps, extent, points, ranges)
    ends = sorted((set(ends) | set(flat)) - running)
    jumps = [j for j in jumps if {0: 0, p - 2: p - 1}.get(j.i) not in set(flat) | running]
    lagging = (
        [i for i in _beaten_at_own_weight(weights, points, ranges) if i not in running]
        if ordered and weighted_sum
        else []
    )
    # a point beaten at its own weight that sits on a point another weight reaches optimally
    # converged, to a local minimum of a non-convex front; one that does not stopped short
    stuck = _local_minima_of_front(weights, coords, lagging, STUCK_TOL * max(extent, 1e-300))
    # points beaten round after round while they stay put: local minima of the solver's
    # problem (unless on a point another weight reaches, the end of a concave stretch); a gap
    # beside one says nothing about the front, and they are no short solves
    kind = scalarization if scalarization is not None else "linear" if weighted_sum else None
    local = _local_slots(
        weights,
        points,
        history,
        kind if ordered else None,
        (ideal, scales),
        running | set(ends) | set(stuck),
    )
    short_slots = set(lagging) - set(stuck) - set(local)
    short = [j for j in jumps if {j.i, j.i + 1} & short_slots]
    real = [j for j in jumps if j not in short and not {j.i, j.i + 1} & set(local)]
    lagging = [i for i in lagging if i not in local]
    collapsed = distinct < p or close_weights > 0
    if collapsed:
        detail = (
            f"only {distinct} distinct points among {p}"
            if distinct < p
            else f"{close_weights + 1} weights within {WEIGHT_TOL:g} of each other"
        )
        causes = []
        if runaway:
            causes.append("an end's scalarized problem has no minimizer (see below)")
        if ends:
            causes.append("an endpoint is only weakly Pareto-optimal (see below)")
        if real:
            causes.append(
                "the front has a jump that weighted sums cannot cross (see below)"
                if weighted_sum
                else "the front has a jump (see below)"
            )
        if short:
            causes.append("points next to a gap are not optimal at their own weights (see below)")
        if causes:
            remedy, detail_remedy = "see the other findings", "; ".join(causes)
        elif not aims_even and weighted_sum and _clusters_meet(coords, tol):
            # consecutive weights switch between two shared points: the stretch between them
            # is one that weighted sums skip (non-convex, or straight), or one that this
            # method's weights skip; the points cannot tell which
            detail_remedy = (
                "several weights reach each of two points between which the "
                "weights switch with no point between: either weighted sums "
                "skip the stretch between them (it is non-convex, or straight; "
                "a Tchebycheff scalarization, scalarization='tchebycheff' in "
                "paretosurf.adapters, reaches every Pareto point"
                + _TCHEBYCHEFF_IDEAL
                + "), or this method's weights skip it "
                "(SURF, ps.surf, places its weights along the front)"
            )
            remedy = (
                "SURF (ps.surf) to place weights along the front; if it reports a jump "
                "there, " + _TCHEBYCHEFF
            )
        elif not aims_even:
            detail_remedy = (
                "several weights reach one point (a kink of the front, whose "
                "point is the optimum of a range of weights): this "
                "method's weights do not follow the front"
            )
            remedy = (
                "SURF places its weights by arc length (ps.surf), one where several reach one point"
            )
        elif weighted_sum:
            detail_remedy = (
                "parts of the front are reached at a single weight or not at "
                "all; a Tchebycheff scalarization (paretosurf.adapters, "
                "scalarization='tchebycheff') reaches every Pareto point" + _TCHEBYCHEFF_IDEAL
            )
            remedy = _TCHEBYCHEFF
        else:
            detail_remedy = (
                "the solver's scalarization reaches these points from several "
                "weights: its ideal point may lie above some objective values, "
                "or its solves stop in local minima"
            )
            remedy = (
                "check the solver's ideal point; a global inner solver if its solves "
                "stop in local minima"
            )
        coinciding = (p - distinct) if distinct < p else close_weights + 1
        findings.append(
            Finding(
                "collapsed",
                f"points have collapsed: {detail}; {detail_remedy}",
                remedy=remedy,
                summary=(
                    f"{coinciding} of {p} points coincide with others"
                    if distinct < p
                    else f"{coinciding} weights within {WEIGHT_TOL:g}"
                ),
            )
        )
    elif resolved_close:
        findings.append(
            Finding(
                "precision",
                f"{resolved_close + 1} weights lie within {WEIGHT_TOL:g} of each "
                "other although their points are well apart: the objectives' scales differ so "
                "much that the weights are at the limit of floating-point resolution; scale the "
                "objectives to comparable ranges inside the solver",
                fatal=False,
                remedy="scale the objectives to comparable ranges inside the solver",
            )
        )
    if ends:
        names = " and ".join(f"w = {weights[i]:.6g}" for i in ends)
        verb = "is" if len(ends) == 1 else "are"
        findings.append(
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
        )
    if short:
        # a point that another point beats at its own weight was not solved to optimality:
        # the gap next to it says nothing yet about the front's shape
        findings.append(
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
        )
    if real:
        findings.append(_jump_finding(weights, real, stuck, weighted_sum))
    if runaway:
        findings.append(_no_minimizer_finding(weights, runaway))
    findings += _local_finding(weights, points, local, kind, (ideal, scales), history)

    # endpoints not found on a flat face are judged as the interior points are; points in
    # local minima are dominated for that reason (and out of order for it, below)
    findings += _dominated_findings(
        points, weak, set(ends) | running, moving_average, local, history
    )
    if local and wrong_order:
        pairs_apart = separated.copy()
        for i in local:
            pairs_apart[max(i - 1, 0) : i + 1] = False
        wrong_order, _ = _out_of_order(points, ranges, pairs_apart)
    if wrong_order and not collapsed:
        wrong = wrong_order
        if wrong:
            remedy = (
                f"average longer (a moving_average rate below {moving_average:g}), "
                "estimate the objectives from more samples per call, or use more "
                "steps per call"
                if moving_average is not None
                else "average them across rounds with moving_average=0.2, or use more "
                "steps per call"
            )
            findings.append(
                Finding(
                    "noisy",
                    f"objective estimates look noisy or unconverged: {wrong} of {p - 1} "
                    "neighbouring pairs are out of the order weighted sums guarantee (objective 1 "
                    f"falling and objective 2 rising with w); {remedy}",
                    remedy=(
                        "a lower {moving_average}, more samples or steps per call"
                        if moving_average is not None
                        else "{moving_average}, or more steps per call"
                    ),
                    options={
                        "moving_average": 0.2 if moving_average is None else moving_average / 2
                    },
                    summary=f"{wrong} of {p - 1} neighbouring pairs out of order",
                )
            )
    return findings


def coincident_pairs(
    coords: FloatArray, relative_tol: float = RELATIVE_TOL
) -> set[tuple[int, int]]:
    """Pairs ``(i, j)``, ``i < j``, of rows of ``coords`` closer than ``relative_tol`` times the
    diagonal of their bounding box: points that coincide.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.diagnostics import coincident_pairs
    >>> coincident_pairs(np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]))
    {(1, 2)}
    """
    from scipy.spatial import cKDTree

    extent = float(np.linalg.norm(coords.max(axis=0) - coords.min(axis=0)))
    return {
        (int(i), int(j)) for i, j in cKDTree(coords).query_pairs(relative_tol * max(extent, 1e-300))
    }


def diagnose_surface(
    weights: FloatArray,
    points: FloatArray,
    coords: FloatArray,
    *,
    moving_average: float | None = None,
    history: Sequence[_Round] | None = None,
    weighted_sum: bool = True,
    scalarization: str | None = None,
    aims_even: bool = True,
    ideal: ArrayLike | None = None,
    scales: ArrayLike | None = None,
) -> list[Finding]:
    """The problems of points spread over a surface (weight vectors, M >= 3 objectives):
    a solver stuck on one point, a front of lower dimension than M - 1 (``degenerate``:
    :func:`paretosurf.degenerate.degenerate_finding`), coincident points, corners that are
    only weakly Pareto-optimal or whose scalarized problem has no minimizer (with the
    ``history``),
    solves stopped in local minima (with the ``history``) and dominated points.
    ``weighted_sum``, ``scalarization``, ``aims_even`` and ``ideal`` are as for
    :func:`diagnose`.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.diagnostics import diagnose_surface
    >>> w = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1/3, 1/3, 1/3]])
    >>> f = 1 - w                                   # a flat front
    >>> diagnose_surface(w, f, f)
    []
    >>> g = f.copy(); g[3] = g[0]                   # two weights, one point
    >>> [x.code for x in diagnose_surface(w, g, g)]
    ['collapsed']
    """

    p = len(points)
    if scalarization is not None:
        weighted_sum = scalarization == "linear"
    findings: list[Finding] = []
    ranges = points.max(axis=0) - points.min(axis=0)
    stuck = _stuck(weights, points, ranges, history, weighted_sum)
    if stuck is not None:
        return [stuck]
    degenerate = degenerate_finding(points)
    if degenerate is not None:  # the cause of what follows (collapsed, uneven), said first
        findings.append(degenerate)
    runaway = _runaway_ends(weights, points, ranges, history)
    running = {r.slot for r in runaway}
    pairs = coincident_pairs(coords)
    weak = _weakly_dominated(points, ranges)
    corners = [i for i in range(p) if np.max(weights[i]) == 1.0 and i not in running]
    # a corner beaten in its own objective fell short (noise, too few steps): judged as the
    # other points are; one tied there and beaten elsewhere stopped on a flat face
    weak_corners = [
        i
        for i in corners
        if weak[i]
        and _tied_and_beaten(points, i, int(np.argmax(weights[i])), ranges, own_tol=ORDER_TOL)
    ]
    if pairs:
        merged = len({j for pair in pairs for j in pair})
        causes = (
            "Different weights reach one point where the front is non-convex "
            "(weighted sums jump over it; scalarization='tchebycheff' of "
            "paretosurf.adapters reaches every Pareto point), where objectives reach "
            "their ideal values together (linear and Tchebycheff weights then send "
            "whole edges of the simplex to one point; scalarization='asf' puts each "
            "point on the ray along its weight vector), or where the solver stops at a "
            "local minimum or on a flat face"
        )
        remedy = (
            "scalarization='asf' (or 'tchebycheff') in paretosurf.adapters, or a "
            "global inner solver if its solves stop in local minima"
        )
        if scalarization == "asf":
            causes = (
                "The solver's scalarization ('asf') reaches every Pareto point on the "
                "ray from its ideal point along the weight vector, so different weights "
                "reach one point when its ideal point lies above some objective values, "
                "when its solves stop at a local minimum, or where the front has a hole "
                "(a disconnected front: no spacing can fill it)"
            )
            remedy = (
                "check the solver's ideal point; a global inner solver if its solves "
                "stop in local minima"
            )
        elif not weighted_sum:
            causes = (
                "The solver's scalarization (not a weighted sum) reaches every Pareto "
                "point from an ideal point below every objective value, so different "
                "weights reach one point where objectives reach their ideal values "
                "together (Tchebycheff weights then send whole edges of the simplex to "
                "one point; scalarization='asf' puts each point on the ray along its "
                "weight vector), where its ideal point lies above some objective "
                "values, or where its solves stop at a local minimum"
            )
            remedy = (
                "scalarization='asf' in paretosurf.adapters where objectives reach "
                "their ideal values together; else check the solver's ideal point, or "
                "a global inner solver if its solves stop in local minima"
            )
        if not aims_even:
            causes += (
                "; with fixed weights, a vertex of the front (a kink) takes every "
                "weight of its cone, which SURF-simplex (ps.surf_simplex) avoids by "
                "placing its weights along the front"
            )
            remedy += "; ps.surf_simplex at a kink of the front"
        findings.append(
            Finding(
                "collapsed",
                f"points have collapsed: {merged} of {p} points coincide with another. {causes}",
                remedy=remedy,
                slots=tuple(sorted({j for pair in pairs for j in pair})),
                summary=f"{merged} of {p} points coincide with others",
            )
        )
    if weak_corners:
        m = weights.shape[1]
        findings.append(
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
        )
    if runaway:
        findings.append(_no_minimizer_finding(weights, runaway))
    kind = scalarization if scalarization is not None else "linear" if weighted_sum else None
    local = _local_slots(
        weights, points, history, kind, (ideal, scales), running | set(weak_corners)
    )
    findings += _local_finding(weights, points, local, kind, (ideal, scales), history)
    findings += _dominated_findings(
        points, weak, set(weak_corners) | running, moving_average, local, history
    )
    return findings


# ------------------------------------------------------------------------- local minima
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


def _simplex_grid(m: int) -> FloatArray:
    """Weight vectors that cover the simplex of ``m`` objectives: 201 scalar weights for two,
    a lattice of about 200 vectors otherwise."""
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
        spread = values.max(axis=1) - values.min(axis=1)
        share = np.where(spread > 0, 1.0 / np.where(spread > 0, spread, 1.0), 0.0)[:, None]
        lag = ((values - values.min(axis=1, keepdims=True)) * share).min(axis=0)
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
    >>> from paretosurf.diagnostics import local_minimum_slots
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


# ------------------------------------------------------------------- a solver that is stuck
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


def _clusters_meet(coords: FloatArray, tol: float) -> bool:
    """Whether two points that several slots each share are the points of consecutive
    slots: the weights switch from one to the other with no point between, so that the
    stretch between them is reached by no weight (weighted sums skip it: it is non-convex,
    or straight). At a kink of a convex front, the weights on either side of the shared point
    reach points of their own."""
    p = len(coords)
    near = np.linalg.norm(coords[:, None, :] - coords[None, :, :], axis=2) <= tol
    shared = near.sum(axis=1) > 1
    return any(shared[i] and shared[i + 1] and not near[i, i + 1] for i in range(p - 1))


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
) -> Finding | None:
    """The ``stuck`` finding from the history, or ``None``.

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
    beaten = set(_linear_lagging(weights, points, ranges))
    lagging = {
        i
        for i in beaten
        if not any(
            j not in beaten and bool(_same_point(points[j], points[i], level)) for j in range(p)
        )
    }
    best = points.min(axis=0)
    for i in range(p):
        on = [int(k) for k in np.flatnonzero(_same_point(points, points[i], level))]
        if on[0] != i or not max(3, math.ceil(STUCK_SHARE * p)) <= len(on) < p:
            continue
        if (
            np.any(points[i] <= best + SAME_POINT * level)
            or not all(never[on])
            or not beaten & set(on)
        ):
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
    if all(bool(np.any(points[i] <= best + END_SHARE * ranges)) for i in range(p)):
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


#: The remedy of weighted sums on a front that is non-convex between its ends.
NONCONVEX_REMEDY = (
    "every point lies on or above the chord between the ends, as on a concave front, which "
    "weighted sums cannot reach: use a scalarization that reaches every point of a "
    "non-convex front, scalarization='tchebycheff' (or 'modified_tchebycheff') in "
    "from_scipy and from_pymoo"
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
    >>> from paretosurf.diagnostics import frozen_and_beaten
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


def _linear_lagging(weights: FloatArray, points: FloatArray, ranges: FloatArray) -> list[int]:
    """Points another point beats at their own weight in the weighted sum (scalar weights or
    weight vectors) by more than 1e-3 of that sum's range."""
    if weights.ndim == 1:
        return _beaten_at_own_weight(weights, points, ranges)
    values = weights @ points.T  # [i, j]: j at w_i
    scale = weights @ ranges
    lag = np.diag(values) - values.min(axis=1)
    return [int(i) for i in np.flatnonzero(lag > 1e-3 * np.where(scale > 0, scale, 1.0))]


# ----------------------------------------------------------- an end without a minimizer
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
    a round (median of the last four ratios; geometric convergence shrinks them faster) and
    adding up to ``RUNAWAY_SHARE`` of that objective's range over ``points``."""
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
        rate = float(np.median((rises[1:] / rises[:-1])[-4:]))
        growth = float(x[t, other] - x[t - length, other])
        if rate < RUNAWAY_RATE or growth < RUNAWAY_SHARE * float(ranges[other]):
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
            else f"shrank by a factor of only {r.rate:.2f} a round"
        )
        part = (
            f"at {where} objective {r.own + 1} improved in each of {r.rounds} consecutive "
            f"rounds (from {r.start[0]:.4g} to {r.end[0]:.4g}) while objective "
            f"{r.other + 1} rose (from {r.start[1]:.4g} to {r.end[1]:.4g}) by steps that "
            f"{shrink}, where a solve converging to a minimizer takes steps that shrink "
            "geometrically"
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


#: The remedy of points dominated because their solves stopped in local minima.
LOCAL_REMEDY = (
    "multi-start (several starting points per weight, keep the best) or a global "
    "inner solver (scipy.optimize.differential_evolution or basinhopping, a pymoo "
    "single-objective algorithm such as GA, as solve(weight, state)); not more "
    "steps"
)


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


#: ``dominated`` by an earlier round: a final point counts as dominated by a point that an
#: earlier round found when that point is better by more than this share of the final points'
#: range in every objective: a poorer basin, not a solver's tolerance or the lag of a point
#: still converging.
EARLIER_MARGIN = 0.05


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


def _flat_ends(
    weights: FloatArray, gaps: FloatArray, extent: float, points: FloatArray, ranges: FloatArray
) -> list[int]:
    """Endpoints that left the front along one objective: the gap to the neighbour spans a
    fifth of the front and at least twice the median gap, over a weight interval far
    narrower than the even spacing, moving along one objective only (the scalarized problem
    at the end ignores the other objective; looser than the first test of :func:`_jumps`,
    which must also hold for interior gaps, so that such a jump at an end always passes it;
    an end gap that passes it is no jump)."""
    if gaps.size < 2 or extent <= 0:
        return []
    median = float(np.median(gaps))
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


def _out_of_order(
    points: FloatArray, ranges: FloatArray, separated: NDArray[np.bool_]
) -> tuple[int, int]:
    """Among neighbouring pairs at ``separated`` weights: how many have objective 1 rising or
    objective 2 falling with the weight, and how many both (the reverse order)."""
    rise = np.diff(points[:, 0]) > ORDER_TOL * ranges[0]
    fall = np.diff(points[:, 1]) < -ORDER_TOL * ranges[1]
    return int(np.sum((rise | fall) & separated)), int(np.sum(rise & fall & separated))


@dataclass(frozen=True)
class _Flipped:
    """An objective returned with its sign flipped: ``objective`` (0 or 1) moves with ``w``
    the way the other one does, on ``pairs`` of ``compared`` neighbouring pairs."""

    objective: int
    pairs: int
    compared: int


def _flipped_objective(
    points: FloatArray, ranges: FloatArray, separated: NDArray[np.bool_]
) -> _Flipped | None:
    """The objective whose sign looks flipped, or ``None``.

    Weighted sums of two minimized objectives trade one against the other: as ``w`` (the
    weight on objective 1) grows, objective 1 falls and objective 2 rises. When nearly every
    neighbouring pair (at least :data:`REVERSED_SHARE` of the pairs at separated weights, and
    two) has both objectives *falling*, objective 2 is returned with its sign flipped (a
    reward returned as is, or a loss negated): the solver minimizes its cost, and the run is
    handed the reward. Both *rising*: objective 1 is. A multimodal problem's points (a few
    above the front, the others on it) or noisy ones are out of order on some pairs, not on
    nearly all in one direction.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.linspace(0, 1, 6)
    >>> pts = np.c_[(1 - w) ** 2, -(w**2)]              # objective 2 returned negated
    >>> _flipped_objective(pts, np.ptp(pts, axis=0), np.ones(5, dtype=bool))
    _Flipped(objective=1, pairs=5, compared=5)
    >>> ok = np.c_[(1 - w) ** 2, w**2]
    >>> _flipped_objective(ok, np.ptp(ok, axis=0), np.ones(5, dtype=bool)) is None
    True
    """
    step = np.diff(points, axis=0)
    tol = ORDER_TOL * np.where(ranges > 0, ranges, 1.0)
    compared = int(np.sum(separated))
    falls = int(np.sum((step[:, 0] < -tol[0]) & (step[:, 1] < -tol[1]) & separated))
    rises = int(np.sum((step[:, 0] > tol[0]) & (step[:, 1] > tol[1]) & separated))
    need = max(2, REVERSED_SHARE * compared)
    if falls >= need:
        return _Flipped(1, falls, compared)
    if rises >= need:
        return _Flipped(0, rises, compared)
    return None


def _flipped_finding(weights: FloatArray, flipped: _Flipped) -> Finding:
    """The ``reversed`` finding of an objective whose sign looks flipped
    (:func:`_flipped_objective`)."""
    m = flipped.objective + 1
    other = 3 - m
    direction = "fall" if m == 2 else "rise"
    best = "w = 1" if m == 2 else "w = 0"
    return Finding(
        "reversed",
        f"objectives 1 and 2 both {direction} as w grows on {flipped.pairs} of "
        f"{flipped.compared} neighbouring pairs, so the point at {best} beats the others in "
        "both and there is no trade-off to spread points along; weighted sums of two "
        f"minimized objectives trade one against the other (objective {other} "
        f"{'falls' if other == 1 else 'rises'} as objective {m} "
        f"{'rises' if m == 2 else 'falls'}), so objective {m} looks returned with its sign "
        "flipped: a reward (to be maximized) returned as is, or a loss negated, while the "
        "solver minimizes its cost",
        remedy=f"negate objective {m} where the solver returns it (return its cost, the "
        "negated reward, so that both objectives are minimized)",
        summary=f"objective {m} reversed: its sign looks flipped",
    )


def _beaten_at_own_weight(weights: FloatArray, points: FloatArray, ranges: FloatArray) -> list[int]:
    """Points that another point beats at their own weight, ``w f1 + (1 - w) f2``, by more
    than 1e-3 of that sum's range: an exact solver's point is the best at its weight."""
    w = weights[:, None]
    values = w * points[None, :, 0] + (1 - w) * points[None, :, 1]  # [i, j]: j at w_i
    scale = weights * ranges[0] + (1 - weights) * ranges[1]
    lag = np.diag(values) - values.min(axis=1)
    return [int(i) for i in np.flatnonzero(lag > 1e-3 * np.where(scale > 0, scale, 1.0))]


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


def _axis_parallel(a: FloatArray, b: FloatArray, ranges: FloatArray) -> bool:
    """Whether the step from ``a`` to ``b`` moves along one objective only (relative to the
    objectives' ranges, the other moves less than 1e-3 as much)."""
    step = np.abs(b - a) / np.where(ranges > 0, ranges, 1.0)
    return bool(step.min() < 1e-3 * step.max())


def _between(a: float, b: float) -> str:
    """``"between weights a and b"``, or ``"at weight a"`` when they print alike."""
    return (
        f"at weight {a:.6g}"
        if f"{a:.6g}" == f"{b:.6g}"
        else (f"between weights {a:.6g} and {b:.6g}")
    )


def _short(indices: list[int]) -> str:
    shown = ", ".join(str(i) for i in indices[:8])
    return shown + (", ..." if len(indices) > 8 else "")
