"""Spreading the points of a disconnected surface along the solver's rays (three or more
objectives, Tchebycheff scalarizations).

:func:`paretosurf.surf_simplex` lays its points out over an estimate of the front built on the
weight simplex. Where the surface falls apart into pieces (DTLZ7's four; a design space with
islands), that estimate draws flat bridges across the gaps: the weights laid out there send
their solves to the rims of the pieces beside the gap, and the points crowd there.

A Tchebycheff solve lands on its weight's *ray* from the ideal point ``z`` wherever the ray
meets the front, so the weight that reaches a point ``q`` of the front is known in closed
form (:func:`ray_weights`: proportional to ``1 / (q - z)``; to ``q - z`` for the achievement
scalarization). This module therefore estimates the surface over the rays instead of the
weights:

- **The chart**: each point solved in the last :data:`ARCHIVE_ROUNDS` rounds that no other
  dominates is placed at its ray's
  direction ``(q - z) / s`` (normalized to sum 1; ``s`` the points' spread per objective),
  on the simplex (:func:`ray_directions`). Each piece of the front covers a region of the
  chart; a gap between pieces is a region no solved point reaches. The estimate is
  piecewise linear over the chart's Delaunay triangulation
  (:class:`~paretosurf.surfaces.FaceMap`).
- **Bridges**: simplices of the triangulation that span a gap get no area, so no point is
  laid out there. A simplex is a bridge when the ray of a solve passes through it and the
  solve landed off that ray (:func:`off_ray`), far from where the estimate puts the ray, with
  no point found scoring better at its weight (the ray met no front there and the solve
  stopped on a rim; a solve stopped short on a connected surface is beaten), or, once the
  points are laid out on the rays, when one of its edges is longer than
  :data:`BRIDGE_SPACINGS` times the largest nearest-neighbour distance among the last
  round's points. The pieces are the connected parts of what remains.
- **The layout**: each piece gets points in proportion to its area, and the points are a
  centroidal Voronoi tessellation of the pieces (:func:`~paretosurf.surfaces.restricted_cvt`,
  the corners held fixed); each generator's chart position gives its weight exactly.

The first :data:`EXPLORE_ROUNDS` rounds always lay out on the weight simplex, whose spread of
weights (with ``warm_start="best"``) is what finds the pieces; the rays can only refine what is
found. Distances are measured in the run's coordinates: the earlier rounds' points are mapped
into the current ones by the per-objective affine map the current round shows
(:func:`current_coordinates`; a normalization that is not affine keeps the current round
only).

Written here rather than taken from a library: the layout is the same restricted centroidal
Voronoi tessellation as on the weight simplex (:mod:`paretosurf.surfaces`), over another chart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import moocore
import numpy as np
from numpy.typing import NDArray
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from paretosurf.adapters.scalarization import Scalarization
from paretosurf.surfaces._estimate import (
    FaceMap,
    FaceSamples,
    face_samples,
    farthest_points,
    restricted_cvt,
)

__all__ = [
    "ARCHIVE_ROUNDS",
    "BEST_SHARE",
    "BRIDGE_SPACINGS",
    "EXPLORE_ROUNDS",
    "LAYOUT_KINDS",
    "MISS_SPACINGS",
    "RAY_KINDS",
    "RIM_SPREAD",
    "RayLayout",
    "current_coordinates",
    "off_ray",
    "ray_directions",
    "ray_layout",
    "ray_weights",
]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.intp]

#: Scalarizations whose solves land on rays from the ideal point.
RAY_KINDS = ("tchebycheff", "modified_tchebycheff", "asf")
#: Those :func:`paretosurf.surf_simplex` lays out over the rays. The achievement
#: scalarization is left on the weight simplex: with local solves on DTLZ7 its ray layout
#: did not settle (nearest-neighbour max/min 8 to 60 round after round).
LAYOUT_KINDS = ("tchebycheff", "modified_tchebycheff")
#: The first rounds always lay out on the weight simplex: its spread of weights (with
#: ``warm_start="best"``) is what finds the pieces; the rays can only refine what is found.
EXPLORE_ROUNDS = 8
#: The estimate keeps the points of this many recent rounds (the rims and boundaries found
#: while exploring stay known while the points move inside the pieces; at least
#: ``EXPLORE_ROUNDS``, which :func:`paretosurf.surf_simplex` counts by them).
ARCHIVE_ROUNDS = 100
#: A solve is evidence of a gap when it lands off its ray (its largest scalarization term
#: exceeds its smallest by more than this share of their sum) ...
RIM_SPREAD = 0.05
#: ... farther than this many median nearest-neighbour distances of the last round's points
#: from where the estimate puts its ray ...
MISS_SPACINGS = 0.5
#: ... and no point found scores better at its weight by more than this share.
BEST_SHARE = 1e-3
#: Once the points are laid out on the rays, a simplex of the estimate with an edge longer
#: than this many times the largest nearest-neighbour distance among the last round's points
#: bridges a gap.
BRIDGE_SPACINGS = 1.5
#: Samples of the estimated surface per point to lay out.
SAMPLES_PER_POINT = 20
#: Rays of weights with a component below this are left out of the bridge evidence (a solve
#: at the simplex's boundary lands on the front's boundary, off its ray, without a gap), and
#: no point is laid out on them (a scalarization's floor on the weights, 1e-4 for the
#: adapters', sends them all to one point).
BOUNDARY_WEIGHT = 1e-3
#: Smallest share of a ray direction's component (keeps weights finite at the boundary).
TINY = 1e-12


class RayLayout(NamedTuple):
    """A layout over the rays (:func:`ray_layout`): the next round's weights and the pieces
    of the estimate they were laid out on, to tell the next round's points apart
    (:meth:`labels`)."""

    weights: FloatArray
    #: The estimate's points on its pieces, raw objectives divided by ``scale``.
    at: FloatArray
    #: The piece of each of them.
    piece: IntArray
    scale: FloatArray

    def labels(self, points: FloatArray) -> IntArray:
        """The piece of each raw point: that of the nearest point of the estimate."""
        if len(self.at) == 0:
            return np.zeros(len(points), dtype=np.intp)
        near = cKDTree(self.at).query(np.asarray(points, dtype=np.float64) / self.scale)[1]
        return np.asarray(self.piece[near], dtype=np.intp)


def _offsets(points: FloatArray, ideal: FloatArray) -> FloatArray:
    return np.maximum(np.asarray(points, dtype=np.float64) - ideal, 0.0)


def _on_simplex(values: FloatArray) -> FloatArray:
    total = values.sum(axis=1, keepdims=True)
    m = values.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(total > 0, values / np.where(total > 0, total, 1.0), 1.0 / m)
    return np.asarray(out, dtype=np.float64)


def ray_directions(points: FloatArray, ideal: FloatArray, scale: FloatArray) -> FloatArray:
    """Each point's direction from the ideal point, scaled per objective by ``scale`` and
    normalized to sum 1 (a point of the simplex): the chart the estimate is built on.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces._rays import ray_directions
    >>> ray_directions(np.array([[1.0, 3.0, 0.0]]), np.zeros(3), np.ones(3)).tolist()
    [[0.25, 0.75, 0.0]]
    """
    return _on_simplex(_offsets(points, ideal) / scale)


def ray_weights(
    directions: FloatArray, scale: FloatArray, kind: str, units: FloatArray | None = None
) -> FloatArray:
    """The weights whose solves land along ``directions`` (rows of :func:`ray_directions`
    with the same ``scale``) under the scalarization ``kind``: proportional to ``1 / r``
    for the Tchebycheff kinds and to ``r`` for ``"asf"``, where ``r = direction * scale``,
    measured in the scalarization's ``units`` (its ``scales``, one per objective) where
    it has some.

    Examples
    --------
    A point ``q`` and the Tchebycheff weight through it: the terms ``w_m (q_m - z_m)`` agree.

    >>> import numpy as np
    >>> from paretosurf.surfaces._rays import ray_directions, ray_weights
    >>> q, z, s = np.array([[0.5, 1.0, 2.0]]), np.zeros(3), np.array([1.0, 2.0, 4.0])
    >>> w = ray_weights(ray_directions(q, z, s), s, "tchebycheff")
    >>> bool(np.ptp(w * (q - z)) < 1e-12)
    True

    In units ``u`` the terms ``w_m (q_m - z_m) / u_m`` agree instead:

    >>> u = np.array([10.0, 1.0, 0.1])
    >>> w = ray_weights(ray_directions(q, z, s), s, "tchebycheff", u)
    >>> bool(np.ptp(w * (q - z) / u) < 1e-12)
    True
    """
    r = np.maximum(np.asarray(directions, dtype=np.float64) * scale, TINY * scale)
    if units is not None:
        r = r / np.asarray(units, dtype=np.float64)
    return _on_simplex(r if kind == "asf" else 1.0 / r)


def _coefficients(scalarization: Scalarization, weights: FloatArray) -> FloatArray:
    """The scalarization's coefficient vector ``c(w)`` of each weight, shape (P, M)."""
    w = np.asarray(weights, dtype=np.float64)
    if len(w) == 0:
        return np.empty_like(w)
    return np.stack([scalarization.coefficients(row) for row in w])


def _ray_charts(weights: FloatArray, scale: FloatArray, scalarization: Scalarization) -> FloatArray:
    """Chart positions (:func:`ray_directions`) of the rays of solves at ``weights``: along
    ``1 / c(w)``, where the terms ``c_m(w) (h_m - z_m)`` are equal."""
    return _on_simplex(1.0 / (_coefficients(scalarization, weights) * scale))


def _terms(points: FloatArray, weights: FloatArray, scalarization: Scalarization) -> FloatArray:
    """The terms ``c_m(w) (h_m - z_m)`` of each point at its weight (a row of ``weights``)."""
    assert scalarization.ideal is not None
    return _coefficients(scalarization, weights) * _offsets(points, scalarization.ideal)


def _best_at(
    points: FloatArray, weights: FloatArray, own: FloatArray, scalarization: Scalarization
) -> BoolArray:
    """Whether each ``own`` point scores at its weight (a row of ``weights``) within
    :data:`BEST_SHARE` of the best of ``points`` (the scalarization's own value)."""
    out = np.zeros(len(weights), dtype=np.bool_)
    for i, (w, q) in enumerate(zip(weights, own, strict=True)):
        values = np.asarray(scalarization(points, w), dtype=np.float64)
        mine = float(scalarization(q, w))
        out[i] = mine <= float(values.min()) + BEST_SHARE * max(abs(mine), 1e-300)
    return out


def off_ray(points: FloatArray, weights: FloatArray, scalarization: Scalarization) -> BoolArray:
    """Whether each point lies off the ray of the weight it was solved at: its scalarization
    terms ``c_m(w) (h_m - z_m)`` spread by more than :data:`RIM_SPREAD` of their sum (the
    ray met no front, and the solve stopped on the rim of a piece beside it).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.adapters import Scalarization
    >>> from paretosurf.surfaces._rays import off_ray
    >>> w = np.full((2, 3), 1 / 3)
    >>> asf = Scalarization("asf", ideal=np.zeros(3))
    >>> off_ray(np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 3.0]]), w, asf)
    array([False,  True])
    """
    terms = _terms(points, weights, scalarization)
    total = terms.sum(axis=1)
    spread = np.ptp(terms, axis=1)
    return np.asarray(spread > RIM_SPREAD * np.where(total > 0, total, np.inf), dtype=np.bool_)


def current_coordinates(
    raw: FloatArray, round_raw: FloatArray, round_coords: FloatArray
) -> FloatArray | None:
    """``raw`` points in the run's current coordinates, by the per-objective affine map from
    the current round's raw points to its coordinates (least squares); ``None`` when the map
    is not affine (a normalization of another kind, coordinates of another dimension) or
    cannot be read.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces._rays import current_coordinates
    >>> rnd = np.array([[0.0, 4.0], [2.0, 0.0], [1.0, 1.0]])
    >>> current_coordinates(np.array([[4.0, 2.0]]), rnd, rnd / [2.0, 4.0]).round(12).tolist()
    [[2.0, 0.5]]
    """
    if round_coords.shape != round_raw.shape or raw.shape[1:] != round_raw.shape[1:]:
        return None  # coordinates of another dimension (a callable normalization)
    out = np.empty_like(raw, dtype=np.float64)
    for j in range(raw.shape[1]):
        design = np.c_[round_raw[:, j], np.ones(len(round_raw))]
        coef, *_ = np.linalg.lstsq(design, round_coords[:, j], rcond=None)
        fitted = design @ coef
        span = float(np.ptp(round_coords[:, j]))
        if not np.all(np.isfinite(coef)) or span <= 0:
            return None
        if float(np.max(np.abs(fitted - round_coords[:, j]))) > 1e-9 * span:
            return None
        out[:, j] = coef[0] * raw[:, j] + coef[1]
    return out


def _holding(fmap: FaceMap, marks: FloatArray) -> BoolArray:
    """Simplices of ``fmap`` that hold one of the chart positions ``marks``."""
    out = np.zeros(len(fmap.simplices), dtype=np.bool_)
    if len(marks):
        where = fmap.locate(marks)[0]
        out[where[where >= 0]] = True
    return out


def _longest_edges(fmap: FaceMap) -> FloatArray:
    """The longest edge of each simplex of ``fmap`` on the surface."""
    corners = fmap.coords[fmap.simplices]  # (T, k, K)
    k = corners.shape[1]
    longest = np.zeros(len(corners))
    for a in range(k):
        for b in range(a + 1, k):
            longest = np.maximum(longest, np.linalg.norm(corners[:, a] - corners[:, b], axis=1))
    return longest


def _components(simplices: IntArray, kept: BoolArray, n_vertices: int) -> IntArray:
    """The connected component of each kept simplex (through shared vertices); -1 for the
    others."""
    rows = np.flatnonzero(kept)
    out = np.full(len(simplices), -1, dtype=np.intp)
    if rows.size == 0:
        return out
    k = simplices.shape[1]
    a = np.repeat(np.arange(rows.size), k)
    b = rows.size + simplices[rows].reshape(-1)
    size = rows.size + n_vertices
    graph = coo_matrix((np.ones(a.size), (a, b)), shape=(size, size))
    labels = np.asarray(connected_components(graph, directed=False)[1], dtype=np.intp)
    _, out[rows] = np.unique(labels[: rows.size], return_inverse=True)
    return out


def _shares(areas: FloatArray, total: int) -> IntArray:
    """``total`` points split in proportion to ``areas`` (largest remainders)."""
    if areas.sum() <= 0:
        return np.zeros(len(areas), dtype=np.intp)
    exact = areas / areas.sum() * total
    counts = np.floor(exact).astype(np.intp)
    for i in np.argsort(-(exact - counts), kind="stable")[: total - int(counts.sum())]:
        counts[i] += 1
    return counts


def _thin(chart: FloatArray, at: FloatArray, count: int) -> FloatArray:
    """``count`` of the rows of ``chart``, dropping the most crowded (on the surface) first."""
    chart, at = chart.copy(), at.copy()
    while len(chart) > count:
        if len(chart) == 1:
            return chart[:0]
        gaps = cKDTree(at).query(at, k=2)[0][:, 1]
        i = int(np.argmin(gaps))
        chart, at = np.delete(chart, i, axis=0), np.delete(at, i, axis=0)
    return chart


def ray_layout(
    archive: Sequence[tuple[FloatArray, FloatArray]],
    round_points: FloatArray,
    round_weights: FloatArray,
    round_coords: FloatArray,
    scalarization: Scalarization,
    *,
    need_evidence: bool = False,
) -> RayLayout | None:
    """The next round's weights laid out over the rays, or ``None`` where the rays cannot
    serve (too few points, a normalization that is not affine, a degenerate chart).

    Parameters
    ----------
    archive : sequence of (points, weights)
        Raw points and the weights they were solved at, of the recent rounds (the current
        one among them).
    round_points, round_weights, round_coords : ndarray, shape (N, M)
        The current round's raw points, weights and coordinates; its corners (weights
        ``e_m``) stay.
    scalarization : Scalarization
        The solver's, of a kind in :data:`RAY_KINDS`, with its ideal point.
    need_evidence : bool
        The round that would switch to the rays: return ``None`` unless a solve's ray crossed
        the estimate where it met no front (the surface is evidently in pieces), and bridge
        only where one did.

    Returns
    -------
    RayLayout or None
        The corners' weights, then the free points' ray weights, and the estimate's pieces.
    """
    m = round_points.shape[1]
    n = len(round_points)
    ideal, kind = scalarization.ideal, scalarization.kind
    assert ideal is not None
    raw = np.vstack([p for p, _ in archive])
    solved_at = np.vstack([w for _, w in archive])
    coords = current_coordinates(raw, round_points, round_coords)
    if coords is None:
        raw, solved_at, coords = round_points, round_weights, round_coords
    keep = moocore.is_nondominated(raw, keep_weakly=True)  # repeated points stay
    raw, solved_at, coords = raw[keep], solved_at[keep], coords[keep]
    # the estimate holds each point once; the evidence below reads every solve
    _, unique = np.unique(coords.round(12), axis=0, return_index=True)
    if len(unique) < m + 1:
        return None
    scale = np.ptp(raw, axis=0)
    if not np.all(scale > 0):
        return None
    chart = ray_directions(raw[unique], ideal, scale)
    fmap = FaceMap(chart, coords[unique])
    gaps = cKDTree(round_coords).query(round_coords, k=2)[0][:, 1]
    # Evidence of gaps: rays of interior weights whose solves landed off them (on a rim),
    # far from where the estimate puts the ray (a solve stopped at its tolerance lands near
    # it, slightly off)
    rim = off_ray(raw, solved_at, scalarization) & (solved_at.min(axis=1) > BOUNDARY_WEIGHT)
    rays = _ray_charts(solved_at[rim], scale, scalarization)
    far = np.linalg.norm(fmap(rays) - coords[rim], axis=1) > MISS_SPACINGS * np.median(gaps)
    # ... and that no point found scores better at its weight: a ray that meets the front
    # has its best point on it (a solve stopped on a flat spot of its variables, off its
    # ray on a connected surface, is beaten there)
    best = _best_at(raw, solved_at[rim][far], raw[rim][far], scalarization)
    bridge = _holding(fmap, rays[far][best])
    if need_evidence:
        if not bridge.any():
            return None
    else:
        # once the points are laid out on the rays, an edge longer than the round's largest
        # spacing also spans a gap (while the layout on the weight simplex is uneven, it
        # would cut pieces apart)
        bridge |= _longest_edges(fmap) > BRIDGE_SPACINGS * float(gaps.max())
    piece = _components(fmap.simplices, ~bridge, len(chart))
    samples = face_samples(fmap, min_samples=SAMPLES_PER_POINT * n)
    per = len(samples.mass) // max(len(fmap.simplices), 1)
    sample_piece = np.repeat(piece, per)
    # no point where the ray's weight has a component below BOUNDARY_WEIGHT: next to the
    # front's boundary, the solver's floor on the weights sends those rays all to one point
    units = scalarization.scales
    reachable = ray_weights(samples.weights, scale, kind, units).min(axis=1) > BOUNDARY_WEIGHT
    mass = np.where((sample_piece >= 0) & reachable, samples.mass, 0.0)
    if not np.any(mass > 0):
        return None
    on = mass > 0
    samples = FaceSamples(samples.weights[on], samples.coords[on], mass[on])
    sample_piece = sample_piece[on]
    # the surface the points are laid out on: the kept simplices only
    fmap.restrict(piece >= 0)

    corner = round_weights.max(axis=1) == 1.0
    here = ray_directions(round_points, ideal, scale)
    fixed, start = here[corner], here[~corner]
    n_pieces = int(piece.max()) + 1
    areas = np.asarray(
        np.bincount(sample_piece, weights=samples.mass, minlength=n_pieces), dtype=np.float64
    )
    counts = _shares(areas, n)
    tree = cKDTree(samples.coords)
    owner = sample_piece[tree.query(round_coords)[1]]
    counts -= np.bincount(owner[corner], minlength=n_pieces)
    free_owner = owner[~corner]
    kept = [
        _thin(start[free_owner == p], round_coords[~corner][free_owner == p], max(int(c), 0))
        for p, c in enumerate(counts)
    ]
    chosen = np.vstack([np.empty((0, m)), *kept])
    for p, c in enumerate(counts):
        missing = int(c) - len(kept[p])
        if missing > 0:
            mine = sample_piece == p
            sub = FaceSamples(samples.weights[mine], samples.coords[mine], samples.mass[mine])
            extra = farthest_points(fmap, sub, np.vstack([fixed, chosen]), missing)
            chosen = np.vstack([chosen, extra])
    wanted = n - len(fixed)
    if len(chosen) > wanted:
        chosen = _thin(chosen, fmap(chosen), wanted)
    elif len(chosen) < wanted:
        extra = farthest_points(fmap, samples, np.vstack([fixed, chosen]), wanted - len(chosen))
        chosen = np.vstack([chosen, extra])
    free = restricted_cvt(fmap, samples, fixed, chosen)
    weights = np.vstack([np.eye(m), ray_weights(free, scale, kind, units)])
    # each vertex of a kept simplex belongs to that simplex's piece (one, as the pieces are
    # the components through shared vertices)
    vertex_piece = np.full(len(chart), -1, dtype=np.intp)
    kept_rows = np.flatnonzero(piece >= 0)
    vertex_piece[fmap.simplices[kept_rows].reshape(-1)] = np.repeat(piece[kept_rows], m)
    labelled = vertex_piece >= 0
    return RayLayout(weights, raw[unique][labelled] / scale, vertex_piece[labelled], scale)
