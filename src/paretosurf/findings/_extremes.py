"""The ends of a front in three or more objectives, verified after the run.

Scalarized solves reach a front only as far as their weights can ask. The Tchebycheff kinds
and ASF floor their coefficients (``1e-4`` in :mod:`paretosurf.adapters.scalarization`):
where an objective flattens at its best (zero slope at its minimum, as ``(1 - t)^2`` at
``t = 1``), the most lopsided weight still trades it against the others, and the last
stretch of the front before that objective's end is reached by no weight at all. On the
curve ``(t^2, 2 t^4 + t^2, (1 - t)^2)`` the points of ``"asf"`` stopped 6% of the curve's
length short of its end, and the run, which sees only what its weights reach, reported
success.

So, after the run, :func:`verify_extremes` asks a solver that can pose ends itself
(``solve_end(objective, state, local=True)``, as :func:`~paretosurf.adapters.from_scipy`'s
does) for each objective's end, solved from the state of the reported point where that
objective is least: the objective minimized alone, then the others with it held (a local,
lexicographic solve). :func:`extremes_finding` then holds the points to those ends: an end
that no reported point reaches (on a curve, one the points stop short of by more than
:data:`~paretosurf.surfaces.END_TOLERANCE` of their spacing; on a surface, one further than
:data:`SURFACE_COVERAGE_TOL` spacings from every point) and that none of them dominates is a
stretch of the front the result misses: the ``coverage`` finding.

Examples
--------
A straight segment of a front that the points cover only up to ``t = 0.8``:

>>> import numpy as np
>>> from paretosurf.findings import FrontEnds, extremes_finding
>>> t = np.linspace(0.0, 0.8, 9)
>>> points = np.c_[t, t, 1.0 - t]
>>> ends = FrontEnds(np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]]),
...                  ("lexicographic",) * 3, (0.0,) * 3, np.ones(3))
>>> finding = extremes_finding(points, points, ends, ends.points, curve=True)
>>> print(finding.summary)
the front reaches 2.0 spacings beyond the points where objective 3 is at its best
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf.findings._finding import Finding
from paretosurf.findings._front_ends import FrontEnds
from paretosurf.metrics import nn_distances
from paretosurf.solvers import Solution, add_evaluations
from paretosurf.surfaces import curve_end_shortfall

__all__ = ["extreme_slots", "extremes_finding", "solves_local_ends", "verify_extremes"]

FloatArray = NDArray[np.float64]

#: An objective's end on a surface is missed when it lies further than this many spacings
#: (the points' mean nearest-neighbour distance) from every point. Evenly spread points leave
#: holes of their own: a triangular lattice of spacing ``d`` has points of its triangles
#: ``d / sqrt(3) = 0.58 d`` from the nearest lattice point and the middles of its edges
#: ``d / 2`` from two. Where an objective is at its best along a whole edge of the surface
#: (convex DTLZ2's ``f3 = 0``), its lexicographic end is one point of that edge and may fall
#: between two of the edge's points: at half a spacing, the default run on convex DTLZ2 with
#: 28 points (``benchmarks/bench_surface_evaluations.py``) took the hole between its edge
#: points around ``(0.25, 0.25, 0)``, 0.55 spacings from each, for a missed end.
SURFACE_COVERAGE_TOL = 0.75


def solves_local_ends(solver: Any) -> bool:
    """Whether ``solver`` poses an objective's end from a given state alone:
    ``solve_end(objective, state, local=True)``.

    Examples
    --------
    >>> from paretosurf.findings import solves_local_ends
    >>> class Ends:
    ...     def solve_end(self, objective, state, *, local=False): ...
    >>> solves_local_ends(Ends()), solves_local_ends(object())
    (True, False)
    """
    solve_end = getattr(solver, "solve_end", None)
    if not callable(solve_end):
        return False
    try:
        parameters = inspect.signature(solve_end).parameters
    except (TypeError, ValueError):  # (a builtin without a signature)
        return False
    return "local" in parameters


def extreme_slots(points: FloatArray) -> list[int]:
    """Per objective, the reported point where it is least (ties: the least sum of the other
    objectives, each over its range).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.findings import extreme_slots
    >>> extreme_slots(np.array([[0.0, 2.0, 1.0], [0.0, 1.0, 1.5], [1.0, 0.0, 0.0]]))
    [1, 2, 2]
    """
    x = np.asarray(points, dtype=np.float64)
    span = np.ptp(x, axis=0)
    scaled = (x - x.min(axis=0)) / np.where(span > 0, span, 1.0)
    slots = []
    for k in range(x.shape[1]):
        least = np.flatnonzero(x[:, k] == x[:, k].min())
        others = np.delete(scaled[least], k, axis=1).sum(axis=1)
        slots.append(int(least[int(np.argmin(others))]))
    return slots


def verify_extremes(solver: Any, points: FloatArray, states: Sequence[Any]) -> FrontEnds | None:
    """Each objective's end, solved by ``solver.solve_end(k, state, local=True)`` from the
    state of the reported point where objective ``k`` is least (:func:`extreme_slots`; one
    solve per point where several objectives are least at one).

    Parameters
    ----------
    solver : object
        The user's solver (see :func:`solves_local_ends`).
    points : ndarray, shape (P, M)
        The reported points, M >= 3.
    states : sequence
        Their solver states.

    Returns
    -------
    FrontEnds or None
        Row ``k``: the end of objective ``k`` (``how`` ``"lexicographic"``, or
        ``"unconverged"`` where the solve said ``success=False``); ``None`` where the
        solver cannot pose ends from a state, a state is missing, or a solve declined
        (returned ``None``) or returned objectives that are not finite.
    """
    x = np.asarray(points, dtype=np.float64)
    if not solves_local_ends(solver) or x.ndim != 2 or len(x) == 0 or len(states) != len(x):
        return None
    slots = extreme_slots(x)
    solved: dict[int, Solution] = {}
    for k, slot in enumerate(slots):
        if slot in solved:
            continue
        end = None if states[slot] is None else solver.solve_end(k, states[slot], local=True)
        if end is None:
            return None
        solved[slot] = end
    ends = np.stack([np.asarray(solved[slot].objectives, dtype=np.float64) for slot in slots])
    if ends.shape != (x.shape[1], x.shape[1]) or not np.all(np.isfinite(ends)):
        return None
    spent = add_evaluations([0] * len(solved), list(solved.values()))
    how = tuple(
        "lexicographic" if solved[slot].info.get("success", True) is not False else "unconverged"
        for slot in slots
    )
    return FrontEnds(
        ends,
        how,
        (0.0,) * len(slots),
        np.ones(x.shape[1]),
        None,
        len(solved),
        -1 if spent is None else int(sum(spent)),
        states=[solved[slot].state for slot in slots],
    )


def _surface_end_missed(coords: FloatArray, end: FloatArray) -> float | None:
    """How many spacings (the points' mean nearest-neighbour distance) ``end`` lies from
    the nearest point, where that is more than :data:`SURFACE_COVERAGE_TOL`; else ``None``."""
    if len(coords) < 2:
        return None
    spacing = float(np.mean(nn_distances(coords)))
    distance = float(np.min(np.linalg.norm(coords - end, axis=1)))
    if not spacing > 0.0 or distance <= SURFACE_COVERAGE_TOL * spacing:
        return None
    return distance / spacing


def extremes_finding(
    points: FloatArray,
    coords: FloatArray,
    ends: FrontEnds,
    ends_coords: FloatArray,
    *,
    curve: bool,
) -> Finding | None:
    """The ``coverage`` finding where the front reaches beyond the reported points at an
    objective's end (module docstring); ``None`` where they reach every end.

    Parameters
    ----------
    points, coords : ndarray, shape (P, M)
        The reported points, raw and in the coordinates their spacing is measured in.
    ends, ends_coords
        The verified ends (:func:`verify_extremes`), raw and in the same coordinates.
    curve : bool
        Whether the points lie along a curve (a degenerate front): the ends are then held
        to the curve's spacing along its path.
    """
    x = np.asarray(points, dtype=np.float64)
    c = np.asarray(coords, dtype=np.float64)
    if x.ndim != 2 or len(x) < 2:
        return None
    missed: list[tuple[int, float]] = []
    seen: set[tuple[float, ...]] = set()
    for k, (end, end_coords) in enumerate(zip(ends.points, ends_coords, strict=True)):
        key = tuple(np.asarray(end).tolist())
        if key in seen or not ends.verified[k]:
            continue
        seen.add(key)
        if np.any(np.all(x <= end, axis=1) & np.any(x < end, axis=1)):
            continue  # a point dominates it: the solve stopped off the front
        spacings = (curve_end_shortfall if curve else _surface_end_missed)(c, end_coords)
        if spacings is not None:
            missed.append((k, spacings))
    if not missed:
        return None
    parts = [
        f"the front reaches {spacings:.1f} spacings beyond the points where objective "
        f"{k + 1} is at its best"
        for k, spacings in missed
    ]
    detail = "; ".join(
        "objective {k} alone, then the others, solved from the point where it is least, "
        "reached ({end})".format(
            k=k + 1, end=", ".join(f"{v:.6g}" for v in np.asarray(ends.points[k]))
        )
        for k, _ in missed
    )
    return Finding(
        "coverage",
        "; ".join(parts)
        + f" ({detail}): no weight of the run reached that stretch of the front. Where an "
        "objective flattens at its best, a scalarization whose coefficients have a floor "
        "(the Tchebycheff kinds and ASF: 1e-4) stops short of its end; a smaller floor "
        "reaches further (from_scipy(..., scalarization=Scalarization('asf', "
        "floor=1e-8))), and so do weighted sums where the front is convex",
        remedy="a scalarization with a smaller floor (Scalarization(kind, floor=1e-8))",
        slots=(),
        summary="; ".join(parts),
    )
