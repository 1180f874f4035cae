"""The drawing backend of the plots: pyplot without a display, each method's style, the
figure of an axes, and :func:`save_figure`."""

from __future__ import annotations

import numbers
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.colors import Colormap
    from matplotlib.figure import Figure

__all__ = ["save_figure"]

#: Markers given to the methods of a plot, in order (then repeated).
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def _no_display() -> bool:
    """Whether this process has no screen to draw on (Linux/BSD without X11 or Wayland)."""
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return False


def pyplot() -> Any:
    """matplotlib.pyplot, imported at the first call, with the Agg backend selected first when
    there is no display: the one place the package imports pyplot."""
    import matplotlib

    if (
        "matplotlib.pyplot" not in sys.modules
        and not os.environ.get("MPLBACKEND")
        and _no_display()
    ):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _method_style(index: int) -> tuple[Any, str]:
    """Line colour and marker of the ``index``-th method (the same in every plot)."""
    from matplotlib import colormaps

    colour = colormaps["tab10"](index % 10)
    return colour, MARKERS[index % len(MARKERS)]


def _axes_figure(ax: Any) -> Figure:
    fig = getattr(ax, "figure", None)
    if fig is None or not hasattr(ax, "plot"):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    return fig


def _truncated(cmap: str | Colormap, low: float) -> Colormap:
    """``cmap`` restricted to ``[low, 1]`` (drops the palest colours)."""
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap

    base = colormaps[cmap] if isinstance(cmap, str) else cmap
    return ListedColormap(base(np.linspace(low, 1.0, 256)))


def save_figure(fig: Figure, path: str | Path, *, dpi: int = 150) -> Path:
    """Write ``fig`` to ``path`` (PNG unless the suffix names another format), creating the
    parent folders. Returns the path written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import paretosurf as ps
    >>> from paretosurf.plotting import plot_uniformity, save_figure
    >>> res = ps.surf(lambda w, s: ps.Solution([1 - w, w ** 2]), 4, iterations=2)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = save_figure(plot_uniformity({"SURF": res}), pathlib.Path(tmp) / "a" / "u")
    ...     out.name, out.stat().st_size > 0
    ('u.png', True)
    """
    if not hasattr(fig, "savefig"):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    if isinstance(dpi, bool) or not isinstance(dpi, numbers.Integral) or dpi < 1:
        raise ValueError(f"dpi must be an integer >= 1, got {dpi!r}")
    target = Path(path)
    if not target.suffix:
        target = target.with_suffix(".png")
    target.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(target, dpi=int(dpi), bbox_inches="tight")
    return target
