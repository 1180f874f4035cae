"""The estimated map from weight vectors to a Pareto surface, and points spread evenly over it.

With ``M >= 3`` objectives the weights live on the simplex and the front is an
``(M - 1)``-dimensional surface. Its boundary is made of the fronts of fewer objectives: a
*face* of the simplex (the weights whose non-zero entries are a subset ``S`` of the objectives)
maps to the front of the objectives in ``S``. This module holds the pieces
:mod:`paretosurf.surf_simplex` builds on, all computed from the points solved so far:

- :func:`faces`: the faces of the simplex with two or more vertices, in the order they are
  filled (edges first);
- :class:`FaceMap`: the estimated map from a face's weights to the front (piecewise linear
  over the Delaunay triangulation of the solved weights, built once per round; each call
  locates its weights with Qhull's walk and combines barycentric coordinates);
- :func:`face_mesh`: a mesh of a face, refined where the solved points are dense (each
  simplex of the Delaunay triangulation of their weights is subdivided), and
  :func:`face_samples`: the centroids of its pieces on the estimated surface with their
  volumes as masses (:func:`simplex_volumes`), computed from the triangulation without
  interpolating again;
- :func:`allocate_points`: how many points each face gets, from the faces' measures, so that
  the spacing is the same everywhere;
- :func:`restricted_cvt`: Lloyd's iterations of a centroidal Voronoi tessellation of the
  estimated surface, with the points on the face's boundary held fixed, pulled back to
  weights through the estimate.

Why a CVT: among the ideas for spreading points over a surface (a density transport of a
lattice, Riesz-energy repulsion, nested one-dimensional SURF, a moving mesh), Lloyd's iterations
measured best (see ``benchmarks/bench_surf_simplex.py``): they give nearly hexagonal cells on any
smooth surface, keep points apart by construction, and reduce on an edge (a fixed point at each
end) to even spacing in arc length, that is to SURF. scipy and scikit-learn offer k-means, but
not with fixed generators, masses on a curved surface, and generators that must stay on a face
of the simplex, so the iteration is written here.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import Delaunay, QhullError, cKDTree

from paretosurf._utils.ties import first_of_lexicographic, near_best
from paretosurf.surfaces._weights import simplex_lattice

__all__ = [
    "Face",
    "FaceMap",
    "FaceSamples",
    "allocate_points",
    "face_mesh",
    "face_samples",
    "faces",
    "on_face",
    "restricted_cvt",
    "simplex_volumes",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
#: A face of the weight simplex: the objectives whose weights may be non-zero, increasing.
Face = tuple[int, ...]
#: Weights below this count as zero when deciding which face a weight vector lies on.
ZERO_WEIGHT = 1e-12
#: Subdivisions of each simplex of the solved points' triangulation in :func:`face_mesh`.
MESH_SUBDIVISIONS = 6
#: Lloyd's iterations per round, and the move (relative to the face's extent) that stops them.
LLOYD_ITERATIONS = 60
LLOYD_TOL = 1e-7
#: ... or stop once no more than this share of the free generators (and at most one where
#: there are fewer than 20) moved by more than ``LLOYD_SETTLED`` of the median spacing in an
#: iteration (why: docs/results/many/README.md, "Why the layout's constants are what they are").
LLOYD_SETTLED = 1e-2
LLOYD_RESTLESS = 0.05
#: Candidate simplices tried when pulling a centroid back to a weight.
PULLBACK_CANDIDATES = 8
#: Free generators are kept this far (a share of the way to the face's centre) inside their
#: face, so that one pulled back onto the face's boundary still belongs to the face.
INTERIOR_MARGIN = 1e-6
#: Samples whose distance to the points taken is within this share of the largest such
#: distance count as equally far (:func:`farthest_points`, an empty cell's restart in
#: :func:`restricted_cvt`), and the one of smallest weights (lexicographically) is taken. On a
#: symmetric surface (DTLZ7's mirrored pieces) several samples are farthest up to the inner
#: solver's rounding (1e-7 to 1e-5 of the distance), and a plain ``argmax`` chose among them
#: by the last bits: the same run took other weights with one BLAS thread than with two.
#: A sample 0.1% nearer is no worse a place for a new point.
FARTHEST_TIE = 1e-3
#: ... and weights closer than this count as equal in that lexicographic order.
FARTHEST_TIE_WEIGHT = 1e-6
#: Two triangles of a face's triangulation whose opposite angles sum to pi within this many
#: radians have their four corners on one circle, as far as the solved weights tell: both
#: diagonals of their quadrilateral are Delaunay, and Qhull picks one by the last bits of the
#: weights. Mirror-symmetric layouts make such quadrilaterals everywhere (every isosceles
#: trapezoid is cyclic), and the weights carry the inner solver's rounding (1e-7 to 1e-4 on a
#: nearly collapsed edge), so the diagonal is chosen by a rule instead (see
#: :class:`_Triangulation`); 0.01 radian is well above that noise, and either diagonal of such
#: a quadrilateral interpolates as well.
COCIRCULAR_ANGLE = 1e-2


def faces(n_objectives: int) -> list[Face]:
    """The faces of the simplex with two or more vertices, edges first, then triangles, ...,
    the whole simplex last.

    Examples
    --------
    >>> from paretosurf.surfaces._estimate import faces
    >>> faces(3)
    [(0, 1), (0, 2), (1, 2), (0, 1, 2)]
    """
    return [
        f
        for k in range(2, n_objectives + 1)
        for f in itertools.combinations(range(n_objectives), k)
    ]


def on_face(weights: FloatArray, face: Face) -> NDArray[np.bool_]:
    """Which weight vectors lie on ``face`` (their weights outside it are zero)."""
    outside = [m for m in range(weights.shape[1]) if m not in face]
    if not outside:
        return np.ones(len(weights), dtype=bool)
    return np.asarray(np.all(weights[:, outside] <= ZERO_WEIGHT, axis=1), dtype=bool)


def interior_of(weights: FloatArray, face: Face) -> NDArray[np.bool_]:
    """Which weight vectors lie in the relative interior of ``face`` (exactly its
    objectives have non-zero weight)."""
    inside = np.all(weights[:, list(face)] > ZERO_WEIGHT, axis=1)
    return np.asarray(on_face(weights, face) & inside, dtype=bool)


class FaceMap:
    """The estimated map from the weights of one face to the front, interpolating the points
    solved on that face.

    Parameters
    ----------
    weights : ndarray, shape (P, k)
        The solved points' weights restricted to the face (rows summing to 1), the face's
        corners among them.
    coords : ndarray, shape (P, K)
        Their coordinates.

    The map is piecewise linear over the Delaunay triangulation of the weights (in the chart
    of their first ``k - 1`` entries): each simplex of solved weights maps onto the flat
    simplex of their points. Pulling a point of that surface back to a weight then
    interpolates the weights linearly over the points, that is the front's normals (a point
    solved at ``w`` has normal ``w`` in raw objectives), which vary slowly exactly where the
    map is steep (flat parts of the front). A C1 interpolant (Clough-Tocher) measured worse:
    it overshoots where the map is steep and folded the estimate on strongly distorted
    fronts. Outside the hull of the data (only by rounding) the nearest point's value is
    used.

    The triangulation is built once; each call locates its weights in it (Qhull's directed
    walk) and combines the simplex's points with barycentric coordinates from the simplices'
    stored affine transforms (:attr:`simplices`, :meth:`locate`).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces._estimate import FaceMap
    >>> w = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1/3, 1/3, 1/3]])
    >>> fmap = FaceMap(w, 2 * w)                  # a linear map is reproduced exactly
    >>> fmap(np.array([[0.2, 0.3, 0.5]])).round(12).tolist()
    [[0.4, 0.6, 1.0]]
    >>> round(fmap.measure(), 12) == round(4 * 3 ** 0.5 / 2, 12)   # the area of 2 * face
    True
    """

    def __init__(self, weights: FloatArray, coords: FloatArray) -> None:
        self.k = weights.shape[1]
        self.weights = weights
        self.coords = coords
        chart = weights[:, :-1]
        self._tree: cKDTree | None = None
        self._delaunay: _Triangulation | None = None
        self._pieces: tuple[FloatArray, FloatArray, cKDTree] | None = None
        self._kept: NDArray[np.bool_] | None = None
        if self.k == 2:
            order = np.argsort(chart[:, 0], kind="stable")
            self._t = chart[order, 0]
            self._values = coords[order]
            #: The triangulation of the solved weights: index rows into ``weights``.
            self.simplices = np.stack([order[:-1], order[1:]], axis=1).astype(np.intp)
        else:
            self._delaunay = _Triangulation(chart)
            self.simplices = self._delaunay.simplices

    def locate(self, weights: FloatArray) -> tuple[IntArray, FloatArray]:
        """The simplex of :attr:`simplices` holding each face weight (-1 outside the hull)
        and the weight's barycentric coordinates in it, shapes (Q,) and (Q, k)."""
        assert self._delaunay is not None, "locate is for faces of three or more objectives"
        tri = self._delaunay
        chart = weights[:, :-1]
        d = self.k - 1
        where = np.asarray(tri.find_simplex(chart), dtype=np.intp)
        transform = tri.transform[np.maximum(where, 0)]  # (Q, d + 1, d)
        lam = np.einsum("qij,qj->qi", transform[:, :d], chart - transform[:, d])
        bary = np.concatenate([lam, 1.0 - lam.sum(axis=1, keepdims=True)], axis=1)
        return where, bary

    def __call__(self, weights: FloatArray) -> FloatArray:
        """The estimated coordinates at face weights of shape (Q, k)."""
        if self.k == 2:
            t = weights[:, 0]
            return np.stack(
                [np.interp(t, self._t, self._values[:, j]) for j in range(self._values.shape[1])],
                axis=1,
            )
        where, bary = self.locate(weights)
        out = np.einsum("qi,qik->qk", bary, self.coords[self.simplices[np.maximum(where, 0)]])
        sliver = (where >= 0) & ~np.all(np.isfinite(bary), axis=1)
        if sliver.any():
            out[sliver] = self._along_longest_edge(weights[sliver], where[sliver])
        bad = where < 0
        if bad.any():
            if self._tree is None:
                self._tree = cKDTree(self.weights[:, :-1])
            out[bad] = self.coords[self._tree.query(weights[bad, :-1])[1]]
        return np.asarray(out, dtype=np.float64)

    def _along_longest_edge(self, weights: FloatArray, where: IntArray) -> FloatArray:
        """The estimate at face weights that lie in simplices of no area in the chart
        (slivers: points a rounding error off an edge of the face, whose barycentric
        coordinates are undefined): interpolated linearly along each sliver's longest edge,
        at the weight's projection onto it."""
        chart = self.weights[:, :-1]
        out = np.empty((len(weights), self.coords.shape[1]), dtype=np.float64)
        for row, (q, s) in enumerate(zip(weights[:, :-1], where, strict=True)):
            verts = self.simplices[s]
            pairs = [(a, b) for i, a in enumerate(verts) for b in verts[i + 1 :]]
            a, b = max(pairs, key=lambda ab: float(np.sum((chart[ab[0]] - chart[ab[1]]) ** 2)))
            span = chart[b] - chart[a]
            length2 = float(span @ span)
            t = float(np.clip((q - chart[a]) @ span / length2, 0.0, 1.0)) if length2 > 0 else 0.0
            out[row] = (1.0 - t) * self.coords[a] + t * self.coords[b]
        return out

    def measure(self) -> float:
        """The length, area, ... of the estimated surface: the sum of its mapped simplices'
        volumes."""
        return float(simplex_volumes(self.coords, self.simplices).sum())

    def restrict(self, keep: NDArray[np.bool_]) -> None:
        """Leave the simplices not in ``keep`` (a mask over :attr:`simplices`) out of the
        surface that :meth:`pieces` offers for projections (the map still interpolates over
        them): where the estimate bridges a gap of the front
        (:mod:`paretosurf.surfaces`)."""
        self._kept = np.asarray(keep, dtype=np.bool_)
        self._pieces = None

    def pieces(self) -> tuple[FloatArray, FloatArray, cKDTree]:
        """The mapped simplices of non-zero volume (among those :meth:`restrict` kept):
        their points (T, k, K), weights (T, k, k), and a tree of their centres (built
        once)."""
        if self._pieces is None:
            keep = simplex_volumes(self.coords, self.simplices) > 0
            if self._kept is not None:
                keep &= self._kept
            chosen = self.simplices[keep]
            points = self.coords[chosen]
            self._pieces = (points, self.weights[chosen], cKDTree(points.mean(axis=1)))
        return self._pieces


class _Triangulation:
    """The Delaunay triangulation of face weights in their chart, the same for the same
    points up to rounding.

    Qhull's triangulation (:func:`_delaunay`) with, in a two-dimensional chart (faces of three
    objectives), every pair of triangles whose four corners lie on one circle (within
    :data:`COCIRCULAR_ANGLE`) given the diagonal of the smaller pair of point indices (flipped
    until none is left to flip: each flip replaces an edge by a smaller one, so it ends); each
    simplex's vertices increasing and the simplices in lexicographic order. The estimate, its
    samples and the layout read the simplices in this order, so the same points (in the same
    order) give the same estimate whichever diagonal Qhull chose by the last bits.

    Attributes
    ----------
    simplices : ndarray, shape (T, k)
        Index rows into the chart's points.
    transform : ndarray, shape (T, k, k - 1)
        As :attr:`scipy.spatial.Delaunay.transform`: the barycentric coordinates of ``x`` in
        simplex ``i`` are ``c = transform[i, :d] @ (x - transform[i, d])`` and ``1 - sum(c)``
        (``d = k - 1``; NaN for a degenerate simplex).
    """

    def __init__(self, chart: FloatArray) -> None:
        self.chart = np.asarray(chart, dtype=np.float64)
        self._qhull = _delaunay(self.chart)
        simplices = np.sort(np.asarray(self._qhull.simplices, dtype=np.intp), axis=1)
        if self.chart.shape[1] == 2:
            simplices = _settle_cocircular(self.chart, simplices)
        simplices = simplices[np.lexsort(simplices.T[::-1])]
        self.simplices = np.ascontiguousarray(simplices, dtype=np.intp)
        self.transform = _barycentric_transforms(self.chart, self.simplices)
        index = {tuple(row): i for i, row in enumerate(self.simplices.tolist())}
        qhull_rows = np.sort(np.asarray(self._qhull.simplices, dtype=np.intp), axis=1)
        #: Each of Qhull's simplices as a row of :attr:`simplices` (-1 where flipped away).
        self._from_qhull = np.array(
            [index.get(tuple(row), -1) for row in qhull_rows.tolist()], dtype=np.intp
        )
        #: The simplices that replaced flipped ones.
        self._new = np.setdiff1d(np.arange(len(self.simplices)), self._from_qhull)

    def find_simplex(self, points: FloatArray) -> IntArray:
        """The row of :attr:`simplices` holding each chart point, -1 outside the hull: Qhull's
        walk, and where it ends in a flipped simplex, the replacing simplex in which the
        point's smallest barycentric coordinate is largest."""
        where = np.asarray(self._qhull.find_simplex(points), dtype=np.intp)
        out = np.where(where >= 0, self._from_qhull[np.maximum(where, 0)], -1)
        lost = np.flatnonzero((where >= 0) & (out < 0))
        if lost.size:
            d = self.chart.shape[1]
            tf = self.transform[self._new]  # (C, d + 1, d)
            rel = points[lost][:, None, :] - tf[None, :, d]  # (L, C, d)
            lam = np.einsum("cij,lcj->lci", tf[:, :d], rel)
            least = np.minimum(lam.min(axis=2), 1.0 - lam.sum(axis=2))
            least = np.where(np.isfinite(least), least, -np.inf)
            out[lost] = self._new[np.argmax(least, axis=1)]
        return np.asarray(out, dtype=np.intp)


def _barycentric_transforms(chart: FloatArray, simplices: IntArray) -> FloatArray:
    """Barycentric transforms of the simplices, laid out as scipy's ``Delaunay.transform``."""
    d = chart.shape[1]
    corners = chart[simplices]  # (T, d + 1, d)
    last = corners[:, d]
    span = np.swapaxes(corners[:, :d] - last[:, None, :], 1, 2)  # (T, d, d): columns v_j - v_d
    out = np.full((len(simplices), d + 1, d), np.nan)
    if len(simplices) == 0:
        return out
    det = np.linalg.det(span)
    size = np.max(np.abs(span), axis=(1, 2)) ** d
    good = np.abs(det) > 1e-12 * np.maximum(size, 1e-300)
    if good.any():
        out[good, :d] = np.linalg.inv(span[good])
        out[good, d] = last[good]
    return out


def _settle_cocircular(chart: FloatArray, simplices: IntArray) -> IntArray:
    """Triangles (vertices increasing) of a planar triangulation with the diagonal of each
    quadrilateral whose corners lie on one circle (:data:`COCIRCULAR_ANGLE`) the one with
    the smaller pair of point indices (see :class:`_Triangulation`)."""
    tris = [tuple(row) for row in simplices.tolist()]
    flipped = True
    while flipped:
        flipped = False
        owners: dict[tuple[int, int], list[int]] = {}
        for n, (a, b, c) in enumerate(tris):
            for edge in ((a, b), (a, c), (b, c)):
                owners.setdefault(edge, []).append(n)
        touched: set[int] = set()
        for (p, q), pair in sorted(owners.items()):
            if len(pair) != 2 or touched.intersection(pair):
                continue
            s, u = pair
            (a,) = set(tris[s]) - {p, q}
            (b,) = set(tris[u]) - {p, q}
            if (min(a, b), max(a, b)) >= (p, q) or not _flippable(chart, p, q, a, b):
                continue
            tris[s] = tuple(sorted((a, b, p)))
            tris[u] = tuple(sorted((a, b, q)))
            touched.update(pair)
            flipped = True
    return np.array(tris, dtype=np.intp).reshape(-1, 3)


def _flippable(chart: FloatArray, p: int, q: int, a: int, b: int) -> bool:
    """Whether the triangles ``(p, q, a)`` and ``(p, q, b)`` have their corners on one circle
    (the angles at ``a`` and ``b`` sum to pi within :data:`COCIRCULAR_ANGLE`) and ``p`` and
    ``q`` lie strictly on either side of the line through ``a`` and ``b`` (the diagonal
    ``a-b`` then splits the quadrilateral into two triangles)."""
    P, Q, A, B = chart[p], chart[q], chart[a], chart[b]

    def angle(at: FloatArray) -> float:
        u, v = P - at, Q - at
        return math.atan2(abs(float(u[0] * v[1] - u[1] * v[0])), float(u @ v))

    if abs(angle(A) + angle(B) - math.pi) > COCIRCULAR_ANGLE:
        return False
    ab = B - A

    def side(x: FloatArray) -> float:
        return float(ab[0] * (x[1] - A[1]) - ab[1] * (x[0] - A[0]))

    sp, sq, least = side(P), side(Q), 1e-12 * float(ab @ ab)
    return (sp < -least and sq > least) or (sp > least and sq < -least)


def _delaunay(chart: FloatArray) -> Delaunay:
    """Delaunay triangulation of face weights in their chart, joggled where Qhull refuses
    the data (all points on the face's boundary and collinear in the chart)."""
    try:
        return Delaunay(chart)
    except QhullError:
        return Delaunay(chart, qhull_options="QJ")


def triangulate(weights: FloatArray) -> IntArray:
    """The simplices of a Delaunay triangulation of face weights (P, k) in the chart of
    their first ``k - 1`` entries (consecutive intervals along an edge)."""
    if weights.shape[1] == 2:
        order = np.argsort(weights[:, 0], kind="stable")
        return np.stack([order[:-1], order[1:]], axis=1).astype(np.intp)
    return _Triangulation(weights[:, :-1]).simplices


@functools.lru_cache(maxsize=32)
def _reference_subdivision(k: int, subdivisions: int) -> tuple[FloatArray, IntArray]:
    """Barycentric lattice points of a standard (k-1)-simplex and its triangulation (cached;
    read-only)."""
    lattice = simplex_lattice(k, subdivisions)
    # exact lattice points: Qhull's own triangulation is the same on every machine
    simplices = (
        triangulate(lattice)
        if k == 2
        else np.asarray(_delaunay(lattice[:, :-1]).simplices, dtype=np.intp)
    )
    lattice.flags.writeable = False
    simplices.flags.writeable = False
    return lattice, simplices


@functools.lru_cache(maxsize=32)
def _reference_samples(k: int, subdivisions: int) -> tuple[FloatArray, FloatArray]:
    """Barycentric centroids of the simplices of :func:`_reference_subdivision` and their
    shares of its volume (cached; read-only). A linear map scales every volume by the same
    factor, so these are also the shares of any mapped simplex."""
    lattice, simplices = _reference_subdivision(k, subdivisions)
    centroids = lattice[simplices].mean(axis=1)
    volumes = simplex_volumes(lattice, simplices)
    shares = volumes / volumes.sum()
    centroids.flags.writeable = False
    shares.flags.writeable = False
    return centroids, shares


def _subdivisions(k: int, n_coarse: int, subdivisions: int, min_simplices: int) -> int:
    """Subdivisions of each coarse simplex so that ``n_coarse`` of them make at least
    ``min_simplices`` (see :func:`face_mesh`)."""
    if min_simplices > 0 and n_coarse:
        # a (k-1)-simplex cut into s parts along each edge holds about s^(k-1) simplices
        rough = math.floor((min_simplices / n_coarse) ** (1.0 / (k - 1)) + 1e-9)
        subdivisions = max(subdivisions, rough)
    while n_coarse * len(_reference_subdivision(k, subdivisions)[1]) < min_simplices:
        subdivisions += 1
    return subdivisions


def face_mesh(
    weights: FloatArray, *, subdivisions: int = MESH_SUBDIVISIONS, min_simplices: int = 0
) -> tuple[FloatArray, IntArray]:
    """A mesh of a face: each simplex of the triangulation of ``weights`` (P, k), subdivided.

    Parameters
    ----------
    weights : ndarray, shape (P, k)
        Face weights of the solved points (the face's corners among them).
    subdivisions : int
        Subdivisions of each edge of each simplex of their triangulation (at least).
    min_simplices : int
        The mesh gets at least about this many simplices: where the triangulation is coarse
        (round 0 knows only the face's corners), ``subdivisions`` grows until it has them.
        :func:`restricted_cvt` and :func:`farthest_points` can place no more distinct points
        than the mesh has simplices.

    Returns
    -------
    nodes : ndarray, shape (Q, k)
        Face weights of the mesh's nodes (shared nodes repeated, which is harmless).
    simplices : ndarray, shape (T, k)
        The mesh's simplices, indices into ``nodes``.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces._estimate import face_mesh
    >>> nodes, simplices = face_mesh(np.eye(3), subdivisions=2)
    >>> nodes.shape, simplices.shape
    ((6, 3), (4, 3))
    """
    k = weights.shape[1]
    coarse = triangulate(weights)
    subdivisions = _subdivisions(k, len(coarse), subdivisions, min_simplices)
    ref_nodes, ref_simplices = _reference_subdivision(k, subdivisions)
    corners = weights[coarse]  # (C, k, k)
    nodes = np.einsum("pk,ckj->cpj", ref_nodes, corners)  # (C, p, k)
    offsets = np.arange(len(coarse))[:, None, None] * len(ref_nodes)
    simplices = (offsets + ref_simplices[None]).reshape(-1, k)
    return nodes.reshape(-1, k), simplices


class FaceSamples(NamedTuple):
    """A sample of a face's estimated surface: the centroids of the simplices of its mesh
    (:func:`face_mesh`), in weights and on the surface, with the mapped simplices' volumes
    as masses (see :func:`face_samples`)."""

    weights: FloatArray
    coords: FloatArray
    mass: FloatArray


def face_samples(
    fmap: FaceMap, *, subdivisions: int | None = None, min_samples: int = 0
) -> FaceSamples:
    """The samples of a face's estimated surface on which its points are laid out.

    Each simplex of ``fmap``'s triangulation is cut as in :func:`face_mesh` (``subdivisions``
    parts along each edge, more until there are ``min_samples``); a sample is the centroid of
    a piece, in weights and on the surface (the map is linear on each simplex, so the
    barycentric centroids serve both), with the piece's share of the mapped simplex's volume
    as mass. Nothing is interpolated or triangulated again: the cost is a few array products
    over the samples.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces._estimate import FaceMap, face_samples
    >>> samples = face_samples(FaceMap(np.eye(3), 2 * np.eye(3)), subdivisions=3)
    >>> samples.weights.shape, samples.coords.shape, round(float(samples.mass.sum()), 12)
    ((9, 3), (9, 3), 3.464101615138)
    """
    k = fmap.k
    coarse = fmap.simplices
    subdivisions = _subdivisions(
        k, len(coarse), MESH_SUBDIVISIONS if subdivisions is None else subdivisions, min_samples
    )
    centroids, shares = _reference_samples(k, subdivisions)
    weights = np.einsum("rk,ckj->crj", centroids, fmap.weights[coarse]).reshape(-1, k)
    coords = np.einsum("rk,ckj->crj", centroids, fmap.coords[coarse])
    volumes = simplex_volumes(fmap.coords, coarse)
    mass = (volumes[:, None] * shares[None, :]).reshape(-1)
    return FaceSamples(weights, coords.reshape(-1, coords.shape[-1]), mass)


def mesh_samples(fmap: FaceMap, mesh_weights: FloatArray, simplices: IntArray) -> FaceSamples:
    """The samples of any mesh of a face (nodes' weights and simplices, as :func:`face_mesh`
    returns): its simplices' centroids, mapped by ``fmap``, with the mapped volumes."""
    nodes = fmap(mesh_weights)
    return FaceSamples(
        np.asarray(mesh_weights[simplices].mean(axis=1), dtype=np.float64),
        np.asarray(nodes[simplices].mean(axis=1), dtype=np.float64),
        simplex_volumes(nodes, simplices),
    )


def simplex_volumes(points: FloatArray, simplices: IntArray) -> FloatArray:
    """The (k-1)-volumes of simplices with vertices ``points[simplices]`` in any dimension
    (Gram determinants).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces._estimate import simplex_volumes
    >>> pts = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    >>> simplex_volumes(pts, np.array([[0, 1, 2], [1, 2, 3]])).round(6).tolist()
    [0.5, 0.866025]
    """
    edges = points[simplices[:, 1:]] - points[simplices[:, :1]]  # (T, d, K)
    gram = np.einsum("tik,tjk->tij", edges, edges)
    d = edges.shape[1]
    return np.asarray(
        np.sqrt(np.clip(np.linalg.det(gram), 0.0, None)) / math.factorial(d), dtype=np.float64
    )


def _lattice_cell(d: int) -> float:
    """Volume per point of the densest lattice packing in ``d`` dimensions of A_d type with
    nearest-neighbour distance 1 (1 on a line, sqrt(3)/2 in the plane, 1/sqrt(2) in space)."""
    if d <= 0:
        return 1.0
    return math.sqrt(d + 1) / 2 ** (d / 2)


def _lower_order(d: int, partitions: float) -> float:
    """What the lattice count of a regular d-simplex with ``partitions`` divisions has beyond
    its volume and half-boundary terms: ``C(H - 1, d) - H^d / d! + (d + 1) H^(d-1) /
    (2 (d - 1)!)`` (1 for a triangle, Pick's theorem; ``11 H / 6 - 1`` for a tetrahedron)."""
    h = partitions
    interior = math.prod(h - i for i in range(1, d + 1)) / math.factorial(d)
    return (
        interior - h**d / math.factorial(d) + (d + 1) * h ** (d - 1) / (2 * math.factorial(d - 1))
    )


def allocate_points(
    measures: Mapping[Face, float], n_points: int, n_objectives: int
) -> dict[Face, int]:
    """How many points the relative interior of each face gets so that the spacing is even.

    For a spacing ``L``, a face of dimension ``d`` and measure ``V`` (length, area, ...) holds
    about ``V / (c_d L^d)`` points of a hexagonal-type lattice, less half a layer along its
    boundary (which belongs to the lower faces), plus the lower-order terms of a regular
    simplex's lattice count (Pick's ``+1`` for a triangle), so that a flat simplex gets
    exactly the Das-Dennis lattice. ``L`` is found by bisection so that the corners and all
    faces' points add up to ``n_points``, and the rounding remainder goes to the face with
    the most points.

    Examples
    --------
    >>> from paretosurf.surfaces._estimate import allocate_points
    >>> flat = {(0, 1): 1.0, (0, 2): 1.0, (1, 2): 1.0, (0, 1, 2): 3 ** 0.5 / 4}
    >>> allocate_points(flat, 91, 3)        # the Das-Dennis lattice with 12 partitions
    {(0, 1): 11, (0, 2): 11, (1, 2): 11, (0, 1, 2): 55}
    >>> import itertools
    >>> tetra = {f: [1.0, 3 ** 0.5 / 4, 2 ** 0.5 / 12][len(f) - 2]
    ...          for k in (2, 3, 4) for f in itertools.combinations(range(4), k)}
    >>> counts = allocate_points(tetra, 56, 4)      # the lattice with 5 partitions
    >>> [sorted({n for f, n in counts.items() if len(f) == k}) for k in (2, 3, 4)]
    [[4], [6], [4]]
    """
    all_faces = faces(n_objectives)

    def counts(spacing: float) -> dict[Face, int]:
        out = {}
        for face in all_faces:
            d = len(face) - 1
            volume = max(float(measures.get(face, 0.0)), 0.0)
            if d == 1:
                estimate = volume / spacing - 1.0
            else:
                boundary = sum(
                    max(float(measures.get(sub, 0.0)), 0.0)
                    for sub in itertools.combinations(face, d)
                )
                cells = volume / (_lattice_cell(d) * spacing**d)
                estimate = (
                    cells
                    - 0.5 * boundary / (_lattice_cell(d - 1) * spacing ** (d - 1))
                    + _lower_order(d, (math.factorial(d) * cells) ** (1.0 / d))
                )
            out[face] = max(0, round(estimate))
        return out

    free = n_points - n_objectives
    lo, hi = 1e-9, 1e9
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if sum(counts(mid).values()) > free:
            lo = mid
        else:
            hi = mid
        if hi / lo < 1 + 1e-12:
            break
    out = counts(hi)
    remainder = free - sum(out.values())
    for face in sorted(all_faces, key=lambda f: (-out[f], -len(f))):
        if remainder == 0:
            break
        take = max(remainder, -out[face])
        out[face] += take
        remainder -= take
    return out


def _pull_back(centroids: FloatArray, fmap: FaceMap) -> tuple[FloatArray, FloatArray]:
    """Weights whose estimated points are nearest to ``centroids``, and those points: each
    centroid is projected onto the nearest few mapped simplices of the estimate
    (least-squares barycentric coordinates, clipped to the simplex) and the closest
    projection wins."""
    y_all, w_all, centres = fmap.pieces()
    n_candidates = min(PULLBACK_CANDIDATES, len(y_all))
    _, near = centres.query(centroids, k=n_candidates)
    near = np.asarray(near).reshape(len(centroids), n_candidates)
    y = y_all[near]  # (G, c, k, K)
    w = w_all[near]  # (G, c, k, k)
    edges = y[:, :, 1:] - y[:, :, :1]  # (G, c, d, K)
    rhs = centroids[:, None, :] - y[:, :, 0]  # (G, c, K)
    gram = np.einsum("gcik,gcjk->gcij", edges, edges)
    d = edges.shape[2]
    gram += 1e-14 * np.trace(gram, axis1=2, axis2=3)[..., None, None] * np.eye(d)
    lam = np.linalg.solve(gram, np.einsum("gcik,gck->gci", edges, rhs)[..., None])[..., 0]
    bary = np.concatenate([1.0 - lam.sum(axis=2, keepdims=True), lam], axis=2)
    bary = np.clip(bary, 0.0, None)
    bary /= bary.sum(axis=2, keepdims=True)
    proj = np.einsum("gci,gcik->gck", bary, y)
    best = np.argmin(np.sum((proj - centroids[:, None, :]) ** 2, axis=2), axis=1)
    rows = np.arange(len(centroids))
    out = np.einsum("gi,gik->gk", bary[rows, best], w[rows, best])
    out /= out.sum(axis=1, keepdims=True)
    k = out.shape[1]
    return (
        np.asarray((1.0 - INTERIOR_MARGIN) * out + INTERIOR_MARGIN / k, dtype=np.float64),
        np.asarray(proj[rows, best], dtype=np.float64),
    )


def restricted_cvt(
    fmap: FaceMap,
    samples: FaceSamples,
    fixed: FloatArray,
    start: FloatArray,
    *,
    iterations: int | None = None,
) -> FloatArray:
    """Lloyd's iterations on the estimated surface of one face, with boundary points fixed.

    Parameters
    ----------
    fmap : FaceMap
        The face's estimated map.
    samples : FaceSamples
        A sample of the surface (:func:`face_samples`), each with its mass.
    fixed : ndarray, shape (F, k)
        Face weights of the points already placed on the face's boundary (corners, edges,
        lower faces): generators that do not move.
    start : ndarray, shape (G, k)
        Face weights of the free generators to start from (strictly inside the face).

    Returns
    -------
    ndarray, shape (G, k)
        The free generators' face weights after the iterations: each is (nearly) the
        centroid of its Voronoi cell on the surface, and the points' cells have (nearly)
        equal size where the surface allows.

    Each iteration assigns the samples to their nearest generator (one k-d tree query),
    sums each cell's mass and moments, and projects the centroids back onto the estimated
    surface (:func:`_pull_back`); a generator's position on the surface is that projection,
    so the map is evaluated only once, at the start.
    """
    if len(start) == 0:
        return start.copy()
    keep = samples.mass > 0
    if not keep.any() or not len(fmap.pieces()[0]):
        return start.copy()
    sample_weights, sample_coords = samples.weights[keep], samples.coords[keep]
    mass = samples.mass[keep]
    weighted = mass[:, None] * sample_coords
    extent = float(np.linalg.norm(sample_coords.max(axis=0) - sample_coords.min(axis=0)))
    fixed_coords = fmap(fixed) if len(fixed) else np.empty((0, sample_coords.shape[1]))
    free = start.copy()
    free_coords = fmap(free)
    n_fixed, n_free = len(fixed), len(free)
    settled = math.inf
    if LLOYD_SETTLED is not None and n_fixed + n_free >= 2:
        at = np.vstack([fixed_coords, free_coords])
        settled = LLOYD_SETTLED * float(np.median(cKDTree(at).query(at, k=2)[0][:, 1]))
    restless = max(1, math.floor(LLOYD_RESTLESS * n_free))
    for _ in range(LLOYD_ITERATIONS if iterations is None else iterations):
        owner = cKDTree(np.vstack([fixed_coords, free_coords])).query(sample_coords)[1]
        rows = np.flatnonzero(owner >= n_fixed)
        owner = owner[rows] - n_fixed
        cell_mass = np.bincount(owner, weights=mass[rows], minlength=n_free)
        moments = np.stack(
            [
                np.bincount(owner, weights=weighted[rows, j], minlength=n_free)
                for j in range(weighted.shape[1])
            ],
            axis=1,
        )
        filled = cell_mass > 0
        new, new_coords = free.copy(), free_coords.copy()
        if filled.any():
            centroids = moments[filled] / cell_mass[filled, None]
            new[filled], new_coords[filled] = _pull_back(centroids, fmap)
        for g in np.flatnonzero(~filled):
            # an empty cell: restart the generator where the surface is worst covered
            gap = cKDTree(np.vstack([fixed_coords, new_coords])).query(sample_coords)[0]
            gap_w = cKDTree(np.vstack([fixed, new])).query(sample_weights)[0]
            j = _farthest(gap, gap_w, sample_weights)
            if j >= 0:
                new[g], new_coords[g] = sample_weights[j], sample_coords[j]
        step = np.linalg.norm(new_coords - free_coords, axis=1)
        free, free_coords = new, new_coords
        if float(np.max(step)) <= LLOYD_TOL * max(extent, 1e-300) or (
            settled < math.inf and np.count_nonzero(step > settled) <= restless
        ):
            break
    return free


def quadratic_pull_back(
    targets: FloatArray,
    coords: FloatArray,
    weights: FloatArray,
    fallback: FloatArray,
    *,
    neighbours: int | None = None,
) -> FloatArray:
    """Weights for target points on the surface from a local quadratic fit of the weights
    of the nearest solved points, as functions of their position in the local tangent plane.

    The piecewise-linear pull-back of :func:`restricted_cvt` interpolates the weights (the
    front's normals) to first order; where the front is flat the map from weights to points
    is steep, and its error in weight moves the solved point far. A weighted least-squares
    quadratic in the tangent coordinates of the ``neighbours`` nearest solved points is
    second order; ``fallback`` is kept where the fit is ill-posed or leaves the simplex.
    ``neighbours`` defaults to 10 on a triangle (better than 8, 12 or 15 over 16 random
    quadratics), and to four more than the quadratic's terms on larger faces. The fits of
    all targets are solved together (stacked SVDs, as ``numpy.linalg.lstsq`` solves each).

    Parameters
    ----------
    targets : ndarray, shape (G, K)
        Points on the estimated surface.
    coords, weights : ndarray, shapes (P, K) and (P, k)
        The solved points of the face and their face weights.
    fallback : ndarray, shape (G, k)
        Weights to keep where the fit fails.

    Examples
    --------
    Weights that are a quadratic function of the position are recovered exactly:

    >>> import numpy as np
    >>> from paretosurf.surfaces._estimate import quadratic_pull_back
    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0.1, 0.9, size=(30, 2))
    >>> w = np.c_[u[:, 0] ** 2, u[:, 1], 2 - u[:, 0] ** 2 - u[:, 1]] / 2
    >>> coords = np.c_[u, np.zeros(30)]                  # a flat surface in 3-D
    >>> got = quadratic_pull_back(np.array([[0.5, 0.5, 0.0]]), coords, w, np.full((1, 3), 1/3))
    >>> np.allclose(got, [[0.125, 0.25, 0.625]])
    True
    """
    k = weights.shape[1]
    d = k - 1
    n_terms = 1 + d + d * (d + 1) // 2
    wanted = max(10, n_terms + 4) if neighbours is None else neighbours
    count = min(wanted, len(coords))
    if count < n_terms + 2 or len(targets) == 0:
        return fallback
    dist, idx = cKDTree(coords).query(targets, k=count)
    dist = np.asarray(dist).reshape(len(targets), count)
    idx = np.asarray(idx).reshape(len(targets), count)
    near = coords[idx]  # (G, c, K)
    centre = near.mean(axis=1, keepdims=True)
    _, _, vt = np.linalg.svd(near - centre, full_matrices=False)
    basis = vt[:, :d]  # (G, d, K)
    u = np.einsum("gck,gdk->gcd", near - targets[:, None, :], basis)
    cols = [np.ones(u.shape[:2])] + [u[..., i] for i in range(d)]
    cols += [u[..., i] * u[..., j] for i in range(d) for j in range(i, d)]
    design = np.stack(cols, axis=2)  # (G, c, terms)
    scale = np.maximum(dist[:, -1:], 1e-300)
    wts = 1.0 / (1.0 + (dist / scale) ** 2)
    a = design * wts[..., None]
    b = weights[idx] * wts[..., None]  # (G, c, k)
    # least squares as numpy.linalg.lstsq(rcond=None): singular values below
    # eps * max(rows, columns) * the largest are dropped; only the constant term is needed
    left, sing, right = np.linalg.svd(a, full_matrices=False)
    cutoff = np.finfo(np.float64).eps * max(a.shape[1:]) * sing[:, :1]
    inverse = np.divide(1.0, sing, out=np.zeros_like(sing), where=sing > cutoff)
    projected = np.einsum("gci,gck->gik", left, b) * inverse[..., None]
    w = np.einsum("gi,gik->gk", right[:, :, 0], projected)
    out = fallback.copy()
    good = np.all(np.isfinite(w), axis=1) & np.all(w > 0, axis=1)
    out[good] = w[good] / w[good].sum(axis=1, keepdims=True)
    return out


def _farthest(gap: FloatArray, gap_w: FloatArray, weights: FloatArray) -> int:
    """The sample farthest from the points taken: largest ``gap`` on the surface, then (where
    the estimate maps samples onto taken points: a collapsed region) largest ``gap_w`` in
    weight space; ``-1`` when every sample coincides with a taken weight. Samples within
    :data:`FARTHEST_TIE` of the largest tie, and the first by their ``weights`` (compared
    lexicographically) is taken."""
    for dist in (gap, gap_w):
        j = int(np.argmax(dist))
        if dist[j] > 0:
            near = near_best(dist, FARTHEST_TIE)
            return first_of_lexicographic(weights, near, FARTHEST_TIE_WEIGHT)
    return -1


def farthest_points(
    fmap: FaceMap, samples: FaceSamples, fixed: FloatArray, count: int
) -> FloatArray:
    """``count`` face weights for new free generators: greedily, the sample farthest (on the
    estimated surface) from the fixed points and those already chosen.

    Parameters
    ----------
    fmap : FaceMap
        The face's estimated map.
    samples : FaceSamples
        A sample of the surface (:func:`face_samples`).
    fixed : ndarray, shape (F, k)
        Face weights of the points already placed.
    count : int
        Number of weights wanted.

    Returns
    -------
    ndarray, shape (count, k)
        Distinct samples, none of them one of ``fixed``. Where the estimate maps the
        remaining samples onto points already taken (a collapsed region), the farthest in
        weight space is taken.

    Raises
    ------
    ValueError
        If there are fewer than ``count`` samples apart from ``fixed`` (pass a finer sample,
        see ``min_samples`` of :func:`face_samples`).

    Examples
    --------
    Five weights from a sample of nine triangles: never the same sample twice.

    >>> import numpy as np
    >>> from paretosurf.surfaces._estimate import FaceMap, face_samples, farthest_points
    >>> fmap = FaceMap(np.eye(3), np.eye(3))
    >>> samples = face_samples(fmap, subdivisions=3)
    >>> got = farthest_points(fmap, samples, np.eye(3), 5)
    >>> len({tuple(w) for w in got.round(12).tolist()})
    5
    """
    sample_weights, sample_coords = samples.weights, samples.coords
    k = sample_weights.shape[1]
    if count <= 0:
        return np.empty((0, k))
    if len(fixed):
        gap = cKDTree(fmap(fixed)).query(sample_coords)[0]
        gap_w = cKDTree(fixed).query(sample_weights)[0]
    else:
        gap = np.full(len(sample_coords), np.inf)
        gap_w = np.full(len(sample_weights), np.inf)
    picks: list[int] = []
    for _ in range(count):
        j = _farthest(gap, gap_w, sample_weights)
        if j < 0:
            raise ValueError(
                f"a sample of {len(sample_weights)} points holds fewer than "
                f"{count} new points apart from the {len(fixed)} placed"
            )
        picks.append(j)
        gap = np.minimum(gap, np.linalg.norm(sample_coords - sample_coords[j], axis=1))
        gap_w = np.minimum(gap_w, np.linalg.norm(sample_weights - sample_weights[j], axis=1))
    return np.asarray(sample_weights[picks], dtype=np.float64)


def face_measure(fmap: FaceMap, weights: FloatArray | None = None) -> float:
    """The length, area, ... of a face's estimated surface (:meth:`FaceMap.measure`;
    ``weights`` is ignored, kept for callers that pass the solved weights)."""
    return fmap.measure()


def embed(face_weights: FloatArray, face: Sequence[int], n_objectives: int) -> FloatArray:
    """Face weights (P, k) as full weight vectors (P, M) with zeros off the face."""
    out = np.zeros((len(face_weights), n_objectives))
    out[:, list(face)] = face_weights
    return out
