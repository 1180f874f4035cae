"""Which round a run reports: its last, or the most even of its last few.

A run's last round is not always its best. With three or more objectives, SURF's layout moves
points of strongly distorted surfaces past one another now and then, so that a round's spacing
swings (on a random quadratic, nearest-neighbour max/min 2.7, 36, 6.1 in rounds 18-20). With
noisy objectives (a deep-RL solver whose policy changes from call to call), each round's points
scatter around the front, more in some rounds than in others. Reporting the most even of the
last :data:`KEEP_ROUNDS` rounds then gives the user a better front at no extra solve.

The choice is made on what the run records, the round's gap ratio (largest gap over smallest,
in the coordinates the run measures distances in: consecutive points with two objectives,
nearest neighbours with more), not on any reference the user does not have. It is made on the
round's own points, not on their ``moving_average``: the result returns the round's states, and
their points are the round's. :class:`RoundKeeper` keeps the candidates: each round in the window
that is more even than every later one (a sliding-window minimum), with the keys of their solver
states, which the run keeps alive.

On MO-MountainCar (soft DQN, 8 seeds), reporting the most even of the last 5 rounds instead
of the last took SURF's CV from 0.63 to 0.40 and its gap ratio from 10.5 to 3.9, both measured
on 256 fresh evaluation episodes of the reported policies, independent of the 32 the choice was
made on; choosing on the moving averages instead reached only 0.51 and 4.9.

Examples
--------
>>> import numpy as np
>>> from paretosurf.loop._kept_rounds import RoundKeeper
>>> keeper = RoundKeeper()
>>> w = np.linspace(0.0, 1.0, 3)
>>> keeper.tell(w, np.array([[0, 1], [0.5, 0.5], [1, 0]]), [1, 2, 3], spread=1.0)
>>> keeper.tell(w, np.array([[0, 1], [0.1, 0.9], [1, 0]]), [4, 5, 6], spread=8.0)
>>> front = keeper.reported()
>>> front.round, front.keys
(0, [1, 2, 3])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

#: The result reports the most even round (lowest ratio of the largest to the smallest gap)
#: among at most this many last rounds when the run reports "most-even". Over 16 random
#: quadratics with three objectives (91 points, 20 rounds) the last round's nearest-neighbour
#: max/min exceeded 3 in 3, the most even of the last 5 in none (at most 2.7).
KEEP_ROUNDS = 5

#: The values of a run's ``report`` option.
REPORT_CHOICES = ("auto", "last", "most-even")


def check_report(report: object) -> str:
    """Validate a run's ``report`` option (see :func:`paretosurf.loop.run`).

    Examples
    --------
    >>> check_report("most-even")
    'most-even'
    """
    if not isinstance(report, str) or report not in REPORT_CHOICES:
        raise ValueError(
            f"report must be one of {', '.join(map(repr, REPORT_CHOICES))}, got {report!r}"
        )
    return report


@dataclass(frozen=True)
class ReportedFront:
    """An earlier round's front that a run's result reports instead of its last round's.

    Attributes
    ----------
    weights, points : ndarray
        The round's weights and points.
    keys : list of int or None
        The pool keys of its states.
    round : int
        Its index in the run's history.
    note : str
        Why this round (the result's message carries it).
    """

    weights: FloatArray
    points: FloatArray
    keys: list[int | None]
    round: int
    note: str


class KeptRound(NamedTuple):
    """A candidate for the result: its index in the history, its spread (largest gap over
    smallest), weights, points and state keys."""

    round_index: int
    spread: float
    weights: FloatArray
    points: FloatArray
    keys: list[int | None]


class RoundKeeper:
    """The candidates for a run's reported round among its last ``window`` rounds.

    Parameters
    ----------
    window : int
        How many last rounds compete (the last one included).
    """

    def __init__(self, window: int = KEEP_ROUNDS) -> None:
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError(f"window must be a positive int, got {window!r}")
        self.window = window
        #: Rounds told so far.
        self.rounds = 0
        #: Each round in the window more even than every later one; oldest (most even) first.
        self.kept: list[KeptRound] = []

    def tell(
        self, weights: FloatArray, points: FloatArray, keys: Sequence[int | None], spread: float
    ) -> None:
        """Take a round: its weights, points, state keys and ``spread``, its largest gap
        over its smallest (lower is more even; ``nan`` counts as infinite)."""
        index = self.rounds
        self.rounds += 1
        spread = float(spread) if math.isfinite(spread) else math.inf
        # a sliding-window minimum: a round is dropped once a later one is at least as even
        # (it can never be the window's most even again) or once it leaves the window
        self.kept = [
            k for k in self.kept if k.spread < spread and index - k.round_index < self.window
        ]
        self.kept.append(
            KeptRound(
                index,
                spread,
                np.array(weights, dtype=np.float64),
                np.array(points, dtype=np.float64),
                list(keys),
            )
        )

    def keys(self) -> list[int | None]:
        """The state keys of every candidate (the run keeps these states)."""
        return [key for k in self.kept for key in k.keys]

    def reported(self) -> ReportedFront | None:
        """The most even candidate, or ``None`` when it is the last round."""
        if not self.kept or self.kept[0].round_index == self.rounds - 1:
            return None
        best = self.kept[0]
        return ReportedFront(
            best.weights,
            best.points,
            best.keys,
            best.round_index,
            f"the points of round {best.round_index} (history[{best.round_index}]), the most "
            f"even of the last {min(self.window, self.rounds)} rounds (largest gap over smallest "
            f"{best.spread:.3g})",
        )

    def state_dict(self) -> tuple[dict[str, Any], dict[str, FloatArray]]:
        """JSON-able values and named arrays, for :meth:`load_state_dict`."""
        meta = {
            "rounds": self.rounds,
            "kept": [
                {"round": k.round_index, "spread": k.spread, "keys": list(k.keys)}
                for k in self.kept
            ],
        }
        arrays: dict[str, FloatArray] = {}
        for i, k in enumerate(self.kept):
            arrays[f"{i}/weights"], arrays[f"{i}/points"] = k.weights, k.points
        return meta, arrays

    def load_state_dict(self, meta: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]]) -> None:
        """Restore what :meth:`state_dict` returned."""
        self.rounds = int(meta["rounds"])
        self.kept = [
            KeptRound(
                int(k["round"]),
                float(k["spread"]),
                np.asarray(arrays[f"{i}/weights"], dtype=np.float64),
                np.asarray(arrays[f"{i}/points"], dtype=np.float64),
                [None if key is None else int(key) for key in k["keys"]],
            )
            for i, k in enumerate(meta["kept"])
        ]
