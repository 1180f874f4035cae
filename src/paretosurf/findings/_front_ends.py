"""The front's ends, verified: where each objective alone is best, found before the first round.

A run's points can only cover the front between its end points, and the run normalizes its
coordinates by those ends: a run whose end solves stop short, or whose ``weight_bounds``
clip the weights, cannot see what it misses. So, for two objectives, the run first finds the
front's ends (:func:`find_ends`), then judges its result against them
(:func:`coverage_finding`):

- a solver with ``solve_end(objective, state)`` (the adapters ``from_scipy`` and
  ``from_pymoo`` where every variable is bounded) poses the problem directly: objective
  ``objective`` (0-based) minimized alone, then the other minimized with the first held
  within a tolerance of its minimum (lexicographic, so that a flat face of minimizers of the
  first gives its Pareto-optimal end). Its states then start the end slots;
- any other solver, with ``weight_bounds`` given, is *approached*: solved at a raw weight
  ``1e-2`` from each end, then at a distance shrinking tenfold, each solve warm-started from
  the last, until the point moves by less than a quarter of a spacing (the end is reached).
  Where the distance runs out, or the moves stop shrinking, the end's own weight decides:
  two solves there that agree are a minimizer; a solve that fails, returns a non-finite
  value or moves on means the scalarized problem at the end has no minimizer (the end is a
  *limit*, which the run is not held to).

``weight_bounds=(lo, hi)`` act in the run's units: the weight ``u`` on objective 1 of the
objectives divided by their ranges between the ends
(:func:`~paretosurf.loop.solver_weights`), so that a bound clips the same share of
the front whatever the objectives' units. ``weight_bounds="auto"`` takes the distances at
which the approach reached the ends, in the run's units (none where the solver poses its
ends itself).

Examples
--------
A front ``(1 - x)^2, x^2`` whose second objective is in units 1000 times smaller; the end
solves pose the ends, and the run covers the front from end to end:

>>> import paretosurf as ps
>>> class Solver:
...     def solve(self, w, state):              # exact: x = w on the raw objectives
...         x = w / (w + (1 - w) * 1000)
...         return ps.Solution([(1 - x) ** 2, 1000 * x**2], state=x)
...     def solve_end(self, objective, state):  # objective 1 alone at x = 1, 2 at x = 0
...         x = 1.0 - objective
...         return ps.Solution([(1 - x) ** 2, 1000 * x**2], state=x)
>>> res = ps.surf(Solver(), n_points=11)
>>> res.front_ends.how, res.success
(('lexicographic', 'lexicographic'), True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf.findings._finding import Finding
from paretosurf.solvers import Solution, add_evaluations

__all__ = [
    "APPROACH_START",
    "APPROACH_STEPS",
    "APPROACH_TOL",
    "COVERAGE_TOL",
    "FrontEnds",
    "coverage_finding",
    "find_ends",
]

FloatArray = NDArray[np.float64]
#: ``weight_bounds="auto"``: the first distance from each end (in the run's units) at which a
#: solver without ``solve_end`` is solved ...
APPROACH_START = 1e-2
#: ... and the most tenfold shrinks of it.
APPROACH_STEPS = 8
#: The end is reached once a shrink moves the point by less than this share of one spacing
#: (the front's extent between the ends over the number of segments).
APPROACH_TOL = 0.25
#: A moved end whose moves do not shrink by this factor for ``RUNAWAY_ROUNDS`` shrinks in a
#: row runs away (no minimizer at the end: logistic loss on separable data).
RUNAWAY_FACTOR = 0.7
RUNAWAY_ROUNDS = 3
#: A result misses an end when the end lies further than this many spacings (its mean gap,
#: in the run's coordinates) from every reported point.
COVERAGE_TOL = 0.5
#: The kinds of ends the coverage check judges (a limit or an unconverged approach says
#: only how far the solver got).
_VERIFIED = ("lexicographic", "approach")


@dataclass
class FrontEnds:
    """The front's two ends, as found before the first round; with three or more objectives
    (:func:`paretosurf.surf_simplex`), the ends the run verified its reported points against
    (:func:`verify_extremes`).

    Attributes
    ----------
    points : ndarray of shape (2, 2), or (M, M) with M >= 3 objectives
        Row 0: the end at ``w = 0`` (objective 2 alone at its best); row 1: the end at
        ``w = 1`` (objective 1 alone). With M >= 3 objectives row ``k`` is the end where
        objective ``k`` is at its best.
    how : tuple of str
        Per end: ``"lexicographic"`` (the solver's ``solve_end``), ``"approach"`` (reached
        by shrinking the distance to the end), ``"limit"`` (the solves failed or ran away:
        no minimizer at the end; the point is the last one reached) or ``"unconverged"``
        (still moving after :data:`APPROACH_STEPS` shrinks).
    distances : tuple of float
        Per end, the raw weight's distance from it at which the end was reached (0 for a
        lexicographic end, or one reached at the end's own weight).
    scales : ndarray of shape (2,)
        The objectives' units in the run's coordinates: ``weight_bounds`` act on the weight
        of the objectives divided by these (ones with ``normalize="none"``).
    bounds : tuple of float or None
        With ``weight_bounds="auto"``: the bounds found, in the run's units.
    solves, evaluations : int
        The solves the end phase ran, and the objective evaluations they reported (-1 when
        a solve reported none).
    states : list
        The end points' solver states (not saved; they start the end slots).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings._front_ends import FrontEnds
    >>> ends = FrontEnds(np.array([[1.0, 0.0], [0.0, 1.0]]), ("approach", "limit"),
    ...                  (1e-4, 1e-2), np.ones(2))
    >>> FrontEnds.from_json(ends.to_json()).how
    ('approach', 'limit')
    """

    points: FloatArray
    how: tuple[str, ...]
    distances: tuple[float, ...]
    scales: FloatArray
    bounds: tuple[float, float] | None = None
    solves: int = 0
    evaluations: int = 0
    states: list[Any] = field(default_factory=lambda: [None, None], repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The ends as JSON-able values (the run folder's ``run.json``; states are not kept)."""
        return {
            "points": self.points.tolist(),
            "how": list(self.how),
            "distances": list(self.distances),
            "scales": self.scales.tolist(),
            "bounds": None if self.bounds is None else list(self.bounds),
            "solves": self.solves,
            "evaluations": self.evaluations,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FrontEnds:
        """Inverse of :meth:`to_json`."""
        how = tuple(str(h) for h in data["how"])
        distances = tuple(float(d) for d in data["distances"])
        bounds = data.get("bounds")
        return cls(
            np.asarray(data["points"], dtype=np.float64),
            how,
            distances,
            np.asarray(data["scales"], dtype=np.float64),
            None if bounds is None else (float(bounds[0]), float(bounds[1])),
            int(data.get("solves", 0)),
            int(data.get("evaluations", 0)),
        )

    @property
    def verified(self) -> tuple[bool, ...]:
        """Per end, whether it is a minimizer the coverage check can hold a run to."""
        return tuple(how in _VERIFIED for how in self.how)


def _scales(points: FloatArray, normalize: Any) -> FloatArray:
    """The objectives' units in the run's coordinates: the ranges between the two end
    points with ``normalize="endpoints"``, the fixed normalization's nadir minus ideal, and
    ones otherwise (raw coordinates, or a callable whose units are unknown)."""
    if isinstance(normalize, str) and normalize == "endpoints":
        span = np.abs(points[1] - points[0])
        floor = 1e-12 * np.maximum(1.0, np.abs(points).max(axis=0))
        return np.asarray(np.where(span > floor, span, 1.0), dtype=np.float64)
    if isinstance(normalize, (tuple, list)) and len(normalize) == 2:
        return np.asarray(normalize[1], dtype=np.float64) - np.asarray(
            normalize[0], dtype=np.float64
        )
    return np.ones(points.shape[1])


#: Solves weights (raw, in [0, 1]) from states; returns one Solution each, or raises.
SolveWeights = Callable[[Sequence[float], Sequence[Any]], list[Solution]]


class _Tally:
    """The end phase's solves and evaluations."""

    def __init__(self) -> None:
        self.solves = 0
        self.evaluations = 0

    def add(self, solutions: Sequence[Solution]) -> None:
        self.solves += len(solutions)
        spent = add_evaluations([0] * len(solutions), solutions)
        if spent is None or self.evaluations < 0:
            self.evaluations = -1  # (a solve that reports none: the count is unknown)
        else:
            self.evaluations += sum(spent)


def find_ends(
    solver: Any,
    solve_weights: SolveWeights,
    *,
    bounds: tuple[float, float] | str | None,
    normalize: Any,
    n_segments: int,
    init_states: Sequence[Any] | None = None,
) -> FrontEnds | None:
    """The front's ends for a run of ``n_segments`` segments (module docstring).

    Parameters
    ----------
    solver : object
        The user's solver; its ``solve_end(objective, state)``, if it has one, poses the ends.
    solve_weights : callable
        Solves raw weights from states (through the run's executor), for the approach.
    bounds : (lo, hi), "auto" or None
        The run's ``weight_bounds``.
    normalize : str, tuple or callable
        The run's ``normalize``: the run's units.
    n_segments : int
        The run's N: one spacing is the ends' distance over N.
    init_states : sequence, optional
        The user's warm starts (their first and last start the approach).

    Returns
    -------
    FrontEnds or None
        ``None`` where nothing is to be verified: a solver without ``solve_end`` run without
        ``weight_bounds`` (its end slots solve exactly ``w = 0`` and ``w = 1``).

    Examples
    --------
    A ridge-like path whose end at ``w = 1`` lies far beyond ``w = 0.999``:

    >>> import numpy as np
    >>> import paretosurf as ps
    >>> def solve(ws, states):          # min w (x - 10)^2 + (1 - w) x^2: x = 10 w
    ...     return [ps.Solution([(10 * w - 10) ** 2, (10 * w) ** 2], state=w) for w in ws]
    >>> ends = find_ends(None, solve, bounds="auto", normalize="endpoints", n_segments=10)
    >>> ends.how, ends.points.round(0).tolist()      # within a quarter of a spacing
    (('approach', 'approach'), [[100.0, 0.0], [0.0, 100.0]])
    """
    solve_end = getattr(solver, "solve_end", None)
    if callable(solve_end):
        ends = _lexicographic_ends(solve_end, bounds, normalize, init_states)
        if ends is not None:
            return ends
    if bounds is None:
        return None
    return _approached_ends(solve_weights, bounds, normalize, n_segments, init_states)


def _lexicographic_ends(
    solve_end: Callable[[int, Any], Solution],
    bounds: tuple[float, float] | str | None,
    normalize: Any,
    init_states: Sequence[Any] | None,
) -> FrontEnds | None:
    """The ends the solver poses itself: objective 2 alone (the ``w = 0`` end), then 1;
    ``None`` where it cannot pose them (``solve_end`` returned ``None``)."""
    tally = _Tally()
    starts = [None, None] if not init_states else [init_states[0], init_states[-1]]
    first = solve_end(1, starts[0])
    if first is None:
        return None
    second = solve_end(0, starts[1])
    if second is None:
        return None
    solutions = [first, second]
    tally.add(solutions)
    points = np.stack([np.asarray(s.objectives, dtype=np.float64) for s in solutions])
    if points.shape != (2, 2) or not np.all(np.isfinite(points)):
        raise ValueError(f"solve_end must return two finite objectives, got {points.tolist()}")
    how = tuple(
        "lexicographic" if s.info.get("success", True) is not False else "unconverged"
        for s in solutions
    )
    return FrontEnds(
        points,
        (how[0], how[1]),
        (0.0, 0.0),
        _scales(points, normalize),
        (0.0, 1.0) if bounds == "auto" else None,
        tally.solves,
        tally.evaluations,
        states=[s.state for s in solutions],
    )


def _approached_ends(
    solve_weights: SolveWeights,
    bounds: tuple[float, float] | str,
    normalize: Any,
    n_segments: int,
    init_states: Sequence[Any] | None,
) -> FrontEnds:
    """The ends approached by weights: each end solved at a raw distance from it that
    shrinks tenfold from :data:`APPROACH_START` (warm-started) until a shrink moves its
    point by less than :data:`APPROACH_TOL` spacings in the units of the ends found so far
    (checked again once both ends are known: an end far out in one objective changes the
    units); an end still moving after :data:`APPROACH_STEPS` shrinks, or running away, is
    decided by the end itself (:func:`_end_point`)."""
    tally = _Tally()
    distance = [APPROACH_START, APPROACH_START]
    states = [None, None] if not init_states else [init_states[0], init_states[-1]]
    first = solve_weights([distance[0], 1.0 - distance[0]], states)
    tally.add(first)
    points = np.stack([np.asarray(s.objectives, dtype=np.float64) for s in first])
    if not np.all(np.isfinite(points)):
        raise ValueError(
            f"the solves at w = {distance[0]:g} and {1 - distance[0]:g} returned "
            f"non-finite objectives {points.tolist()}"
        )
    states = [s.state for s in first]
    starts = [(points[e].copy(), states[e]) for e in (0, 1)]
    moves: list[list[float]] = [[], []]
    how = ["unconverged", "unconverged"]
    for _ in range(3):  # passes: an end found far out changes the other's units
        for end in (0, 1):
            while how[end] == "unconverged" and len(moves[end]) < APPROACH_STEPS:
                trial = _solve_raw(solve_weights, end, distance[end] / 10.0, states[end], tally)
                if trial is None:
                    break
                new = np.asarray(trial.objectives, dtype=np.float64)
                scales = _scales(_with_row(points, end, new), normalize)
                move = float(np.linalg.norm((new - points[end]) / scales))
                points[end], states[end] = new, trial.state
                distance[end] /= 10.0
                moves[end].append(move)
                if move <= APPROACH_TOL * _spacing(points, scales, n_segments):
                    how[end] = "approach"
                elif _runs_away(moves[end]):
                    break
            if how[end] == "unconverged":
                scales = _scales(points, normalize)
                at_end = _end_point(solve_weights, end, states[end], scales, n_segments, tally)
                if at_end is None:
                    # no minimizer at the end: its points run off, so the run's units come
                    # from the first point solved (the limit cannot be reached anyway)
                    how[end] = "limit"
                    points[end], states[end] = starts[end]
                else:
                    points[end], states[end] = at_end
                    how[end], distance[end] = "approach", 0.0
        scales = _scales(points, normalize)
        spacing = _spacing(points, scales, n_segments)
        again = False
        for end in (0, 1):
            # an end that settled in the units of a nearer other end settles again
            if how[end] == "approach" and distance[end] > 0.0 and moves[end]:
                if moves[end][-1] > APPROACH_TOL * spacing:
                    how[end], again = "unconverged", True
        if not again:
            break
    scales = _scales(points, normalize)
    auto = None
    if isinstance(bounds, str):
        lo = _run_units(distance[0], scales) if how[0] == "approach" else APPROACH_START
        hi = _run_units(1.0 - distance[1], scales) if how[1] == "approach" else 1.0 - APPROACH_START
        auto = (lo, hi)
    return FrontEnds(
        points,
        (how[0], how[1]),
        (distance[0], distance[1]),
        scales,
        auto,
        tally.solves,
        tally.evaluations,
        states=states,
    )


def _with_row(points: FloatArray, row: int, value: FloatArray) -> FloatArray:
    out = points.copy()
    out[row] = value
    return out


def _spacing(points: FloatArray, scales: FloatArray, n_segments: int) -> float:
    """One spacing: the ends' distance in the run's units over the number of segments."""
    return float(np.linalg.norm((points[1] - points[0]) / scales)) / max(n_segments, 1)


def _runs_away(moves: list[float]) -> bool:
    """Whether the last :data:`RUNAWAY_ROUNDS` moves each failed to shrink by
    :data:`RUNAWAY_FACTOR`."""
    return len(moves) > RUNAWAY_ROUNDS and all(
        moves[-k] > RUNAWAY_FACTOR * moves[-k - 1] for k in range(1, RUNAWAY_ROUNDS + 1)
    )


def _run_units(w: float, scales: FloatArray) -> float:
    """The weight in the run's units (objectives divided by ``scales``) of raw weight ``w``:
    the inverse of :func:`~paretosurf.loop.solver_weights`."""
    a, b = w * scales[0], (1.0 - w) * scales[1]
    return float(a / (a + b)) if a + b > 0 else w


def _end_point(
    solve_weights: SolveWeights,
    end: int,
    state: Any,
    scales: FloatArray,
    n_segments: int,
    tally: _Tally,
) -> tuple[FloatArray, Any] | None:
    """The point (and state) at the end's own weight (0 or 1), solved twice in a row from
    ``state``, where the second solve stays within :data:`APPROACH_TOL` spacings of the
    first (a minimizer); ``None`` where a solve fails or the second moves on."""
    points = []
    for _ in range(2):
        sol = _solve_raw(solve_weights, end, 0.0, state, tally)
        if sol is None:
            return None
        points.append(np.asarray(sol.objectives, dtype=np.float64))
        state = sol.state
    move = float(np.linalg.norm((points[1] - points[0]) / scales))
    extent = float(np.linalg.norm(np.ones(points[0].size))) / max(n_segments, 1)
    if move > APPROACH_TOL * extent:
        return None
    return points[1], state


def _solve_raw(
    solve_weights: SolveWeights, end: int, distance: float, state: Any, tally: _Tally
) -> Solution | None:
    """One approach solve at raw ``distance`` from end ``end`` (0: ``w = distance``, 1:
    ``w = 1 - distance``); ``None`` when it fails (raises or returns non-finite
    objectives)."""
    w = distance if end == 0 else 1.0 - distance
    try:
        sol = solve_weights([w], [state])[0]
    except Exception:  # a failing end solve is what the approach looks for
        return None
    tally.add([sol])
    if not np.all(np.isfinite(np.asarray(sol.objectives, dtype=np.float64))):
        return None
    return sol


def coverage_finding(
    points: FloatArray,
    coords: FloatArray,
    ends: FrontEnds,
    ends_coords: FloatArray,
    *,
    bounds: tuple[float, float] | str | None,
) -> Finding | None:
    """The ``coverage`` finding: a verified end of the front (``ends``) further than
    :data:`COVERAGE_TOL` spacings from every reported point, with the share of each
    objective's range between the ends that the points cover and the likely cause.

    Parameters
    ----------
    points, coords : ndarray of shape (P, 2)
        The reported points and their coordinates (in weight order).
    ends, ends_coords
        The front's ends and their coordinates in the same units.
    bounds : (lo, hi), "auto" or None
        The run's ``weight_bounds``.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings._front_ends import FrontEnds, coverage_finding
    >>> ends = FrontEnds(np.array([[1.0, 0.0], [0.0, 1.0]]), ("approach", "approach"),
    ...                  (1e-5, 1e-5), np.ones(2))
    >>> pts = np.c_[np.linspace(1, 0.6, 5), np.linspace(0, 0.4, 5)]   # 40% of the front
    >>> f = coverage_finding(pts, pts, ends, ends.points, bounds=(1e-3, 0.999))
    >>> f.code, f.summary
    ('coverage', 'the points cover 40% of objective 1 and 40% of objective 2')
    """
    if len(points) < 2:
        return None
    gaps = np.linalg.norm(np.diff(coords, axis=0), axis=1)
    spacing = float(gaps.mean())
    if not spacing > 0.0:
        return None  # one point: the other findings (constant, stuck, collapsed) say why
    verified = ends.verified
    missed = []
    for e in (0, 1):
        if not verified[e]:
            continue
        distance = float(np.min(np.linalg.norm(coords - ends_coords[e], axis=1)))
        if distance > COVERAGE_TOL * spacing:
            missed.append((e, distance))
    if not missed:
        return None
    span = np.abs(ends.points[1] - ends.points[0])
    covered = np.ptp(points, axis=0)
    share = np.where(span > 0, np.minimum(covered / np.where(span > 0, span, 1.0), 1.0), 1.0)
    shares = " and ".join(f"{100 * s:.0f}% of objective {m + 1}" for m, s in enumerate(share))
    parts = []
    for e, distance in missed:
        where = "w = 0 (objective 2 at its best)" if e == 0 else "w = 1 (objective 1 at its best)"
        end = ", ".join(f"{v:.6g}" for v in ends.points[e])
        parts.append(
            f"the front's end at {where}, ({end}), lies {distance / spacing:.1f} spacings "
            "from the nearest point"
        )
    if isinstance(bounds, tuple):
        cause = (
            f"weight_bounds={bounds!r} keep the weights from reaching it (bounds act in the "
            "run's units); weight_bounds='auto' finds the smallest bounds at which the end "
            "solves still have minimizers"
        )
        remedy = "{weight_bounds} (or no bounds)"
    elif any(ends.how[e] == "lexicographic" for e, _ in missed):
        cause = (
            "the run's end solve stopped short of it (the solver's own end solve, each "
            "objective minimized alone, reached it): give the solver more steps per call "
            "or a tighter tolerance, or a global inner solver if its solves stop in local "
            "minima"
        )
        remedy = "more steps per call or a tighter tolerance; a global inner solver"
    else:
        cause = (
            "the run's end slots did not reach it: the solver fails or stops short at "
            "the end's weights"
        )
        remedy = "more steps per call; weight_bounds='auto'"
    options = {"weight_bounds": "auto"} if "{weight_bounds}" in remedy else {}
    return Finding(
        "coverage",
        "; ".join(parts) + f": the points cover {shares} of the range between the front's "
        f"ends; {cause}",
        remedy=remedy,
        options=options,
        slots=tuple(0 if e == 0 else len(points) - 1 for e, _ in missed),
        summary=f"the points cover {shares}",
    )
