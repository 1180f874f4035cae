"""SURF for three or more objectives: points spread evenly over a Pareto surface.

With ``M`` objectives the weights ``w`` live on the simplex and linear scalarization maps them
onto an ``(M - 1)``-dimensional front. Evenly spaced weights (the Das-Dennis lattice) clump on
the surface wherever the map is steep, as uniform weights do on a two-objective front.
:func:`surf_simplex` alternates, like SURF, warm-started solves with an estimate of the map
built from the points found so far, and moves the weights so that the points become evenly
spread:

1. **Corners** (``w = e_m``) are solved every round.
2. **Edges** (two non-zero weights) are two-objective fronts: each edge runs SURF itself, an
   arc-length CDF refined from the chords of its points and damped with ``alpha``
   (:class:`~paretosurf.methods.CDFRefinement`), so an edge gets exactly the points SURF would
   place on that front. With ``M = 2`` the method *is* SURF. With ``M >= 3`` an edge point
   whose next move is below 1% of its spacing keeps its weight (its solve then starts at
   its own solution, and costs a fraction of one that moved; see
   :meth:`SurfSimplexMethod._hold_settled`).
3. **Faces** of three or more objectives, in increasing size: the points inside a face are a
   centroidal Voronoi tessellation of the face's estimated surface (Lloyd's iterations on a
   mesh of the interpolated map, see :mod:`paretosurf.surfaces`), with the points already
   placed on the face's boundary held fixed. Each generator is pulled back to a weight by a
   local quadratic fit of the solved points' weights (the front's normals) around it, and
   moves at most half the distance to its nearest solved neighbour in weight space per round
   (a trust region: the estimate is reliable only near solved points). A point whose nearest
   neighbour is already within 0.8 to 1.25 of the median spacing keeps its weight. The
   estimate also keeps the last two rounds' points where they fill gaps between the newest
   ones, so that a sharp bend, once sampled, is not crossed by a flat chord again.
4. **How many points** each edge and face gets follows the estimated lengths and areas, so
   that the spacing is the same on edges and inside faces (changed only when the estimate
   changes by more than 15%, and then by at most 2% of the points per round); the areas are
   corrected round by round by the spacing reached inside faces against the one along
   edges.
5. **Where two edges run close together** (leaving a corner almost in the same direction, a
   cusp, or side by side where the surface is a band narrower than the spacing, which the
   raw objectives of unevenly scaled problems often make it), the points of the later edge
   closer than 0.7 spacings to a point of the other are dropped (and stay dropped while they
   would lie within one spacing and the stretch of the edge they were dropped from holds
   them). The next round counts them as placed: the allocation spreads the slots over the
   rest of the surface instead of crowding the faces, which have no room along such a
   stretch.
   **An edge that maps to one point** (weighted sums, the solver's scalarization ``"linear"``
   or none declared, on a front whose objectives reach their best values together, pymoo's
   convex DTLZ2: a zero weight leaves its objective free, and the others reach 0 at once at
   a vertex) has its points, two or more, within 1% of its length of one another, three
   rounds in a row: it is flat, and from then on holds no points (they go to the faces at
   once, see :meth:`SurfSimplexMethod._flatten_edges`).
6. **Safeguards**: a point that landed closer than 0.3 spacings to another restarts in the
   largest hole (in its own slot); a move that would end on another point's weight is not
   made; a slot whose point coincides with another's (a local solver stuck on a flat spot of
   its variables) is warm-started from the nearest slot whose point stands alone.
7. **A layout that cycles keeps its best**: the discrete decisions above (points per edge
   and face, the thinning) can flip back and forth from round to round, and the rounds'
   nearest-neighbour CV with them. From round ``SETTLE_GUARD_FROM`` (10) on, a round whose
   CV exceeds ``SETTLE_GUARD_FACTOR`` (1.5) times the best round's so far sends the layout
   back to the best round's weights, which it keeps: a fixed point, which the early stop
   sees as settled. On held-out random quadratics (seeds 5 to 30, 91 points, 40 rounds) the
   CVs of rounds 15 to 39 stay within 2x of one another in 25 of 26 runs (17 without).
8. **Fronts that are curves** (two objectives that never conflict, as DTLZ5's first two):
   once the points of three rounds in a row lie on a curve, SURF runs along the segment of
   weights between the two that reached the curve's ends (see
   :func:`paretosurf.surfaces.curve_ends`).

The layout measures distances in the coordinates the run spaces its points in
(``normalize``): with ``normalize="none"`` the raw objectives, where unevenly scaled objectives
make surfaces thin, and the points are as evenly spaced there as with the default
normalization in normalized coordinates (``benchmarks/bench_surf_simplex.py --units``).

With three objectives and 91 points the nearest-neighbour distances end with a CV between
0.085 and 0.139 and a max/min between 1.43 and 2.30 on the benchmark's eight fronts, against
CV 0.6 to 2.4 and max/min 11 to 2000 for evenly spaced (Das-Dennis) weights; on the most
distorted fronts single rounds can still put two points together
(``benchmarks/bench_surf_simplex.py``, ``docs/results/many/``).

Where the surface falls apart into pieces (DTLZ7; a design space with islands), the estimate
on the weight simplex bridges the gaps and the points crowd on the pieces' rims. With
``warm_start="best"`` and a Tchebycheff solver (``scalarization="tchebycheff"`` of
:mod:`paretosurf.adapters`, or any solver declaring one), once the first
:data:`~paretosurf.surfaces.EXPLORE_ROUNDS` rounds have found the pieces (a round's points
fall apart, :func:`~paretosurf.surfaces.surface_pieces`) and a solve has landed off its
ray inside the estimate, the layout moves to the solver's rays
(:mod:`paretosurf.surfaces`): the surface is estimated over the rays' directions, where the
gaps are bridged by nothing, and the points are spread evenly within the pieces, each piece
holding points in proportion to its area. The result reports the pieces (``res.pieces``), and
its ``cv`` and ``gap_ratio`` measure each point's nearest neighbour within its piece.
``"best"`` is what lets local solves leave the piece their neighbours' basin holds them on; the
other rules keep the layout on the weight simplex (the rays would spread the points evenly
over the few pieces such solves find, and the result would pass for the whole front).

Where weighted sums cannot reach part of the surface (a non-convex region), the solves jump
over it: no weight maps there, the estimate has a hole, and the points gather at its rim.
The result then reports ``success=False`` with a finding naming the remedy
(:mod:`paretosurf.adapters`): a Tchebycheff scalarization where each objective has its own best
point, the achievement scalarization (``scalarization="asf"``, each point on the ray along its
weight vector) where the objectives reach their ideal values together (DTLZ-like fronts, on
which linear and Tchebycheff weights send whole edges of the simplex to one vertex).
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping, Sequence, Set
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree

from paretosurf import metrics
from paretosurf._utils.validation import check_non_negative_int
from paretosurf.curves import ArcLengthCDF
from paretosurf.findings import CURVE_ROUNDS, coincident_pairs, lies_on_curve
from paretosurf.loop import (
    Round,
    RoundOutcome,
    RunOptions,
    check_options,
    document_loop_options,
    run,
)
from paretosurf.methods._slots import (
    SETTLED_SPACING,
    ScalarizationSource,
    SlotMethod,
    local_spacing,
    solver_scalarization,
)
from paretosurf.methods._surf import CDFRefinement
from paretosurf.result import IterationRecord, Result
from paretosurf.solvers import SolverLike, solver_objectives
from paretosurf.storage import StatePool
from paretosurf.surfaces import (
    ARCHIVE_ROUNDS,
    EXPLORE_ROUNDS,
    LAYOUT_KINDS,
    ZERO_WEIGHT,
    Face,
    FaceMap,
    RayLayout,
    SurfacePiece,
    allocate_points,
    current_coordinates,
    curve_end_bands,
    curve_end_status,
    embed,
    face_samples,
    faces,
    farthest_points,
    interior_of,
    lattice_partitions,
    merge_curve_rounds,
    on_face,
    pieces_of_labels,
    quadratic_pull_back,
    ray_layout,
    restricted_cvt,
    segment_parameter,
    segment_weights,
    simplex_lattice,
    surface_pieces,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from typing import Unpack

__all__ = ["SurfSimplexMethod", "surf_simplex"]

FloatArray = NDArray[np.float64]
# Why each constant of the layout has its value (what was measured, on which seeds):
# docs/results/many/README.md, "Why the layout's constants are what they are".

#: A face's number of points changes only when its new allocation differs by more than this
#: share (and by more than one point).
ALLOCATION_HYSTERESIS = 0.15
#: Free points the last round put closer than this share of the median spacing to another
#: are restarted where the estimated surface is worst covered.
CROWDED_SHARE = 0.3
#: Starting trust radius: a point inside a face moves (in weight space) by at most this
#: multiple of the distance from its last weight to the nearest other solved weight.
TRUST_RADIUS = 1.0
#: The trust radius adapts between these bounds: doubled after a round whose points landed
#: within ``TRUST_GOOD`` spacings (median) of where the estimate put them, halved after one
#: that missed by more than ``TRUST_BAD`` spacings.
TRUST_RANGE = (0.25, 4.0)
TRUST_GOOD = 0.1
TRUST_BAD = 0.2
#: A point inside a face whose move would end closer than this share of the median spacing
#: of the solved weights to another point keeps its weight instead (see ``_apart``).
APART_SHARE = 1e-3
#: Range of the correction of the faces' areas in the allocation (the squared ratio of the
#: mean nearest-neighbour distance inside faces to the one along edges, round after round).
DENSITY_RANGE = (0.5, 2.0)
#: The correction measures with three points inside the faces or more, or with one or two
#: once the faces have held so few for this many rounds in a row (see ``_adapt_density``).
STARVED_ROUNDS = 3
#: A weight lies on the segment of weights along a curve (curve mode) where it differs from
#: the segment's weight at its own parameter by at most this (largest absolute difference).
SEGMENT_TOLERANCE = 1e-12


#: The mesh of a face on which its points are laid out has at least this many simplices
#: (samples of the surface) per point to place inside the face.
MESH_SAMPLES_PER_POINT = 1


#: Points closer than this share of the front's extent count as one point when warm starts
#: are chosen (see :meth:`SurfSimplexMethod.propose`).
COINCIDENT_SHARE = 1e-6


#: The faces' estimate of the surface also uses the points solved in this many earlier
#: rounds, where they fill gaps between the last round's (see ``_recall``).
MEMORY_ROUNDS = 2
#: An earlier point joins the estimate only if its weight is farther than this share of the
#: last round's median nearest-neighbour weight distance from every weight already in it.
MEMORY_GAP = 1.0
#: A point inside a face whose nearest neighbour lies within this band of the median
#: nearest-neighbour distance keeps its weight for the round.
HOLD_BAND = (0.8, 1.25)
#: At most this share of the points (and at least one) changes edge or face per round when
#: the allocation changes.
REALLOCATION_SHARE = 0.02


#: Points of two edges closer than this share of the edges' spacing (at a cusp of the
#: surface, or where two edges run side by side) are thinned to one.
CUSP_SHARE = 0.7
#: ... and a point within the stretch of its edge thinned the round before stays dropped
#: while its pair is closer than this share of the spacing (hysteresis).
CUSP_KEEP_SHARE = 1.0


#: From this many rounds of the layout over the simplex on, a round whose nearest-neighbour
#: CV exceeds :data:`SETTLE_GUARD_FACTOR` times the best round's so far ends the layout's
#: search: the run goes back to the best round's weights and keeps them (see
#: :meth:`SurfSimplexMethod._guard_settled`).
SETTLE_GUARD_FROM = 10
SETTLE_GUARD_FACTOR = 1.5


#: An edge of the weight simplex whose solved points inside it (two or more) lie within this
#: share of the edge's length (its polyline from corner to corner) of one another maps to one
#: point of the front, all its length in the jumps from its corners' points: it is flat (see
#: :meth:`SurfSimplexMethod._flatten_edges`), and holds no points from then on. (Evenly
#: spread, two points inside an edge lie a third of its length apart; the collapsed ones of
#: convex DTLZ2 lie within 1e-3, a local solver's tolerance.)
FLAT_EDGE_SHARE = 0.01
#: ... in this many rounds in a row (a local solver stalled at a vertex of pymoo's DTLZ2 put
#: two points of an edge there for a round; :meth:`SurfSimplexMethod.propose` restarts such
#: slots, the points of a flat edge stay).
FLAT_EDGE_ROUNDS = 3
#: ... while the faces' points, at least this many of them more than that share of the
#: front's extent apart, reach more of the front than the edges do.
FLAT_FACE_POINTS = 3


#: An edge point whose next move is shorter than this share of :data:`~paretosurf.methods.
#: SETTLED_SPACING` (of its spacing) keeps its weight (see
#: :meth:`SurfSimplexMethod._hold_settled`). Half: a held weight whose target drifts on moves
#: once the drift reaches half of what the early stop calls settled, so that the layout's
#: own moves (which the early stop measures) stay below it; at the full share the edges'
#: damped CDFs kept one of their points at 2.0% to 2.2% round after round (a random
#: quadratic, 28 points: 16 rounds instead of 7).
HOLD_SETTLED_SHARE = 0.5


#: A thinned point: its edge and its position on it (the weight on the edge's first objective).
CuspKey = tuple[Face, float]


def _distinct(points: FloatArray, tol: float) -> int:
    """How many of ``points`` are more than ``tol`` from every one counted before them."""
    kept: list[FloatArray] = []
    for p in points:
        if all(float(np.linalg.norm(p - q)) > tol for q in kept):
            kept.append(p)
    return len(kept)


def _edge_names(
    edge_points: Mapping[Face, FloatArray], per_face: Mapping[Face, tuple[FloatArray, FloatArray]]
) -> tuple[list[CuspKey], list[float], FloatArray]:
    """Each edge point's key, the half-width of its place on the edge (half the smaller gap
    in position to its neighbours or the corners) and its estimated coordinates."""
    names: list[CuspKey] = []
    halves: list[float] = []
    coords: list[FloatArray] = []
    for edge, pts in edge_points.items():
        if not len(pts):
            continue
        face_w, face_c = per_face[edge]
        t = _edge_parameter(pts, edge)
        names.extend((edge, float(v)) for v in t.tolist())
        ends = np.sort(np.concatenate([[0.0, 1.0], t]))
        gaps = np.diff(ends)
        half = 0.5 * np.minimum(gaps[:-1], gaps[1:])  # by sorted position
        rank = np.argsort(np.argsort(t, kind="stable"), kind="stable")
        halves.extend(half[rank].tolist())
        coords.append(FaceMap(face_w, face_c)(pts[:, list(edge)]))
    k = next(iter(per_face.values()))[1].shape[1]
    return names, halves, np.vstack([np.empty((0, k)), *coords])


def _was_thinned(name: CuspKey, half: float, previous: Set[CuspKey]) -> bool:
    """Whether this edge point lies within the stretch of its edge thinned the round before
    (between the first and the last point dropped there, widened by the point's
    half-width): the points move along the edge from round to round, the stretch little."""
    edge, t = name
    there = [u for e, u in previous if e == edge]
    return bool(there) and min(there) - half < t < max(there) + half


def _drop(edge_points: dict[Face, FloatArray], names: Sequence[CuspKey], gone: Set[int]) -> None:
    """Remove the points ``gone`` (indices into ``names``, in ``edge_points``' order)."""
    start = 0
    for edge, pts in list(edge_points.items()):
        n = len(pts)
        drop = sorted(k - start for k in gone if start <= k < start + n)
        if drop:
            edge_points[edge] = np.delete(pts, drop, axis=0)
        start += n


def _thin_cusps(
    edge_points: dict[Face, FloatArray],
    per_face: Mapping[Face, tuple[FloatArray, FloatArray]],
    previous: Set[CuspKey] = frozenset(),
) -> set[CuspKey]:
    """Drop edge points that another edge's point nearly covers; returns the dropped ones.

    Where two edges of the simplex map to curves that run close together (leaving a corner
    almost in the same direction, a cusp of the surface, or side by side where the surface
    is a band narrower than the spacing), each edge's SURF points would pair up with the
    other's at a fraction of the spacing. The later edge's point of each such pair is
    dropped (its slot goes to the other edges and faces, see
    :meth:`SurfSimplexMethod._allocate`), so that no two edge points sit closer than
    ``CUSP_SHARE`` of the spacing. A point within the stretch of its edge thinned the round
    before (``previous``) stays dropped while its pair is closer than ``CUSP_KEEP_SHARE`` of
    the spacing: without that margin the thinning alternated between two sets of points
    from round to round, and the layout with it.
    """
    names, halves, at = _edge_names(edge_points, per_face)
    spacing = [_edge_length(*per_face[edge]) / (len(pts) + 1) for edge, pts in edge_points.items()]
    if len(names) < 2:
        return set()
    limit = CUSP_SHARE * float(np.median(spacing))
    keep_limit = max(limit, CUSP_KEEP_SHARE * float(np.median(spacing)))
    pairs = sorted(
        cKDTree(at).query_pairs(keep_limit, output_type="ndarray").tolist(),
        key=lambda ij: (float(np.linalg.norm(at[ij[0]] - at[ij[1]])), ij),
    )
    gone: set[int] = set()
    for i, j in pairs:
        if i in gone or j in gone or names[i][0] == names[j][0]:
            continue
        later = max(i, j)
        if float(np.linalg.norm(at[i] - at[j])) < limit or _was_thinned(
            names[later], halves[later], previous
        ):
            gone.add(later)
    _drop(edge_points, names, gone)
    return {names[k] for k in gone}


def _thin_most_crowded(
    edge_points: dict[Face, FloatArray],
    per_face: Mapping[Face, tuple[FloatArray, FloatArray]],
    count: int,
) -> set[CuspKey]:
    """Drop ``count`` more edge points, each time the later one of the closest pair of edge
    points (on the estimated edges); returns them."""
    names, _, at = _edge_names(edge_points, per_face)
    alive = np.ones(len(at), dtype=bool)
    gone: set[int] = set()
    for _ in range(min(count, len(at))):
        rows = np.flatnonzero(alive)
        if rows.size < 2:
            i = int(rows[-1])
        else:
            dist, near = cKDTree(at[rows]).query(at[rows], k=2)
            pair = int(np.argmin(dist[:, 1]))
            i = int(max(rows[pair], rows[near[pair, 1]]))
        alive[i] = False
        gone.add(i)
    _drop(edge_points, names, gone)
    return {names[k] for k in gone}


def _match_total(old: Mapping[Face, int], new: Mapping[Face, int]) -> dict[Face, int]:
    """``old`` with points added where ``new`` has most more, or taken where it has most
    fewer, until the totals agree (the number of edge points thinned changed)."""
    out = dict(old)
    diff = sum(new.values()) - sum(out.values())
    while diff > 0:
        face = max(out, key=lambda f: new[f] - out[f])
        out[face] += 1
        diff -= 1
    while diff < 0:
        face = max((f for f in out if out[f] > 0), key=lambda f: out[f] - new[f])
        out[face] -= 1
        diff += 1
    return out


def _within_trust_region(
    new: FloatArray, start: FloatArray, solved: FloatArray, radius: float
) -> FloatArray:
    """``new`` face weights with each move from a solved weight (a row of ``start`` that is
    one of ``solved``) shortened to at most ``radius`` times the distance from it to the
    nearest other solved weight; points started afresh move freely."""
    if len(start) == 0 or len(solved) < 2:
        return new
    dist, _ = cKDTree(solved).query(start, k=2)
    rows = np.flatnonzero(dist[:, 0] <= 1e-15)
    if rows.size == 0:
        return new
    out = new.copy()
    origin = start[rows]
    reach = radius * dist[rows, 1]
    step = new[rows] - origin
    length = np.linalg.norm(step, axis=1)
    shrink = np.minimum(1.0, reach / np.maximum(length, 1e-300))
    out[rows] = origin + shrink[:, None] * step
    return out


def _apart(new: FloatArray, start: FloatArray, fixed: FloatArray, solved: FloatArray) -> FloatArray:
    """``new`` face weights, except that a point whose move ends on another point (closer
    than :data:`APART_SHARE` of the median nearest-neighbour distance of the ``solved``
    weights to another new weight or to a ``fixed`` one) keeps its ``start``.

    A move shortened by the trust region stops at the distance of the nearest solved weight
    from its start; where it heads for that weight, and the point there keeps its weight, the
    two would be solved at the same weight. The rows of ``start`` are distinct and none is
    ``fixed``, so reverting the moves (repeatedly, as a reverted point may now meet another)
    ends with distinct weights.
    """
    if len(new) == 0 or len(solved) < 2:
        return new
    spacing = float(np.median(cKDTree(solved).query(solved, k=2)[0][:, 1]))
    limit = APART_SHARE * spacing
    out = new.copy()
    for _ in range(len(out)):
        taken = np.vstack([fixed, out])
        pairs = cKDTree(taken).query_pairs(limit, output_type="ndarray")
        rows = {int(i) - len(fixed) for i in pairs.ravel() if i >= len(fixed)}
        moved = [r for r in sorted(rows) if np.any(out[r] != start[r])]
        if not moved:
            break
        out[moved] = start[moved]
    return out


def _well_spaced(at: FloatArray, n_fixed: int) -> NDArray[np.bool_]:
    """Which of the free points (the rows of ``at`` after the first ``n_fixed``) have their
    nearest neighbour within :data:`HOLD_BAND` of the median nearest-neighbour distance."""
    if len(at) < 3:
        return np.zeros(len(at) - n_fixed, dtype=bool)
    gaps = cKDTree(at).query(at, k=2)[0][:, 1]
    ratio = gaps[n_fixed:] / max(float(np.median(gaps)), 1e-300)
    lo, hi = HOLD_BAND
    return np.asarray((ratio >= lo) & (ratio <= hi), dtype=bool)


def _reallocate(old: Mapping[Face, int], new: Mapping[Face, int], budget: int) -> dict[Face, int]:
    """``old`` moved toward ``new`` by at most ``budget`` points, one at a time from the face
    with the largest surplus to the one with the largest deficit (the totals are equal)."""
    out = dict(old)
    for _ in range(budget):
        surplus = max(out, key=lambda f: out[f] - new[f])
        deficit = min(out, key=lambda f: out[f] - new[f])
        if out[surplus] <= new[surplus] or out[deficit] >= new[deficit]:
            break
        out[surplus] -= 1
        out[deficit] += 1
    return out


def _edge_length(face_weights: FloatArray, coords: FloatArray) -> float:
    """Length of an edge's polyline: the chords between its points in weight order (the
    arc length SURF's CDF measures)."""
    order = np.argsort(face_weights[:, 0], kind="stable")
    return float(np.sum(np.linalg.norm(np.diff(coords[order], axis=0), axis=1)))


def _edge_parameter(weights: FloatArray, edge: Face) -> FloatArray:
    """Position along an edge ``(i, j)``: the weight on objective ``i`` (0 at ``e_j``)."""
    return np.asarray(weights[:, edge[0]], dtype=np.float64)


def _save_cdfs(refine: CDFRefinement, prefix: str, arrays: dict[str, NDArray[Any]]) -> None:
    """Put the CDF and the last estimate of ``refine`` into a checkpoint's ``arrays``, under
    ``prefix`` (see :func:`_load_cdfs`)."""
    for name, cdf in (("cdf", refine.cdf), ("estimate", refine.estimate)):
        if cdf is not None:
            arrays[f"{prefix}{name}_knots"] = cdf.knots
            arrays[f"{prefix}{name}_values"] = cdf.values
            arrays[f"{prefix}{name}_slopes"] = cdf.slopes


def _load_cdfs(
    refine: CDFRefinement,
    prefix: str,
    arrays: Mapping[str, NDArray[Any]],
    auto_state: Mapping[str, Any] | None,
) -> None:
    """Restore ``refine`` from what :func:`_save_cdfs` saved under ``prefix`` and its
    ``alpha="auto"`` state."""
    cdfs: list[ArcLengthCDF | None] = []
    for name in ("cdf", "estimate"):
        if f"{prefix}{name}_knots" in arrays:
            cdfs.append(
                ArcLengthCDF._trusted(
                    np.asarray(arrays[f"{prefix}{name}_knots"], dtype=np.float64),
                    np.asarray(arrays[f"{prefix}{name}_values"], dtype=np.float64),
                    np.asarray(arrays[f"{prefix}{name}_slopes"], dtype=np.float64),
                )
            )
        else:
            cdfs.append(None)
    refine.restore(cdfs[0], cdfs[1], auto_state)


def _as_int(value: object, *, name: str, least: str) -> int:
    """``value`` as an int, or a ``TypeError`` that names the argument and its least value."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {least}, got {value!r}")
    return int(value)


class SurfSimplexMethod(SlotMethod):
    """SURF on the weight simplex as a method of the driver (see :func:`surf_simplex`).

    Parameters
    ----------
    n_points : int
        Number of points (slots), at least ``n_objectives``.
    n_objectives : int
        M >= 2.
    alpha : float or "auto"
        Damping of the edges' CDFs (see :func:`paretosurf.surf`).
    warm_start : {"slot", "nearest", "rescue", "best"}
        See :func:`surf_simplex`.
    scalarization : Scalarization, callable or None
        The solver's scalarization, which ``"best"`` scores the previous points with (see
        :func:`paretosurf.methods.solver_scalarization`; weighted sums when ``None``).
    """

    name = "surf_simplex"
    label = "SURF-simplex"
    aims_even = True
    verifies_extremes = True

    def __init__(
        self,
        n_points: int,
        n_objectives: int,
        *,
        alpha: float | str = "auto",
        warm_start: str = "nearest",
        scalarization: ScalarizationSource = None,
    ) -> None:
        m = _as_int(n_objectives, name="n_objectives", least="2")
        if m < 2:
            raise ValueError(f"n_objectives must be at least 2, got {m}")
        p = _as_int(n_points, name="n_points", least=f"n_objectives = {m}")
        if p < m:
            raise ValueError(
                f"n_points must be at least n_objectives = {m} (one point per "
                f"corner of the weight simplex), got {p}"
            )
        super().__init__(p - 1, warm_start=warm_start, scalarization=scalarization)
        self.n_objectives = m  # type: ignore[misc]  # per instance: any M >= 2
        self.m = m
        # with M >= 3 the slots move between edges and faces, so that a slot's own previous
        # solution is no better a tie-break for "best" than the nearest weight's; with M = 2
        # the method stays SURF's
        self.best_ties_nearest = m > 2
        self.alpha_setting = alpha
        self.edges: dict[Face, CDFRefinement] = {
            face: CDFRefinement(alpha, at_weights=False) for face in faces(m) if len(face) == 2
        }
        self.counts: dict[Face, int] | None = None
        #: The trust radius of the moves inside faces (see :data:`TRUST_RADIUS`).
        self.trust = TRUST_RADIUS
        #: Correction of the faces' areas in the allocation (see :meth:`_adapt_density`).
        self.density = 1.0
        #: Rounds in a row with one or two points inside the faces (``_adapt_density``).
        self._starved = 0
        self._predicted: tuple[FloatArray, FloatArray] | None = None
        self._next: FloatArray | None = None
        #: The layout's next weights before :meth:`_hold_settled` (None: as ``_next``).
        self._unheld: FloatArray | None = None
        #: Weights and points of the earlier rounds the faces' estimate recalls, newest last.
        self._memory: list[tuple[FloatArray, FloatArray]] = []
        #: The edge points the last layout thinned at cusps (see :func:`_thin_cusps`).
        self._thinned: set[CuspKey] = set()
        #: The edges found flat, mapped to one point of the front (see
        #: :meth:`_flatten_edges`): they hold no points.
        self.flat_edges: set[Face] = set()
        #: Per edge, the rounds in a row its points inside it coincided.
        self._flat_rounds: dict[Face, int] = {}
        #: The last round's pieces where its points fall apart into more than one
        #: (:func:`~paretosurf.surfaces.surface_pieces`, or laid out over the rays the
        #: pieces of the estimate; M >= 3), else empty.
        self.pieces: list[SurfacePiece] = []
        #: Whether the points are laid out over the solver's rays (a disconnected surface;
        #: see :mod:`paretosurf.surfaces`), from the round that found it on.
        self.ray_mode = False
        #: Raw points and weights of the recent rounds (the rays' estimate), newest last.
        self._archive: list[tuple[FloatArray, FloatArray]] = []
        self._round_points: FloatArray | None = None
        #: The last layout over the rays (its pieces label the next round's points).
        self._rays: RayLayout | None = None
        #: Whether the points are laid out along a curve (a degenerate front, see
        #: :meth:`_lay_out_on_curve`), from the round that found it on.
        self.curve_mode = False
        #: How many rounds in a row the points have lain on a curve.
        self._curve_rounds = 0
        #: Rounds laid out over the simplex so far, the best of them (its nearest-neighbour
        #: CV and weights) and whether the layout has stopped there (see
        #: :meth:`_guard_settled`).
        self.layout_rounds = 0
        self.best_layout: tuple[float, FloatArray] | None = None
        self.layout_kept = False
        #: In curve mode: the weights that reached the curve's two ends (the segment the
        #: points are laid out along) and SURF's CDF along that segment.
        self.curve_ends: FloatArray | None = None
        self.curve_cdf = CDFRefinement(alpha)
        #: In curve mode: for each end, the weights that reached it when the curve was found
        #: (:func:`~paretosurf.surfaces.curve_end_bands`), how deep into each band the
        #: segment's end lies now, and the raw points the ends reached.
        self._end_bands: tuple[FloatArray, FloatArray] | None = None
        self._end_depth = [0, 0]
        self._end_points: FloatArray | None = None

    @property
    def n_points(self) -> int:
        """Number of points (slots)."""
        return self.n_segments + 1

    # ------------------------------------------------------------------ settings and state
    def settings(self) -> dict[str, Any]:
        return {
            "n_points": self.n_points,
            "n_objectives": self.m,
            "alpha": next(iter(self.edges.values())).setting(),
            "warm_start": self.warm_start,
        }

    def next_weights(self) -> FloatArray:
        if self._next is None:
            self._next = self._first_layout()
        return self._next.copy()

    def record_extras(self) -> dict[str, Any]:
        """No CDF of the whole surface (each edge has its own), and the damping of this
        round's edge updates: their mean over the edges refined so far (with a fixed alpha,
        that alpha; with two objectives, the one edge's, as :func:`~paretosurf.surf` records
        it)."""
        alphas = [edge.alpha for edge in self.edges.values() if edge.estimate is not None]
        out: dict[str, Any] = {"alpha": float(np.mean(alphas)) if alphas else float("nan")}
        if self.pieces:
            out["pieces"] = list(self.pieces)
        return out

    def tell(self, outcome: RoundOutcome, pool: StatePool) -> None:
        """Learn from the round, and group its points into pieces where they fall apart
        (M >= 3; :mod:`paretosurf.surfaces`)."""
        self._round_points = outcome.points
        layout = self._rays
        super().tell(outcome, pool)
        coords = outcome.coordinates
        found = []
        if self.m > 2 and coords is not None:
            # laid out over the rays: the pieces of the estimate the points were aimed at
            # (a small piece may hold one point, closer to another piece than to any other)
            found = (
                surface_pieces(coords)
                if layout is None
                else pieces_of_labels(coords, layout.labels(outcome.points))
            )
        self.pieces = found if len(found) > 1 else []

    def update(self, weights: FloatArray, coordinates: FloatArray) -> None:
        self._unheld = None
        if self.m > 2 and self._round_points is not None:
            self._archive = [*self._archive, (self._round_points.copy(), weights.copy())]
            self._archive = self._archive[-ARCHIVE_ROUNDS:]
            if self._lay_out_on_rays(weights, coordinates):
                return
            if self._lay_out_on_curve(weights, coordinates):
                return
            if self._guard_settled(weights, coordinates):
                return
        self._adapt_trust(weights, coordinates)
        if self.m > 2:
            self._adapt_density(weights, coordinates)
        self._next = self._layout(weights, coordinates)
        if self.m > 2:
            self._unheld = self._next
            self._next = self._hold_settled(self._next, weights)
            self._memory = [*self._memory, (weights.copy(), coordinates.copy())][-MEMORY_ROUNDS:]

    def full_step_weights(self) -> FloatArray | None:
        """The weights the layout asked for, before :meth:`_hold_settled` kept the settled
        ones where they were: the early stop, ``tol`` and the advice measure the layout's
        own moves (a held weight whose target drifts on counts as moving once that drift
        reaches :data:`SETTLED_SPACING`, as it would have without the hold)."""
        if self.last_weights is None:
            return None
        if self._unheld is not None:
            return self._unheld.copy()
        return self.next_weights()

    def _hold_settled(self, new: FloatArray, last: FloatArray) -> FloatArray:
        """``new`` weights, except that an edge point (two non-zero weights) whose move from
        its nearest last weight on the same edge is shorter than :data:`HOLD_SETTLED_SHARE`
        of :data:`~paretosurf.methods.SETTLED_SPACING` of that weight's spacing (to its own
        nearest other weight) takes that last weight exactly (M >= 3).

        The edges' CDFs are damped, and move their points by shrinking shares of the
        spacing round after round, long after those moves stopped changing the spacing:
        on the faces the layout still moves a few points, and the run goes on. Each such
        move costs a solve that runs to convergence nearly as much as a move across a
        whole spacing (a quasi-Newton method builds its curvature again from the warm
        start: on a random quadratic, 91 points, L-BFGS-B with finite differences, about
        35 evaluations a solve, against 7 from its own minimizer at its own weight); held,
        the solve starts at its own solution. Over the 16 runs on connected surfaces of
        ``benchmarks/bench_surface_evaluations.py --bank`` (28 and 91 points,
        ``from_scipy``) the default runs spent 16% fewer evaluations (geometric mean 8.2
        sweeps, 9.8 before) at the same evenness (mean nearest-neighbour CV 0.094, max/min
        1.65 against 1.68, 16 successes either way); single runs move either way, as the
        layout's discrete decisions make each run's path sensitive to any change. Only the
        edges: the faces' Lloyd iterations make their way by small moves of many points,
        and holding those too spent 3% fewer evaluations for a 5% higher CV. Two new
        weights never take the same last weight.
        """
        if len(new) < 2 or len(last) < 2:
            return new
        dist, near = cKDTree(last).query(new, k=1)
        limit = HOLD_SETTLED_SHARE * SETTLED_SPACING * local_spacing(last)[near]
        support = new > ZERO_WEIGHT
        hold = (
            (dist > 0)
            & (dist < limit)
            & (support.sum(axis=1) == 2)
            & np.all(support == (last[near] > ZERO_WEIGHT), axis=1)
        )
        if not np.any(hold):
            return new
        out = new.copy()
        taken = {tuple(row) for row in new[~hold].tolist()}
        for i in np.flatnonzero(hold):
            target = tuple(last[near[i]].tolist())
            if target not in taken:
                taken.add(target)
                out[i] = last[near[i]]
        return self._ordered(out)

    def _guard_settled(self, weights: FloatArray, coordinates: FloatArray) -> bool:
        """Keep the best layout once the layout cycles. Returns whether the next round is
        the best round's weights.

        The layout over the simplex makes discrete decisions each round (how many points
        each edge and face holds, which edge points a cusp or a band narrower than the
        spacing thins), and on some surfaces they flip back and forth from round to round:
        the nearest-neighbour CV of the rounds then swings between an even layout and one
        two to six times less even, for as many rounds as the run has. From
        :data:`SETTLE_GUARD_FROM` rounds on, a round whose CV (in the run's coordinates)
        exceeds :data:`SETTLE_GUARD_FACTOR` times the best round's so far shows such a
        cycle: the next round goes back to the best round's weights, and every later one
        keeps them (a fixed point, which ``tol`` and the early stop see as settled).
        Rounds that only improve, or swing by less, are not touched."""
        if self.layout_kept:
            assert self.best_layout is not None
            self._next = self.best_layout[1].copy()
            return True
        self.layout_rounds += 1
        cv = metrics.nn_cv(coordinates)
        if not np.isfinite(cv):
            return False
        best = self.best_layout
        if (
            best is not None
            and self.layout_rounds > SETTLE_GUARD_FROM
            and cv > SETTLE_GUARD_FACTOR * best[0]
        ):
            self.layout_kept = True
            self._predicted = None
            self._next = best[1].copy()
            return True
        if best is None or cv < best[0]:
            self.best_layout = (cv, weights.copy())
        return False

    def _lay_out_on_rays(self, weights: FloatArray, coordinates: FloatArray) -> bool:
        """Lay the next round out over the solver's rays (:mod:`paretosurf.surfaces`)
        once, after :data:`~paretosurf.surfaces.EXPLORE_ROUNDS` rounds on the weight
        simplex with ``warm_start="best"``, the round's points fall apart into pieces and a
        solve's ray has crossed the estimate where it met no front; from then on every
        round. Returns whether it did."""
        if not self.ray_mode and (len(self._archive) < EXPLORE_ROUNDS or self.warm_start != "best"):
            # the rays refine the pieces the exploration found; solves that keep their
            # neighbours' basins find few (DTLZ7 with local solves and "nearest": one of
            # four), and an even layout over those would pass for the whole front
            return False
        sc = self.current_scalarization()
        if sc is None or sc.kind not in LAYOUT_KINDS or sc.ideal is None or sc.ideal.size != self.m:
            return False
        if not self.ray_mode and len(surface_pieces(coordinates)) < 2:
            # the round's points must fall apart too: solves stopped on a flat spot of their
            # variables (a connected surface) also land off their rays
            return False
        assert self._round_points is not None
        new = ray_layout(
            self._archive,
            self._round_points,
            weights,
            coordinates,
            sc,
            need_evidence=not self.ray_mode,
        )
        if new is None:
            if not self.ray_mode:
                return False
            self._rays = None
            self._next = weights.copy()  # nothing to lay out on this round: the points stay
            return True
        self.ray_mode = True
        self._predicted = None
        self._rays = new
        self._next = self._ordered(new.weights)
        return True

    def _lay_out_on_curve(self, weights: FloatArray, coordinates: FloatArray) -> bool:
        """Lay the next round out along the curve the points lie on once they have lain on
        a curve (:func:`~paretosurf.findings.lies_on_curve`) for :data:`CURVE_ROUNDS`
        rounds in a row, and from then on every round. Returns whether it did.

        On a front of lower dimension than M - 1 (two objectives that never conflict, as
        DTLZ5's first two) whole bands of the simplex reach one stretch of the front, and no
        layout of the simplex spaces the points along it. Along the segment of weights
        between the two that reached the curve's ends (:func:`~paretosurf.surfaces.curve_ends`)
        the points run along the whole curve, and the layout is SURF's own: the arc-length
        CDF of the points over the segment's parameter, damped as ``alpha`` says, and the
        next weights at its quantiles. The previous round's points on the segment add their
        knots to the CDF's estimate (:func:`~paretosurf.surfaces.merge_curve_rounds`), where
        both rounds lie on one curve."""
        on_curve = lies_on_curve(coordinates)
        self._curve_rounds = self._curve_rounds + 1 if on_curve else 0
        if not self.curve_mode and self._curve_rounds < CURVE_ROUNDS:
            return False
        if self.curve_ends is None:
            self.curve_mode = True
            self._predicted = None
            self._end_bands = curve_end_bands(weights, coordinates)
            self._end_depth = [0, 0]
            self.curve_ends = np.stack([band[0] for band in self._end_bands])
            if self._round_points is not None:
                self._end_points = np.stack(
                    [
                        self._round_points[np.all(weights == end, axis=1)][0]
                        for end in self.curve_ends
                    ]
                )
            self._next = segment_weights(np.linspace(0.0, 1.0, self.n_points), self.curve_ends)
            return True
        at = segment_parameter(weights, self.curve_ends)
        if self._moved_lost_ends(at, coordinates):
            return True
        at, coordinates = self._with_previous_round(at, coordinates)
        order = np.argsort(at, kind="stable")
        self.curve_cdf.update(at[order], coordinates[order])
        self._next = segment_weights(
            self.curve_cdf.cdf.quantile_weights(self.n_points - 1), self.curve_ends
        )
        return True

    def _moved_lost_ends(self, at: FloatArray, coordinates: FloatArray) -> bool:
        """Move an end of the curve's segment one weight deeper into the band of weights
        that reached that end, where the round's points no longer reach it
        (:func:`~paretosurf.surfaces.curve_end_status`), and lay the next round out anew
        along the new segment. Returns whether an end moved.

        The segment's ends start at the bands' borders (:func:`~paretosurf.surfaces.curve_ends`),
        where a later solve, started elsewhere, may land short of the end: on pymoo's DTLZ6
        with two BLAS threads the run settled evenly over the first 92% of its curve and
        reported success. An end the points run beyond is followed: the round's point there
        is the end from then on. ``at``: the round's weights' parameters along the segment."""
        if self._end_points is None or self._end_bands is None or self.curve_ends is None:
            return False
        assert self._round_points is not None
        known = current_coordinates(self._end_points, self._round_points, coordinates)
        if known is None:
            return False
        moved = False
        for side in (0, 1):
            status = curve_end_status(coordinates, known[side])
            if status == "passed":
                self._end_points[side] = self._round_points[
                    np.argmin(at) if side == 0 else np.argmax(at)
                ]
            elif status == "lost" and self._end_depth[side] + 1 < len(self._end_bands[side]):
                self._end_depth[side] += 1
                self.curve_ends[side] = self._end_bands[side][self._end_depth[side]]
                moved = True
        if moved:
            self.curve_cdf = CDFRefinement(self.curve_cdf.setting())
            self._next = segment_weights(np.linspace(0.0, 1.0, self.n_points), self.curve_ends)
        return moved

    def known_ends(self) -> FloatArray | None:
        """In curve mode, the raw points the rounds reached at the curve's two ends."""
        return None if self._end_points is None else self._end_points.copy()

    def _with_previous_round(
        self, at: FloatArray, coordinates: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """The round's parameters along the curve's segment and its coordinates, with the
        previous round's added where that round's weights lay on the segment and both
        rounds lie on one curve (:func:`~paretosurf.surfaces.merge_curve_rounds`). The
        previous round's raw points are put in this round's coordinates
        (:func:`~paretosurf.surfaces.current_coordinates`); where the normalization is not
        affine, the round's points are used alone."""
        if len(self._archive) < 2 or self._round_points is None or self.curve_ends is None:
            return at, coordinates
        raw, weights = self._archive[-2]
        earlier_at = segment_parameter(weights, self.curve_ends)
        # weights off the segment (the round that found the curve, a probe) give no knot
        on_segment = (
            np.max(np.abs(segment_weights(earlier_at, self.curve_ends) - weights), axis=1)
            <= SEGMENT_TOLERANCE
        )
        if not on_segment.any():
            return at, coordinates
        earlier = current_coordinates(raw[on_segment], self._round_points, coordinates)
        if earlier is None:
            return at, coordinates
        return merge_curve_rounds(at, coordinates, earlier_at[on_segment], earlier)

    def propose(self) -> Round:
        """The next round; a slot whose warm start would be the state of a point that
        coincides with another slot's point (a different weight) starts instead from the
        state of the nearest slot whose point stands alone.

        A local solver can stop where the decision variables leave a flat spot (on pymoo's
        DTLZ2, near a vertex, whatever the weight); warm-started from there every later solve
        of that slot stays. Corners are left alone: their points may lie where others'
        collapse (a vertex). Where the collapse is the front's own (weighted sums on a
        non-convex surface), no start helps, and the diagnostics report it.
        """
        rnd = super().propose()
        if self.last_points is None or self.last_weights is None or self.m < 3:
            return rnd
        old_w = self.last_weights
        pairs = coincident_pairs(self.last_points, COINCIDENT_SHARE)
        corner = old_w.max(axis=1) == 1.0
        stuck = {i for pair in pairs for i in pair if not corner[i]}
        if not stuck:
            return rnd
        healthy = np.array([i for i in range(len(old_w)) if i not in stuck])
        if healthy.size == 0:
            return rnd
        tree = cKDTree(old_w[healthy])
        key_of = {key: i for i, key in enumerate(self.keys)}
        starts = list(rnd.starts)
        new_w = np.asarray(rnd.weights, dtype=np.float64)
        for j, key in enumerate(starts):
            if key is not None and key_of.get(key) in stuck and new_w[j].max() < 1.0:
                starts[j] = self.keys[int(healthy[tree.query(new_w[j])[1]])]
        return dataclasses.replace(rnd, starts=starts)

    def _adapt_density(self, weights: FloatArray, coordinates: FloatArray) -> None:
        """Correct the faces' share of points by the spacing the last round reached inside
        faces against the spacing along the edges.

        It measures with three points inside the faces or more; with one or two once the
        faces have held so few :data:`STARVED_ROUNDS` rounds in a row. Faces left with one
        or two points (after a first round whose inside points crowded) would otherwise
        keep a correction that starves them for good, as on pymoo's convex DTLZ2, whose
        surface rises steeply along two of its edges (27 of 28 points stayed on the edges,
        one alone in the middle at twice the spacing). A round or two with so few (the
        points of a surface in pieces, DTLZ7's, on their way) is no measure."""
        gaps = cKDTree(coordinates).query(coordinates, k=2)[0][:, 1]
        support = np.sum(weights > ZERO_WEIGHT, axis=1)
        inside, edge = gaps[support >= 3], gaps[support == 2]
        self._starved = self._starved + 1 if 0 < inside.size < 3 else 0
        if inside.size < 3 and self._starved < STARVED_ROUNDS:
            return  # too few points inside (for now)
        if edge.size < 3 or not (np.mean(inside) > 0 and np.mean(edge) > 0):
            return  # too few edge points, or collapsed ones (reported by the diagnostics)
        ratio = float(np.mean(inside) / np.mean(edge))
        lo, hi = DENSITY_RANGE
        self.density = float(np.clip(self.density * ratio**2, lo, hi))

    def _adapt_trust(self, weights: FloatArray, coordinates: FloatArray) -> None:
        """Grow the trust radius when the points inside faces landed where the estimate put
        them, shrink it when they did not."""
        if self._predicted is None or len(self._predicted[0]) == 0 or len(weights) < 2:
            return
        pred_w, pred_c = self._predicted
        index = {tuple(row): i for i, row in enumerate(weights.tolist())}
        rows = [(index[tuple(w)], j) for j, w in enumerate(pred_w.tolist()) if tuple(w) in index]
        if not rows:
            return
        got = coordinates[[i for i, _ in rows]]
        want = pred_c[[j for _, j in rows]]
        spacing = float(np.median(cKDTree(coordinates).query(coordinates, k=2)[0][:, 1]))
        miss = float(np.median(np.linalg.norm(got - want, axis=1))) / max(spacing, 1e-300)
        lo, hi = TRUST_RANGE
        if miss <= TRUST_GOOD:
            self.trust = min(hi, 2.0 * self.trust)
        elif miss > TRUST_BAD:
            self.trust = max(lo, 0.5 * self.trust)

    def state_dict(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        meta, arrays = self.slot_state()
        meta["counts"] = (
            None if self.counts is None else [[list(face), n] for face, n in self.counts.items()]
        )
        meta["trust"] = self.trust
        meta["density"] = self.density
        meta["starved"] = self._starved
        if self._predicted is not None:
            arrays["predicted_weights"], arrays["predicted_coords"] = self._predicted
        meta["edges"] = {}
        for face, refine in self.edges.items():
            key = f"{face[0]}-{face[1]}"
            meta["edges"][key] = refine.auto_state()
            _save_cdfs(refine, f"edge/{key}/", arrays)
        if self._next is not None:
            arrays["next_weights"] = self._next
        if self._unheld is not None:
            arrays["unheld_weights"] = self._unheld
        meta["memory"] = len(self._memory)
        meta["thinned"] = sorted([*edge, t] for edge, t in self._thinned)
        meta["flat_edges"] = sorted(list(edge) for edge in self.flat_edges)
        meta["flat_rounds"] = sorted([*edge, n] for edge, n in self._flat_rounds.items())
        for i, (w, c) in enumerate(self._memory):
            arrays[f"memory/{i}/weights"], arrays[f"memory/{i}/coords"] = w, c
        meta["ray_mode"] = self.ray_mode
        meta["curve_mode"] = self.curve_mode
        meta["layout_rounds"] = self.layout_rounds
        meta["layout_kept"] = self.layout_kept
        if self.best_layout is not None:
            meta["best_layout_cv"] = self.best_layout[0]
            arrays["best_layout/weights"] = self.best_layout[1]
        meta["curve_rounds"] = self._curve_rounds
        meta["curve_cdf"] = self.curve_cdf.auto_state()
        if self.curve_ends is not None:
            arrays["curve/ends"] = self.curve_ends
        if self._end_bands is not None:
            arrays["curve/band0"], arrays["curve/band1"] = self._end_bands
            meta["curve_end_depth"] = list(self._end_depth)
        if self._end_points is not None:
            arrays["curve/end_points"] = self._end_points
        _save_cdfs(self.curve_cdf, "curve/", arrays)
        meta["archive"] = len(self._archive)
        for i, (p, w) in enumerate(self._archive):
            arrays[f"archive/{i}/points"], arrays[f"archive/{i}/weights"] = p, w
        if self._rays is not None:
            arrays["rays/at"], arrays["rays/piece"] = self._rays.at, self._rays.piece
            arrays["rays/scale"] = self._rays.scale
        return meta, arrays

    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        history: Sequence[IterationRecord],
    ) -> None:
        self.load_slot_state(meta, arrays)
        self.trust = float(meta.get("trust", TRUST_RADIUS))
        self.density = float(meta.get("density", 1.0))
        self._starved = int(meta.get("starved", 0))
        self._predicted = (
            (
                np.asarray(arrays["predicted_weights"], dtype=np.float64),
                np.asarray(arrays["predicted_coords"], dtype=np.float64),
            )
            if "predicted_weights" in arrays
            else None
        )
        counts = meta.get("counts")
        self.counts = (
            None if counts is None else {tuple(int(v) for v in face): int(n) for face, n in counts}
        )
        for face, refine in self.edges.items():
            key = f"{face[0]}-{face[1]}"
            _load_cdfs(refine, f"edge/{key}/", arrays, meta.get("edges", {}).get(key))
        self._next = (
            np.asarray(arrays["next_weights"], dtype=np.float64)
            if "next_weights" in arrays
            else None
        )
        self._unheld = (
            np.asarray(arrays["unheld_weights"], dtype=np.float64)
            if "unheld_weights" in arrays
            else None
        )
        self._thinned = {
            (tuple(int(v) for v in row[:-1]), float(row[-1]))
            for row in meta.get("thinned", [])
            # an edge and a position (runs saved before held [edge, i, n])
            if len(row) == 3 and all(isinstance(v, numbers.Integral) for v in row[:2])
        }
        self.flat_edges = {
            (int(edge[0]), int(edge[1])) for edge in meta.get("flat_edges", []) if len(edge) == 2
        }
        self._flat_rounds = {
            (int(row[0]), int(row[1])): int(row[2])
            for row in meta.get("flat_rounds", [])
            if len(row) == 3
        }
        self._memory = [
            (
                np.asarray(arrays[f"memory/{i}/weights"], dtype=np.float64),
                np.asarray(arrays[f"memory/{i}/coords"], dtype=np.float64),
            )
            for i in range(int(meta.get("memory", 0)))
        ]
        self.ray_mode = bool(meta.get("ray_mode", False))
        self.curve_mode = bool(meta.get("curve_mode", False))
        self.layout_rounds = int(meta.get("layout_rounds", 0))
        self.layout_kept = bool(meta.get("layout_kept", False))
        self.best_layout = (
            (
                float(meta["best_layout_cv"]),
                np.asarray(arrays["best_layout/weights"], dtype=np.float64),
            )
            if "best_layout/weights" in arrays
            else None
        )
        self._curve_rounds = int(meta.get("curve_rounds", 0))
        self.curve_ends = (
            np.asarray(arrays["curve/ends"], dtype=np.float64) if "curve/ends" in arrays else None
        )
        self._end_bands = (
            (
                np.asarray(arrays["curve/band0"], dtype=np.float64),
                np.asarray(arrays["curve/band1"], dtype=np.float64),
            )
            if "curve/band0" in arrays and "curve/band1" in arrays
            else None
        )
        self._end_depth = [int(v) for v in meta.get("curve_end_depth", [0, 0])]
        self._end_points = (
            np.asarray(arrays["curve/end_points"], dtype=np.float64)
            if "curve/end_points" in arrays
            else None
        )
        _load_cdfs(self.curve_cdf, "curve/", arrays, meta.get("curve_cdf"))
        self._rays = None
        if "rays/at" in arrays and self._next is not None:
            self._rays = RayLayout(
                self._next,
                np.asarray(arrays["rays/at"], dtype=np.float64),
                np.asarray(arrays["rays/piece"], dtype=np.intp),
                np.asarray(arrays["rays/scale"], dtype=np.float64),
            )
        self._archive = [
            (
                np.asarray(arrays[f"archive/{i}/points"], dtype=np.float64),
                np.asarray(arrays[f"archive/{i}/weights"], dtype=np.float64),
            )
            for i in range(int(meta.get("archive", 0)))
        ]

    # ------------------------------------------------------------------ the layout
    def _first_layout(self) -> FloatArray:
        """Round 0: the Das-Dennis lattice when ``n_points`` is a lattice size, else the
        even layout of the flat simplex (the estimate ``f(w) = w``)."""
        m = self.m
        try:
            lattice = simplex_lattice(m, lattice_partitions(self.n_points, m))
        except ValueError:
            corners = np.eye(m)
            return self._layout(corners, corners, first=True)
        return self._ordered(lattice)

    def _ordered(self, weights: FloatArray) -> FloatArray:
        """Slots in a fixed order: the corners ``e_1, ..., e_M``, then each edge's points
        (decreasing weight on the edge's first objective), then each face's (for two
        objectives: increasing weight on objective 1, as :func:`paretosurf.surf`).

        The order is the same in every round, so that a slot keeps its place: slot ``m`` is
        the corner ``e_(m+1)`` whether round 0 starts from the Das-Dennis lattice (which lists
        the corners from ``e_M`` down to ``e_1``) or from a layout, and with
        ``warm_start="slot"`` each corner continues from its own solution."""
        if self.m == 2:
            return weights[np.argsort(weights[:, 0], kind="stable")]
        corners = np.flatnonzero(weights.max(axis=1) == 1.0)
        groups = [corners[np.argsort(weights[corners].argmax(axis=1), kind="stable")]]
        for face in faces(self.m):
            inside = np.flatnonzero(interior_of(weights, face))
            if len(face) == 2:
                inside = inside[np.argsort(-_edge_parameter(weights[inside], face), kind="stable")]
            groups.append(inside)
        order = np.concatenate(groups)
        if order.size != len(weights):  # pragma: no cover - every weight is on one face
            raise AssertionError("a weight vector lies on no face of the simplex")
        return weights[order]

    def _layout(
        self, weights: FloatArray, coords: FloatArray, *, first: bool = False
    ) -> FloatArray:
        """The next round's weights from the points ``coords`` solved at ``weights``."""
        m = self.m
        per_face: dict[Face, tuple[FloatArray, FloatArray]] = {}
        for face in faces(m):
            mask = on_face(weights, face)
            per_face[face] = (weights[mask][:, list(face)], coords[mask])
            if len(face) > 2 and not first:
                per_face[face] = self._recall(face, *per_face[face])
        if not first and m > 2 and self._weighted_sums():
            self._flatten_edges(weights, coords)
        if not first:
            for edge, refine in self.edges.items():
                face_w, face_c = per_face[edge]
                t = face_w[:, 0]
                order = np.argsort(t, kind="stable")
                refine.update(t[order], face_c[order])
        maps = {face: FaceMap(*per_face[face]) for face in faces(m) if len(face) > 2}
        # the edge points thinned in the last round are counted as placed (the allocation
        # spreads the slots over the rest): a stretch where two edges run close together
        # holds one edge's points, and the thinned slots do not crowd a face
        lost = len(self._thinned)
        counts = self._allocate(per_face, maps, lost)
        self.counts = counts
        placed = [np.eye(m)]
        predicted: list[tuple[FloatArray, FloatArray]] = []
        edge_points = {edge: self._edge_points(weights, edge, counts[edge]) for edge in self.edges}
        thinned = _thin_cusps(edge_points, per_face, self._thinned) if m > 2 else set()
        # thinned more (fewer) than counted: the face with the most points gets the rest
        # (gives them up, and where the faces have none, the closest edge points go)
        spare = {face: counts[face] for face in faces(m)}
        surplus = len(thinned) - lost
        inner = sorted((f for f in faces(m) if len(f) > 2), key=lambda f: -counts[f])
        if surplus > 0:
            spare[inner[0]] += surplus
        for face in inner:
            take = min(spare[face], max(-surplus, 0))
            spare[face] -= take
            surplus += take
        if surplus < 0:
            thinned |= _thin_most_crowded(edge_points, per_face, -surplus)
        self._thinned = thinned
        placed.extend(edge_points.values())
        for face in faces(m):
            count = spare[face]
            if len(face) == 2 or count == 0:
                continue
            fixed_all = np.vstack(placed)
            fixed = fixed_all[on_face(fixed_all, face)][:, list(face)]
            face_w, face_c = per_face[face]
            fmap = maps[face]
            samples = face_samples(fmap, min_samples=MESH_SAMPLES_PER_POINT * count)
            current = weights[interior_of(weights, face)][:, list(face)]
            start = current[:count]
            restart = np.empty(0, dtype=np.intp)
            if len(start) > 1:
                at = fmap(np.vstack([fixed, start]))
                gaps = cKDTree(at).query(at, k=2)[0][:, 1]
                limit = CROWDED_SHARE * float(np.median(gaps))
                restart = np.array(
                    sorted(
                        {
                            max(i, j) - len(fixed)
                            for i, j in cKDTree(at).query_pairs(limit)
                            if max(i, j) >= len(fixed)
                        }
                    ),
                    dtype=np.intp,
                )
            missing = count - len(start)
            if missing > 0 or restart.size:
                # crowded points restart in place (every other slot keeps its point), new
                # ones join at the end
                stay = np.delete(start, restart, axis=0)
                extra = farthest_points(
                    fmap, samples, np.vstack([fixed, stay]), restart.size + max(missing, 0)
                )
                start = np.vstack([start, extra[restart.size :]])
                start[restart] = extra[: restart.size]
            held = _well_spaced(fmap(np.vstack([fixed, start])), len(fixed))
            free = restricted_cvt(fmap, samples, fixed, start)
            free[held] = start[held]
            free = quadratic_pull_back(fmap(free), face_c, face_w, free)
            free[held] = start[held]
            free = _within_trust_region(free, start, face_w, self.trust)
            free = _apart(free, start, fixed, face_w)
            predicted.append((embed(free, face, m), fmap(free)))
            placed.append(embed(free, face, m))
        k = coords.shape[1]
        self._predicted = (
            np.vstack([np.empty((0, m))] + [w for w, _ in predicted]),
            np.vstack([np.empty((0, k))] + [c for _, c in predicted]),
        )
        return self._ordered(np.vstack(placed))

    def _weighted_sums(self) -> bool:
        """Whether the solver minimizes weighted sums (it declares ``"linear"``, or no
        scalarization)."""
        sc = self.current_scalarization()
        return sc is None or sc.kind == "linear"

    def _flatten_edges(self, weights: FloatArray, coords: FloatArray) -> None:
        """Mark the edges of the weight simplex whose points inside them (two or more)
        coincide: the whole edge maps to one point of the front.

        Weighted sums on a front whose objectives reach their best values together (pymoo's
        convex DTLZ2: ``sqrt(f1) + sqrt(f2) + f3 = 1``) send each edge to a vertex: with
        ``w_k = 0`` objective ``k`` is free, and the others reach 0 at once where it is
        worst. The edge's chords then run from its corners' points (anywhere on the flat
        faces of their single objective) to that vertex and back, and SURF's arc length
        along it, all in the two jumps, gave the edge points that all landed on the vertex
        (6 of 28 on convex DTLZ2, reported ``collapsed``). An edge whose points coincide in
        :data:`FLAT_EDGE_ROUNDS` rounds in a row is flat, and holds no points from then on
        (its measure in :meth:`_allocate` is zero): its slots go to the faces, whose weights
        reach the front's interior and, towards the corners, its boundary. Weighted sums
        only (:meth:`_weighted_sums`): the Tchebycheff kinds floor a zero weight, and their
        layouts keep the edges (the thinning at cusps, and the rays on a surface in pieces,
        deal with the points that meet there).
        """
        # the faces must reach more of the front than its vertices: where their points
        # collapse as well (a front of a few points), moving the edges' points there helps
        # nothing, and the collapse is reported as it is
        extent = float(np.max(np.ptp(coords, axis=0))) if len(coords) else 0.0
        face_points = coords[np.sum(weights > ZERO_WEIGHT, axis=1) >= 3]
        if not extent > 0 or _distinct(face_points, FLAT_EDGE_SHARE * extent) < FLAT_FACE_POINTS:
            return
        for edge in self.edges:
            inside = interior_of(weights, edge)
            if inside.sum() < 2:
                continue
            mask = on_face(weights, edge)
            length = _edge_length(weights[mask][:, list(edge)], coords[mask])
            spread = float(np.max(np.ptp(coords[inside], axis=0)))
            flat = length > 0 and spread <= FLAT_EDGE_SHARE * length
            self._flat_rounds[edge] = self._flat_rounds.get(edge, 0) + 1 if flat else 0
            if self._flat_rounds[edge] >= FLAT_EDGE_ROUNDS:
                self.flat_edges.add(edge)

    def _recall(
        self, face: Face, face_w: FloatArray, face_c: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """The last round's weights and points on ``face``, joined by earlier rounds' points
        in the gaps between them.

        A point solved where the estimate was wrong (in a sharp bend the estimate crossed as
        a flat chord, say) is a sample of the map all the same: once its slot moves on, the
        chord would come back, and the next points aimed at it would land together in the
        bend again. Earlier points closer (in weight) than :data:`MEMORY_GAP` of the last
        round's spacing to a weight already in the estimate are left out, so the newest solves
        define the estimate wherever they are.
        """
        if not self._memory or len(face_w) < 3:
            return face_w, face_c
        limit = MEMORY_GAP * float(np.median(cKDTree(face_w).query(face_w, k=2)[0][:, 1]))
        out_w, out_c = [face_w], [face_c]
        for old_w, old_c in reversed(self._memory):
            mask = on_face(old_w, face)
            cand_w, cand_c = old_w[mask][:, list(face)], old_c[mask]
            if len(cand_w) == 0:
                continue
            far = cKDTree(np.vstack(out_w)).query(cand_w, k=1)[0] > limit
            out_w.append(cand_w[far])
            out_c.append(cand_c[far])
        return np.vstack(out_w), np.vstack(out_c)

    def _edge_points(self, weights: FloatArray, edge: Face, count: int) -> FloatArray:
        """``count`` points inside an edge at its CDF's quantiles (SURF's weights)."""
        m = self.m
        if count <= 0:
            return np.empty((0, m))
        refine = self.edges[edge]
        n = count + 1
        guess = None
        if self.last_weights is not None:
            mask = on_face(self.last_weights, edge)
            previous = np.sort(_edge_parameter(self.last_weights[mask], edge))
            if previous.size == n + 1:
                guess = previous
        t = refine.cdf._inverse(np.arange(n + 1) / n, guess)[1:-1]
        out = np.zeros((count, m))
        out[:, edge[0]] = t
        out[:, edge[1]] = 1.0 - t
        return out

    def _allocate(
        self,
        per_face: Mapping[Face, tuple[FloatArray, FloatArray]],
        maps: Mapping[Face, FaceMap],
        lost: int = 0,
    ) -> dict[Face, int]:
        """Points per face from the estimated lengths and areas, with hysteresis; ``lost``
        points more than the slots (the edge points the last round thinned, see
        :meth:`_layout`)."""
        m = self.m
        if m == 2:
            return {(0, 1): self.n_points - 2}
        measures: dict[Face, float] = {}
        for face, (face_w, face_c) in per_face.items():
            if len(face) == 2:
                measures[face] = 0.0 if face in self.flat_edges else _edge_length(face_w, face_c)
            else:
                measures[face] = self.density * maps[face].measure()
        new = allocate_points(measures, self.n_points + lost, m)
        old = self.counts
        if old is None:
            return new
        old = _match_total(old, new)
        if all(abs(new[f] - old[f]) <= max(1.0, ALLOCATION_HYSTERESIS * old[f]) for f in new):
            return self._off_flat_edges(old, new)
        return self._off_flat_edges(
            _reallocate(old, new, max(1, round(REALLOCATION_SHARE * self.n_points))), new
        )

    def _off_flat_edges(self, counts: dict[Face, int], new: Mapping[Face, int]) -> dict[Face, int]:
        """``counts`` with the points of the flat edges (:meth:`_flatten_edges`) moved at
        once, not a few a round, to the faces that ``new`` gives most more than they have
        (the points there would all land on one point of the front)."""
        out = dict(counts)
        inner = [f for f in out if len(f) > 2]
        for edge in sorted(self.flat_edges):
            while out.get(edge, 0) > 0 and inner:
                out[edge] -= 1
                out[max(inner, key=lambda f: new[f] - out[f])] += 1
        return out


@document_loop_options
def surf_simplex(
    solver: SolverLike,
    n_points: int,
    n_objectives: int | None = None,
    *,
    iterations: int = 30,
    alpha: float | str = "auto",
    tol: float | None = None,
    init_states: Sequence[Any] | None = None,
    warm_start: str = "nearest",
    **options: Unpack[RunOptions],
) -> Result:
    """Find ``n_points`` Pareto points spread evenly over the front of ``n_objectives``
    objectives (SURF on the weight simplex).

    Parameters
    ----------
    solver : object or callable
        Inner solver of ``min_u sum_m w_m h_m(u)`` (objectives minimized): an object with
        ``solve(weight, state) -> Solution`` (optionally ``solve_many(weights, states)``) or a
        callable ``(weight, state)``, where ``weight`` is a float64 array of shape
        ``(n_objectives,)`` on the simplex (non-negative, summing to 1; ``weight[m]`` weighs
        objective ``m``) and ``state`` the slot's warm start (``None`` on its first call).
    n_points : int
        Number of points, at least ``n_objectives``. Lattice sizes (for three objectives 15,
        21, 28, 36, 45, 55, 66, 78, 91, ...; see
        :func:`paretosurf.surfaces.lattice_size`) start from the Das-Dennis lattice;
        others from an even layout of the flat simplex.
    n_objectives : int, optional
        M >= 2; by default the solver's own count (its ``n_objectives``, as the adapters
        and the bundled problems' solvers declare it). With ``M = 2`` the weights, points
        and each record's ``cv``, ``gap_ratio`` and ``alpha`` are those of
        :func:`paretosurf.surf` with ``n_segments = n_points - 1`` (the solver gets the
        weights as vectors ``(w, 1 - w)``); the result has no ``cdf``, and its findings
        come from the surface checks.
    iterations : int
        Most rounds (each solves every point once; see ``early_stopping``).
    alpha : float or "auto", default "auto"
        Damping of the edges' arc-length CDFs, as in :func:`paretosurf.surf`. The points
        inside faces follow the current estimate without damping.
    tol : float, optional
        Stop once no weight moves by more than ``tol`` (in any component) between rounds.
    init_states : sequence, optional
        ``n_points`` warm starts for the first round, as in :func:`paretosurf.surf`.
    report : {"auto", "last", "most-even"}
        Report the last round, or the most even of the last
        :data:`~paretosurf.loop._kept_rounds.KEEP_ROUNDS` (lowest nearest-neighbour max/min of the
        points, in the run's coordinates). ``"auto"`` (default): the most even with M >= 3,
        the last with M = 2.
    target : float, optional
        The spacing ``success`` requires on the reported round, in the run's coordinates:
        the nearest-neighbour distances' max/min with M >= 3 (default 3), the largest gap
        over the smallest along the front with M = 2 (default 2). A result above it fails
        with the finding ``"uneven"``.
    warm_start : {"nearest", "slot", "rescue", "best"}
        "nearest" (default): each point continues from the previous solution whose weight is
        closest to its new weight; points move between edges and faces as the estimated
        areas change, so a slot's own previous state is not always the nearest. "rescue": its
        own, unless another point dominates its point (see :func:`paretosurf.surf`).
        "best": the previous solution whose point scores best at its new weight under the
        solver's declared scalarization (weighted sums for a solver that declares none), so
        that a slot stuck in a poor basin (a local minimum, or a piece of a disconnected
        surface that is no longer its weight's) continues from a better one. With a
        Tchebycheff solver on a surface in pieces, "best" also lets the layout move to the
        solver's rays (see the module's docstring, :mod:`paretosurf.surfaces`).
    normalize : {"endpoints", "none"}, (ideal, nadir) or callable
        The coordinates the points are spread in; ``"endpoints"`` reads ideal and nadir from
        the M corner solutions.
    weight_bounds : (lo, hi), optional
        Solve at ``lo + (hi - lo) * w`` (``hi`` must be ``1 - (M - 1) * lo``): keeps every
        weight at least ``lo``, for solvers that stop on a flat face where an objective's
        weight is zero.
    **options
        The loop options below, shared by every method's entry function (the ones above
        are documented for this method).
    <loop options>

    Returns
    -------
    Result
        ``weights`` of shape ``(n_points, M)`` (the corners ``e_1, ..., e_M`` first, then
        edges, then faces; each corner in the same slot every round),
        ``points`` of shape ``(n_points, M)``; with M >= 3 each record's ``cv`` and
        ``gap_ratio`` are the nearest-neighbour distance CV (:func:`paretosurf.metrics.nn_cv`)
        and max/min ratio (:func:`paretosurf.metrics.nn_ratio`; within each piece where the
        surface is in pieces, ``pieces``), with M = 2 those of the gaps along the front, as
        SURF's; ``cdf`` is ``None``.
        ``success`` is True only when the points are distinct, none dominated, every solve
        succeeded and the spacing meets ``target``; ``message`` and ``findings`` say what
        failed and what to do. With M >= 3 (and
        ``report="auto"``) the weights, points and states are those of the most even of the
        last :data:`~paretosurf.loop._kept_rounds.KEEP_ROUNDS` rounds (lowest max/min),
        ``reported_round`` its index in
        ``history`` (``None`` when it is the last), and ``cv`` and ``gap_ratio`` its figures.

    Examples
    --------
    Three quadratic objectives ``h_m(x) = |x - e_m|^2 / 2`` scaled unevenly:

    >>> import numpy as np
    >>> import paretosurf as ps
    >>> scale = np.array([1.0, 4.0, 16.0])
    >>> def solver(w, state):
    ...     x = w * scale / np.sum(w * scale)         # argmin of sum_m w_m scale_m h_m
    ...     return ps.Solution(0.5 * ((x[None, :] - np.eye(3)) ** 2).sum(axis=1), x)
    >>> res = ps.surf_simplex(solver, 28, 3, iterations=10)
    >>> res.weights.shape, res.points.shape
    ((28, 3), (28, 3))
    >>> first, last = res.history[0], res.history[-1]
    >>> bool(last.cv < 0.3 < first.cv), bool(last.gap_ratio < first.gap_ratio)
    (True, True)
    """
    check_options(surf_simplex, options)
    n_objectives = solver_objectives(solver, n_objectives, caller="surf_simplex")
    method = SurfSimplexMethod(
        n_points,
        n_objectives,
        alpha=alpha,
        warm_start=warm_start,
        scalarization=solver_scalarization(solver),
    )
    total = check_non_negative_int(iterations, name="iterations")
    return run(method, solver, iterations=total, init_states=init_states, tol=tol, **options)
