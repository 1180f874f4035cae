"""The objectives' ranges: an objective that does not vary over the points (``constant``: there
is no trade-off to spread points along), and, with ``normalize="none"``, ranges that differ by
more than :data:`SCALE_RATIO` (``scale``: one objective's differences make up the distances)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paretosurf.findings._finding import Finding

if TYPE_CHECKING:
    from paretosurf.findings._evidence import Evidence

#: Objective ranges differing by more than this factor make raw coordinates lopsided.
SCALE_RATIO = 1e3


def check_constant(ev: Evidence) -> list[Finding]:
    """``constant``: the objectives that do not vary over the points."""
    constant, points = ev.constant, ev.points
    if not constant.size:
        return []
    which = " and ".join(f"objective {m + 1} (= {points[0, m]:.6g})" for m in constant)
    verb = "does" if constant.size == 1 else "do"
    return [
        Finding(
            "constant",
            f"{which} {verb} not vary over the points: there is no trade-off to "
            "spread points along",
            remedy="check that the solver returns the objectives you meant",
            summary=f"{which} {verb} not vary: no trade-off",
        )
    ]


def check_scale(ev: Evidence) -> list[Finding]:
    """``scale`` (advice): with ``normalize="none"``, objectives' ranges that differ by more
    than :data:`SCALE_RATIO`."""
    ranges = ev.ranges
    if not (ev.normalize == "none" and ranges.max() > SCALE_RATIO * ranges.min()):
        return []
    big = int(np.argmax(ranges))
    return [
        Finding(
            "scale",
            f"with normalize='none' the objectives' ranges differ by a factor of "
            f"{ranges.max() / ranges.min():.3g}, so distances (and the spacing) are dominated "
            f"by objective {big + 1}; use normalize='endpoints' to measure them in normalized "
            "coordinates",
            fatal=False,
            remedy="{normalize}",
            options={"normalize": "endpoints"},
            summary=f"objective ranges differ by {ranges.max() / ranges.min():.3g}x",
        )
    ]
