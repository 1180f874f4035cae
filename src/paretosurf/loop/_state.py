"""A run's state besides the method's: its bookkeeping, what its checkpoints hold, and its
result.

The driver (:func:`paretosurf.loop.run`) keeps a :class:`Progress` (the records and the
budget spent) beside the method and the state pool. This module turns them into what a run
folder stores and back, and into the run's :class:`~paretosurf.result.Result`:

- :func:`manifest` and :func:`check_same_run`: the run's identity (method, settings, solver)
  as ``run.json`` records it, and the refusal to resume a run under another one;
- :func:`run_parts`: the run's state as a checkpoint saves it (the method's, the pool's, the
  bookkeeping, and a view of the result so far that :meth:`Result.load` reads);
- :func:`load_method_state`: the method's (and the reported-round candidates') state back;
- :func:`run_result`: the result, with its findings (:func:`~paretosurf.findings.
  diagnose_run`), ``success`` and ``message``;
- :func:`run_notes`: the notes a front end records with the runs it starts.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from paretosurf._utils.validation import OptionError, SettingsMismatchError
from paretosurf.findings import STRUCTURAL, Finding, FrontEnds, diagnose_run, success_and_message
from paretosurf.loop._basin_probes import ProbeTally, probe_finding
from paretosurf.loop._fixed_points import FixedPoints
from paretosurf.loop._kept_rounds import ReportedFront, RoundKeeper
from paretosurf.loop._method import Method
from paretosurf.loop._spacing_options import anchor_rows
from paretosurf.result import IterationRecord, Result, view_extras
from paretosurf.solvers import solver_name
from paretosurf.solvers import solver_settings as identify_settings
from paretosurf.storage import StatePool

if TYPE_CHECKING:  # pragma: no cover - typing only
    from paretosurf.loop._checkpointing import Checkpointer
    from paretosurf.loop._spacing import Spacing
    from paretosurf.loop._spacing_options import MovingAverage, WeightMap
    from paretosurf.storage import DiskStates, RunFolder

__all__ = [
    "Progress",
    "check_same_run",
    "load_method_state",
    "manifest",
    "part",
    "run_notes",
    "run_parts",
    "run_result",
]

FloatArray = NDArray[np.float64]


@dataclass
class Progress:
    """A run's bookkeeping (everything but the method and the states): its records, the
    solves and inner steps spent, why it stopped, and what its basin probes did."""

    history: list[IterationRecord] = field(default_factory=list)
    n_solves: int = 0
    n_steps: int = 0
    converged: bool = False
    stop_reason: str | None = None
    n_objectives: int | None = None
    probes: ProbeTally = field(default_factory=ProbeTally)

    def to_meta(self) -> dict[str, Any]:
        """The counters, JSON-able (the history is saved as records of its own); the
        probes' tally once a round probed."""
        return {
            "n_solves": self.n_solves,
            "n_steps": self.n_steps,
            "converged": self.converged,
            "stop_reason": self.stop_reason,
            "n_objectives": self.n_objectives,
            **({"probes": self.probes.to_meta()} if self.probes.rounds else {}),
        }

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any], history: list[IterationRecord]) -> Progress:
        """The bookkeeping :meth:`to_meta` saved, with the saved ``history``."""
        return cls(
            history,
            int(meta["n_solves"]),
            int(meta["n_steps"]),
            bool(meta["converged"]),
            meta.get("stop_reason"),
            meta.get("n_objectives"),
            ProbeTally.from_meta(meta.get("probes")),
        )


# ---------------------------------------------------------------------------- identity
#: Notes a front end records in the manifest of the runs it starts (see :func:`run_notes`).
_RUN_NOTES: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar(
    "paretosurf_run_notes", default=None
)


@contextlib.contextmanager
def run_notes(notes: Mapping[str, Any]) -> Iterator[None]:
    """Within this context, a new run records ``notes`` (JSON-able) in its folder's
    ``run.json`` under ``"notes"``: for front ends that keep settings of their own with the
    run (``paretosurf run`` keeps its command line's). Resuming does not check them."""
    token = _RUN_NOTES.set(dict(notes))
    try:
        yield
    finally:
        _RUN_NOTES.reset(token)


def manifest(
    method: Method,
    settings: Mapping[str, Any],
    solver: Any,
    *,
    solver_settings: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What a run folder's ``run.json`` records of the run: the method, its settings and
    the loop's, the solver's name and public settings
    (:func:`~paretosurf.solvers.solver_settings`; ``solver_settings``: as taken
    when the run was set up, else now) and the front end's notes (:func:`run_notes`)."""
    notes = _RUN_NOTES.get()
    return {
        "method": method.name,
        "label": method.label,
        "settings": dict(settings),
        "solver": solver_name(solver),
        "solver_settings": dict(
            identify_settings(solver) if solver_settings is None else solver_settings
        ),
        **({"notes": dict(notes)} if notes else {}),
    }


def check_same_run(
    saved: Mapping[str, Any], method: Method, settings: Mapping[str, Any], where: str
) -> None:
    """Refuse to resume the run of manifest ``saved`` as ``method`` with ``settings``
    unless both are the saved ones, naming each difference.

    Raises
    ------
    OptionError
        For another method (its remedy names ``overwrite``).
    SettingsMismatchError
        For other settings: an :class:`~paretosurf._utils.validation.OptionError` naming each
        setting that differs, with both values in its ``differing``.

    Examples
    --------
    >>> from paretosurf.methods import FixedWeightsMethod
    >>> from paretosurf.loop._state import check_same_run
    >>> method = FixedWeightsMethod(4)
    >>> check_same_run({"method": "uniform", "settings": {"n_segments": 2}}, method,
    ...                {"n_segments": 4}, "here")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paretosurf._utils.validation.SettingsMismatchError: cannot resume the Uniform-w run in here ...
    """
    if saved.get("method") != method.name:
        raise OptionError(
            f"{where} holds a {saved.get('label', saved.get('method'))} run; cannot "
            f"resume it as {method.label} (use another folder, or {{overwrite}})",
            overwrite=True,
        )
    # runs saved before the report option existed reported as "auto" does
    before = {"report": "auto", **saved.get("settings", {})}
    differing = {
        key: (before.get(key, "(unset)"), settings.get(key, "(unset)"))
        for key in sorted(set(before) | set(settings))
        if before.get(key) != settings.get(key)
    }
    if differing:
        raise SettingsMismatchError(
            f"cannot resume the {method.label} run in {where} with other settings; ", differing
        )


# ---------------------------------------------------------------------------- checkpoints
def part(arrays: Mapping[str, NDArray[Any]], prefix: str) -> dict[str, NDArray[Any]]:
    """The arrays whose names start with ``prefix``, without it."""
    return {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}


def run_parts(
    method: Method,
    progress: Progress,
    pool: StatePool,
    *,
    root: Path,
    settings: Mapping[str, Any],
    averages: Mapping[str, Any],
    front: tuple[FloatArray, FloatArray, list[int | None]],
    reported_round: int | None,
    keeper: RoundKeeper | None,
    final: Result | None = None,
    front_ends: FrontEnds | None = None,
    extremes_rounds: int | None = None,
    fixed_points: tuple[dict[str, Any], dict[str, NDArray[Any]]] | None = None,
) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
    """The run's state as a checkpoint saves it: JSON-able values and named arrays.

    Parameters
    ----------
    method, progress, pool
        The run's method, bookkeeping and state pool.
    root : Path
        The run folder (states on disk are saved relative to it).
    settings : mapping
        The method's and the loop's settings.
    averages : mapping
        The moving average's saved state.
    front : (weights, points, keys)
        The points the result reports.
    reported_round : int or None
        The earlier round they are, or ``None`` for the method's front.
    keeper : RoundKeeper or None
        The candidates for the reported round, when the run reports the most even.
    final : Result, optional
        The finished run's result, whose success, message and findings the saved result then
        carries (an unfinished run's say so).
    front_ends : FrontEnds, optional
        The front's ends found before the first round, which the saved result carries
        (three or more objectives: the ends verified after the run).
    extremes_rounds : int, optional
        With three or more objectives: the number of rounds whose reported points
        ``front_ends`` were verified against (a resumed run that reports the same points
        takes them back instead of solving them again).
    fixed_points : (meta, arrays), optional
        The solves the run reuses (:meth:`~paretosurf.loop.FixedPoints.to_parts`), which a
        resumed run takes back.
    """
    p = progress
    method_meta, method_arrays = method.state_dict()
    pool_meta, pool_arrays = pool.to_parts(root=root)
    weights, points, keys = front
    view_meta = {
        "kind": "result",
        "method": method.name,
        "label": method.label,
        "settings": dict(settings),
        "n_solves": p.n_solves,
        "n_steps": p.n_steps,
        "converged": p.converged or method.converged,
        "stop_reason": p.stop_reason or "not finished",
        **({} if front_ends is None else {"front_ends": front_ends.to_json()}),
        **view_extras(method.result_extras(), p.history),
        "state_keys": keys,
        "success": False,
        "reported_round": reported_round,
        "message": (
            f"{method.label}: the run in {root} was stopped after round "
            f"{len(p.history)} and can be resumed"
        ),
    }
    if final is not None:
        view_meta.update(
            success=final.success,
            message=final.message,
            findings=[f.to_dict() for f in final.findings],
            converged=final.converged,
            stop_reason=final.stop_reason,
        )
        if final.pieces is not None:
            view_meta["pieces"] = [piece.to_dict() for piece in final.pieces]
    meta = {
        **p.to_meta(),
        **({} if extremes_rounds is None else {"extremes_rounds": int(extremes_rounds)}),
        "averages": dict(averages),
        "method_state": method_meta,
        "pool": pool_meta,
        "result": view_meta,
    }
    arrays = {
        **{f"method/{k}": v for k, v in method_arrays.items()},
        **pool_arrays,
        "weights": weights,
        "points": points,
    }
    if keeper is not None:
        meta["kept_rounds"], kept_arrays = keeper.state_dict()
        arrays.update({f"kept/{k}": v for k, v in kept_arrays.items()})
    if fixed_points is not None:
        meta["fixed_points"], fixed_arrays = fixed_points
        arrays.update({f"fixed_points/{k}": v for k, v in fixed_arrays.items()})
    return meta, arrays


def load_method_state(
    method: Method,
    keeper: RoundKeeper,
    meta: Mapping[str, Any],
    arrays: Mapping[str, NDArray[Any]],
    history: Sequence[IterationRecord],
) -> None:
    """Restore the method's state and the reported-round candidates that :func:`run_parts`
    saved."""
    method.load_state_dict(meta["method_state"], part(arrays, "method/"), history)
    if "kept_rounds" in meta:
        keeper.load_state_dict(meta["kept_rounds"], part(arrays, "kept/"))
    else:  # saved with no candidates: the next round is the first that competes
        keeper.rounds = len(history)


# ---------------------------------------------------------------------------- the result
def run_result(
    method: Method,
    progress: Progress,
    *,
    front: tuple[FloatArray, FloatArray, FloatArray],
    states: list[Any],
    reported: ReportedFront | None,
    averaged: tuple[FloatArray, FloatArray] | None,
    solver: Any,
    settings: Mapping[str, Any],
    normalize: str,
    moving_average: float | None,
    infos: list[dict[str, Any]],
    unsuccessful: list[tuple[int, str]],
    target: float | None,
    front_ends: FrontEnds | None = None,
    coverage: Sequence[Finding] = (),
) -> Result:
    """The run's result: the reported points with their findings, ``success`` and
    ``message``.

    Parameters
    ----------
    method, progress
        The run's method and bookkeeping.
    front : (weights, points, coordinates)
        The reported points: weights as solved, objectives, and the coordinates distances are
        measured in.
    states : list
        Their solver states.
    reported : ReportedFront or None
        The earlier round they are, or ``None`` for the method's front.
    averaged : (estimates, coordinates) or None
        With a moving average, the slots' averaged estimates: the run's view of the front,
        whose order and dominance (not one round's noise) tell whether it is sound.
    solver, settings, normalize, moving_average, target
        The run's solver and options.
    infos, unsuccessful
        The last round's ``Solution.info`` dicts, and its solves whose info says
        ``success=False``: ``(slot, message)``.
    front_ends, coverage
        The front's ends found before the first round, and the ``coverage`` finding of the
        points against them (:mod:`paretosurf.findings`).
    """
    weights, points, coords = front
    shown = None if reported is None else reported.round
    p = progress
    diagnosed, diagnosed_coords = (points, coords) if averaged is None else averaged
    findings = diagnose_run(
        weights,
        diagnosed,
        diagnosed_coords,
        solver=solver,
        history=p.history,
        shown=shown,
        normalize=normalize,
        moving_average=moving_average,
        ordered=method.ordered,
        aims_even=method.aims_even,
        method_findings=method.findings,
        infos=infos,
        unsuccessful=unsuccessful,
        target=target,
        stop_reason=p.stop_reason,
        convergence_change=method.convergence_change,
        settle_options=method.settle_options(),
        settle_share=method.settle_share,
        report=settings.get("report"),
    )
    findings = [*findings, *coverage, *probe_finding(p.probes)]
    collapsed = any(f.code in STRUCTURAL - {"reversed"} for f in findings)
    record = p.history[-1 if shown is None else shown] if p.history else None
    success, message = success_and_message(
        method.label,
        len(weights),
        math.nan if record is None else record.cv,
        math.nan if record is None else record.gap_ratio,
        findings,
        notes=() if reported is None else (reported.note,),
    )
    if not p.history:
        success, message = False, f"{method.label}: no round was run"
    return Result(
        method=method.name,
        label=method.label,
        settings=dict(settings),
        weights=weights,
        points=points,
        states=states,
        history=p.history,
        n_solves=p.n_solves,
        n_steps=p.n_steps,
        converged=(p.converged or method.converged) and not collapsed,
        stop_reason=p.stop_reason or "not started",
        success=success,
        message=message,
        findings=findings,
        reported_round=shown,
        # the pieces of the reported round, as its record holds them
        pieces=None if record is None or not record.pieces else list(record.pieces),
        front_ends=front_ends,
        **method.result_extras(),
    )


class RunParts:
    """What one run holds, declared once for the parts of the driver's runner that share it
    (:class:`~paretosurf.loop.RunStart`, :class:`~paretosurf.loop.RunReporting`;
    :class:`~paretosurf.loop.RunStart` sets every attribute)."""

    method: Method
    solver: Any
    folder: RunFolder | None
    spacing: Spacing
    average: MovingAverage
    weight_bounds: tuple[float, float] | str | None
    #: The weights the solver sees for the method's (the bounds, in the run's units).
    weight_map: WeightMap
    #: The front's ends found before the first round (None: none to verify).
    ends: FrontEnds | None
    #: Three or more objectives: the ends verified after the run, with the number of rounds
    #: whose reported points they were verified against (None: none yet).
    extremes: tuple[int, FrontEnds] | None
    #: The solves the run reuses rather than solve again (:mod:`paretosurf.loop`).
    fixed_points: FixedPoints
    report: str
    target: float | None
    allow_pickle: bool
    checkpointer: Checkpointer
    pool: StatePool
    disk: DiskStates
    progress: Progress
    keeper: RoundKeeper
    unsuccessful: list[tuple[int, str]]
    last_infos: list[dict[str, Any]]
    evaluations: NDArray[Any] | None
    _settings: dict[str, Any] | None

    def fit_spacing(self) -> tuple[Any, FloatArray, list[int | None]]:
        """Fit the run's coordinates to the method's points (``normalize="endpoints"``: their
        anchor rows, the single objectives' solutions), as each round ends and as a resumed
        run starts; returns the method's weights, points and keys."""
        weights, points, keys = self.method.front()
        if points.ndim == 2 and points.shape[1] > 0:
            anchors = anchor_rows(np.asarray(weights, dtype=np.float64))
            self.spacing.fit(points, anchors=anchors)
        return weights, points, keys
