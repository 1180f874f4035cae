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
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf._utils.validation import check_n_segments, check_positive_int
from paretosurf.findings import Finding
from paretosurf.loop import (
    Method,
    Round,
    RoundOutcome,
    RunOptions,
    check_options,
    document_loop_options,
    run,
)
from paretosurf.methods._endpoints import endpoint_keys
from paretosurf.methods._size import segments_from, size_keyword
from paretosurf.result import IterationRecord, Result
from paretosurf.solvers import SolverLike
from paretosurf.storage import StatePool

if TYPE_CHECKING:  # pragma: no cover - typing only
    from typing import Unpack

__all__ = ["OLSMethod", "corner_priorities", "ols"]

FloatArray = NDArray[np.float64]

#: Two weights closer than this are the same weight (a corner already solved).
_WEIGHT_TOL = 1e-12


# ---------------------------------------------------------------------------------------------
# Envelope geometry
# ---------------------------------------------------------------------------------------------
def _as_points_2d(points: ArrayLike, name: str = "points") -> FloatArray:
    p = np.asarray(points, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] < 1:
        raise ValueError(
            f"{name} must have shape (n_points, 2) with n_points >= 1, got shape {p.shape}"
        )
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

    >>> from paretosurf.methods._ols import corner_priorities
    >>> corners, prio = corner_priorities([[2.0, 0.0], [0.0, 2.0]], [0.0, 1.0])
    >>> corners.tolist(), prio.tolist()
    ([0.5], [1.0])
    >>> corner_priorities([[2.0, 0.0], [0.0, 2.0]], [0.0, 0.5, 1.0])[1].tolist()
    [0.0]
    """
    p = _as_points_2d(points)
    solved = np.unique(np.asarray(solved_weights, dtype=np.float64).ravel())
    if solved.size < 2 or not np.all(np.isfinite(solved)) or solved[0] != 0.0 or solved[-1] != 1.0:
        raise ValueError(
            "solved_weights must be finite weights in [0, 1] containing 0 and 1, "
            f"got {solved.tolist()}"
        )
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


def _check_epsilon(epsilon: object) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"epsilon must be a real number >= 0, got {epsilon!r}")
    value = float(epsilon)
    if not (math.isfinite(value) and value >= 0.0):
        raise ValueError(f"epsilon must be a finite number >= 0, got {value}")
    return value


# ---------------------------------------------------------------------------------------------
# OLS as a method of the driver
# ---------------------------------------------------------------------------------------------
class OLSMethod(Method):
    """OLS: solve both endpoints, then one corner weight per round (see the module docstring).

    The method holds the accepted points (the growing convex coverage set) with their weights
    and state keys, and the weights visited so far. ``converged`` is True once no corner has
    priority above ``epsilon``.
    """

    name = "ols"
    label = "OLS"

    def __init__(
        self,
        n_segments: int,
        *,
        epsilon: float = 1e-9,
        max_solves: int | None = None,
        calls_per_solve: int = 1,
    ) -> None:
        self.n_segments = check_n_segments(n_segments)
        self.epsilon = _check_epsilon(epsilon)
        self.calls = check_positive_int(calls_per_solve, name="calls_per_solve")
        self.max_solves: int | None = None
        if max_solves is not None:
            self.max_solves = check_positive_int(max_solves, name="max_solves")
            if self.max_solves < 2 * self.calls:
                raise ValueError(
                    f"max_solves must be at least 2 * calls_per_solve = {2 * self.calls} (the "
                    f"solves at w = 0 and w = 1), got {self.max_solves}"
                )
        self.starts: list[int | None] = [None, None]
        self.found_w: list[float] = []
        self.found_p: list[FloatArray] = []
        self.found_k: list[int | None] = []
        self.solved: list[float] = [0.0, 1.0]
        self.used = 0
        self.visit = 0
        self._converged = False
        self._budget_spent = False  # (set when the budget stopped the run)
        self._pending_value = math.nan

    def settings(self) -> dict[str, Any]:
        return {
            "n_segments": self.n_segments,
            "epsilon": self.epsilon,
            "max_solves": self.max_solves,
            "calls_per_solve": self.calls,
        }

    @property
    def converged(self) -> bool:
        return self._converged

    def start(self, init_keys: list[int | None] | None) -> None:
        self.starts = endpoint_keys(init_keys, self.n_segments)

    def propose(self) -> Round | None:
        if not self.found_w:  # round 0: both endpoints, `calls` warm-started calls each
            return Round(np.array([0.0, 1.0]), self.starts, slots=[0, 1], repeats=self.calls)
        if len(self.found_w) >= self.n_segments + 1:
            return None
        pts = np.stack(self.found_p)
        corners, prio = corner_priorities(pts, self.solved)
        if corners.size == 0 or float(np.max(prio)) <= self.epsilon:
            self._converged = True
            return None
        if self.max_solves is not None and self.used + self.calls > self.max_solves:
            self._budget_spent = True
            return None
        wc = float(corners[int(np.argmax(prio))])  # first (lowest-weight) corner among ties
        nearest = int(np.argmin(np.abs(np.asarray(self.found_w) - wc)))
        self._pending_value = float(_envelope_value(pts, np.asarray(wc)))
        return Round(
            np.array([wc]), [self.found_k[nearest]], slots=[self.visit], repeats=self.calls
        )

    def tell(self, outcome: RoundOutcome, pool: StatePool) -> None:
        visits = [0, 1] if not self.found_w else [self.visit]
        for visit, w, p in zip(visits, outcome.weights.tolist(), outcome.points, strict=True):
            if p.size != 2:
                raise ValueError(
                    f"OLS needs 2 objectives; the solver returned {p.size} for "
                    f"visit {visit} (weight {w:.6g})"
                )
        self.used += len(outcome.keys) * self.calls
        if not self.found_w:
            self.found_w += [0.0, 1.0]
            self.found_p += list(outcome.points)
            self.found_k += outcome.keys
            self.visit = 2
            return
        wc = float(outcome.weights[0])
        obj = outcome.points[0]
        self.solved.append(wc)
        if self._pending_value - (wc * obj[0] + (1.0 - wc) * obj[1]) > self.epsilon:
            self.found_w.append(wc)
            self.found_p.append(obj)
            self.found_k.append(outcome.keys[0])
        self.visit += 1

    def front(self) -> tuple[FloatArray, FloatArray, list[int | None]]:
        if not self.found_w:
            return np.array([0.0, 1.0]), np.empty((2, 0)), self.starts
        order = np.argsort(self.found_w)
        return (
            np.asarray(self.found_w, dtype=np.float64)[order],
            np.stack([self.found_p[k] for k in order]),
            [self.found_k[k] for k in order],
        )

    def live_keys(self) -> list[int | None]:
        return self.found_k if self.found_w else self.starts

    def findings(self) -> list[Finding]:
        found = len(self.found_w)
        if not found or found >= self.n_segments + 1:
            return []
        if self._converged:
            why = (
                "weighted sums reach no more vertices of the front: its convex hull has "
                "only these (a front that is linear, concave or made of few points); "
                "SURF, or a Tchebycheff scalarization, spreads points along the rest"
            )
        elif self._budget_spent:
            why = "the budget (max_solves) ran out"
        else:
            return []  # stopped from outside (callback, iterations): as asked
        return [
            Finding(
                "fewer",
                f"found {found} of the {self.n_segments + 1} points asked for: {why}",
                fatal=False,
            )
        ]

    def state_dict(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        meta = {
            "starts": list(self.starts),
            "found_w": list(self.found_w),
            "found_k": list(self.found_k),
            "solved": list(self.solved),
            "used": self.used,
            "visit": self.visit,
            "converged": self._converged,
        }
        points = np.stack(self.found_p) if self.found_p else np.empty((0, 2))
        return meta, {"found_p": points}

    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        history: Sequence[IterationRecord],
    ) -> None:
        self.starts = list(meta["starts"])
        self.found_w = [float(w) for w in meta["found_w"]]
        self.found_k = list(meta["found_k"])
        self.found_p = [np.asarray(p, dtype=np.float64) for p in arrays["found_p"]]
        self.solved = [float(w) for w in meta["solved"]]
        self.used = int(meta["used"])
        self.visit = int(meta["visit"])
        self._converged = bool(meta["converged"])


@size_keyword
@document_loop_options
def ols(
    solver: SolverLike,
    n_segments: int | None = None,
    *,
    n_points: int | None = None,
    epsilon: float = 1e-9,
    max_solves: int | None = None,
    calls_per_solve: int = 1,
    init_states: Sequence[Any] | None = None,
    **options: Unpack[RunOptions],
) -> Result:
    """Optimistic Linear Support: up to N + 1 supported points, visiting corner weights.

    See the module docstring for the envelope, corner weights and optimistic priority.

    Parameters
    ----------
    solver : object or callable
        Inner solver of ``min_u w * h1(u) + (1 - w) * h2(u)``, as for :func:`paretosurf.surf`.
        Objective vectors must have two entries.
    n_segments : int
        N >= 1: stop once N + 1 points (the two endpoints included) are accepted.
    n_points : int, optional
        N + 1, instead of the positional N (as for :func:`~paretosurf.surf`; ``n_segments=``
        by name warns).
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
    **options
        The loop options below, shared by every method's entry function. A round is one
        visited weight (the two endpoints first), and the run continues until OLS stops on
        its own. OLS's envelope uses the raw objectives (the weights it visits are those of
        the solver's scalarization); ``normalize`` sets the coordinates of the records' CV
        and gap ratio.
    <loop options>

    Returns
    -------
    Result
        ``weights`` are the weights at which the accepted points were found (increasing, from 0
        to 1) and ``points`` those points in the same order; ``states`` their solver states.
        ``res.n_segments`` is ``len(res.points) - 1``: below N when the CCS has fewer vertices
        or the budget ran out. ``history`` has one record per round of solves (the two
        endpoints first, then one per visited corner), each holding the points accepted so far
        (so their lengths differ); its ``weight_change`` is ``nan``. ``cdf`` is ``None``.
        ``converged`` is True when OLS stopped because no corner had priority above
        ``epsilon`` (the CCS is complete). Errors name the visit number as ``slot`` (0 and 1
        for the endpoints).

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
    >>> from paretosurf.methods._ols import ols
    >>> candidates = np.array([[4.0, 0.0], [1.0, 1.0], [3.0, 3.0], [0.0, 4.0]])
    >>> def solver(w, state):
    ...     best = candidates[np.argmin(w * candidates[:, 0] + (1 - w) * candidates[:, 1])]
    ...     return ps.Solution(best)
    >>> import warnings
    >>> with warnings.catch_warnings(record=True):     # 3 points, not the 11 asked for
    ...     warnings.simplefilter("always")
    ...     res = ols(solver, 10)
    >>> [f.code for f in res.findings]
    ['fewer']
    >>> res.points.tolist(), res.weights.round(4).tolist()
    ([[4.0, 0.0], [1.0, 1.0], [0.0, 4.0]], [0.0, 0.5, 1.0])
    >>> res.converged, res.n_solves                    # 2K - 1 visits for K = 3 vertices
    (True, 5)
    """
    n_segments = segments_from(n_segments, n_points, where="ols")
    check_options(
        ols,
        options,
        hints={
            "iterations": "it runs until N + 1 points are accepted; cap its inner-solver calls "
            "with max_solves (SURF's budget is iterations * (N + 1))"
        },
    )
    method = OLSMethod(
        n_segments, epsilon=epsilon, max_solves=max_solves, calls_per_solve=calls_per_solve
    )
    return run(method, solver, iterations=None, init_states=init_states, **options)
