"""Bi-objective fronts: :func:`plot_front` (methods overlaid on one axes) and
:func:`plot_fronts` (one panel per method, on shared axes)."""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from paretosurf.plotting._backend import _axes_figure, _method_style, pyplot
from paretosurf.plotting._checks import (
    FloatArray,
    _check_objective_names,
    _check_reference,
    _check_results,
    _check_two_objectives,
    _front_entry,
)
from paretosurf.plotting.colours import _colour_mode, _colour_values

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap
    from matplotlib.figure import Figure

__all__ = ["plot_front", "plot_fronts"]

#: :func:`plot_fronts` puts up to this many panels in one row; more wrap into rows of
#: ``WRAP_COLUMNS``.
MAX_ROW_PANELS = 4
WRAP_COLUMNS = 3


def _draw_reference(ax: Any, ref: FloatArray, label: str = "exact front") -> Any:
    """The reference front as a thin grey line under everything else; returns the line."""
    (line,) = ax.plot(ref[:, 0], ref[:, 1], color="0.6", linewidth=0.8, zorder=1, label=label)
    return line


def _draw_points(
    ax: Any,
    pts: FloatArray,
    values: FloatArray | None,
    colour: Any,
    marker: str,
    colour_map: Colormap,
    norm: Any,
    breaks: Sequence[int] = (),
) -> None:
    """A method's points joined in order by a thin line in its colour, filled with the colour
    map's colour of ``values`` (or the method's colour when None); no line crosses the chords
    ``breaks`` (between points ``i`` and ``i + 1``: the gaps between a front's pieces)."""
    line = pts
    if len(breaks):
        # a row of NaN after each break ends the line there (matplotlib skips NaN)
        line = np.insert(pts, np.asarray(breaks, dtype=np.intp) + 1, np.nan, axis=0)
    ax.plot(line[:, 0], line[:, 1], color=colour, linewidth=1.0, alpha=0.7, zorder=2)
    if values is not None:
        ax.scatter(
            pts[:, 0],
            pts[:, 1],
            c=values,
            cmap=colour_map,
            norm=norm,
            marker=marker,
            s=36,
            edgecolors=[colour],
            linewidths=0.9,
            zorder=3,
        )
    else:
        ax.scatter(
            pts[:, 0],
            pts[:, 1],
            color=[colour],
            marker=marker,
            s=36,
            edgecolors=[colour],
            linewidths=0.9,
            zorder=3,
        )


def _piece_breaks(result: object, n_points: int) -> list[int]:
    """The chords between the pieces of ``result`` (its ``pieces``, see
    :attr:`paretosurf.Result.pieces`), when they cover its ``n_points`` points in order;
    empty otherwise (one piece, or an array of points)."""
    pieces = getattr(result, "pieces", None)
    if not pieces or len(pieces) < 2:
        return []
    try:
        spans = [(int(p.first), int(p.last)) for p in pieces]
    except (AttributeError, TypeError, ValueError):
        return []
    if spans[0][0] != 0 or spans[-1][1] != n_points - 1:
        return []
    if any(b + 1 != c for (_, b), (c, _) in itertools.pairwise(spans)):
        return []
    return [b for _, b in spans[:-1]]


def plot_front(
    results: Mapping[str, Any],
    *,
    reference_front: ArrayLike | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    objective_names: Sequence[str] | None = ("objective 1", "objective 2"),
    color_by: str = "auto",
    cmap: str | Colormap = "viridis",
) -> Figure:
    """Points of one or more methods overlaid on one axes, coloured by weight (or position).

    :func:`plot_fronts` draws one panel per method instead, which reads better for more than
    one or two methods.

    Parameters
    ----------
    results : mapping
        Method name to a :class:`~paretosurf.Result` (or any object with ``weights`` of
        shape (N+1,) and ``points`` of shape (N+1, 2)), or to an (N+1, 2) array of points in
        weight order. Weight vectors of shape (N+1, 2), as :func:`paretosurf.surf_simplex`
        gives for M = 2, stand for their first component, the weight on objective 1 (the
        scalar weight of :func:`paretosurf.surf`), and order the points by it. A method's
        points are joined in weight order by a thin line in the method's colour (broken
        between the pieces of a disconnected front, where the result reports its ``pieces``)
        and drawn with
        the method's own marker; points are filled with the colour of their weight or position
        (``color_by``; shared colour map and colour bar), or with the method's colour when
        colouring by weight and the method gives no weights.
    reference_front : array_like, shape (P, 2), optional
        Exact front, drawn as a thin grey line (e.g. ``problem.reference_front(1001)``),
        ordered from its ``w = 0`` end.
    ax : matplotlib Axes, optional
        Axes to draw into (default: a new figure).
    title : str, optional
        Axes title.
    objective_names : pair of str, optional
        Axis labels (default ``("objective 1", "objective 2")``).
    color_by : {"auto", "weight", "position"}
        What the fill colour shows, as in :func:`plot_fronts`: the weight, the position along
        the front, or (``"auto"``) the position when some method's weights cluster
        (:func:`weights_cluster`), else the weight.
    cmap : str or Colormap
        Colour map of the weights or positions.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``results`` is empty, a result has no points, or anything has M != 2 objectives
        (for weight vectors or points of M >= 3 objectives the message names
        :func:`plot_surface_result` and :func:`plot_surface`, which draw surfaces).
    TypeError
        If ``results`` is not a mapping of names to results or arrays.

    Examples
    --------
    >>> import numpy as np
    >>> import paretosurf as ps
    >>> from paretosurf.plotting import plot_front
    >>> res = ps.surf(lambda w, s: ps.Solution([1 - w, w ** 2]), 8, iterations=3)
    >>> fig = plot_front({"SURF": res}, reference_front=np.c_[1 - np.linspace(0, 1, 50),
    ...                                                       np.linspace(0, 1, 50) ** 2])
    >>> len(fig.axes), fig.axes[1].get_ylabel()          # plot + colour bar
    (2, 'weight w on objective 1')
    """
    entries = _check_results(results)
    names = _check_objective_names(objective_names)
    parsed = {name: _front_entry(name, value, "plot_front") for name, value in entries.items()}
    for name, (_, pts) in parsed.items():
        _check_two_objectives(pts, f"results[{name!r}]", "plot_front")
    ref = _check_reference(reference_front, "plot_front")
    mode, colour_label = _colour_mode(color_by, [w for w, _ in parsed.values()], ref)

    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D

    if ax is None:
        fig, ax = pyplot().subplots(figsize=(6.0, 4.8), layout="constrained")
    else:
        fig = _axes_figure(ax)
    colour_map = colormaps[cmap] if isinstance(cmap, str) else cmap
    norm = Normalize(vmin=0.0, vmax=1.0)
    handles: list[Any] = []
    if ref is not None:
        handles.append(_draw_reference(ax, ref))
    for i, (name, (weights, pts)) in enumerate(parsed.items()):
        colour, marker = _method_style(i)
        _draw_points(
            ax,
            pts,
            _colour_values(mode, weights, pts, ref),
            colour,
            marker,
            colour_map,
            norm,
            _piece_breaks(entries[name], len(pts)),
        )
        handles.append(
            Line2D(
                [],
                [],
                color=colour,
                marker=marker,
                markerfacecolor="white",
                markeredgecolor=colour,
                linewidth=1.0,
                label=name,
            )
        )
    if mode is not None:
        fig.colorbar(ScalarMappable(norm=norm, cmap=colour_map), ax=ax, label=colour_label)
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.legend(handles=handles, loc="best", fontsize="small")
    if title is not None:
        ax.set_title(title)
    return fig


def _panel_entries(results: object) -> list[tuple[str, FloatArray | None, FloatArray]]:
    """``(label, weights or None, points)`` per method of :func:`plot_fronts`."""
    if isinstance(results, Mapping):
        return [
            (name, *_front_entry(name, value, "plot_fronts"))
            for name, value in _check_results(results).items()
        ]
    if isinstance(results, (str, bytes)) or not isinstance(results, Sequence):
        raise TypeError(
            f"results must be a mapping from method name to result, or a sequence "
            f"of results with a .label, got {type(results).__name__}"
        )
    if len(results) == 0:
        raise ValueError("results must hold at least one method, got an empty sequence")
    out = []
    for i, value in enumerate(results):
        label = getattr(value, "label", None)
        if not isinstance(label, str):
            raise TypeError(
                f"results[{i}] must be a Result (with a str .label, .weights and "
                f".points), got {type(value).__name__}; pass a mapping from name "
                f"to result to name other objects"
            )
        out.append((label, *_front_entry(label, value, "plot_fronts")))
    return out


def _panel_grid(n: int, ncols: object) -> tuple[int, int]:
    """``(rows, columns)`` of ``n`` panels."""
    if ncols is None:
        cols = n if n <= MAX_ROW_PANELS else WRAP_COLUMNS
    elif isinstance(ncols, bool) or not isinstance(ncols, numbers.Integral) or ncols < 1:
        raise ValueError(f"ncols must be an integer >= 1 or None, got {ncols!r}")
    else:
        cols = min(int(ncols), n)
    return -(-n // cols), cols


def _padded_limits(values: FloatArray, margin: float = 0.04) -> tuple[float, float]:
    lo, hi = float(values.min()), float(values.max())
    pad = margin * (hi - lo) if hi > lo else margin * max(abs(lo), 1.0)
    return lo - pad, hi + pad


def _panel_title(label: str, points: FloatArray, result: object = None) -> str:
    """The method's label over the CV and gap ratio of its points: a result's own (measured
    in its run's coordinates, as its message and history are), else of the points' gaps."""
    from paretosurf.metrics import cv_of_gaps, gap_ratio_of_gaps

    gaps = np.linalg.norm(np.diff(points, axis=0), axis=1)
    if gaps.size == 0:
        return f"{label}\n(one point)"
    own = (getattr(result, "cv", None), getattr(result, "gap_ratio", None))
    if all(isinstance(v, float) and math.isfinite(v) for v in own):
        values = own
    else:
        values = (cv_of_gaps(gaps), gap_ratio_of_gaps(gaps))
    cv, ratio = (f"{v:#.3g}".rstrip(".") for v in values)
    return f"{label}\nCV {cv}, gap ratio {ratio}"


def plot_fronts(
    results: Mapping[str, Any] | Sequence[Any],
    *,
    reference_front: ArrayLike | None = None,
    reference_label: str = "exact front",
    objective_names: Sequence[str] | None = None,
    color_by: str = "auto",
    ncols: int | None = None,
    ax: Sequence[Axes] | None = None,
    title: str | None = None,
    cmap: str | Colormap = "viridis",
) -> Figure:
    """One panel per method, side by side on shared axes: the points each method found.

    Each panel shows the exact front as a thin grey line, the method's points joined in weight
    order by a thin line in the method's colour (the colour and marker :func:`plot_uniformity`
    gives it; the line breaks between the pieces a result reports, ``res.pieces``), and is
    titled with the method's label and the CV and gap ratio of its points (0 and 1 are
    perfectly even): a result's own ``cv`` and ``gap_ratio``, measured in its
    run's coordinates as its message and history are; for plain arrays,
    :func:`paretosurf.metrics.cv` and :func:`paretosurf.metrics.gap_ratio` of the points as
    given. All panels have the same axis limits, so the spacing of the points can be compared
    at a glance. The points are filled with the colour of their weight or of their position
    along the front (``color_by``), on one colour bar shared by all panels.

    Up to 4 methods make one row; more wrap into rows of 3 panels (``ncols`` overrides). In a
    new figure the panels share their axes (zooming one zooms all), and only the outer panels
    carry axis labels and tick labels.

    Parameters
    ----------
    results : mapping or sequence
        Method name to a :class:`~paretosurf.Result` (or any object with increasing
        ``weights`` of shape (P,) and ``points`` of shape (P, 2)) or to a (P, 2) array of points
        in weight order; or a sequence of results, each titled by its ``label``. Weight
        vectors of shape (P, 2) (:func:`paretosurf.surf_simplex` with M = 2) stand for their
        first component, the weight on objective 1, as in :func:`plot_front`.
    reference_front : array_like, shape (R, 2), optional
        Exact front (e.g. ``problem.reference_front(1001)``), ordered from its ``w = 0`` end,
        drawn under every panel.
    reference_label : str
        The reference front's legend entry, for a reference that is not the exact front
        (such as the non-dominated union of every method's points).
    objective_names : pair of str, optional
        Axis labels (default ``("objective 1", "objective 2")``).
    color_by : {"auto", "weight", "position"}
        What the fill colour shows, from 0 to 1. ``"weight"``: the point's weight
        (:data:`WEIGHT_LABEL`; points given as bare arrays are filled with the method's colour,
        and there is no colour bar when no method gives weights). ``"position"``: the point's
        position along the front: with ``reference_front``, the arc length from the front's
        first point to the point's nearest point on it, as a fraction of the front's length
        (:data:`POSITION_LABEL`); without it, the cumulative chord length from the method's
        first point, as a fraction of its total (:data:`CHORD_POSITION_LABEL`). ``"auto"``
        (default): by position when the weights of any method cluster (see
        :func:`weights_cluster`: more than half of them within an interval of width 0.05),
        where colours by weight would be indistinguishable, else by weight.
    ncols : int, optional
        Panels per row.
    ax : sequence of matplotlib Axes, optional
        One Axes per method, all in one figure, to draw into (default: a new figure). Their
        limits are set equal; they are not otherwise linked.
    title : str, optional
        Figure title (``suptitle``).
    cmap : str or Colormap
        Colour map of the weights or positions.

    Returns
    -------
    matplotlib.figure.Figure
        With one Axes per method, in the order of ``results``, then the colour bar's Axes (if
        any).

    Raises
    ------
    ValueError
        If ``results`` is empty, a result has no points, anything has M != 2 objectives (for
        M >= 3 the message names :func:`plot_surface_result` and :func:`plot_surface`), or an
        option is out of range.
    TypeError
        If ``results`` is not a mapping of names to results or arrays or a sequence of results,
        or ``ax`` is not a sequence of Axes.

    Examples
    --------
    >>> import numpy as np
    >>> import paretosurf as ps
    >>> from paretosurf.methods import uniform
    >>> from paretosurf.plotting import plot_fronts
    >>> solver = lambda w, s: ps.Solution([1 - w, w ** 2])
    >>> runs = [ps.surf(solver, 8, iterations=5), uniform(solver, 8, iterations=1)]
    >>> w = np.linspace(0, 1, 201)
    >>> fig = plot_fronts(runs, reference_front=np.c_[1 - w, w ** 2])
    >>> len(fig.axes)                                   # two panels and the colour bar
    3
    >>> print(fig.axes[1].get_title())
    Uniform-w
    CV 0.257, gap ratio 2.11
    >>> fig.axes[2].get_ylabel()
    'weight w on objective 1'
    >>> fig.axes[0].get_xlim() == fig.axes[1].get_xlim()
    True

    Weights that cluster (here 7 of 9 within 0.05) are coloured by position instead:

    >>> wc = np.array([0, 0.5, 0.95, 0.96, 0.97, 0.98, 0.99, 0.995, 1])
    >>> from types import SimpleNamespace
    >>> fig = plot_fronts({"clustered": SimpleNamespace(weights=wc, points=np.c_[1 - wc, wc**2])})
    >>> fig.axes[1].get_ylabel()
    'chord-length position along the points'
    """
    entries = _panel_entries(results)
    originals = list(results.values() if isinstance(results, Mapping) else results)
    names = _check_objective_names(objective_names)
    for label, _, pts in entries:
        _check_two_objectives(pts, f"the points of {label!r}", "plot_fronts")
    ref = _check_reference(reference_front, "plot_fronts")
    mode, colour_label = _colour_mode(color_by, [w for _, w, _ in entries], ref)
    n = len(entries)
    rows, cols = _panel_grid(n, ncols)

    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    created = ax is None
    if ax is None:
        fig, grid = pyplot().subplots(
            rows,
            cols,
            squeeze=False,
            sharex=True,
            sharey=True,
            layout="constrained",
            figsize=(
                3.4 * cols + (1.0 if mode is not None else 0.2),
                3.0 * rows + (0.5 if title is not None else 0.2),
            ),
        )
        panels = [grid[i // cols, i % cols] for i in range(n)]
        for extra in grid.flat[n:]:
            fig.delaxes(extra)
    else:
        if isinstance(ax, (str, bytes)) or not isinstance(ax, Sequence):
            raise TypeError(
                f"ax must be a sequence of matplotlib Axes (one per method), got "
                f"{type(ax).__name__}"
            )
        panels = list(ax)
        if len(panels) != n:
            raise ValueError(f"ax must hold one Axes per method ({n}), got {len(panels)}")
        figures = {id(_axes_figure(a)): _axes_figure(a) for a in panels}
        if len(figures) != 1:
            raise ValueError("the Axes in ax must belong to one figure")
        fig = next(iter(figures.values()))

    colour_map = colormaps[cmap] if isinstance(cmap, str) else cmap
    norm = Normalize(vmin=0.0, vmax=1.0)
    everything = [pts for _, _, pts in entries] + ([] if ref is None else [ref])
    stacked = np.concatenate(everything, axis=0)
    xlim, ylim = _padded_limits(stacked[:, 0]), _padded_limits(stacked[:, 1])
    for i, (panel, (label, weights, pts)) in enumerate(zip(panels, entries, strict=True)):
        colour, marker = _method_style(i)
        if ref is not None:
            line = _draw_reference(panel, ref, reference_label)
            if i == 0:
                panel.legend(handles=[line], loc="best", fontsize="small")
        _draw_points(
            panel,
            pts,
            _colour_values(mode, weights, pts, ref),
            colour,
            marker,
            colour_map,
            norm,
            _piece_breaks(originals[i], len(pts)),
        )
        panel.set_title(_panel_title(label, pts, originals[i]), fontsize="medium")
        panel.set_xlim(xlim)
        panel.set_ylim(ylim)
        panel.grid(True, alpha=0.25)
        col = i % cols
        bottom = not created or i + cols >= n  # no panel below this one
        left = not created or col == 0
        if bottom:
            panel.set_xlabel(names[0])
        if left:
            panel.set_ylabel(names[1])
        if created:
            panel.tick_params(labelbottom=bottom, labelleft=left)
    if mode is not None:
        fig.colorbar(ScalarMappable(norm=norm, cmap=colour_map), ax=panels, label=colour_label)
    if title is not None:
        fig.suptitle(title, fontsize="medium")
    return fig
