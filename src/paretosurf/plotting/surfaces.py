"""Pareto surfaces (M >= 3 objectives): :func:`plot_surface` (points in 3-D),
:func:`plot_simplex_weights` (weights in the triangle) and :func:`plot_surface_result`
(both side by side)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from paretosurf._utils.validation import as_front_points
from paretosurf.plotting._backend import _axes_figure, _method_style, pyplot, save_figure
from paretosurf.plotting.colours import weight_colors

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from mpl_toolkits.mplot3d.axes3d import Axes3D

__all__ = ["plot_simplex_weights", "plot_surface", "plot_surface_result"]


#: Colour of the points of :func:`plot_surface` and :func:`plot_simplex_weights` when no
#: weights (or no ``color``) are given.
SURFACE_POINT_COLOR = "tab:blue"

#: Colour of the reference cloud of :func:`plot_surface` (a dense sample of the true front).
REFERENCE_CLOUD_COLOR = "0.75"

#: Corners of the weight triangle of :func:`plot_simplex_weights`: ``e_1`` at the top,
#: ``e_2`` bottom left, ``e_3`` bottom right (an equilateral triangle of side 1).
SIMPLEX_CORNERS = np.array([[0.5, np.sqrt(3.0) / 2.0], [0.0, 0.0], [1.0, 0.0]])


def _check_labels(labels: object, m: int) -> list[str]:
    """Objective names: ``m`` strings (default ``objective 1 .. objective m``)."""
    if labels is None:
        return [f"objective {i + 1}" for i in range(m)]
    if (
        isinstance(labels, (str, bytes))
        or not isinstance(labels, Sequence)
        or len(labels) != m
        or not all(isinstance(n, str) for n in labels)
    ):
        raise ValueError(f"labels must be {m} strings (one per objective), got {labels!r}")
    return list(labels)


def _check_3d_axes(ax: Any) -> Figure:
    fig = _axes_figure(ax)
    if getattr(ax, "name", None) != "3d":
        raise TypeError("ax must be a 3-D matplotlib Axes (created with projection='3d')")
    return fig


def plot_surface(
    points: ArrayLike,
    /,
    weights: ArrayLike | None = None,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    labels: Sequence[str] | None = None,
    reference: ArrayLike | None = None,
    pieces: Sequence[Any] | None = None,
) -> Axes3D:
    """The points of an M >= 3 objective run as a 3-D scatter of the first three objectives.

    Each point is coloured by its weight vector (:func:`weight_colors`): for M = 3 the
    weight's three components are the point's RGB colour (objective 1 red, 2 green, 3 blue),
    so neighbouring weights get similar colours and a fold or a gap on the surface shows as a
    jump in colour; for M > 3 the first three components, rescaled to sum 1, are the colour
    (and only the first three objectives are drawn).

    Parameters
    ----------
    points : array_like, shape (P, M)
        Finite objective vectors, M >= 3, in any order.
    weights : array_like, shape (P, M), optional
        The weight vector of each point (rows on the simplex). Without it, all points get
        :data:`SURFACE_POINT_COLOR`.
    ax : 3-D matplotlib Axes, optional
        Axes created with ``projection="3d"`` to draw into (default: a new figure).
    title : str, optional
        Axes title.
    labels : sequence of M str, optional
        Objective names (default ``objective 1 .. objective M``); the first three label the
        axes.
    reference : array_like, shape (R, M), optional
        A dense sample of the true front, drawn as a light grey cloud under the points.
    pieces : sequence of SurfacePiece, optional
        The pieces of a disconnected surface (``res.pieces`` of
        :func:`paretosurf.surf_simplex`, :mod:`paretosurf.surfaces`): with two or
        more, each piece is drawn apart, its points ringed in a colour of its own and
        labelled ``"piece k (n points)"`` in a legend.

    Returns
    -------
    mpl_toolkits.mplot3d.axes3d.Axes3D
        Its first collection is the reference cloud (label ``"reference"``, if given), then
        the points (label ``"points"``), or with ``pieces`` one collection per piece.

    Raises
    ------
    ValueError
        If ``points`` is not a finite (P, M) array with M >= 3, or ``weights``, ``reference``
        or ``labels`` do not match it.
    TypeError
        If ``ax`` is not a 3-D Axes.

    Examples
    --------
    >>> from paretosurf.plotting import plot_surface
    >>> from paretosurf.surfaces._weights import simplex_lattice
    >>> w = simplex_lattice(3, 4)
    >>> ax = plot_surface(w ** 2, w, title="sphere-like front")
    >>> ax.name, len(ax.collections[0].get_offsets())
    ('3d', 15)
    """
    pts = as_front_points(points, name="points", min_points=1)
    m = pts.shape[1]
    if m < 3:
        raise ValueError(
            f"plot_surface draws M >= 3 objectives; points have M = {m} (use plot_front for M = 2)"
        )
    colours: Any = SURFACE_POINT_COLOR
    if weights is not None:
        from paretosurf.surfaces import check_simplex_weights

        w = check_simplex_weights(weights, m, name="weights")
        if w.shape[0] != pts.shape[0]:
            raise ValueError(f"weights has {w.shape[0]} rows but points has {pts.shape[0]}")
        colours = weight_colors(w)
    ref = None
    if reference is not None:
        ref = as_front_points(reference, name="reference", min_points=1)
        if ref.shape[1] != m:
            raise ValueError(f"reference has {ref.shape[1]} objectives but points have {m}")
    names = _check_labels(labels, m)
    groups = _piece_rows(pieces, len(pts))

    if ax is None:
        fig = pyplot().figure(figsize=(6.0, 5.2), layout="constrained")
        ax = fig.add_subplot(projection="3d")
    else:
        _check_3d_axes(ax)
    axes: Any = ax
    if ref is not None:
        axes.scatter(
            ref[:, 0],
            ref[:, 1],
            ref[:, 2],
            color=REFERENCE_CLOUD_COLOR,
            s=2,
            alpha=0.35,
            depthshade=False,
            linewidths=0,
            label="reference",
        )
    if groups is None:
        axes.scatter(
            pts[:, 0],
            pts[:, 1],
            pts[:, 2],
            c=colours,
            s=28,
            depthshade=False,
            edgecolors="0.2",
            linewidths=0.4,
            label="points",
        )
    else:
        for k, rows in enumerate(groups):
            face = colours if isinstance(colours, str) else np.asarray(colours)[rows]
            axes.scatter(
                pts[rows, 0],
                pts[rows, 1],
                pts[rows, 2],
                c=face,
                s=34,
                depthshade=False,
                edgecolors=[_method_style(k)[0]],
                linewidths=1.6,
                label=f"piece {k + 1} ({len(rows)} points)",
            )
        axes.legend(loc="upper left", fontsize="small")
    axes.set_xlabel(names[0])
    axes.set_ylabel(names[1])
    axes.set_zlabel(names[2])
    if title is not None:
        axes.set_title(title)
    return axes


def _piece_rows(pieces: Sequence[Any] | None, n_points: int) -> list[list[int]] | None:
    """Each piece's rows (``slots``) when there are two or more pieces that together
    hold every point once; ``None`` otherwise (the points are drawn as one set)."""
    if pieces is None or len(pieces) < 2:
        return None
    groups = [[int(v) for v in piece.slots] for piece in pieces]
    flat = sorted(v for rows in groups for v in rows)
    if flat != list(range(n_points)):
        raise ValueError(
            f"pieces must hold each of the {n_points} points once (their members), "
            f"got {len(flat)} members"
        )
    return groups


def plot_simplex_weights(
    weights: ArrayLike,
    /,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    labels: Sequence[str] | None = None,
    color: Any = None,
) -> Axes:
    """The weight vectors of an M = 3 run drawn in the weight triangle (the 2-D simplex).

    The triangle is equilateral, with the corner ``e_m`` (all weight on objective ``m``)
    labelled by objective ``m``: objective 1 at the top, 2 bottom left, 3 bottom right
    (:data:`SIMPLEX_CORNERS`). A weight ``w`` is drawn at ``w @ SIMPLEX_CORNERS`` (its
    barycentric coordinates), coloured as in :func:`plot_surface` (RGB = ``w``).

    Parameters
    ----------
    weights : array_like, shape (P, 3)
        Weight vectors on the simplex.
    ax : matplotlib Axes, optional
        A 2-D Axes to draw into (default: a new figure).
    title : str, optional
        Axes title.
    labels : sequence of 3 str, optional
        Objective names of the corners (default ``objective 1 .. objective 3``).
    color : matplotlib colour, optional
        One colour for all points instead of the RGB colouring.

    Returns
    -------
    matplotlib.axes.Axes
        Its only collection is the scatter of the weights (label ``"weights"``).

    Raises
    ------
    ValueError
        If ``weights`` is not a (P, 3) array of weight vectors on the simplex, or ``labels`` is
        not 3 strings.

    Examples
    --------
    >>> from paretosurf.plotting import plot_simplex_weights
    >>> from paretosurf.surfaces._weights import simplex_lattice
    >>> ax = plot_simplex_weights(simplex_lattice(3, 4))
    >>> len(ax.collections[0].get_offsets())
    15
    >>> [t.get_text() for t in ax.texts]
    ['objective 1', 'objective 2', 'objective 3']
    """
    from paretosurf.surfaces import check_simplex_weights

    w = check_simplex_weights(weights, name="weights")
    if w.shape[1] != 3:
        raise ValueError(
            f"plot_simplex_weights draws M = 3 weights (a triangle); weights have "
            f"M = {w.shape[1]} columns"
        )
    names = _check_labels(labels, 3)
    xy = w @ SIMPLEX_CORNERS
    colours: Any = weight_colors(w) if color is None else color

    if ax is None:
        _, ax = pyplot().subplots(figsize=(5.0, 4.6), layout="constrained")
    else:
        _axes_figure(ax)
        if getattr(ax, "name", None) == "3d":
            raise TypeError("ax must be a 2-D matplotlib Axes, got a 3-D one")
    axes: Any = ax
    outline = np.vstack([SIMPLEX_CORNERS, SIMPLEX_CORNERS[:1]])
    axes.plot(outline[:, 0], outline[:, 1], color="0.3", linewidth=1.0, zorder=1)
    if color is None:
        axes.scatter(
            xy[:, 0],
            xy[:, 1],
            c=colours,
            s=28,
            edgecolors="0.2",
            linewidths=0.4,
            zorder=2,
            label="weights",
        )
    else:
        axes.scatter(
            xy[:, 0],
            xy[:, 1],
            color=colours,
            s=28,
            edgecolors="0.2",
            linewidths=0.4,
            zorder=2,
            label="weights",
        )
    offsets = ((0.0, 0.04), (-0.03, -0.04), (0.03, -0.04))
    aligns = (("center", "bottom"), ("right", "top"), ("left", "top"))
    for corner, name, (dx, dy), (ha, va) in zip(
        SIMPLEX_CORNERS, names, offsets, aligns, strict=True
    ):
        axes.text(corner[0] + dx, corner[1] + dy, name, ha=ha, va=va, fontsize="small")
    axes.set_aspect("equal")
    axes.set_xlim(-0.25, 1.25)
    axes.set_ylim(-0.15, float(SIMPLEX_CORNERS[0, 1]) + 0.15)
    axes.set_axis_off()
    if title is not None:
        axes.set_title(title)
    return axes


def plot_surface_result(
    result: Any,
    /,
    *,
    reference: ArrayLike | None = None,
    path: str | Path | None = None,
) -> Figure:
    """A run of M = 3 objectives: its points in 3-D and its weights in the triangle.

    Left panel :func:`plot_surface`, right panel :func:`plot_simplex_weights`, with the same
    RGB colour for a point and its weight; the figure is titled with ``result.label`` when
    the result has one. A result whose surface breaks into pieces (``result.pieces``) has
    them drawn apart.

    Parameters
    ----------
    result : object
        Any object with ``weights`` of shape (P, 3) (rows on the simplex) and ``points`` of
        shape (P, 3), and optionally a str ``label``.
    reference : array_like, shape (R, 3), optional
        A dense sample of the true front, drawn as a light grey cloud in the 3-D panel.
    path : str or Path, optional
        Where to save the figure (with :func:`save_figure`: PNG unless the suffix names another
        format, such as ``.pdf``).

    Returns
    -------
    matplotlib.figure.Figure
        With the 3-D Axes, then the triangle's Axes.

    Raises
    ------
    ValueError
        If the weights or points are not (P, 3) arrays of the same length (for the weights
        of a two-objective run the message names :func:`plot_fronts` and
        :func:`plot_front`).
    TypeError
        If ``result`` has no ``weights`` or ``points``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from paretosurf.plotting import plot_surface_result
    >>> from paretosurf.surfaces._weights import simplex_lattice
    >>> w = simplex_lattice(3, 5)
    >>> fig = plot_surface_result(SimpleNamespace(weights=w, points=1 - w, label="toy"))
    >>> [a.name for a in fig.axes], fig.get_suptitle()
    (['3d', 'rectilinear'], 'toy')
    """
    if not (hasattr(result, "weights") and hasattr(result, "points")):
        raise TypeError(f"result must have .weights and .points, got {type(result).__name__}")
    from paretosurf.surfaces import check_simplex_weights

    shape = np.shape(result.weights)
    if len(shape) == 1 or (len(shape) == 2 and shape[1] == 2):
        raise ValueError(
            f"plot_surface_result draws runs of M = 3 objectives, but "
            f"result.weights has shape {shape} (M = 2, a curve): draw it with "
            f"plot_fronts or plot_front"
        )
    weights = check_simplex_weights(result.weights, 3, name="result.weights")
    points = as_front_points(result.points, name="result.points", min_points=1)
    if points.shape != weights.shape:
        raise ValueError(
            f"result.points must have shape {weights.shape} (one row per weight, "
            f"3 objectives), got {points.shape}"
        )
    label = getattr(result, "label", None)

    fig = pyplot().figure(figsize=(11.0, 5.0), layout="constrained")
    surface_ax = fig.add_subplot(1, 2, 1, projection="3d")
    simplex_ax = fig.add_subplot(1, 2, 2)
    plot_surface(
        points,
        weights,
        ax=surface_ax,
        reference=reference,
        title="points",
        pieces=getattr(result, "pieces", None),
    )
    plot_simplex_weights(weights, ax=simplex_ax, title="weights")
    if isinstance(label, str):
        fig.suptitle(label)
    if path is not None:
        save_figure(fig, path)
    return fig
