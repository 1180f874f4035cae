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
  weight on the wrong objective);
- ``precision``: weights closer than a tolerance whose points are still well apart
  (objectives of very different scales); it only advises.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import moocore
import numpy as np
from numpy.typing import NDArray

__all__ = ["Finding", "SurfWarning", "coincident_pairs", "diagnose", "diagnose_surface"]

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
_TCHEBYCHEFF_IDEAL = ("; if the solver already uses it, its ideal point must be at or below "
                      "every objective's smallest value")


class _Round(Protocol):
    """One round of a run's history (a :class:`~paretosurf.result.IterationRecord`): the
    weights solved at and the objectives found."""

    @property
    def weights(self) -> FloatArray: ...

    @property
    def points(self) -> FloatArray: ...


@dataclass(frozen=True)
class _Jump:
    """A gap the front jumps across: between slots ``i`` and ``i + 1``, ``share`` of the
    front's length; ``crossing``: a slot whose point went across it between rounds, with the
    weights on either side, when the history showed it."""

    i: int
    share: float
    crossing: tuple[int, float, float] | None = None


class SurfWarning(UserWarning):
    """A result is not what was asked for (dominated or collapsed points, a front that
    weighted sums cannot cross, noisy estimates, badly scaled objectives); the message names
    the remedy."""


@dataclass(frozen=True)
class Finding:
    """One problem :func:`diagnose` found.

    Attributes
    ----------
    code : str
        ``"constant"``, ``"scale"``, ``"collapsed"``, ``"jump"``, ``"endpoint"``,
        ``"dominated"``, ``"noisy"``, ``"reversed"``, ``"unconverged"``, ``"precision"``,
        or one a method
        adds itself (OLS's ``"fewer"``: fewer points than asked for).
    message : str
        What is wrong and the remedy.
    fatal : bool
        Whether the result fails (``success=False``); ``scale``, ``precision`` and
        ``fewer`` only advise.
    """

    code: str
    message: str
    fatal: bool = True


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


def diagnose(weights: FloatArray, points: FloatArray, coords: FloatArray, *,
             normalize: str, moving_average: float | None = None,
             ordered: bool = True, history: Sequence[_Round] | None = None,
             weighted_sum: bool = True) -> list[Finding]:
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
    ranges = points.max(axis=0) - points.min(axis=0)
    level = np.maximum(np.abs(points).max(axis=0), 1.0)
    constant = np.flatnonzero(ranges <= 1e-12 * level)
    if constant.size:
        which = " and ".join(f"objective {m + 1} (= {points[0, m]:.6g})" for m in constant)
        verb = "does" if constant.size == 1 else "do"
        findings.append(Finding(
            "constant", f"{which} {verb} not vary over the points: there is no trade-off to "
            "spread points along; check that the solver returns the objectives you meant"))
        return findings
    if normalize == "none" and ranges.max() > SCALE_RATIO * ranges.min():
        big = int(np.argmax(ranges))
        findings.append(Finding(
            "scale", f"with normalize='none' the objectives' ranges differ by a factor of "
            f"{ranges.max() / ranges.min():.3g}, so distances (and the spacing) are dominated "
            f"by objective {big + 1}; use normalize='endpoints' to measure them in normalized "
            "coordinates", fatal=False))
    if weights.ndim == 2:
        return findings + diagnose_surface(weights, points, coords,
                                           moving_average=moving_average)

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
    wrong_order, reversed_order = (
        _out_of_order(points, ranges, separated) if ordered else (0, 0))
    if reversed_order >= max(2, REVERSED_SHARE * int(np.sum(separated))):
        return [*findings, Finding(
            "reversed", f"objective 1 rises and objective 2 falls with w on {reversed_order} "
            f"of {p - 1} neighbouring pairs, the reverse of the order weighted sums of "
            "minimized objectives give: the solver looks like it maximizes (return costs, "
            "e.g. negated rewards) or puts w on objective 2 (it must minimize "
            "w * f1 + (1 - w) * f2)")]
    # with noisy points an endpoint beaten in its own objective (the one its weight keeps)
    # is likely noise; one that another point ties there and beats in the other objective
    # stopped on a flat face
    ends = [i for i in (0, p - 1) if weak[i] and (
        not wrong_order or _tied_and_beaten(points, i, 1 if i == 0 else 0, ranges))]
    # a large gap next to an endpoint along one objective only: the endpoint left the front
    # (at that weight the scalarized problem ignores the other objective), so that gap is no
    # jump of the front
    flat = _flat_ends(weights, gaps, extent, points, ranges)
    ends = sorted(set(ends) | set(flat))
    jumps = [j for j in jumps if {0: 0, p - 2: p - 1}.get(j.i) not in flat]
    lagging = (_beaten_at_own_weight(weights, points, ranges) if ordered and weighted_sum
               else [])
    # a point beaten at its own weight that sits on a point another weight reaches optimally
    # converged, to a local minimum of a non-convex front; one that does not stopped short
    stuck = _stuck(weights, coords, lagging, STUCK_TOL * max(extent, 1e-300))
    short = [j for j in jumps if {j.i, j.i + 1} & (set(lagging) - set(stuck))]
    real = [j for j in jumps if j not in short]
    collapsed = distinct < p or close_weights > 0
    if collapsed:
        detail = (f"only {distinct} distinct points among {p}" if distinct < p
                  else f"{close_weights + 1} weights within {WEIGHT_TOL:g} of each other")
        causes = []
        if ends:
            causes.append("an endpoint is only weakly Pareto-optimal (see below)")
        if real:
            causes.append("the front has a jump that weighted sums cannot cross (see below)"
                          if weighted_sum else "the front has a jump (see below)")
        if short:
            causes.append("points next to a gap are not optimal at their own weights (see "
                          "below)")
        remedy = "; ".join(causes) if causes else (
            "parts of the front are reached at a single weight or not at all; a "
            "Tchebycheff scalarization (paretosurf.adapters, scalarization="
            "'tchebycheff') reaches every Pareto point" + _TCHEBYCHEFF_IDEAL)
        findings.append(Finding("collapsed", f"points have collapsed: {detail}; {remedy}"))
    elif resolved_close:
        findings.append(Finding(
            "precision", f"{resolved_close + 1} weights lie within {WEIGHT_TOL:g} of each "
            "other although their points are well apart: the objectives' scales differ so "
            "much that the weights are at the limit of floating-point resolution; scale the "
            "objectives to comparable ranges inside the solver", fatal=False))
    if ends:
        names = " and ".join(f"w = {weights[i]:.6g}" for i in ends)
        verb = "is" if len(ends) == 1 else "are"
        findings.append(Finding(
            "endpoint", f"the point{'s' if len(ends) > 1 else ''} at {names} {verb} only "
            "weakly Pareto-optimal: another point is as good in one objective and better in "
            "the other, or far better in it at almost the same value of the first (at that "
            "weight the scalarized problem ignores one objective, and the solver stopped on the "
            "flat face it leaves); pass weight_bounds=(1e-3, 1 - 1e-3) to solve slightly "
            "inside [0, 1]"))
    if short:
        # a point that another point beats at its own weight was not solved to optimality:
        # the gap next to it says nothing yet about the front's shape
        findings.append(Finding(
            "unconverged", f"the points of slot{'s' if len(lagging) > 1 else ''} "
            f"{_short(lagging)} are not optimal at their own weights (another point found "
            "scores lower there), and a gap that looks like a jump ("
            f"{_between(weights[short[0].i], weights[short[0].i + 1])}) lies next to one "
            "of them: the solver stopped short of the optimum, either for too few steps (give "
            "it more steps per call or more rounds) or in a local minimum where the front is "
            "non-convex "
            "(weighted sums cannot reach such a stretch; a Tchebycheff scalarization, "
            "scalarization='tchebycheff' in paretosurf.adapters, does)"))
    if real:
        findings.append(_jump_finding(weights, real, stuck, weighted_sum))

    # endpoints not found on a flat face are judged as the interior points are
    findings += _dominated(points, weak, [i for i in range(p) if i not in ends],
                           moving_average)
    if wrong_order and not collapsed:
        wrong = wrong_order
        if wrong:
            remedy = (f"average longer (a moving_average rate below {moving_average:g}), "
                      "estimate the objectives from more samples per call, or use more "
                      "steps per call" if moving_average is not None else
                      "average them across rounds with moving_average=0.2, or use more "
                      "steps per call")
            findings.append(Finding(
                "noisy", f"objective estimates look noisy or unconverged: {wrong} of {p - 1} "
                "neighbouring pairs are out of the order weighted sums guarantee (objective 1 "
                f"falling and objective 2 rising with w); {remedy}"))
    return findings


def coincident_pairs(coords: FloatArray, relative_tol: float = RELATIVE_TOL
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
    return {(int(i), int(j)) for i, j in
            cKDTree(coords).query_pairs(relative_tol * max(extent, 1e-300))}


def diagnose_surface(weights: FloatArray, points: FloatArray, coords: FloatArray, *,
                     moving_average: float | None = None) -> list[Finding]:
    """The problems of points spread over a surface (weight vectors, M >= 3 objectives):
    coincident points, corners that are only weakly Pareto-optimal, and dominated points.

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
    findings: list[Finding] = []
    ranges = points.max(axis=0) - points.min(axis=0)
    pairs = coincident_pairs(coords)
    weak = _weakly_dominated(points, ranges)
    corners = [i for i in range(p) if np.max(weights[i]) == 1.0]
    # a corner beaten in its own objective fell short (noise, too few steps): judged as the
    # other points are; one tied there and beaten elsewhere stopped on a flat face
    weak_corners = [i for i in corners if weak[i] and _tied_and_beaten(
        points, i, int(np.argmax(weights[i])), ranges, own_tol=ORDER_TOL)]
    if pairs:
        merged = len({j for pair in pairs for j in pair})
        findings.append(Finding(
            "collapsed", f"points have collapsed: {merged} of {p} points coincide with "
            "another. Different weights reach one point where the front is non-convex "
            "(weighted sums jump over it; scalarization='tchebycheff' of paretosurf.adapters "
            "reaches every Pareto point), where objectives reach their ideal values together "
            "(linear and Tchebycheff weights then send whole edges of the simplex to one "
            "point; scalarization='asf' puts each point on the ray along its weight vector), "
            "or where the solver stops at a local minimum or on a flat face"))
    if weak_corners:
        m = weights.shape[1]
        findings.append(Finding(
            "endpoint", f"the corner point{'s' if len(weak_corners) > 1 else ''} of slot"
            f"{'s' if len(weak_corners) > 1 else ''} {_short(weak_corners)} "
            f"{'are' if len(weak_corners) > 1 else 'is'} only weakly Pareto-optimal (at a "
            "corner the scalarized problem ignores the other objectives and the solver "
            f"stopped on the flat face it leaves); pass weight_bounds=(1e-3, 1 - {m - 1} * "
            "1e-3) to solve slightly inside the simplex"))
    findings += _dominated(points, weak, [i for i in range(p) if i not in weak_corners],
                           moving_average)
    return findings


def _dominated(points: FloatArray, weak: NDArray[np.bool_], candidates: Sequence[int],
               moving_average: float | None) -> list[Finding]:
    """The "dominated" finding for the ``candidates`` (slots other than the endpoints or
    corners) that other points dominate, if any."""
    nondominated = moocore.is_nondominated(points)
    inner = [i for i in candidates if not nondominated[i] and weak[i]]
    if not inner:
        return []
    remedy = ("let the solver converge further (more steps per call or more rounds), or "
              f"average longer (a moving_average rate below {moving_average:g})"
              if moving_average is not None else
              "let the solver converge further (more steps per call or more rounds), or "
              "average noisy estimates with moving_average=0.2")
    return [Finding("dominated", f"{len(inner)} of {len(points)} points are dominated by "
                    f"others (slots {_short(inner)}); {remedy}")]


def _jumps(weights: FloatArray, gaps: FloatArray, extent: float, points: FloatArray,
           ranges: FloatArray, history: Sequence[_Round] | None = None) -> list[_Jump]:
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
    if (dw[i] < 0.01 / gaps.size and gaps[i] > JUMP_FACTOR * max(median, 1e-300)
            and gaps[i] > 0.2 * extent):
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


def _crossing(j: int, points: FloatArray, ranges: FloatArray,
              history: Sequence[_Round] | None) -> tuple[int, float, float] | None:
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
    rounds = [r for r in list(history)[-(JUMP_ROUNDS + 1):]
              if np.ndim(r.weights) == 1 and np.shape(r.weights)[0] == p
              and np.shape(r.points) == points.shape]
    if len(rounds) < 3:
        return None
    scale = np.where(ranges > 0, ranges, 1.0)
    ends = points[[j, j + 1]] / scale
    gap = float(np.linalg.norm(ends[1] - ends[0]))
    w = np.stack([np.asarray(r.weights, dtype=np.float64) for r in rounds])   # [round, slot]
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
        if {a for a, _, _ in found} == {0, 1}:                          # there and back
            _, w_j, w_next = found[-1]
            return k, w_j, w_next
    return None


def _stuck(weights: FloatArray, coords: FloatArray, lagging: list[int],
           tol: float) -> list[int]:
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


def _jump_finding(weights: FloatArray, jumps: list[_Jump], stuck: list[int],
                  weighted_sum: bool = True) -> Finding:
    """The ``jump`` finding for the gaps ``jumps``; ``stuck``: slots whose points are local
    minima of the weighted sum (see :func:`_stuck`), named as the evidence they are;
    ``weighted_sum``: whether the solver minimizes the weighted sum (else the remedy is not
    another scalarization: the front is disconnected, or the solver's ideal point wrong)."""
    where = " and ".join(f"{_between(weights[j.i], weights[j.i + 1])} ({j.share:.0%} of its "
                         "length)" for j in jumps)
    evidence = ""
    crossed = [j.crossing for j in jumps if j.crossing is not None]
    if crossed:
        k, a, b = crossed[0]
        evidence += (f"; the point of slot {k} flips across the gap from round to round as "
                     f"its weight moves between {a:.6g} and {b:.6g}, so more rounds will not "
                     "settle it")
    if stuck:
        evidence += (f"; the points of slot{'s' if len(stuck) > 1 else ''} {_short(stuck)} "
                     "are local minima of the weighted sum at their weights (points other "
                     "weights reach, beaten at their own), so more steps will not move them")
    if not weighted_sum:
        return Finding(
            "jump", f"the front jumps {where}{evidence}: the solver's scalarization reaches "
            "no point in the gap, so the front is disconnected there (no Pareto point lies in "
            "it, and no spacing can close it); if the solver uses a Tchebycheff "
            "scalarization, its ideal point must be at or below every objective's smallest "
            "value, or it jumps over non-convex stretches too")
    return Finding(
        "jump", f"the front jumps {where}{evidence}: weighted sums cannot reach "
        "that stretch (the front is non-convex or disconnected there); use a Tchebycheff "
        "scalarization (paretosurf.adapters.from_scipy(..., scalarization='tchebycheff'))"
        + _TCHEBYCHEFF_IDEAL + "; a gap that stays under Tchebycheff holds no Pareto point "
        "(the front is disconnected there), and no spacing can close it")


def _flat_ends(weights: FloatArray, gaps: FloatArray, extent: float, points: FloatArray,
               ranges: FloatArray) -> list[int]:
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
        if (narrow and gaps[i] > 0.2 * extent and gaps[i] > 2.0 * median
                and _axis_parallel(points[i], points[i + 1], ranges)):
            out.append(end)
    return out


def _out_of_order(points: FloatArray, ranges: FloatArray,
                  separated: NDArray[np.bool_]) -> tuple[int, int]:
    """Among neighbouring pairs at ``separated`` weights: how many have objective 1 rising or
    objective 2 falling with the weight, and how many both (the reverse order)."""
    rise = np.diff(points[:, 0]) > ORDER_TOL * ranges[0]
    fall = np.diff(points[:, 1]) < -ORDER_TOL * ranges[1]
    return int(np.sum((rise | fall) & separated)), int(np.sum(rise & fall & separated))


def _beaten_at_own_weight(weights: FloatArray, points: FloatArray,
                          ranges: FloatArray) -> list[int]:
    """Points that another point beats at their own weight, ``w f1 + (1 - w) f2``, by more
    than 1e-3 of that sum's range: an exact solver's point is the best at its weight."""
    w = weights[:, None]
    values = w * points[None, :, 0] + (1 - w) * points[None, :, 1]   # [i, j]: j at w_i
    scale = weights * ranges[0] + (1 - weights) * ranges[1]
    lag = np.diag(values) - values.min(axis=1)
    return [int(i) for i in np.flatnonzero(lag > 1e-3 * np.where(scale > 0, scale, 1.0))]


def _tied_and_beaten(points: FloatArray, i: int, own: int, ranges: FloatArray,
                     own_tol: float = TIE_TOL) -> bool:
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
    return f"at weight {a:.6g}" if f"{a:.6g}" == f"{b:.6g}" else (
        f"between weights {a:.6g} and {b:.6g}")


def _short(indices: list[int]) -> str:
    shown = ", ".join(str(i) for i in indices[:8])
    return shown + (", ..." if len(indices) > 8 else "")


def summary(label: str, n_points: int, cv: float, gap_ratio: float,
            findings: list[Finding]) -> tuple[bool, str]:
    """``(success, message)`` of a result from its findings."""
    success = not any(f.fatal for f in findings)
    head = (f"{label}: {n_points} points, CV {cv:.3g}, gap ratio {gap_ratio:.3g}"
            if math.isfinite(cv) else f"{label}: {n_points} points")
    if not findings:
        return True, head
    return success, head + "; " + "; ".join(f.message for f in findings)
