"""What a method is: the :class:`Method` interface, the :class:`Round` it proposes and the
:class:`RoundOutcome` it is told.

A *method* (SURF, Uniform-w, OLS, ...) only decides where to solve; the driver
(:func:`paretosurf.loop.run`) solves, retries, records, checkpoints and resumes, the same way
for every method. This module holds the interface between the two and the checks the driver
makes of what a method proposes (:func:`check_round`) and of the points it is told
(:func:`check_points`). It imports nothing of the driver: a method module needs only this one
(and :func:`paretosurf.loop.run` for its entry function).

Adding a method is one :class:`Method` subclass; ``baselines/uniform.py`` is the shortest
example to copy, and :mod:`paretosurf.testing` checks it against the contract every method
keeps.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from paretosurf.findings import Finding
from paretosurf.result import IterationRecord
from paretosurf.storage import StatePool

__all__ = ["Method", "Round", "RoundOutcome", "check_points", "check_round"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Round:
    """One round a method asks for.

    Attributes
    ----------
    weights : ndarray, shape (R,) or (R, M)
        Weights to solve at: scalars in [0, 1] (two objectives), or weight vectors on the
        simplex (rows of M >= 2 non-negative entries summing to 1).
    starts : sequence of int or None, length R
        For each weight, the key of the stored state that warm-starts it (``None``: the
        solver's cold start).
    slots : sequence of int, optional
        Slot numbers named in error messages (default ``0..R-1``).
    repeats : int
        Consecutive calls per weight, each warm-started from the previous call's state; the
        last call's solution is reported, every call is counted in the budget (OLS gives a
        K-step solver several calls per visited weight this way).
    """

    weights: FloatArray
    starts: Sequence[int | None]
    slots: Sequence[int] | None = None
    repeats: int = 1


@dataclass
class RoundOutcome:
    """What a round found: the points at the round's weights and the keys of the new states.

    ``points`` has shape (R, M), the objectives the solver returned; ``keys[i]`` is the pool
    key of the state of ``weights[i]``; ``infos`` the solvers' ``Solution.info`` dicts.
    ``estimates`` are the points averaged across rounds per slot (the run's
    ``moving_average``; equal to ``points`` without it) and ``coordinates`` the estimates in
    the coordinates distances are measured in (the run's ``normalize``): a method that spaces
    points uses ``coordinates``.
    """

    weights: FloatArray
    points: FloatArray
    keys: list[int]
    infos: list[dict[str, Any]] = field(default_factory=list)
    estimates: FloatArray | None = None
    coordinates: FloatArray | None = None

    def __post_init__(self) -> None:
        if self.estimates is None:
            self.estimates = self.points
        if self.coordinates is None:
            self.coordinates = self.estimates


# ---------------------------------------------------------------------------- methods
class Method(ABC):
    """A multi-objective method run by :func:`run`: it only decides where to solve.

    Subclasses set :attr:`name` and :attr:`label` and implement the abstract hooks; see
    ``baselines/uniform.py`` for the shortest complete example.
    """

    #: Short name, recorded in checkpoints and results (``"surf"``).
    name: ClassVar[str]
    #: Display name (``"SURF"``).
    label: ClassVar[str]
    #: Number of objectives the method handles (``None``: any).
    n_objectives: ClassVar[int | None] = 2
    #: Whether the points come from scalarized solves at their weights, so that objective 1
    #: falls and objective 2 rises with the weight (False for interpolated points).
    ordered: ClassVar[bool] = True
    #: Whether :meth:`front` is the last round's points, one per slot, so that an earlier
    #: round's could be reported instead (the run's ``report="most-even"``).
    front_is_last_round: ClassVar[bool] = False
    #: Whether the method aims at evenly spaced points (SURF): a result less even than the
    #: run's ``target`` then fails; for the others, unevenness is advice.
    aims_even: ClassVar[bool] = False
    #: Whether the method solves scalar weights from 0 to 1 with its end slots at 0 and 1
    #: (two objectives), so that the run finds the front's ends before its first round
    #: and holds the result to them (:mod:`paretosurf.findings`; ``weight_bounds`` then
    #: act in the run's units, and ``"auto"`` is allowed).
    verifies_ends: ClassVar[bool] = False
    #: Whether the run holds the method's result (three or more objectives) to each
    #: objective's end, solved after the run from the reported point where that objective
    #: is least, where the solver can (:func:`~paretosurf.findings.verify_extremes`).
    verifies_extremes: ClassVar[bool] = False

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """Every setting of the method, JSON-able. A checkpoint records them and refuses to
        resume under different ones."""

    def adopt_saved(self, saved: Mapping[str, Any]) -> None:
        """Before a resume is checked against the checkpoint's ``saved`` settings: take the
        saved value of a setting the user left to be chosen (a default ``"auto"`` whose
        choice has changed since the run was saved). Default: nothing."""
        return None

    @abstractmethod
    def start(self, init_keys: list[int | None] | None) -> None:
        """Begin a fresh run; ``init_keys`` are the pool keys of the user's ``init_states``
        (``None`` entries: no warm start), or ``None`` when none were given."""

    @abstractmethod
    def propose(self) -> Round | None:
        """The next round, or ``None`` when the method has finished."""

    @abstractmethod
    def tell(self, outcome: RoundOutcome, pool: StatePool) -> None:
        """Take the round's points and new state keys (``pool`` gives access to the states,
        for methods that build states themselves, such as Soup)."""

    @abstractmethod
    def front(self) -> tuple[FloatArray, FloatArray, list[int | None]]:
        """The method's current points: ``(weights, points, state keys)``, ordered by weight.
        Before any round, ``points`` has shape ``(P, 0)``."""

    @abstractmethod
    def state_dict(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """The method's own state: JSON-able values and named arrays (containers of its own,
        not ones it goes on changing)."""

    @abstractmethod
    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        history: Sequence[IterationRecord],
    ) -> None:
        """Restore what :meth:`state_dict` returned (``history``: the run's records so far,
        for methods whose data are the past rounds, such as UMOD)."""

    def live_keys(self) -> list[int | None]:
        """Keys of the states the method may still propose or report (default: those of
        :meth:`front`); the run forgets the others."""
        return self.front()[2]

    def convergence_change(self) -> float:
        """The change ``tol`` compares with (default :meth:`weight_change`; a damped method
        gives the undamped one, so that a small damping does not pass for convergence)."""
        return self.weight_change()

    def findings(self) -> list[Finding]:
        """What the method itself knows is not as asked (fewer points than requested, say),
        added to the diagnosis of its points (default: nothing)."""
        return []

    def known_ends(self) -> FloatArray | None:
        """Raw points, shape (2, M), that earlier rounds reached at the two ends of a front
        that is a curve in M >= 3 objectives, which the reported points must still reach
        (the ``coverage`` finding, :func:`~paretosurf.findings.curve_coverage_finding`);
        default ``None``: none known."""
        return None

    def suspected_gaps(self) -> list[int]:
        """The chords (``i``: between the ``i``-th and ``i + 1``-th point of its last round,
        in weight order) that the method took for gaps of the front (SURF: the breaks between
        its pieces). A slot stopped in a local basin beside a chord looks the same as a gap,
        so basin probes solve across them (:func:`~paretosurf.loop.gap_pairs`);
        default none."""
        return []

    def weight_change(self) -> float:
        """How far the next round's weights move from this round's (``nan`` if the notion
        does not apply); ``tol`` compares with it unless :meth:`convergence_change` says
        otherwise."""
        return math.nan

    def record_extras(self) -> dict[str, Any]:
        """What the method adds to the round's :class:`IterationRecord`: keyword arguments of
        :meth:`IterationRecord.from_points` (SURF: its CDF ``cdf``, the round's estimate
        ``cdf_estimate`` and damping ``alpha``); default none."""
        return {}

    def result_extras(self) -> dict[str, Any]:
        """What the method adds to its result: keyword arguments of :class:`Result`
        (SURF: its CDF ``cdf``); default none."""
        return {}

    def settle_options(self) -> dict[str, Any]:
        """Settings that would settle the weights in fewer rounds, named in the advice of a
        run whose weights were still moving when its iterations ran out (SURF with a fixed
        damping: ``{"alpha": "auto"}``); default none."""
        return {}

    def settle_share(self) -> float:
        """The largest share of its own spacing by which a full step would move one of the
        method's weights, among those floating point resolves (SURF: see
        :meth:`~paretosurf.methods.SlotMethod.settle_share`), for the advice that the weights
        were still moving when the iterations ran out; default ``nan`` (no such measure)."""
        return math.nan

    def settled(self) -> bool:
        """Whether the method's weights have stopped moving enough for the run to end once
        its points meet the spacing target (``early_stopping``; SURF: a full step would move
        each weight by less than :data:`~paretosurf.methods.SETTLED_SPACING` of its own
        spacing);
        default ``False``: the run goes on to its round limit."""
        return False

    @property
    def converged(self) -> bool:
        """Whether the method stopped because nothing is left to improve."""
        return False


# ---------------------------------------------------------------------------- checks
def check_round(rnd: Round, label: str) -> FloatArray:
    """The weights of the round a method proposed, checked: one or more, each with its warm
    start, in [0, 1], and weight vectors on the simplex.

    Parameters
    ----------
    rnd : Round
        The proposed round.
    label : str
        The method's display name, for the messages.

    Returns
    -------
    ndarray, shape (R,) or (R, M)
        ``rnd.weights`` as float64.

    Raises
    ------
    ValueError
        Naming the method and what is wrong.

    Examples
    --------
    >>> from paretosurf.loop._method import Round, check_round
    >>> check_round(Round([0.0, 1.0], [None, None]), "Mine").tolist()
    [0.0, 1.0]
    >>> check_round(Round([0.5, 1.5], [None, None]), "Mine")
    Traceback (most recent call last):
    ...
    ValueError: Mine proposed weights outside [0, 1]: [0.5, 1.5]
    """
    weights = np.asarray(rnd.weights, dtype=np.float64)
    n_weights = weights.shape[0] if weights.ndim else 0
    if weights.ndim not in (1, 2) or len(rnd.starts) != n_weights or n_weights == 0:
        raise ValueError(f"{label} proposed {n_weights} weights with {len(rnd.starts)} warm starts")
    # (the least at least 0 and the largest at most 1: every weight finite and in [0, 1],
    # as a NaN or an infinity fails one of the two)
    if not (weights.min() >= 0 and weights.max() <= 1):
        raise ValueError(f"{label} proposed weights outside [0, 1]: {weights.tolist()}")
    if weights.ndim == 2 and np.any(np.abs(weights.sum(axis=1) - 1.0) > 1e-9):
        raise ValueError(
            f"{label} proposed weight vectors off the simplex (rows must sum to 1): "
            f"{weights.tolist()}"
        )
    return weights


def check_points(
    points: FloatArray, weights: FloatArray, method: Method, index: int, before: int | None
) -> int:
    """The number of objectives of a round's ``points``, after refusing another number than
    the method's (two for scalar weights), or than the earlier rounds' (``before``; ``None``
    before the first round). ``index`` is the round's, for the message."""
    m = int(points.shape[1])
    wanted = method.n_objectives
    if wanted is None and weights.ndim == 1:
        wanted = 2  # a scalar weight w trades off exactly two objectives
    if wanted is not None and m != wanted:
        what = (
            "the two objectives to trade off, both minimized"
            if wanted == 2
            else f"the {wanted} objectives to trade off, all minimized"
        )
        raise ValueError(
            f"{method.label} spaces points along a front of {wanted} objectives; the "
            f"solver returned {m} (objective vectors of shape ({m},)). Return {what}"
        )
    if before is not None and m != before:
        raise ValueError(
            f"the solver returned {m} objectives in round {index}, but {before} before"
        )
    return m
