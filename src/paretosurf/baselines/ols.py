"""Optimistic Linear Support (OLS) for two minimized objectives.

OLS (Roijers et al.; Barrett & Narayanan) builds the *convex coverage set* (CCS) of a
bi-objective problem one scalarized solve at a time, always at the weight where the solutions
found so far could be improved the most.

Notation (the library's conventions: objectives minimized, ``w`` weighs objective 1). A point
``p = (p1, p2)`` has the scalarized value ``L_p(w) = w * p1 + (1 - w) * p2`` (lower is better),
a line in ``w``. With the found points ``P``, the *envelope* ``V(w) = min_{p in P} L_p(w)`` is a
concave, piecewise-linear upper bound of the true value ``V*(w)`` of the scalarized problem.
The *corner weights* are the interior weights where the minimizing line of ``V`` changes, i.e.
the intersections of consecutive envelope lines (two objectives: no LP needed).

Optimistic priority. Every weight ``s`` already solved (the set ``S``, which always contains 0
and 1) tells us that no solution beats what was found there: any point ``q`` satisfies
``L_q(s) >= V(s)`` (exactly true for an exact solver, where ``V(s) = V*(s)``). The lowest value
a still-unknown point could reach at a corner ``w_c`` is therefore

    ``min_q L_q(w_c)  subject to  L_q(s) >= V(s) for all s in S``

(Roijers' optimistic LP). ``L_q`` is an arbitrary affine function of ``w``, so the minimum is the
upper concave hull of the points ``(s, V(s))`` at ``w_c``; since ``V`` is concave this is the
chord of ``V`` between the nearest solved weights ``s_- < w_c < s_+``:

    ``V_opt(w_c) = V(s_-) + (V(s_+) - V(s_-)) * (w_c - s_-) / (s_+ - s_-)``.

The priority of the corner is the largest possible improvement ``V(w_c) - V_opt(w_c) >= 0``
(zero for a corner already solved). :func:`corner_priorities` computes corners and priorities.

The loop: solve ``w = 0`` and ``w = 1`` (both solutions are always kept: they are the CCS's
extreme points); then repeatedly visit the corner of highest priority, solve there, and *accept*
the new point ``q`` if it improves the envelope there, ``V(w_c) - L_q(w_c) > epsilon``. It stops
when ``n_segments + 1`` points are accepted, when no corner has priority above ``epsilon`` (the
CCS is complete: ``converged``), or when the next solve would exceed ``max_solves``.

With an exact solver, every accepted point is a vertex of the CCS (a supported Pareto point), and
a run that stops on priorities visits each corner of the final envelope, which are then the true
corner weights: a CCS with ``K`` vertices costs ``2K - 1`` solves.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._validation import check_n_segments, check_positive_int
from paretosurf.cdf import ArcLengthCDF
from paretosurf.solvers import Solution, as_solver, count_steps, solve_slots
from paretosurf.surf import IterationRecord, SurfResult, SurfState

__all__ = ["corner_priorities", "ols"]

FloatArray = NDArray[np.float64]

#: Two weights closer than this are the same weight (a corner already solved).
_WEIGHT_TOL = 1e-12


# ---------------------------------------------------------------------------------------------
# Envelope geometry
# ---------------------------------------------------------------------------------------------
def _as_points_2d(points: ArrayLike, name: str = "points") -> FloatArray:
    p = np.asarray(points, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] < 1:
        raise ValueError(f"{name} must have shape (n_points, 2) with n_points >= 1, "
                         f"got shape {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} must be finite")
    return p


def _envelope_value(points: FloatArray, w: FloatArray) -> FloatArray:
    """``V(w) = min_p (w p1 + (1 - w) p2)`` for weights of any shape."""
    w_arr = np.asarray(w, dtype=np.float64)
    lines = w_arr[..., None] * points[:, 0] + (1.0 - w_arr[..., None]) * points[:, 1]
    return np.asarray(np.min(lines, axis=-1), dtype=np.float64)


def _envelope_corners(points: FloatArray) -> FloatArray:
    """Interior weights where the minimizing line of the lower envelope changes.

    Walks the envelope from ``w = 0``: line ``i`` (intercept ``c_i = p_i2``, slope
    ``s_i = p_i1 - p_i2``) is left at the first crossing ahead with a line of smaller slope;
    ties go to the smallest slope, i.e. the line that stays lowest to the right.
    """
    c = points[:, 1]
    s = points[:, 0] - points[:, 1]
    order = np.lexsort((s, c))  # minimal value at w = 0, then minimal slope
    i = int(order[0])
    w = 0.0
    corners: list[float] = []
    while True:
        cand = np.flatnonzero(s < s[i])
        if cand.size == 0:
            break
        cross = (c[cand] - c[i]) / (s[i] - s[cand])
        ahead = cross > w + _WEIGHT_TOL
        if not np.any(ahead):
            break
        cand, cross = cand[ahead], cross[ahead]
        w_next = float(np.min(cross))
        if w_next >= 1.0 - _WEIGHT_TOL:
            break
        tied = cand[cross <= w_next + _WEIGHT_TOL]
        i = int(tied[np.argmin(s[tied])])
        corners.append(w_next)
        w = w_next
    return np.asarray(corners, dtype=np.float64)


def corner_priorities(
    points: ArrayLike, solved_weights: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Corner weights of the envelope of ``points`` and their optimistic priorities.

    Parameters
    ----------
    points : array_like, shape (K, 2)
        Objective vectors found so far (minimized).
    solved_weights : array_like, shape (S,)
        Weights already solved; must contain 0 and 1.

    Returns
    -------
    corners : ndarray, shape (C,)
        Increasing interior weights where the envelope ``V(w) = min_p w p1 + (1 - w) p2``
        changes its minimizing line.
    priorities : ndarray, shape (C,)
        ``V(w_c) - V_opt(w_c) >= 0``, with ``V_opt`` the chord of ``V`` between the nearest
        solved weights on either side of ``w_c`` (the solution of OLS's optimistic LP, see the
        module docstring); ``0`` for a corner that is itself a solved weight.

    Examples
    --------
    Endpoints ``(2, 0)`` (found at ``w = 0``) and ``(0, 2)`` (at ``w = 1``) meet at
    ``w = 1/2`` with ``V = 1``; the chord of ``V`` between 0 and 1 is 0 there:

    >>> from paretosurf.baselines.ols import corner_priorities
    >>> corners, prio = corner_priorities([[2.0, 0.0], [0.0, 2.0]], [0.0, 1.0])
    >>> corners.tolist(), prio.tolist()
    ([0.5], [1.0])
    >>> corner_priorities([[2.0, 0.0], [0.0, 2.0]], [0.0, 0.5, 1.0])[1].tolist()
    [0.0]
    """
    p = _as_points_2d(points)
    solved = np.unique(np.asarray(solved_weights, dtype=np.float64).ravel())
    if solved.size < 2 or not np.all(np.isfinite(solved)) or solved[0] != 0.0 \
            or solved[-1] != 1.0:
        raise ValueError("solved_weights must be finite weights in [0, 1] containing 0 and 1, "
                         f"got {solved.tolist()}")
    corners = _envelope_corners(p)
    priorities = np.zeros_like(corners)
    values = _envelope_value(p, solved)
    for k, wc in enumerate(corners):
        j = int(np.searchsorted(solved, wc))  # solved[j - 1] < wc <= solved[j]
        if abs(solved[j] - wc) <= _WEIGHT_TOL or abs(solved[j - 1] - wc) <= _WEIGHT_TOL:
            continue
        lo, hi = solved[j - 1], solved[j]
        chord = values[j - 1] + (values[j] - values[j - 1]) * (wc - lo) / (hi - lo)
        priorities[k] = max(float(_envelope_value(p, np.asarray(wc))) - chord, 0.0)
    return corners, priorities


# ---------------------------------------------------------------------------------------------
# Shared argument helpers (also used by :mod:`paretosurf.baselines.soup`)
# ---------------------------------------------------------------------------------------------
def endpoint_states(init_states: Sequence[Any] | None, n_segments: int) -> list[Any]:
    """Warm starts for the solves at ``w = 0`` and ``w = 1``.

    ``init_states`` may hold 2 states (for ``w = 0`` and ``w = 1``) or, as for
    :func:`paretosurf.surf`, ``n_segments + 1`` states of which the first and last are used.
    """
    if init_states is None:
        return [None, None]
    if isinstance(init_states, (str, bytes)) or not isinstance(init_states, Sequence):
        raise TypeError("init_states must be a sequence of warm starts or None, got "
                        f"{type(init_states).__name__}")
    states = list(init_states)
    if len(states) not in (2, n_segments + 1):
        raise ValueError(
            f"init_states must hold 2 states (for w = 0 and w = 1) or n_segments + 1 = "
            f"{n_segments + 1}, got {len(states)}"
        )
    return [states[0], states[-1]]


def _check_epsilon(epsilon: object) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"epsilon must be a real number >= 0, got {epsilon!r}")
    value = float(epsilon)
    if not (math.isfinite(value) and value >= 0.0):
        raise ValueError(f"epsilon must be a finite number >= 0, got {value}")
    return value


# ---------------------------------------------------------------------------------------------
# OLS
# ---------------------------------------------------------------------------------------------
def ols(
    solver: Any,
    n_segments: int,
    *,
    epsilon: float = 1e-9,
    max_solves: int | None = None,
    calls_per_solve: int = 1,
    init_states: Sequence[Any] | None = None,
    progress: bool = False,
) -> SurfResult:
    """Optimistic Linear Support: up to N + 1 supported points, visiting corner weights.

    See the module docstring for the envelope, corner weights and optimistic priority.

    Parameters
    ----------
    solver : object or callable
        Inner solver of ``min_u w * h1(u) + (1 - w) * h2(u)``, as for :func:`paretosurf.surf`.
        Objective vectors must have two entries.
    n_segments : int
        N >= 1: stop once N + 1 points (the two endpoints included) are accepted.
    epsilon : float
        Absolute threshold >= 0, in objective units: a corner is visited only if its priority
        exceeds ``epsilon``, and a new point is accepted only if it lowers the envelope at the
        corner by more than ``epsilon``. The default only guards against round-off; scale it
        with your objectives.
    max_solves : int, optional
        Budget in inner-solver calls (the unit of ``res.n_solves`` and of SURF's
        ``iterations * (N + 1)``); OLS stops before a visit that would exceed it. At least
        ``2 * calls_per_solve`` (the two endpoint solves). Default: no budget (OLS terminates
        anyway: at most ``N`` fruitless visits between two accepted points).
    calls_per_solve : int
        Inner-solver calls per visited weight, each warm-started from the previous call's
        state (the last call's objectives are used). For a K-step solver, set it to SURF's
        ``iterations`` so that every OLS point gets the budget of one SURF slot, and
        ``max_solves = iterations * (N + 1)`` to cap the total as SURF's.
    init_states : sequence, optional
        Warm starts for the first solves at ``w = 0`` and ``w = 1``: 2 states, or N + 1 as for
        :func:`paretosurf.surf` (first and last used). A corner's first call starts from the
        state of the accepted point found at the nearest weight.
    progress : bool
        Show a progress bar of accepted points.

    Returns
    -------
    SurfResult
        ``weights`` are the weights at which the accepted points were found (increasing, from 0
        to 1) and ``points`` those points in the same order; ``states`` their solver states.
        ``res.n_segments`` is ``len(res.points) - 1``: below N when the CCS has fewer vertices
        or the budget ran out. ``history`` has one record per round of solves (the two
        endpoints first, then one per visited corner), each holding the points accepted so far
        (so their lengths differ); its ``weight_change`` is ``nan`` and its ``cdf`` the
        chord-length CDF of those points. ``converged`` is True when OLS stopped because no
        corner had priority above ``epsilon`` (the CCS is complete). Errors name the visit
        number as ``slot`` (0 and 1 for the endpoints).

    Raises
    ------
    ValueError, TypeError
        On invalid arguments, or a solver returning objective vectors that are not of size 2.
    paretosurf.solvers.InnerSolverError
        If the solver raises or returns non-finite objectives.

    Examples
    --------
    A discrete problem whose CCS is ``(4, 0), (1, 1), (0, 4)``; ``(3, 3)`` is dominated:

    >>> import numpy as np
    >>> import paretosurf as ps
    >>> from paretosurf.baselines.ols import ols
    >>> candidates = np.array([[4.0, 0.0], [1.0, 1.0], [3.0, 3.0], [0.0, 4.0]])
    >>> def solver(w, state):
    ...     best = candidates[np.argmin(w * candidates[:, 0] + (1 - w) * candidates[:, 1])]
    ...     return ps.Solution(best)
    >>> res = ols(solver, 10)
    >>> res.points.tolist(), res.weights.round(4).tolist()
    ([[4.0, 0.0], [1.0, 1.0], [0.0, 4.0]], [0.0, 0.5, 1.0])
    >>> res.converged, res.n_solves                    # 2K - 1 visits for K = 3 vertices
    (True, 5)
    """
    n = check_n_segments(n_segments)
    eps = _check_epsilon(epsilon)
    calls = check_positive_int(calls_per_solve, name="calls_per_solve")
    budget: int | None = None
    if max_solves is not None:
        budget = check_positive_int(max_solves, name="max_solves")
        if budget < 2 * calls:
            raise ValueError(
                f"max_solves must be at least 2 * calls_per_solve = {2 * calls} (the solves at "
                f"w = 0 and w = 1), got {budget}"
            )
    starts = endpoint_states(init_states, n)
    inner = as_solver(solver)

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n + 1, desc="OLS", unit="point")

    found_w: list[float] = []
    found_p: list[FloatArray] = []
    found_s: list[Any] = []
    solved: list[float] = [0.0, 1.0]
    history: list[IterationRecord] = []
    n_solves = 0
    n_steps = 0
    converged = False

    def snapshot() -> tuple[FloatArray, FloatArray]:
        order = np.argsort(found_w)
        return (np.asarray(found_w, dtype=np.float64)[order],
                np.stack([found_p[k] for k in order]))

    def check_size(sol: Solution, visit: int, w: float) -> None:
        if sol.objectives.size != 2:
            raise ValueError(
                f"OLS needs 2 objectives; the solver returned {sol.objectives.size} for visit "
                f"{visit} (weight {w:.6g})"
            )

    try:
        # Round 0: both endpoints, `calls` warm-started rounds, through solve_many if offered.
        start = time.perf_counter()
        states = starts
        sols: list[Solution] = []
        for _ in range(calls):
            sols = solve_slots(inner, np.array([0.0, 1.0]), states, slots=[0, 1])
            states = [s.state for s in sols]
            n_solves += 2
            n_steps += count_steps(sols)
        solve_seconds = time.perf_counter() - start
        for visit, (w, sol) in enumerate(zip((0.0, 1.0), sols, strict=True)):
            check_size(sol, visit, w)
            found_w.append(w)
            found_p.append(sol.objectives)
            found_s.append(sol.state)
        weights, points = snapshot()
        history.append(IterationRecord.from_points(
            0, weights, points, cdf=ArcLengthCDF.from_front(weights, points),
            seconds=time.perf_counter() - start, solve_seconds=solve_seconds,
            n_solves=n_solves, n_steps=n_steps))
        if bar is not None:
            bar.update(2)

        visit = 2
        while len(found_w) < n + 1:
            pts = np.stack(found_p)
            corners, prio = corner_priorities(pts, solved)
            if corners.size == 0 or float(np.max(prio)) <= eps:
                converged = True
                break
            if budget is not None and n_solves + calls > budget:
                break
            start = time.perf_counter()
            k = int(np.argmax(prio))  # first (lowest-weight) corner among ties
            wc = float(corners[k])
            nearest = int(np.argmin(np.abs(np.asarray(found_w) - wc)))
            state = found_s[nearest]
            sol = solve_slots(inner, np.array([wc]), [state], slots=[visit])[0]
            n_steps += count_steps([sol])
            for _ in range(calls - 1):
                sol = solve_slots(inner, np.array([wc]), [sol.state], slots=[visit])[0]
                n_steps += count_steps([sol])
            n_solves += calls
            solve_seconds = time.perf_counter() - start
            check_size(sol, visit, wc)
            solved.append(wc)
            value_before = float(_envelope_value(pts, np.asarray(wc)))
            value_new = wc * sol.objectives[0] + (1.0 - wc) * sol.objectives[1]
            if value_before - value_new > eps:
                found_w.append(wc)
                found_p.append(sol.objectives)
                found_s.append(sol.state)
                if bar is not None:
                    bar.update(1)
            weights, points = snapshot()
            history.append(IterationRecord.from_points(
                len(history), weights, points, cdf=ArcLengthCDF.from_front(weights, points),
                seconds=time.perf_counter() - start, solve_seconds=solve_seconds,
                n_solves=n_solves, n_steps=n_steps))
            visit += 1
    finally:
        if bar is not None:
            bar.close()

    order = np.argsort(found_w)
    final = SurfState(
        n_segments=len(found_w) - 1,
        alpha=1.0,
        cdf=history[-1].cdf,
        states=[found_s[k] for k in order],
        history=history,
        n_solves=n_solves,
        n_steps=n_steps,
        converged=converged,
        refine=False,
    )
    return SurfResult(final)
