"""Plots of fronts and of SURF's convergence (matplotlib, imported only when a plot is drawn).

Four figures cover what a run shows:

- :func:`plot_fronts`: one panel per method, side by side on shared axes, each with the method's
  points joined in weight order over the exact front (a thin grey line) and titled with the
  method's CV and gap ratio; points are coloured by their weight, or by their position along the
  front when the weights cluster (see :func:`weights_cluster`);
- :func:`plot_front`: the same points of one or more methods overlaid on one axes;
- :func:`plot_cdf_history`: SURF's CDF estimates ``Phi_t`` iteration by iteration, with the
  distance to the true CDF when it is known;
- :func:`plot_uniformity`: CV and gap ratio of the points per outer iteration (of the
  nearest-neighbour distances for runs of M >= 3 objectives, as their records hold).

The front plots take the results of :func:`paretosurf.surf_simplex` with M = 2 as well: a
weight vector ``(w, 1 - w)`` stands for ``w``, the weight on objective 1. They refuse results of
M >= 3 objectives with a message naming the surface plots below.

For M >= 3 objectives (Pareto surfaces), :func:`plot_surface` draws the points in 3-D and
:func:`plot_simplex_weights` the weight vectors of an M = 3 run in the weight triangle, each
point coloured by its weight vector read as RGB; :func:`plot_surface_result` puts both side by
side. These two return the :class:`~matplotlib.axes.Axes` they drew into.

The other functions draw into the axes they are given (or a new figure) and return the
:class:`~matplotlib.figure.Figure`; :func:`save_figure` writes it to a file. Without a display
(no ``DISPLAY``/``WAYLAND_DISPLAY`` on Linux and no ``MPLBACKEND``) the non-interactive Agg
backend is selected, so the functions work on servers and in CI.

The package has one module per plot family: :mod:`~paretosurf.plotting.fronts` (the two front
plots), :mod:`~paretosurf.plotting.history` (CDF history and uniformity),
:mod:`~paretosurf.plotting.surfaces` (M >= 3) and :mod:`~paretosurf.plotting.colours` (what the
points are coloured by); ``_checks`` holds the input checks and ``_backend`` pyplot, the
methods' styles and :func:`save_figure`. Every name is importable from
``paretosurf.plotting``.
"""

from __future__ import annotations

from paretosurf.plotting._backend import (
    MARKERS as MARKERS,
)
from paretosurf.plotting._backend import (
    pyplot as pyplot,
)
from paretosurf.plotting._backend import (
    save_figure,
)
from paretosurf.plotting._checks import (
    SURFACE_PLOTS as SURFACE_PLOTS,
)
from paretosurf.plotting.colours import (
    CHORD_POSITION_LABEL as CHORD_POSITION_LABEL,
)
from paretosurf.plotting.colours import (
    CLUSTER_FRACTION as CLUSTER_FRACTION,
)
from paretosurf.plotting.colours import (
    CLUSTER_WIDTH as CLUSTER_WIDTH,
)
from paretosurf.plotting.colours import (
    COLOR_BY as COLOR_BY,
)
from paretosurf.plotting.colours import (
    POSITION_LABEL as POSITION_LABEL,
)
from paretosurf.plotting.colours import (
    WEIGHT_LABEL as WEIGHT_LABEL,
)
from paretosurf.plotting.colours import (
    weight_colors,
    weights_cluster,
)
from paretosurf.plotting.fronts import (
    MAX_ROW_PANELS as MAX_ROW_PANELS,
)
from paretosurf.plotting.fronts import (
    WRAP_COLUMNS as WRAP_COLUMNS,
)
from paretosurf.plotting.fronts import (
    plot_front,
    plot_fronts,
)
from paretosurf.plotting.history import (
    CDF_ERROR_GRID as CDF_ERROR_GRID,
)
from paretosurf.plotting.history import (
    MAX_DEFAULT_CURVES as MAX_DEFAULT_CURVES,
)
from paretosurf.plotting.history import (
    NN_SUFFIX as NN_SUFFIX,
)
from paretosurf.plotting.history import (
    UNIFORMITY_LABELS as UNIFORMITY_LABELS,
)
from paretosurf.plotting.history import (
    plot_cdf_history,
    plot_uniformity,
)
from paretosurf.plotting.surfaces import (
    REFERENCE_CLOUD_COLOR as REFERENCE_CLOUD_COLOR,
)
from paretosurf.plotting.surfaces import (
    SIMPLEX_CORNERS as SIMPLEX_CORNERS,
)
from paretosurf.plotting.surfaces import (
    SURFACE_POINT_COLOR as SURFACE_POINT_COLOR,
)
from paretosurf.plotting.surfaces import (
    plot_simplex_weights,
    plot_surface,
    plot_surface_result,
)

__all__ = [
    "plot_cdf_history",
    "plot_front",
    "plot_fronts",
    "plot_simplex_weights",
    "plot_surface",
    "plot_surface_result",
    "plot_uniformity",
    "save_figure",
    "weight_colors",
    "weights_cluster",
]
