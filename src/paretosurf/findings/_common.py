"""What the checks of a run's points share: the arrays they read, a round of the run's
history, the remedies that name a Tchebycheff scalarization, and how a finding lists slots."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from paretosurf.curves import RoundLike

FloatArray = NDArray[np.float64]

#: The remedy of a scalarization that weighted sums need to reach a stretch of the front.
_TCHEBYCHEFF = (
    "a Tchebycheff scalarization (scalarization='tchebycheff' in "
    "paretosurf.adapters), whose ideal point lies below every objective value"
)
#: Appended to the Tchebycheff remedies: a solver that already uses it needs a good ideal.
_TCHEBYCHEFF_IDEAL = (
    "; if the solver already uses it, its ideal point must be at or below "
    "every objective's smallest value"
)


#: One round of a run's history, as the checks read it.
_Round = RoundLike


def _short(indices: list[int]) -> str:
    """The first eight of ``indices`` for a message, ``"1, 2, 3"``, then ``", ..."``."""
    shown = ", ".join(str(i) for i in indices[:8])
    return shown + (", ..." if len(indices) > 8 else "")
