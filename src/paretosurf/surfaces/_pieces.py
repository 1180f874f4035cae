"""The pieces of a disconnected Pareto surface (three or more objectives) as a round's points
show them.

A surface may fall apart into pieces (DTLZ7's four with three objectives; a design space with
islands). :func:`surface_pieces` groups a round's points: two points belong to one piece when
they lie closer than :data:`LINK_SPACINGS` times the largest nearest-neighbour distance among
the points, and so does every chain of such steps (single linkage, scipy's connected
components). :class:`SurfacePiece` is the record a result of :func:`paretosurf.surf_simplex`
reports (``res.pieces``).

Why the largest nearest-neighbour distance: every point is then linked to its nearest
neighbour, so that no point of an uneven layout stands alone as a piece of its own, and two
groups are apart only where the gap between them is wider than every hole inside them. A
layout with a large hole merges pieces rather than splitting one: the report errs towards one
piece (on DTLZ7 with 28 to 91 points it finds the four true pieces; on DTLZ2, one;
``tests/surfaces/test_surface_pieces.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree
from scipy.spatial.distance import pdist

__all__ = ["LINK_SPACINGS", "SurfacePiece", "pieces_of_labels", "surface_pieces"]

FloatArray = NDArray[np.float64]

#: Points closer than this many times the largest nearest-neighbour distance among a round's
#: points belong to one piece.
LINK_SPACINGS = 1.5


@dataclass(frozen=True)
class SurfacePiece:
    """One connected piece of a Pareto surface as a round's points show it.

    Attributes
    ----------
    members : tuple of int
        Its points' rows in the round's (or result's) weights and points, increasing.
    extent : float
        The largest distance between two of its points, in the run's coordinates.
    share : int
        The number of points it holds.
    """

    members: tuple[int, ...]
    extent: float
    share: int

    @property
    def slots(self) -> tuple[int, ...]:
        """Its points' rows, increasing (as :attr:`paretosurf.curves.Piece.slots`)."""
        return self.members

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form; :meth:`from_dict` inverts it."""
        return {"members": list(self.members), "extent": self.extent, "share": self.share}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SurfacePiece:
        """Inverse of :meth:`to_dict`."""
        members = tuple(int(v) for v in data["members"])
        return cls(members, float(data["extent"]), int(data["share"]))


def surface_pieces(coords: FloatArray) -> list[SurfacePiece]:
    """The points grouped into pieces (see the module's docstring), listed by their first
    member.

    Parameters
    ----------
    coords : ndarray, shape (P, M)
        The points, in the coordinates distances are measured in.

    Returns
    -------
    list of SurfacePiece
        One piece holding every point when they hang together (or fewer than two are
        apart).

    Examples
    --------
    Two 3 x 3 grids of unit spacing, ten apart:

    >>> import numpy as np
    >>> from paretosurf.surfaces._pieces import surface_pieces
    >>> grid = np.array([[x, y, 0.0] for x in range(3) for y in range(3)], dtype=float)
    >>> pieces = surface_pieces(np.vstack([grid, grid + [10.0, 0.0, 0.0]]))
    >>> [p.share for p in pieces], pieces[1].members[:3]
    ([9, 9], (9, 10, 11))
    """
    points = np.asarray(coords, dtype=np.float64)
    n = len(points)
    if n == 0:
        return []
    labels = np.zeros(n, dtype=np.intp)
    if n >= 2:
        tree = cKDTree(points)
        largest = float(tree.query(points, k=2)[0][:, 1].max())
        if largest > 0 and np.isfinite(largest):
            pairs = tree.query_pairs(LINK_SPACINGS * largest, output_type="ndarray")
            graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
            labels = np.asarray(connected_components(graph, directed=False)[1], dtype=np.intp)
    return pieces_of_labels(points, labels)


def pieces_of_labels(coords: FloatArray, labels: NDArray[np.intp]) -> list[SurfacePiece]:
    """The pieces that ``labels`` (one per point) group the points ``coords`` into, listed
    by their first member.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.surfaces._pieces import pieces_of_labels
    >>> pts = np.array([[0.0, 0.0], [3.0, 4.0], [9.0, 9.0]])
    >>> [(p.members, p.extent) for p in pieces_of_labels(pts, np.array([1, 1, 0]))]
    [((0, 1), 5.0), ((2,), 0.0)]
    """
    points = np.asarray(coords, dtype=np.float64)
    out: list[SurfacePiece] = []
    for label in dict.fromkeys(np.asarray(labels).tolist()):
        members = np.flatnonzero(labels == label)
        extent = float(pdist(points[members]).max()) if members.size > 1 else 0.0
        out.append(SurfacePiece(tuple(int(v) for v in members), extent, int(members.size)))
    return out
