"""Basin-escape probes: fresh starts that let a local inner solver leave a poor basin.

A local inner solver (scipy's L-BFGS-B or SLSQP through :func:`~paretosurf.adapters.
from_scipy` and :func:`~paretosurf.adapters.from_pymoo`), warm-started round after round,
stays in the basin each slot started in. On a multimodal problem the points then end on a
local front (pymoo's ZDT4 from a start away from the box centre), and from a flat start every
slot stays where it started (ZDT6 from the box centre, where objective 1's gradient vanishes:
one point). The ``probes`` option of :func:`paretosurf.loop.run` (and so of every method)
sends a few solves a round from fresh starts instead:

1. After a round's slots are solved, a few of them are chosen (:attr:`BasinProbes.per_round`,
   spread over the round's weights and rotated from one probing round to the next, so that
   every slot is probed within ``ceil(slots / per_round)`` probing rounds). Every slot is
   chosen in a first round whose points have collapsed onto a few (at most half as many
   distinct points as slots: a flat start, where the slots stay where they started).
2. Each chosen slot's weight is solved again from a state the solver draws,
   ``probe_start(rng)``, with as many calls as the slot got (``Round.repeats``).
3. The probe's point and the slot's are scored at that weight under the solver's
   scalarization (:func:`~paretosurf.adapters.scalarization.solver_scalarization`; weighted
   sums for a solver that declares none). A probe that scores lower by more than
   :attr:`BasinProbes.margin` of the values' scale replaces the slot's solution for the
   round: its point, its state (the slot's next warm start) and its info.

Two more kinds of start, where the solver offers them:

- **Screened starts** (``screen_starts(rng, count)``, :class:`~paretosurf.adapters.
  ScipySolver`: a scrambled Sobol sample of the box with the objectives at each point). In
  a flat start's first round each slot starts from the sample's point that scores best at
  its weight (about the round's evaluations of points, within :data:`SCREEN_LEAST` and
  :data:`SCREEN_MOST`), rather than from one uniform draw: DTLZ4's ``x^100`` leaves a band
  of 3% of each position variable's range where the objectives move, which few draws hit.
- **Recombined starts** (``recombine(a, b, rng)``: each variable from one state or the
  other). On a surface, a slot whose weight weighs every objective but whose point holds
  one at its least over the round's (:func:`stopped_on_rim`; not while the points lie on
  a curve, whose ends whole bands of weights reach) is solved from a mix of two
  other slots' states (:meth:`RoundProbes.mixed_start`), up to :data:`MIX_PROBES` a round
  on the gap probes' budget. On DTLZ4 screened solves reach the surface's edges, each
  moving one position variable off its flat spot; a mix of two edges' states starts where
  both move.

The probes' solves count in the run's ``n_solves``, ``n_steps`` and, added to their slots'
counts, in the records' ``evaluations`` (the screens' and mixes' evaluations too). They
spend at most :attr:`BasinProbes.share` times the objective evaluations of the run's own
solves (its solves when the solver does not report evaluations; 0.1: a run costs at most
about 10% more than without probes): a round
probes as many of its ``per_round`` slots as keep the probes within that, a probe expected
to cost what the probes so far cost on average (before the first, what the round's slot
solves cost), and no round probes while they are over it. A flat start's first round, whose
every slot is probed, costs about one round more, which the later rounds then make up for.
Every probe attempt is in the run's solve log (``solves.jsonl``, with ``"probe": true``); a
failed probe is dropped (not retried, and never the run's failure). The result says which
slots probes moved, and in which rounds, in the advice finding ``"probed"`` (not warned: it
is no fault).

The randomness is the probe seed's: each probe start is drawn from a generator seeded by
``(seed, round, slot)``, and the rotation counts the rounds that probed (saved with the
run), so that a resumed run probes as the uninterrupted one did.

The solver hook
---------------
A solver offers probes with a method ``probe_start(rng) -> state``: a fresh starting state
drawn with the :class:`numpy.random.Generator` ``rng`` (the same state for the same generator
state), which ``solve(weight, state)`` then starts from as from any warm start.
:class:`~paretosurf.adapters.ScipySolver` (from :func:`~paretosurf.adapters.from_scipy`
with bounds, and :func:`~paretosurf.adapters.from_pymoo`) draws a point of the box. A solver
has no probes when it has no ``probe_start`` or when it returns ``None``: ``probes="auto"``
asks once at the run's start (a draw it throws away) and turns probes off then; a probe
whose start is ``None`` later is skipped. Solvers that keep their states in folders
(``save_state``/``load_state``) are not probed.
"""

from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf.adapters.scalarization import (
    Scalarization,
    ideal_margin,
    scoring_scalarization,
    solver_scalarization,
)
from paretosurf.executors import SolveOutcome, SolveTask
from paretosurf.findings import Finding, lies_on_curve
from paretosurf.solvers import Solution, Weight, count_steps, users_solver
from paretosurf.storage import has_disk_states

__all__ = [
    "DEFAULT_MARGIN",
    "DEFAULT_PER_ROUND",
    "DEFAULT_SHARE",
    "PROBED",
    "BasinProbes",
    "ProbeTally",
    "RoundProbes",
    "check_probes",
    "gap_pairs",
    "offers_probe_starts",
    "probe_finding",
    "probe_hook",
    "resolve_probes",
    "stopped_on_rim",
]

FloatArray = NDArray[np.float64]

#: Slots probed a round (but in a flat start's first round).
DEFAULT_PER_ROUND = 2
#: The probes' objective evaluations at most, as a share of the run's own (its slots').
DEFAULT_SHARE = 0.1
#: A probe replaces a slot's solution when it scores lower by more than this share of the
#: values' scale at the slot's weight (the largest of the two values' sizes and the spread of
#: the round's values there): a solver's last digits, or a probe that reached the slot's own
#: minimum from elsewhere, leave the slot's solution alone.
DEFAULT_MARGIN = 1e-6
#: The code of the advice finding that says which slots probes moved.
PROBED = "probed"
#: A first round counts as a flat start (every slot probed) when its points take at most this
#: share of the slots' number of distinct values.
FLAT_SHARE = 0.5
#: A gap between two points adjacent in weight wider than this many times the round's mean
#: gap gets neighbour probes (:func:`gap_pairs`) ...
GAP_PROBE_FACTOR = 1.2
#: ... at most this many a round, within a share of the run's evaluations of their own (the
#: probes' ``share``, each expected to cost what a slot's solve costs).
GAP_PROBES = 1
#: Points within this share of the points' size of one another count as one point.
DISTINCT_TOL = 1e-9

#: A flat start's probes start from the best of a screened sample of the box (the solver's
#: ``screen_starts``) of about the first round's objective evaluations (one sweep of the
#: weights), at least and at most these many points.
SCREEN_LEAST = 256
SCREEN_MOST = 8192

#: A recombined probe start (:meth:`RoundProbes.mixed_start`) mixes the state of the point
#: that scores best at the slot's weight with that of the best-scoring point lower than it by
#: more than this share of the points' range in some objective.
MIX_APART = 0.25
#: ... drawing this many mixes, where the solver evaluates states, and starting from the one
#: that scores lowest at the slot's weight.
MIX_TRIES = 32
#: The partners of a recombined start's mixes at most (the best-scoring ones, in turn).
MIX_PARTNERS = 4
#: A point holds an objective at its least (:func:`stopped_on_rim`) within this share of the
#: objective's range over the round's points.
RIM_TOL = 1e-3
#: Recombined probes a round at most (on the gap probes' budget).
MIX_PROBES = 2

#: ``probe_start(rng) -> state or None``.
ProbeStart = Callable[[np.random.Generator], Any]
#: ``screen_starts(rng, count) -> (states, values, calls) or None``.
ScreenStarts = Callable[[np.random.Generator, int], Any]
#: Solves probe tasks: ``solve(tasks, round, call) -> outcomes`` (one per task, in order).
SolveProbes = Callable[[list[SolveTask], int, int], list[SolveOutcome]]


@dataclass(frozen=True)
class BasinProbes:
    """The settings of a run's basin probes (the ``probes`` option; see
    :mod:`paretosurf.loop`).

    Parameters
    ----------
    per_round : int, default 2
        Slots probed a round, spread over the weights (every slot in a first round whose
        points have collapsed onto a few: a flat start).
    share : float, default 0.1
        The probes' objective evaluations at most, as a share of the run's own (its slots'
        solves'; solves instead when the solver does not report evaluations): 0.1 makes a
        run cost at most about 10% more than without probes. Positive.
    seed : int, default 0
        Seeds the probes' starts, with the round and the slot.
    margin : float, default 1e-6
        A probe replaces a slot's solution when it scores lower by more than this share of
        the values' scale (:data:`DEFAULT_MARGIN`). In [0, 1).

    Examples
    --------
    >>> from paretosurf.loop._basin_probes import BasinProbes
    >>> BasinProbes(per_round=3).settings()
    {'per_round': 3, 'share': 0.1, 'seed': 0, 'margin': 1e-06}
    >>> BasinProbes(share=0.0)
    Traceback (most recent call last):
    ...
    ValueError: probes: BasinProbes(share=...) must be a finite number > 0, got 0.0
    """

    per_round: int = DEFAULT_PER_ROUND
    share: float = DEFAULT_SHARE
    seed: int = 0
    margin: float = DEFAULT_MARGIN

    def __post_init__(self) -> None:
        def whole(value: object, name: str, low: int) -> None:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
                raise ValueError(
                    f"probes: BasinProbes({name}=...) must be an integer >= {low}, got {value!r}"
                )

        def real(value: object, name: str, ok: Callable[[float], bool], allowed: str) -> None:
            if (
                isinstance(value, bool)
                or not isinstance(value, numbers.Real)
                or not math.isfinite(float(value))
                or not ok(float(value))
            ):
                raise ValueError(
                    f"probes: BasinProbes({name}=...) must be a finite number {allowed}, "
                    f"got {value!r}"
                )

        whole(self.per_round, "per_round", 1)
        whole(self.seed, "seed", 0)
        real(self.share, "share", lambda v: v > 0.0, "> 0")
        real(self.margin, "margin", lambda v: 0.0 <= v < 1.0, "in [0, 1)")

    def settings(self) -> dict[str, Any]:
        """The settings as a run's ``settings`` record them (JSON-able)."""
        return {
            "per_round": int(self.per_round),
            "share": float(self.share),
            "seed": int(self.seed),
            "margin": float(self.margin),
        }


def check_probes(probes: object) -> BasinProbes | str | bool | None:
    """The ``probes`` option checked: ``"auto"``, ``None`` (off, also for ``False``),
    ``True`` (the default settings, required to apply) or a :class:`BasinProbes`.

    Examples
    --------
    >>> from paretosurf.loop._basin_probes import check_probes
    >>> check_probes("auto"), check_probes(False), check_probes(True)
    ('auto', None, True)
    >>> check_probes("on")
    Traceback (most recent call last):
    ...
    ValueError: probes must be "auto", False, None, True or a BasinProbes(...), got 'on'
    """
    if probes is None or probes is False:
        return None
    if probes is True or isinstance(probes, BasinProbes):
        return probes
    if isinstance(probes, str):
        if probes == "auto":
            return "auto"
        raise ValueError(
            f'probes must be "auto", False, None, True or a BasinProbes(...), got {probes!r}'
        )
    raise TypeError(
        f'probes must be "auto", False, None, True or a paretosurf.loop.BasinProbes, '
        f"got {type(probes).__name__}"
    )


def probe_hook(solver: object) -> ProbeStart | None:
    """The solver's ``probe_start`` (on the solver, or on the object the user passed when the
    library wrapped it), or ``None`` when it has none."""
    return _hook(solver, "probe_start")


def _hook(solver: object, name: str) -> Callable[..., Any] | None:
    """The solver's method ``name`` (on the solver, or on the object the user passed when the
    library wrapped it), or ``None`` when it has none."""
    for obj in (solver, users_solver(solver)):
        hook = getattr(obj, name, None)
        if callable(hook):
            return hook
    return None


def screen_hook(solver: object) -> ScreenStarts | None:
    """The solver's ``screen_starts`` (as :func:`probe_hook` finds ``probe_start``), or
    ``None`` when it has none."""
    return _hook(solver, "screen_starts")


def resolve_probes(probes: BasinProbes | str | bool | None, solver: object) -> BasinProbes | None:
    """The probes a run makes: the settings, or ``None`` for none.

    ``"auto"`` gives the default :class:`BasinProbes` when the solver offers probe starts (a
    ``probe_start`` that returns a state for a first draw, which is thrown away) and keeps
    its states in memory; explicit settings (``True``, a :class:`BasinProbes`) on a solver
    that offers none are refused.

    Raises
    ------
    ValueError
        For explicit settings with a solver that offers no probe starts, or one that keeps
        its states in folders.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.adapters import from_scipy
    >>> from paretosurf.loop._basin_probes import resolve_probes
    >>> def objectives(x):
    ...     return np.array([x[0] ** 2, (x[0] - 1) ** 2])
    >>> resolve_probes("auto", from_scipy(objectives, x0=[0.5], bounds=[(0, 1)]))
    BasinProbes(per_round=2, share=0.1, seed=0, margin=1e-06)
    >>> resolve_probes("auto", from_scipy(objectives, x0=[0.5])) is None   # no box
    True
    """
    if probes is None or probes is False:
        return None
    settings = probes if isinstance(probes, BasinProbes) else BasinProbes()
    hook = probe_hook(solver)
    why = None
    if hook is None:
        why = "it has no probe_start(rng) method"
    elif has_disk_states(solver):
        why = "it keeps its states in folders (save_state/load_state)"
    elif hook(_generator(settings.seed, -1, -1)) is None:
        why = (
            "its probe_start(rng) returns None (from_scipy and from_pymoo draw starts only "
            "when every variable has finite bounds)"
        )
    if why is None:
        return settings
    if probes == "auto":
        return None
    raise ValueError(
        f"probes={probes!r} needs a solver that offers probe starts, but {why}; pass "
        "probes=False (or leave the default probes='auto')"
    )


def offers_probe_starts(solver: object) -> bool:
    """Whether ``solver`` offers fresh starts in a known box, as ``probes="auto"`` needs
    them (see :func:`resolve_probes`).

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.adapters import from_scipy
    >>> from paretosurf.loop._basin_probes import offers_probe_starts
    >>> def objectives(x):
    ...     return np.array([x[0] ** 2, (x[0] - 1) ** 2])
    >>> offers_probe_starts(from_scipy(objectives, x0=[0.5], bounds=[(0, 1)]))
    True
    >>> offers_probe_starts(from_scipy(objectives, x0=[0.5]))
    False
    """
    return resolve_probes("auto", solver) is not None


def _generator(seed: int, index: int, slot: int) -> np.random.Generator:
    """The generator of one probe start: seeded by the probe seed, the round and the slot
    (``-1``: the run-start check's draw)."""
    return np.random.default_rng([int(seed), int(index) + 1, int(slot) + 1])


@dataclass
class ProbeTally:
    """What a run's probes did so far (saved with its checkpoints): the rounds that probed,
    the probes' solves and objective evaluations (``None`` once one was not reported), and
    the ``(round, slot)`` of each slot solution a probe replaced.

    Examples
    --------
    >>> from paretosurf.loop._basin_probes import ProbeTally
    >>> tally = ProbeTally(rounds=2, solves=4, evaluations=400, moved=[(0, 3)])
    >>> ProbeTally.from_meta(tally.to_meta()) == tally
    True
    """

    rounds: int = 0
    solves: int = 0
    evaluations: int | None = 0
    moved: list[tuple[int, int]] = field(default_factory=list)
    #: The rounds that probed across gaps (:func:`gap_pairs`), and what those probes spent
    #: (objective evaluations, or solves where a count is missing).
    gap_rounds: int = 0
    gap_spent: int = 0
    #: The points of the box a flat start's probes were screened from (their objective
    #: evaluations are part of ``evaluations``).
    screened: int = 0

    def to_meta(self) -> dict[str, Any]:
        """The tally, JSON-able."""
        return {
            "rounds": self.rounds,
            "solves": self.solves,
            "evaluations": self.evaluations,
            "moved": [list(pair) for pair in self.moved],
            "gap_rounds": self.gap_rounds,
            "gap_spent": self.gap_spent,
            "screened": self.screened,
        }

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any] | None) -> ProbeTally:
        """The tally :meth:`to_meta` saved (``None``: a run saved without probes)."""
        if not meta:
            return cls()
        spent = meta.get("evaluations")
        return cls(
            int(meta.get("rounds", 0)),
            int(meta.get("solves", 0)),
            None if spent is None else int(spent),
            [(int(r), int(s)) for r, s in meta.get("moved", [])],
            int(meta.get("gap_rounds", 0)),
            int(meta.get("gap_spent", 0)),
            int(meta.get("screened", 0)),
        )


def distinct_points(points: FloatArray) -> int:
    """How many distinct points ``points`` (shape ``(P, M)``) holds, points within
    :data:`DISTINCT_TOL` of the points' size of one another counting as one.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.loop._basin_probes import distinct_points
    >>> distinct_points(np.array([[1.0, 0.0], [1.0, 1e-14], [0.5, 0.5]]))
    2
    """
    pts = np.asarray(points, dtype=np.float64)
    if len(pts) == 0:
        return 0
    size = float(np.max(np.abs(pts)))
    tol = DISTINCT_TOL * (size if size > 0 else 1.0)
    return len(np.unique(np.round(pts / tol), axis=0))


class RoundProbes:
    """A run's basin probes: after each round's solves, :meth:`probe` solves a few slots
    from fresh starts and keeps the probes that score lower.

    Parameters
    ----------
    settings : BasinProbes
        How many a round, their share of the evaluations, the seed, the margin.
    solver : object
        The run's inner solver (its ``probe_start`` draws the starts; its scalarization
        scores the points).
    """

    def __init__(self, settings: BasinProbes, solver: object) -> None:
        hook = probe_hook(solver)
        if hook is None:
            raise ValueError("probes need a solver with a probe_start(rng) method")
        self.settings = settings
        self.hook = hook
        self.screen = screen_hook(solver)
        self.mix = _hook(solver, "recombine")
        self.evaluate = _hook(solver, "evaluate")
        self.scalarization = solver_scalarization(solver)
        self.ideal_given: Callable[[], bool] = lambda: any(
            getattr(obj, "ideal_given", False) is True for obj in (solver, users_solver(solver))
        )
        #: The objective evaluations the run spent on the front's ends before its first
        #: round (part of the run's own spending; set by the run).
        self.ends_spent = 0

    def budget(
        self,
        tally: ProbeTally,
        history: Sequence[Any],
        spent: Sequence[int] | None,
        solves: int,
        repeats: int,
    ) -> tuple[float, float, float]:
        """The probes' spending so far, the run's, and what one probe is expected to cost:
        in objective evaluations (the front's ends', the ``history``'s records' and this
        round's ``spent``; a
        probe as the probes so far cost on average, before the first as this round's solves
        did), or in solves when an evaluation count is missing (``solves`` so far; a probe
        ``repeats`` solves)."""
        counts = [r.evaluations for r in history]
        if (
            tally.evaluations is not None
            and spent is not None
            and all(c is not None for c in counts)
        ):
            total = (
                self.ends_spent + sum(int(np.sum(c)) for c in counts) + sum(int(s) for s in spent)
            )
            if tally.solves:
                each = tally.evaluations * repeats / tally.solves
            else:
                each = sum(int(s) for s in spent) / max(len(spent), 1)
            return float(tally.evaluations), float(total), float(each)
        return float(tally.solves), float(solves), float(repeats)

    def count(self, n: int, flat: bool, used: float, total: float, each: float) -> int:
        """How many of the round's ``n`` slots to probe, given the probes' spending ``used``
        of the run's ``total`` (theirs included) and a probe's expected cost ``each``: none
        while ``used`` exceeds ``share`` of the run's own spending (``total - used``); every
        slot in a ``flat`` start's first round; else up to ``per_round``, as many as keep the
        probes within ``share`` of the run's own spending.

        Examples
        --------
        >>> from paretosurf.loop._basin_probes import BasinProbes, RoundProbes
        >>> def solver(w, state): ...
        >>> solver.probe_start = lambda rng: rng.random()
        >>> probes = RoundProbes(BasinProbes(per_round=2, share=0.1), solver)
        >>> probes.count(11, False, 0.0, 2000.0, 100.0)   # 2 probes: 200, 10% of 2000
        2
        >>> probes.count(11, False, 150.0, 3150.0, 100.0) # 1 more: 250, under 10% of 3000
        1
        >>> probes.count(11, True, 0.0, 1000.0, 100.0)    # a flat start: every slot
        11
        >>> probes.count(11, True, 400.0, 3400.0, 100.0)  # over the share: none
        0
        """
        share = self.settings.share
        own = total - used
        if used > share * own:
            return 0
        if flat:
            return n
        fit = n if each <= 0 else int((share * own - used) // each)
        return max(0, min(self.settings.per_round, n, fit))

    def choose(self, n: int, k: int, tally: ProbeTally) -> list[int]:
        """The positions (in the round's order) of ``k`` of the round's ``n`` slots to probe:
        every one for ``k >= n``, else spread evenly, their offset moving by one from one
        probing round to the next (so that each slot is probed within ``ceil(n / k)``
        probing rounds).

        Examples
        --------
        >>> from paretosurf.loop._basin_probes import BasinProbes, ProbeTally, RoundProbes
        >>> def solver(w, state): ...
        >>> solver.probe_start = lambda rng: rng.random()
        >>> probes = RoundProbes(BasinProbes(per_round=2), solver)
        >>> [probes.choose(7, 2, ProbeTally(rounds=r)) for r in range(4)]
        [[2, 6], [0, 3], [0, 4], [1, 5]]
        >>> probes.choose(3, 3, ProbeTally())
        [0, 1, 2]
        """
        if k >= n:
            return list(range(n))
        stride = -(-n // k)
        first = int(np.random.default_rng([self.settings.seed, n]).integers(stride))
        offset = (first + tally.rounds) % stride
        return [n * (j * stride + offset) // (k * stride) for j in range(k)]

    def probe(
        self,
        *,
        index: int,
        slots: Sequence[int],
        weights: Sequence[Weight],
        outcomes: list[SolveOutcome],
        spent: list[int] | None,
        repeats: int,
        progress: Any,
        tally: ProbeTally,
        solve: SolveProbes,
        suspects: Sequence[int] = (),
    ) -> tuple[list[SolveOutcome], list[int] | None]:
        """Probe round ``index`` after its solves.

        Parameters
        ----------
        index : int
            The round.
        slots, weights : sequence
            The round's slots and the weights they were solved at (in the solver's terms).
        outcomes : list of SolveOutcome
            The slots' last outcomes (every one solved).
        spent : list of int or None
            The objective evaluations each slot spent this round (``None``: unknown).
        repeats : int
            The calls each slot got; each probe gets as many.
        progress : Progress
            The run's bookkeeping: its ``history``, and its ``n_solves`` and ``n_steps``,
            which the probes' solves add to.
        tally : ProbeTally
            The probes' own bookkeeping, updated.
        solve : callable
            Solves probe tasks (``solve(tasks, round, call)``), logging them.
        suspects : sequence of int, optional
            Chords (in weight order) the method took for gaps of the front after its last
            round (:meth:`~paretosurf.loop.Method.suspected_gaps`): probed across as the
            wide gaps are.

        Returns
        -------
        (outcomes, spent)
            The outcomes with the winning probes' in their slots' places, and the
            evaluations with the probes' added to their slots' counts.
        """
        sols = [o.solution for o in outcomes]
        if not sols or any(s is None for s in sols):
            return outcomes, spent
        points = np.stack([s.objectives for s in sols if s is not None])
        n = len(points)
        flat = index == 0 and n >= 2 and distinct_points(points) <= FLAT_SHARE * n
        used_all, total, each = self.budget(
            tally, progress.history, spent, progress.n_solves, repeats
        )
        pairs: list[tuple[int, int]] = []
        k_gap = 0
        if not flat:
            # across the widest gaps, a slot from its neighbour's state: a warm start near
            # the answer, costing about what a slot's solve costs, on a budget of its own
            slot_each = (
                float(np.mean(spent))
                if spent is not None and tally.evaluations is not None
                else float(repeats)
            )
            k_gap = self.count(n, False, float(tally.gap_spent), total, slot_each)
            pairs = gap_pairs(points, weights, tally.gap_rounds, min(k_gap, GAP_PROBES), suspects)
        k = self.count(n, flat, used_all, total, each)
        # the end slots of two objectives (w = 0, 1) hold the front's ends, which the run
        # verified before its first round (from several starts, globally where they differ)
        ends = {p for p, w in enumerate(weights) if np.ndim(w) == 0 and float(w) in (0.0, 1.0)}
        pairs = [(p, q) for p, q in pairs if p not in ends]
        probes: list[tuple[int, Any]] = []
        for p, q in pairs:
            neighbour = sols[q]
            assert neighbour is not None
            probes.append((p, copy.deepcopy(neighbour.state)))
        if pairs:
            tally.gap_rounds += 1
        # objective evaluations spent choosing starts (screens, mixes), by position: the
        # run's, whether or not a probe solve follows
        extra: dict[int, int] = {}
        if not flat and not pairs and k_gap >= 1 and self.mix is not None:
            # on a surface, a slot from a mix of two other slots' states, on the same
            # budget: the slots that weigh every objective but whose points hold one at
            # its least over the round's (on the rim of the points, where solves that
            # left a group of variables on a flat spot stop)
            inner = stopped_on_rim(points, weights)
            # (not on a front that is a curve: whole bands of the simplex reach its ends,
            # which hold an objective at its least by right)
            if inner and not lies_on_curve(points):
                k_mix = min(k_gap, MIX_PROBES, len(inner))
                turn = self.choose(len(inner), k_mix, ProbeTally(rounds=tally.gap_rounds))
                tally.gap_rounds += 1
                for j in turn:
                    p = inner[j]
                    start, extra[p] = self.mixed_start(p, sols, points, weights, index, slots[p])
                    if start is not None:
                        probes.append((p, start))
        gap_slots = {p for p, _ in probes}
        # (a mix that found no start spent its evaluations on the same budget)
        tally.gap_spent += sum(c for p, c in extra.items() if p not in gap_slots)
        chosen = [c for c in self.choose(n, k, tally) if c not in gap_slots | ends] if k else []
        if not probes and not extra and not chosen:
            return outcomes, spent
        if chosen:
            tally.rounds += 1
        screened: dict[int, Any] = {}
        if flat and chosen:
            screened, screen_calls = self.screened_starts(
                index, points, [weights[p] for p in chosen], spent
            )
            screened = {chosen[j]: start for j, start in screened.items()}
            tally.screened += screen_calls
            # the screen's evaluations, shared out over the probed slots
            for j, p in enumerate(chosen):
                share = screen_calls // len(chosen) + (j < screen_calls % len(chosen))
                extra[p] = extra.get(p, 0) + share
        for p in chosen:
            start = screened.get(p)
            if start is None:
                start = self.hook(_generator(self.settings.seed, index, slots[p]))
            if start is not None:
                probes.append((p, start))
        if not probes and not extra:
            return outcomes, spent
        last: dict[int, SolveOutcome] = {}
        used: dict[int, int | None] = {
            p: extra.get(p, 0) for p in {*extra, *(p for p, _ in probes)}
        }
        live = list(probes)
        for call in range(repeats):
            if not live:
                break
            tasks = [SolveTask(slots[p], weights[p], state) for p, state in live]
            done = solve(tasks, index, call)
            progress.n_solves += len(done)
            tally.solves += len(done)
            progress.n_steps += count_steps([o.solution for o in done if o.solution is not None])
            survivors = []
            for (p, _), o in zip(live, done, strict=True):
                used[p] = _add(used[p], o.solution)
                if o.ok and o.solution is not None:
                    last[p] = o
                    survivors.append((p, o.solution.state))
                else:
                    last.pop(p, None)
            live = survivors
        out = list(outcomes)
        found = [o.solution.objectives for o in last.values() if o.solution is not None]
        found = [f for f in found if f.shape == points[0].shape]
        sc = self.scoring(np.vstack([points, *found]))
        for p, o in last.items():
            if self.better(o.solution, sols[p], points, weights[p], sc):
                out[p] = o
                tally.moved.append((index, int(slots[p])))
        gap_used = [used.get(p, 0) for p in gap_slots]
        if tally.evaluations is not None and None not in gap_used:
            tally.gap_spent += sum(int(u or 0) for u in gap_used)
        else:
            tally.gap_spent += repeats * len(gap_slots)
        spent = _with_probes(spent, used, tally)
        return out, spent

    def mixed_start(
        self,
        p: int,
        sols: Sequence[Solution | None],
        points: FloatArray,
        weights: Sequence[Weight],
        index: int,
        slot: int,
    ) -> tuple[Any, int]:
        """A probe start for position ``p`` recombined (the solver's ``recombine``) from
        two other slots' states: the one whose point scores lowest at ``p``'s weight, and
        one of the lowest-scoring ones whose points are lower in some objective by a share
        of the points' range (:data:`MIX_APART`; :data:`MIX_PARTNERS` in turn).

        Where the solver evaluates states (``evaluate(state) -> objectives``),
        :data:`MIX_TRIES` mixes are drawn and the one that scores lowest at the weight is
        the start; else the first.

        Returns
        -------
        (start, calls)
            The start (``None`` where there is none to mix) and the objective evaluations
            made choosing it.
        """
        assert self.mix is not None
        others = [q for q in range(len(points)) if q != p and sols[q] is not None]
        if len(others) < 2:
            return None, 0
        sc = self.scoring(points)
        try:
            scores = np.asarray(sc(points[others], weights[p]), dtype=np.float64)
        except ValueError:  # a weight this scalarization does not take
            return None, 0
        if not np.any(np.isfinite(scores)):
            return None, 0
        scores = np.where(np.isfinite(scores), scores, np.inf)
        best = others[int(np.argmin(scores))]
        # the partner: the best-scoring point that is better than the best one by a
        # quarter of the points' range in some objective, which may hold what the best one
        # lacks (the other edge of a surface whose solves each left one group of variables
        # on its flat spot)
        ranges = np.ptp(points, axis=0)
        ranges = np.where(ranges > 0, ranges, 1.0)
        apart = np.max((points[best] - points[others]) / ranges, axis=1) > MIX_APART
        if not np.any(apart):
            return None, 0
        ranked = np.argsort(np.where(apart, scores, np.inf), kind="stable")
        partners = [others[int(i)] for i in ranked[: int(np.count_nonzero(apart))]]
        evaluate = self.evaluate
        # the mixes go round the best few partners (the lowest-scoring partner may hold
        # nothing the best point lacks: another vertex of the surface)
        partners = partners[: MIX_PARTNERS if evaluate is not None else 1]
        a = sols[best]
        assert a is not None
        rng = np.random.default_rng([self.settings.seed, index + 1, slot + 1, 2])
        mixes: list[Any] = []
        for j in range(MIX_TRIES if evaluate is not None else 1):
            b = sols[partners[j % len(partners)]]
            assert b is not None
            try:
                mixed = self.mix(copy.deepcopy(a.state), copy.deepcopy(b.state), rng)
            except (TypeError, ValueError):  # states this solver cannot mix
                return None, 0
            if mixed is not None:
                mixes.append(mixed)
        if evaluate is None or len(mixes) < 2:
            return (mixes[0] if mixes else None), 0
        values = []
        for mixed in mixes:
            try:
                values.append(np.asarray(evaluate(mixed), dtype=np.float64))
            except (ValueError, ArithmeticError):
                values.append(np.full(points.shape[1], np.inf))
        found = np.array(values)
        with np.errstate(invalid="ignore"):
            mix_scores = np.asarray(sc(found, weights[p]), dtype=np.float64)
        mix_scores = np.where(np.isfinite(mix_scores), mix_scores, np.inf)
        if not np.any(np.isfinite(mix_scores)):
            return None, len(mixes)
        return mixes[int(np.argmin(mix_scores))], len(mixes)

    def screened_starts(
        self,
        index: int,
        points: FloatArray,
        weights: Sequence[Weight],
        spent: Sequence[int] | None,
    ) -> tuple[dict[int, Any], int]:
        """A flat start's probe starts, screened: the solver's ``screen_starts`` sample of
        its box (about the round's evaluations: one sweep of the weights, within
        :data:`SCREEN_LEAST` and :data:`SCREEN_MOST` points) scored at each of ``weights``
        under the probes' scalarization, and the best point at each weight taken as its
        start.

        Returns
        -------
        (starts, calls)
            The start of each weight (by its position in ``weights``; none where the solver
            screens nothing or no screened point has finite values) and the objective
            evaluations the screen made.
        """
        if self.screen is None:
            return {}, 0
        round_cost = sum(int(c) for c in spent) if spent is not None else 0
        count = min(max(round_cost, SCREEN_LEAST), SCREEN_MOST)
        found = self.screen(np.random.default_rng([self.settings.seed, index + 1, 0, 1]), count)
        if found is None:
            return {}, 0
        states, values, calls = found
        values = np.asarray(values, dtype=np.float64)
        finite = np.all(np.isfinite(values), axis=1)
        if values.ndim != 2 or values.shape[1] != points.shape[1] or not np.any(finite):
            return {}, int(calls)
        kept = np.flatnonzero(finite)
        sc = self.scoring(np.vstack([points, values[kept]]))
        starts: dict[int, Any] = {}
        for j, weight in enumerate(weights):
            try:
                scores = np.asarray(sc(values[kept], weight), dtype=np.float64)
            except ValueError:  # a weight this scalarization does not take
                continue
            if np.any(np.isfinite(scores)):
                best = int(kept[int(np.argmin(np.where(np.isfinite(scores), scores, np.inf)))])
                starts[j] = np.array(states[best], copy=True)
        return starts, int(calls)

    def scoring(self, found: FloatArray) -> Scalarization:
        """The scalarization probes are scored with, given every point the round ``found``
        (its slots' and its probes'): the solver's (weighted sums when it declares none),
        with an estimated ideal point moved below the points found, as the run moves it
        once it observes them (:class:`~paretosurf.adapters.IdealPoint`; a given one stays);
        a kind that needs an ideal point and has none uses the points' best values."""
        sc = self.scalarization()
        if (
            sc is not None
            and sc.needs_ideal
            and sc.ideal is not None
            and sc.ideal.size == found.shape[1]
            and not self.ideal_given()
        ):
            best, worst = found.min(axis=0), found.max(axis=0)
            low = best - ideal_margin(best, worst)
            if np.any(low < sc.ideal):
                sc = sc.with_ideal(np.minimum(sc.ideal, low))
        return scoring_scalarization(sc, found)

    def better(
        self,
        probe: Solution | None,
        own: Solution | None,
        points: FloatArray,
        weight: Weight,
        sc: Scalarization,
    ) -> bool:
        """Whether ``probe`` scores lower than the slot's ``own`` solution at ``weight`` under
        ``sc`` by more than the margin (see :data:`DEFAULT_MARGIN`; the spread of the round's
        ``points`` is part of the scale)."""
        if probe is None or own is None or probe.objectives.shape != own.objectives.shape:
            return False
        pair = np.stack([own.objectives, probe.objectives])
        try:
            values = np.asarray(sc(pair, weight), dtype=np.float64)
            round_values = np.asarray(sc(points, weight), dtype=np.float64)
        except ValueError:  # a weight this scalarization does not take
            return False
        if not np.all(np.isfinite(values)):
            return False
        spread = float(np.ptp(round_values)) if np.all(np.isfinite(round_values)) else 0.0
        scale = max(abs(float(values[0])), abs(float(values[1])), spread)
        return bool(values[1] < values[0] - self.settings.margin * scale)


def stopped_on_rim(points: FloatArray, weights: Sequence[Weight]) -> list[int]:
    """The positions of the slots whose weight vectors weigh every objective but whose
    points hold some objective at its least over the ``points`` (within
    :data:`RIM_TOL` of its range): on a surface whose every weight vector inside the
    simplex reaches a point inside the front, such a slot's solve stopped short (DTLZ4:
    its position variables left on their flat spot, one each). Empty for scalar weights.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.loop._basin_probes import stopped_on_rim
    >>> points = np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1], [0.6, 0.8, 0.0], [0.5, 0.5, 0.7]])
    >>> weights = np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1], [0.3, 0.3, 0.4], [0.3, 0.3, 0.4]])
    >>> stopped_on_rim(points, list(weights))
    [3]
    """
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2 or len(pts) == 0 or any(np.ndim(w) != 1 for w in weights):
        return []
    ranges = np.ptp(pts, axis=0)
    if not np.all(np.isfinite(ranges)):
        return []
    least = pts.min(axis=0)
    on_rim = np.any(pts <= least + RIM_TOL * ranges, axis=1) & np.any(ranges > 0)
    return [p for p, w in enumerate(weights) if np.all(np.asarray(w) > 0) and on_rim[p]]


def gap_pairs(
    points: FloatArray,
    weights: Sequence[Weight],
    turn: int,
    limit: int,
    suspects: Sequence[int] = (),
) -> list[tuple[int, int]]:
    """Neighbour probes across the round's wide gaps: ``(p, q)`` pairs, slot ``p`` (a
    position in the round) to be solved at its weight from slot ``q``'s state, ``limit`` at
    most.

    With scalar weights, the points in the order of their weights, in units of each
    objective's range: a gap wider than :data:`GAP_PROBE_FACTOR` times the mean gap may be
    a jump of the front (no point there) or a slot stopped in a local basin on one side (ZDT6:
    a hump of ``f1`` whose least value lies beyond the slot's weight's point), which only a
    solve from the other side's state tells apart. So are the ``suspects``, chords the
    method took for gaps (a slot in a local basin stays off its weight's Tchebycheff ray as
    the end of a piece does, however even the layout within the pieces). The gaps take
    turns (``turn``: the probing round), the widest first, and so do the two directions
    across each.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.loop._basin_probes import gap_pairs
    >>> points = np.array([[0.0, 1.0], [0.1, 0.9], [0.2, 0.8], [0.8, 0.2], [1.0, 0.0]])
    >>> weights = [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> gap_pairs(points, weights, 0, 1), gap_pairs(points, weights, 1, 1)
    ([(3, 2)], [(2, 3)])
    """
    w = np.asarray(weights, dtype=np.float64)
    pts = np.asarray(points, dtype=np.float64)
    if w.ndim != 1 or len(pts) < 3 or limit < 1:
        return []
    ranges = np.ptp(pts, axis=0)
    if not np.all(np.isfinite(ranges)) or not np.any(ranges > 0):
        return []
    order = np.argsort(w, kind="stable")
    scaled = pts[order] / np.where(ranges > 0, ranges, 1.0)
    gaps = np.linalg.norm(np.diff(scaled, axis=0), axis=1)
    wide = np.flatnonzero(gaps > GAP_PROBE_FACTOR * gaps.mean())
    named = [int(i) for i in suspects if 0 <= int(i) < gaps.size]
    wide = np.union1d(wide, np.asarray(named, dtype=np.intp)).astype(np.intp)
    if wide.size == 0:
        return []
    wide = wide[np.argsort(-gaps[wide], kind="stable")]
    pairs: list[tuple[int, int]] = []
    for j in range(min(limit, wide.size)):
        g = int(wide[(turn + j) % wide.size])
        a, b = int(order[g]), int(order[g + 1])
        forward = ((turn + j) // wide.size) % 2 == 0
        pairs.append((b, a) if forward else (a, b))
    return pairs


def _add(total: int | None, solution: Solution | None) -> int | None:
    """``total`` plus the evaluations ``solution`` reports (``None`` when unknown)."""
    if total is None or solution is None:
        return None
    count = solution.info.get("objective_calls", solution.info.get("nfev"))
    return None if count is None else total + int(count)


def _with_probes(
    spent: list[int] | None, used: Mapping[int, int | None], tally: ProbeTally
) -> list[int] | None:
    """The round's evaluations per slot with the probes' ``used`` (by position) added, and
    the tally's total updated; ``None`` where a count is unknown."""
    known = None not in used.values()
    if tally.evaluations is not None:
        tally.evaluations = (
            tally.evaluations + sum(int(v) for v in used.values() if v is not None)
            if known
            else None
        )
    if spent is None or not known:
        return None
    out = list(spent)
    for p, count in used.items():
        out[p] += int(count or 0)
    return out


def _count(n: int, noun: str) -> str:
    """``"1 slot"``, ``"2 slots"``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def probe_finding(tally: ProbeTally) -> list[Finding]:
    """The advice finding ``"probed"``: which slots probes moved, in which rounds (none
    when they moved none).

    Examples
    --------
    >>> from paretosurf.loop._basin_probes import ProbeTally, probe_finding
    >>> [f] = probe_finding(ProbeTally(rounds=3, solves=6, moved=[(0, 1), (0, 4), (2, 4)]))
    >>> f.line()
    'probed: 3 solutions from probe starts (2 slots; rounds 0, 2)'
    >>> f.fatal, f.slots
    (False, (1, 4))
    >>> f.message.split(": ", 1)[1]
    'round 0: slots 1, 4; round 2: slot 4'
    """
    if not tally.moved:
        return []
    by_round: dict[int, list[int]] = {}
    for r, s in tally.moved:
        by_round.setdefault(r, []).append(s)
    slots = sorted({s for _, s in tally.moved})
    rounds = sorted(by_round)
    shown = ", ".join(str(r) for r in rounds[:8]) + (", ..." if len(rounds) > 8 else "")
    detail = "; ".join(
        f"round {r}: slot{'s' if len(by_round[r]) > 1 else ''} "
        + ", ".join(str(s) for s in sorted(by_round[r]))
        for r in rounds[:20]
    ) + ("; ..." if len(rounds) > 20 else "")
    return [
        Finding(
            PROBED,
            f"basin probes replaced {_count(len(tally.moved), 'slot solution')} with "
            "lower-scoring ones solved from fresh starts (another basin, or lower in the one "
            f"the warm start was in), with {_count(tally.solves, 'probe solve')} in "
            f"{_count(tally.rounds, 'round')}: {detail}",
            fatal=False,
            slots=tuple(slots),
            summary=(
                f"{_count(len(tally.moved), 'solution')} from probe starts "
                f"({_count(len(slots), 'slot')}; round{'s' if len(rounds) > 1 else ''} {shown})"
            ),
        )
    ]
