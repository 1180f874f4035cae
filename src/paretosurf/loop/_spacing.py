"""The coordinates in which distances along the front are measured (``normalize=``).

SURF spaces its points evenly by the chord lengths between them, and the CV and gap ratio of
every method's records are measured the same way. Raw objectives make that depend on their
units: an objective in grams outweighs the same one in kilograms a thousandfold, and SURF would
then space the points along that objective alone. :class:`Spacing` maps objective vectors to
the coordinates used instead:

- ``"endpoints"`` (the default): each objective shifted by its ideal value and divided by its
  nadir minus ideal, both read from the current endpoint solutions (the points at ``w = 0`` and
  ``w = 1``; with ``M >= 3`` objectives, the M corner solutions), as pymoo normalizes.
  Changing an objective's units then changes neither the coordinates nor which solutions
  are found;
- ``"none"``: the raw objectives (the paper's coordinates);
- ``(ideal, nadir)``: a fixed normalization;
- a callable ``f(points) -> coordinates`` (rows to rows, the same number of columns or not), for
  example to space the points by the rewards without a regularization term.

An objective whose endpoint values coincide (constant along the front) keeps unit scale; one
whose endpoints span at most a millionth of the points' own extent in it (the endpoint solves
stopped without moving it) is measured by that extent.

To space points by quantities that are not functions of the objectives (for example the
rewards of a KL-regularized policy without the KL term), let the solver report those as its
objectives: SURF and the records use the reported objectives only to measure distances, while
the solver minimizes its own scalarized problem.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["NORMALIZE_OPTIONS", "Spacing"]

FloatArray = NDArray[np.float64]
#: The named ``normalize=`` options.
NORMALIZE_OPTIONS = ("endpoints", "none")
#: With ``"endpoints"``: an objective over which the anchors (the corner or end solutions)
#: span at most this share of the points' own extent is measured by that extent instead
#: (the anchors missed it; their span would put the points a million units out and more).
ANCHOR_SPAN_SHARE = 1e-6


class Spacing:
    """Maps objective vectors to the coordinates that distances are measured in.

    Parameters
    ----------
    normalize : {"endpoints", "none"}, tuple of array_like, or callable
        See the module docstring.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.loop._spacing import Spacing
    >>> front = np.array([[0.0, 3000.0], [0.5, 1000.0], [1.0, 0.0]])
    >>> spacing = Spacing("endpoints")
    >>> spacing.fit(front)
    >>> spacing(front).round(3).tolist()
    [[0.0, 1.0], [0.5, 0.333], [1.0, 0.0]]
    >>> Spacing("none")(front).tolist() == front.tolist()
    True
    """

    def __init__(self, normalize: Any = "endpoints") -> None:
        self.option = normalize
        self._fn: Callable[[FloatArray], Any] | None = None
        self.ideal: FloatArray | None = None
        self.scale: FloatArray | None = None
        #: The front's ends found before the first round (:mod:`paretosurf.findings`),
        #: which ``"endpoints"`` reads beside the end solutions of each round.
        self.ends: FloatArray | None = None
        if isinstance(normalize, str):
            if normalize not in NORMALIZE_OPTIONS:
                raise ValueError(
                    f"normalize must be one of {NORMALIZE_OPTIONS}, an (ideal, "
                    f"nadir) pair or a callable, got {normalize!r}"
                )
            self.kind = normalize
        elif callable(normalize):
            self.kind = "callable"
            self._fn = normalize
        elif isinstance(normalize, (tuple, list)) and len(normalize) == 2:
            self.kind = "fixed"
            ideal = np.asarray(normalize[0], dtype=np.float64)
            nadir = np.asarray(normalize[1], dtype=np.float64)
            if (
                ideal.ndim != 1
                or ideal.shape != nadir.shape
                or not (np.all(np.isfinite(ideal)) and np.all(np.isfinite(nadir)))
            ):
                raise ValueError(
                    "normalize=(ideal, nadir) needs two finite vectors of one "
                    f"length, got shapes {ideal.shape} and {nadir.shape}"
                )
            if np.any(nadir <= ideal):
                raise ValueError(
                    "normalize=(ideal, nadir) needs nadir > ideal in every "
                    f"objective, got ideal {ideal.tolist()}, nadir "
                    f"{nadir.tolist()}"
                )
            self.ideal, self.scale = ideal, nadir - ideal
        else:
            raise TypeError(
                f"normalize must be one of {NORMALIZE_OPTIONS}, an (ideal, nadir) "
                f"pair or a callable, got {type(normalize).__name__}"
            )

    def setting(self) -> Any:
        """The option as a JSON-able value (a callable by its qualified name), for checkpoints."""
        if self.kind == "callable":
            fn = self._fn
            return f"callable {getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)}"
        if self.kind == "fixed":
            assert self.ideal is not None and self.scale is not None
            return [self.ideal.tolist(), (self.ideal + self.scale).tolist()]
        return self.kind

    def describe(self) -> str:
        """Words for tables and messages."""
        return {
            "none": "raw objectives (the paper's coordinates)",
            "endpoints": "objectives normalized by the endpoints' ideal and nadir",
            "fixed": "objectives normalized by a fixed ideal and nadir",
            "callable": f"coordinates given by {self.setting()[len('callable ') :]}",
        }[self.kind]

    def fit(self, front: ArrayLike, *, anchors: ArrayLike | None = None) -> None:
        """With ``"endpoints"``, read ideal and nadir from the anchor rows of ``front``: the
        solutions of single objectives (by default its first and last rows, the points at
        ``w = 0`` and ``w = 1``; with weight vectors, the corners), together with the
        front's verified ends (:attr:`ends`) where the run found them. Other options have
        nothing to fit."""
        if self.kind != "endpoints":
            return
        pts = np.asarray(front, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[0] < 2 or pts.shape[1] == 0:
            return
        ends = pts[[0, -1]] if anchors is None else pts[np.asarray(anchors, dtype=np.intp)]
        if self.ends is not None and self.ends.shape[1] == ends.shape[1]:
            ends = np.vstack([ends, self.ends])
        ideal, nadir = ends.min(axis=0), ends.max(axis=0)
        span = nadir - ideal
        # anchors that did not move an objective the front spans (corner solves stopped on
        # a flat spot: pymoo's convex DTLZ4 by weighted sums, 5e-106 against 2.9) would
        # blow its coordinates up by that factor: the front's own extent measures it
        extent = pts.max(axis=0) - pts.min(axis=0)
        missed = span <= ANCHOR_SPAN_SHARE * extent
        span = np.where(missed, extent, span)
        self.ideal = np.where(missed, pts.min(axis=0), ideal)
        self.scale = np.where(span > 0, span, 1.0)

    def __call__(self, points: ArrayLike) -> FloatArray:
        """The coordinates of ``points`` (shape (P, M)); rows keep their order."""
        pts = np.asarray(points, dtype=np.float64)
        if self.kind == "none" or (self.kind == "endpoints" and self.ideal is None):
            return pts
        if self._fn is not None:
            out = np.asarray(self._fn(pts), dtype=np.float64)
            if out.ndim != 2 or out.shape[0] != pts.shape[0] or not np.all(np.isfinite(out)):
                raise ValueError(
                    f"normalize's callable must map points of shape {pts.shape} to finite "
                    f"coordinates with one row per point, got shape {out.shape}"
                )
            return out
        assert self.ideal is not None and self.scale is not None
        if pts.shape[-1] != self.ideal.size:
            raise ValueError(
                f"normalize=(ideal, nadir) has {self.ideal.size} objectives, the "
                f"points have {pts.shape[-1]}"
            )
        return np.asarray((pts - self.ideal) / self.scale, dtype=np.float64)
