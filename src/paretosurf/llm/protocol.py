"""The paper's LLM protocol (its Table 2) as one resumable run.

Stages, each in its own folder under ``out`` and each resumable:

1. ``warm/``: a shared warm start, ``warm_epochs`` solves at ``w = 0.5`` (one epoch each).
2. ``uniform/``: Uniform-w, ``N + 1`` weights ``0, 1/N, ..., 1`` for ``uniform_epochs`` rounds
   from the warm start; the adapters after ``surf_init_epoch`` rounds are kept aside.
3. ``surf/``: SURF from those adapters for ``surf_rounds`` rounds of one epoch (so that every
   slot gets Uniform-w's budget), the objectives averaged across rounds (``moving_average``);
   the endpoints are Uniform-w's finished adapters, reused unchanged, not trained again.
   SURF's first round solves at Uniform-w's weights ``n / N`` from Uniform-w's epoch-
   ``surf_init_epoch`` adapters: exactly the solves of Uniform-w's next epoch. Those are kept
   (``uniform-epoch-E/``, ``E = surf_init_epoch + 1``) and SURF's first round reuses them
   (adapter and objectives) instead of training them again (``Protocol.reuse_uniform``): a
   solve is reused only at the same weight, from the same start (the adapter, value for
   value) and with the same solver settings; anything else is trained.
4. Soup: Uniform-w's two endpoint adapters interpolated at ``w = n / N``.

Every final adapter is then assessed on the same evaluation prompts, and ``table.md``,
``results.json`` and ``front.png`` are written: HV, CV and gap ratio with and without the KL
term, mean +- std over the evaluation batches.

Every job that needs the model runs where the executor runs solves: the warm start's epochs
(solves at ``w = 0.5``, saved into ``warm/``), the methods' solves, and the assessment of the
final adapters (all of them at once, each a task of its own whose "solve" is the assessment).
With worker processes or Ray the driver process only moves adapters between folders (Soup's
mixtures are computed there, from the adapters' arrays) and never loads the model; with
:class:`~paretosurf.executors.LocalExecutor` (or no executor) everything runs in this process.
The protocol starts the executor once for all its stages (workers keep their loaded model
from one stage to the next) and closes it at the end if it started it.

The solver is any inner solver with one epoch per call, ``save_state``/``load_state`` (its
states are adapter folders), ``evaluate(state)`` and ``interpolate(state0, state1, t)``;
:class:`paretosurf.llm.LLMSolver` is one. If it also has ``assess(state) -> dict`` (keys
``objectives``, ``objectives_no_kl``, ``batch_objectives``, ``batch_objectives_no_kl``), the
table uses it; otherwise ``evaluate`` alone (no std, no figures without the KL term).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf import metrics
from paretosurf._utils.validation import (
    check_moving_average,
    check_n_segments,
    check_non_negative_int,
    check_positive_int,
)
from paretosurf.executors import LocalExecutor, ManagedExecutor, SolveTask
from paretosurf.llm._jobs import AssessmentJob, run_jobs
from paretosurf.llm._scores import score_rows
from paretosurf.methods import CDFRefinement
from paretosurf.result import Result
from paretosurf.solvers import Solution
from paretosurf.storage import StateFolder, load_state, save_state

__all__ = [
    "KnownSolve",
    "Protocol",
    "ProtocolReport",
    "ReuseEndpoints",
    "ReuseSolves",
    "format_budget",
    "run_protocol",
    "same_state",
    "solver_settings",
]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Protocol:
    """The paper's settings (EXPERIMENTS.md, Table 2); every count is in epochs or rounds of
    one epoch.

    Attributes
    ----------
    n_segments : int
        N: N + 1 policies.
    warm_epochs : int
        Epochs of the shared ``w = 0.5`` warm start.
    uniform_epochs : int
        Epochs of every Uniform-w slot (its per-slot budget).
    surf_init_epoch : int
        SURF starts from Uniform-w's adapters after this many epochs.
    surf_rounds : int
        SURF's rounds of one epoch (``surf_init_epoch + surf_rounds`` must not exceed
        ``uniform_epochs``: SURF gets at most Uniform-w's per-slot budget).
    moving_average : float or None
        Rate in (0, 1] of the moving average of SURF's objective estimates (0.2 in the
        paper); ``None``: no average (see :func:`paretosurf.surf`).
    alpha : float or "auto"
        SURF's damping, in (0, 1], or ``"auto"`` (see :func:`paretosurf.surf`).
    reuse_uniform : bool
        Let SURF's first round reuse Uniform-w's epoch ``surf_init_epoch + 1`` (the same
        solves: same weights ``n / N``, same starts, same settings) instead of training it
        again: ``N - 1`` slot-epochs saved (4 of SURF's 28 in the paper's protocol). False
        trains them again (results equal where the solver is deterministic).

    Raises
    ------
    ValueError, TypeError
        At construction, on a setting that SURF or Uniform-w would refuse later (a count
        that is not an integer, ``alpha`` outside (0, 1], a ``moving_average`` rate outside
        (0, 1]) or on a budget SURF would overrun; the message names the setting. Nothing
        is left to fail after the warm start and the Uniform-w epochs have run.
    """

    n_segments: int = 5
    warm_epochs: int = 10
    uniform_epochs: int = 12
    surf_init_epoch: int = 5
    surf_rounds: int = 7
    moving_average: float | None = 0.2
    alpha: float | str = 0.3
    reuse_uniform: bool = True

    def __post_init__(self) -> None:
        # The checks of the functions the stages call (surf, uniform and the driver), run
        # now rather than when the stage starts: the values are stored as those take them.
        checked: dict[str, object] = {
            "n_segments": check_n_segments(self.n_segments),
            "warm_epochs": check_non_negative_int(self.warm_epochs, name="warm_epochs"),
            **{
                name: check_positive_int(getattr(self, name), name=name)
                for name in ("uniform_epochs", "surf_init_epoch", "surf_rounds")
            },
            "moving_average": check_moving_average(self.moving_average),
            "alpha": CDFRefinement(self.alpha).setting(),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)
        if not isinstance(self.reuse_uniform, bool):
            raise TypeError(f"reuse_uniform must be a bool, got {self.reuse_uniform!r}")
        if self.surf_init_epoch >= self.uniform_epochs:
            raise ValueError(
                f"surf_init_epoch ({self.surf_init_epoch}) must be below "
                f"uniform_epochs ({self.uniform_epochs})"
            )
        if self.surf_init_epoch + self.surf_rounds > self.uniform_epochs:
            raise ValueError(
                f"SURF's per-slot budget, surf_init_epoch + surf_rounds = "
                f"{self.surf_init_epoch + self.surf_rounds}, exceeds Uniform-w's "
                f"uniform_epochs = {self.uniform_epochs}"
            )

    def gpu_epochs(self) -> dict[str, int]:
        """Slot-epochs each stage trains (one epoch is one solve on one GPU), reused ones not
        counted (see :meth:`reused_epochs`); their sum is the protocol's training budget.

        Examples
        --------
        >>> from paretosurf.llm import Protocol
        >>> Protocol().gpu_epochs()
        {'warm start': 10, 'Uniform-w': 72, 'SURF': 24, 'Soup': 0}
        >>> Protocol(reuse_uniform=False).gpu_epochs()["SURF"]
        28
        """
        n = self.n_segments + 1
        return {
            "warm start": self.warm_epochs,
            "Uniform-w": n * self.uniform_epochs,
            "SURF": (n - 2) * self.surf_rounds - self.reused_epochs()["SURF"],
            "Soup": 0,
        }

    def reused_epochs(self) -> dict[str, int]:
        """Slot-epochs a stage takes from another instead of training them: SURF's first
        round, at its ``N - 1`` interior slots, is Uniform-w's epoch ``surf_init_epoch + 1``
        (its endpoints are never trained). A run that cannot reuse them (a run folder of an
        older version, changed solver settings) trains them, and its report says so.

        Examples
        --------
        >>> from paretosurf.llm import Protocol
        >>> Protocol().reused_epochs()
        {'SURF': 4}
        """
        return {"SURF": self.n_segments - 1 if self.reuse_uniform else 0}

    def budget_text(self) -> str:
        """The planned budget in one line (see :func:`format_budget`)."""
        return format_budget(
            self.gpu_epochs(), self.reused_epochs(), reused_from=self.surf_init_epoch + 1
        )


def format_budget(
    trained: Mapping[str, int], reused: Mapping[str, int], *, reused_from: int | None = None
) -> str:
    """Slot-epochs trained per stage, the reused ones beside them, and the total trained.

    Examples
    --------
    >>> from paretosurf.llm.protocol import format_budget
    >>> format_budget({"Uniform-w": 72, "SURF": 24}, {"SURF": 4}, reused_from=6)
    "Uniform-w 72, SURF 24 (+ 4 reused from Uniform-w's epoch 6) (total 96 trained)"
    """
    where = "" if reused_from is None else f" from Uniform-w's epoch {reused_from}"
    parts = []
    for stage, count in trained.items():
        extra = reused.get(stage, 0)
        parts.append(f"{stage} {count}" + (f" (+ {extra} reused{where})" if extra else ""))
    return ", ".join(parts) + f" (total {sum(trained.values())} trained)"


@dataclass(frozen=True)
class KnownSolve:
    """A solve already made: from the state saved in ``start``, at ``weight``, it gave the
    state saved in ``result`` with ``objectives``. ``marker``: a file written when a
    :class:`ReuseSolves` hands it out (the run's count of reused slot-epochs)."""

    weight: float
    start: StateFolder
    result: StateFolder
    objectives: tuple[float, ...]
    label: str
    marker: str | None = None


class ReuseEndpoints:
    """A solver that trains no more at ``w = 0`` and ``w = 1``: there it returns the given,
    finished adapters unchanged (Uniform-w's final ones in :func:`run_protocol`), with their
    objectives estimated by ``solver.evaluate`` and ``{"steps": 0, "reused": True}``;
    elsewhere it defers to ``solver``. With :class:`~paretosurf.llm.LLMSolver`, whose
    evaluation draws the same prompts and random stream for every adapter, the estimate is
    the same in every round: the endpoints add no noise of their own."""

    def __init__(self, solver: Any, ends: dict[float, Any]) -> None:
        self.solver = solver
        self.ends = dict(ends)

    def solve(self, weight: float, state: Any) -> Solution:
        if weight in self.ends:
            end = load_state(self.solver, self.ends[weight])
            return Solution(self.solver.evaluate(end), end, {"steps": 0, "reused": True})
        return self.solver.solve(weight, state)

    def save_state(self, state: Any, folder: Path) -> None:
        self.solver.save_state(state, folder)

    def load_state(self, folder: Path) -> Any:
        return self.solver.load_state(folder)


class ReuseSolves:
    """A solver that hands out solves already made instead of making them again: a call
    ``solve(weight, state)`` whose weight is a :class:`KnownSolve`'s (to 1e-12) and whose
    ``state`` equals that solve's start (:func:`same_state`) returns its saved result and
    objectives, with ``info = {"steps": 0, "reused": label}``; every other call goes to
    ``solver``. The caller vouches that ``solver`` has the settings the known solves had.

    Parameters
    ----------
    solver : object
        The inner solver, with ``save_state``/``load_state`` (states kept in folders) and
        ``evaluate``.
    solves : sequence of KnownSolve
        The solves that may be reused.

    Notes
    -----
    The start is compared with ``KnownSolve.start`` (read with ``solver.load_state``) value
    for value (:func:`same_state`; the saved bytes may differ, as safetensors orders its
    metadata freely); what cannot be compared counts as another start and is trained. Only
    calls at a known weight pay for the comparison.
    """

    def __init__(self, solver: Any, solves: Sequence[KnownSolve]) -> None:
        self.solver = solver
        self.solves = tuple(solves)

    def solve(self, weight: float, state: Any) -> Solution:
        for known in self.solves:
            if abs(float(weight) - known.weight) <= 1e-12 and self._same_start(state, known):
                result = load_state(self.solver, known.result)
                if known.marker is not None:
                    Path(known.marker).parent.mkdir(parents=True, exist_ok=True)
                    Path(known.marker).write_text(
                        json.dumps({"weight": known.weight, "reused": known.label}) + "\n"
                    )
                return Solution(
                    np.asarray(known.objectives, dtype=np.float64),
                    result,
                    {"steps": 0, "reused": known.label},
                )
        return self.solver.solve(weight, state)

    def _same_start(self, state: Any, known: KnownSolve) -> bool:
        if state is None or not Path(known.start.path).is_dir():
            return False
        return same_state(load_state(self.solver, state), load_state(self.solver, known.start))

    def evaluate(self, state: Any) -> Any:
        return self.solver.evaluate(state)

    def save_state(self, state: Any, folder: Path) -> None:
        self.solver.save_state(state, folder)

    def load_state(self, folder: Path) -> Any:
        return self.solver.load_state(folder)


def same_state(a: Any, b: Any) -> bool:
    """Whether two solver states are equal, value for value: arrays (numpy, or anything with
    ``numpy()`` such as a CPU torch tensor) by dtype, shape and elements, mappings and
    sequences item by item, dataclasses and plain objects attribute by attribute, anything
    else by ``==``. Conservative: what it cannot compare is unequal.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.llm.protocol import same_state
    >>> same_state({"w": np.ones(3), "calls": 2}, {"w": np.ones(3), "calls": 2})
    True
    >>> same_state({"w": np.ones(3)}, {"w": np.ones(3, dtype=np.float32)})
    False
    """
    if type(a) is not type(b):
        return False
    if hasattr(a, "detach") and hasattr(a, "numpy"):  # a torch tensor
        a, b = a.detach().cpu().numpy(), b.detach().cpu().numpy()
    if isinstance(a, np.ndarray):
        return bool(a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b))
    if isinstance(a, Mapping):
        return a.keys() == b.keys() and all(same_state(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_state(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (str, bytes, int, float, bool, type(None), np.generic)):
        return bool(a == b)
    if hasattr(a, "__dict__"):
        return same_state(vars(a), vars(b))
    try:
        equal = a == b
    except Exception:  # an object that cannot be compared: unequal, trained again
        return False
    return equal if isinstance(equal, bool) else False


#: Solver attributes left out of its settings' fingerprint: where scratch files go.
_NOT_SETTINGS = frozenset({"workdir"})


def _describe(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (list, tuple)):
        return [_describe(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _describe(v) for k, v in value.items()}
    text = repr(value)
    return None if " at 0x" in text else text  # an address says nothing of the settings


def solver_settings(solver: Any) -> str:
    """A fingerprint of ``solver``'s settings: a hash of its type and public attributes
    (numbers, strings, containers of them and the ``repr`` of other objects, where it holds
    no memory address), for telling whether a kept solve was made with today's settings."""
    attributes = getattr(solver, "__dict__", None)
    described: Any = (
        repr(solver)
        if attributes is None
        else {
            k: _describe(v)
            for k, v in sorted(attributes.items())
            if not k.startswith("_") and k not in _NOT_SETTINGS
        }
    )
    text = json.dumps(
        {"type": f"{type(solver).__module__}.{type(solver).__qualname__}", "settings": described},
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class ProtocolReport:
    """What :func:`run_protocol` produced: per method, its weights, its assessed points with
    and without the KL term, per-batch points, and the Table 2 scores; ``gpu_epochs``, the
    slot-epochs each stage trained, and ``reused_epochs``, those it took from another stage
    instead (``reused_from``: Uniform-w's epoch they are)."""

    methods: dict[str, dict[str, Any]] = field(default_factory=dict)
    hv_ref: list[float] = field(default_factory=list)
    hv_ref_no_kl: list[float] = field(default_factory=list)
    gpu_epochs: dict[str, int] = field(default_factory=dict)
    reused_epochs: dict[str, int] = field(default_factory=dict)
    reused_from: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "methods": self.methods,
            "hv_ref": self.hv_ref,
            "hv_ref_no_kl": self.hv_ref_no_kl,
            "gpu_epochs": self.gpu_epochs,
            "reused_epochs": self.reused_epochs,
            "reused_from": self.reused_from,
            "hv_ref_rule": "worst point of every method plus 10% of the spread, per "
            "objective (rewards negated: minimized)",
        }


def _warm_start(
    solver: Any,
    protocol: Protocol,
    folder: Path,
    log: Callable[[str], None],
    executor: Any,
) -> Any:
    """The shared warm start: ``warm_epochs`` solves at ``w = 0.5``, each run by ``executor``
    and saved (resumable)."""
    folder.mkdir(parents=True, exist_ok=True)
    done = sorted(p for p in folder.glob("epoch-*") if p.is_dir())
    state = StateFolder(done[-1]) if done else None
    for epoch in range(len(done), protocol.warm_epochs):
        task = SolveTask(0, 0.5, state, save_to=str(folder / f"epoch-{epoch + 1:03d}"))
        (sol,) = run_jobs(executor, solver, [task], [f"the warm start's epoch {epoch + 1}"])
        state = sol.state
        log(
            f"warm start: epoch {epoch + 1}/{protocol.warm_epochs}, objectives "
            f"{np.round(sol.objectives, 4).tolist()}"
        )
    return state


def _rounds_saved(folder: Path) -> int:
    """Rounds saved in the run folder ``folder`` (0 if it holds no run yet)."""
    from paretosurf.storage import RunFolder

    run = RunFolder(folder)
    return run.n_rounds() if run.holds_run() else 0


def _keep_round(solver: Any, result: Result, folder: Path, epoch: int) -> bool:
    """Keep Uniform-w's states and objectives after ``epoch`` rounds in ``folder`` (with the
    solver's settings and a ``done`` mark); False, keeping nothing, if ``result`` is of
    another round (a run folder already further on)."""
    if len(result.history) != epoch:
        return False
    shutil.rmtree(folder, ignore_errors=True)
    for slot, state in enumerate(result.states):
        save_state(solver, load_state(solver, state), folder / f"slot-{slot:02d}")
    record = result.history[-1]
    (folder / "round.json").write_text(
        json.dumps(
            {
                "epoch": epoch,
                "settings": solver_settings(solver),
                "weights": np.asarray(record.weights, dtype=np.float64).tolist(),
                "objectives": np.asarray(record.points, dtype=np.float64).tolist(),
            }
        )
        + "\n"
    )
    (folder / "done").write_text("")
    return True


def _known_solves(
    solver: Any, starts: Path, results: Path, markers: Path, log: Callable[[str], None]
) -> list[KnownSolve]:
    """Uniform-w's solves from the states kept in ``starts`` to those kept in ``results``, at
    the interior slots, if both were kept by this solver's settings; else none."""
    if not (starts / "done").exists() or not (results / "done").exists():
        return []
    meta = json.loads((results / "round.json").read_text())
    start_meta = starts / "round.json"
    if meta.get("settings") != solver_settings(solver) or (
        start_meta.exists()
        and json.loads(start_meta.read_text()).get("settings") != meta.get("settings")
    ):
        log(
            f"Uniform-w's epoch {meta.get('epoch')} was trained with other solver settings: "
            "SURF trains its first round"
        )
        return []
    weights, objectives = meta["weights"], meta["objectives"]
    return [
        KnownSolve(
            float(weights[slot]),
            StateFolder(starts / f"slot-{slot:02d}"),
            StateFolder(results / f"slot-{slot:02d}"),
            tuple(float(v) for v in objectives[slot]),
            f"Uniform-w epoch {meta['epoch']}, slot {slot}",
            str(markers / f"slot-{slot:02d}.json"),
        )
        for slot in range(1, len(weights) - 1)
    ]


def _stage(run: Callable[..., Result], folder: Path, **options: Any) -> Result:
    """A method's run in ``folder``, resumed if it was started; every round is saved (a round
    is N + 1 fine-tunings). A stage goes on with the solver it is given, even one with other
    settings than it started with (``resume="force"``): the protocol tells changed settings
    apart itself, and trains what it cannot reuse (see :meth:`Protocol.reused_epochs`)."""
    return run(checkpoint=folder, resume="force", checkpoint_period=0, **options)


def run_protocol(
    solver: Any,
    out: str | Path,
    *,
    protocol: Protocol | None = None,
    executor: Any = None,
    log: Callable[[str], None] | None = None,
    progress: bool = False,
) -> ProtocolReport:
    """Run the paper's protocol with ``solver`` into ``out`` (resumable: run it again to
    continue); returns the report and writes ``table.md``, ``results.json``, ``front.png``,
    ``training.png`` (the training curves the solver logged, per method and slot) and every
    final adapter (``adapters/METHOD/slot-NN``).

    Parameters
    ----------
    solver : object
        One epoch per call; ``save_state``/``load_state``, ``evaluate``, ``interpolate``
        (see the module docstring), e.g. :class:`paretosurf.llm.LLMSolver`.
    out : path
        The run's folder.
    protocol : Protocol, optional
        The settings (default: the paper's).
    executor : object, optional
        Where every job that needs the model runs: the warm start's epochs, the methods'
        solves and the assessment of the final adapters (``ps.RayExecutor(num_gpus=1)``: one
        GPU per job; ``ps.ProcessExecutor(8, gpus_per_worker=1)``: one per worker process).
        With one that runs solves elsewhere than in this process, this process loads no
        model. Started once for the whole protocol (and closed at its end if this call
        started it). Default: this process (:class:`~paretosurf.executors.LocalExecutor`).
    log : callable, optional
        Called with a line of text at each milestone.
    progress : bool
        Progress bars for the methods' rounds.
    """
    place = LocalExecutor() if executor is None else executor
    started = place.start() if isinstance(place, ManagedExecutor) else False
    try:
        return _run_stages(
            solver,
            Path(out),
            protocol or Protocol(),
            executor,
            place,
            log or (lambda line: None),
            progress,
        )
    finally:
        if started and isinstance(place, ManagedExecutor):
            place.close()


def _run_stages(
    solver: Any,
    root: Path,
    p: Protocol,
    executor: Any,
    place: Any,
    say: Callable[[str], None],
    progress: bool,
) -> ProtocolReport:
    """:func:`run_protocol`'s stages, with ``executor`` given to the methods as it was given
    (``None``: their default) and ``place`` (the same, started; a
    :class:`~paretosurf.executors.LocalExecutor` for ``None``) running the warm start and the
    assessment."""
    from paretosurf.methods import surf, uniform

    root.mkdir(parents=True, exist_ok=True)
    n = p.n_segments
    warm = _warm_start(solver, p, root / "warm", say, place)
    init = None if warm is None else [warm] * (n + 1)
    loop = {"executor": executor, "progress": progress}

    first = p.surf_init_epoch
    kept = root / f"uniform-epoch-{first}"
    if not (kept / "done").exists():  # (once they are kept, Uniform-w's run is further on)
        say(f"Uniform-w: {n + 1} weights, epochs 1..{first}")
        early = _stage(
            uniform,
            root / "uniform",
            solver=solver,
            n_points=n + 1,
            iterations=first,
            init_states=init,
            **loop,
        )
        if not _keep_round(solver, early, kept, first):
            raise RuntimeError(
                f"{root / 'uniform'} holds {len(early.history)} rounds of "
                f"Uniform-w, not the {first} SURF starts from, and "
                f"{kept} was not kept: start the protocol in a new folder"
            )
    surf_init = [StateFolder(kept / f"slot-{slot:02d}") for slot in range(n + 1)]
    following = root / f"uniform-epoch-{first + 1}"
    if p.reuse_uniform and not (following / "done").exists():
        if _rounds_saved(root / "uniform") <= first + 1:
            say(f"Uniform-w: epoch {first + 1} (SURF's first round reuses it)")
            then = _stage(
                uniform,
                root / "uniform",
                solver=solver,
                n_points=n + 1,
                iterations=first + 1,
                **loop,
            )
            _keep_round(solver, then, following, first + 1)
        else:  # a run folder of a run that did not keep it (older, or without reuse)
            say(
                f"Uniform-w's epoch {first + 1} was not kept in this run folder: SURF trains "
                "its first round"
            )
    say(f"Uniform-w: epochs {first + 1}..{p.uniform_epochs}")
    uni = _stage(
        uniform,
        root / "uniform",
        solver=solver,
        n_points=n + 1,
        iterations=p.uniform_epochs,
        **loop,
    )

    known = (
        _known_solves(solver, kept, following, root / "surf-reused", say) if p.reuse_uniform else []
    )
    say(
        f"SURF: N = {n}, {p.surf_rounds} rounds from Uniform-w's epoch-{first} adapters, "
        f"endpoints reused" + (f", first round = Uniform-w's epoch {first + 1}" if known else "")
    )
    inner: Any = ReuseSolves(solver, known) if known else solver
    reuse = ReuseEndpoints(inner, {0.0: uni.states[0], 1.0: uni.states[-1]})
    surf_res = _stage(
        surf,
        root / "surf",
        solver=reuse,
        n_points=n + 1,
        alpha=p.alpha,
        iterations=p.surf_rounds,
        init_states=surf_init,
        moving_average=p.moving_average,
        early_stopping=False,  # the protocol's fixed budget of rounds
        **loop,
    )

    say("Soup: Uniform-w's endpoint adapters interpolated")
    end0 = load_state(solver, uni.states[0])
    end1 = load_state(solver, uni.states[-1])
    soup_states = [solver.interpolate(end0, end1, i / n) for i in range(n + 1)]

    finals = {
        "Uniform-w": (uni.weights, [load_state(solver, s) for s in uni.states]),
        "SURF": (surf_res.weights, [load_state(solver, s) for s in surf_res.states]),
        "Soup": (np.arange(n + 1) / n, soup_states),
    }
    reused = sum(1 for _ in (root / "surf-reused").glob("slot-*.json"))
    trained = {**p.gpu_epochs(), "SURF": (n - 1) * p.surf_rounds - reused}
    report = ProtocolReport(
        gpu_epochs=trained, reused_epochs={"SURF": reused}, reused_from=first + 1
    )
    jobs: list[tuple[str, int]] = []
    tasks: list[SolveTask] = []
    for label, (weights, states) in finals.items():
        for slot, state in enumerate(states):
            folder = save_state(solver, state, root / "adapters" / label / f"slot-{slot:02d}")
            tasks.append(SolveTask(len(jobs), float(weights[slot]), folder))
            jobs.append((label, slot))
    say(
        f"assessing {len(tasks)} adapters ("
        + ", ".join(f"{label} {len(states)}" for label, (_, states) in finals.items())
        + ")"
    )
    assessed = run_jobs(
        place,
        AssessmentJob(solver),
        tasks,
        [f"the assessment of {label}'s slot {slot}" for label, slot in jobs],
    )
    for label, (weights, _) in finals.items():
        rows = [
            sol.info["assessment"]
            for (of, _), sol in zip(jobs, assessed, strict=True)
            if of == label
        ]
        report.methods[label] = _assess(np.asarray(weights, dtype=np.float64), rows)
    _score(report)
    names = getattr(solver, "objective_names", None)
    _write(
        report,
        root,
        tuple(names) if names is not None else ("-(reward 1 - beta KL)", "-(reward 2 - beta KL)"),
    )
    say(f"wrote table.md, results.json and front.png to {root}")
    _plot_training(solver, root, say)
    return report


def _plot_training(solver: Any, root: Path, say: Callable[[str], None]) -> None:
    """``training.png``: the training curves of every solve (per method, slot and round) that
    the solver logged in its ``workdir``
    (:func:`~paretosurf.llm.training_log.plot_training_curves`); a solver that logs nothing
    gets a line instead."""
    from paretosurf.llm.training_log import plot_training_curves, read_training_logs
    from paretosurf.plotting import pyplot

    workdir = getattr(solver, "workdir", None)
    try:
        logs = read_training_logs(workdir if workdir is not None else root)
        fig = plot_training_curves(root, path=root / "training.png", logs=logs)
    except (FileNotFoundError, ValueError) as exc:
        say(f"no training curves: {exc}")
        return
    pyplot().close(fig)
    say(f"training curves: {root / 'training.png'}")


def _assess(weights: FloatArray, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A method's entry of the report: its weights and its adapters' assessments (``rows``,
    one per slot, from :func:`paretosurf.llm._jobs.solver_assessment`)."""
    out: dict[str, Any] = {
        "weights": weights.tolist(),
        "points": np.stack([r["objectives"] for r in rows]).tolist(),
    }
    for key in ("objectives_no_kl", "batch_objectives", "batch_objectives_no_kl"):
        if all(key in r for r in rows):
            name = {"objectives_no_kl": "points_no_kl"}.get(key, key)
            out[name] = np.stack([np.asarray(r[key], dtype=np.float64) for r in rows]).tolist()
    return out


def _reference(points: list[FloatArray]) -> FloatArray:
    allp = np.concatenate(points)
    worst, best = allp.max(axis=0), allp.min(axis=0)
    spread = np.where(worst > best, worst - best, 1.0)
    return np.asarray(worst + 0.1 * spread, dtype=np.float64)


def _scores(points: FloatArray, ref: FloatArray) -> dict[str, float]:
    return {
        "hv": metrics.hypervolume(points, ref=ref),
        "cv": metrics.cv(points),
        "gap_ratio": metrics.gap_ratio(points),
    }


def _score(report: ProtocolReport) -> None:
    for kind, key, batch_key, ref_name in (
        ("with KL", "points", "batch_objectives", "hv_ref"),
        ("without KL", "points_no_kl", "batch_objectives_no_kl", "hv_ref_no_kl"),
    ):
        if not all(key in m for m in report.methods.values()):
            continue
        ref = _reference([np.asarray(m[key]) for m in report.methods.values()])
        setattr(report, ref_name, ref.tolist())
        for entry in report.methods.values():
            scores = {
                name: {"value": value}
                for name, value in _scores(np.asarray(entry[key]), ref).items()
            }
            if batch_key in entry:
                # the slots' estimates on evaluation batch b: (slots, batches, 2)
                per_batch = np.asarray(entry[batch_key])
                runs = [_scores(per_batch[:, b, :], ref) for b in range(per_batch.shape[1])]
                for name in scores:
                    values = np.array([r[name] for r in runs])
                    finite = values[np.isfinite(values)]
                    scores[name].update(
                        mean=float(finite.mean()) if finite.size else math.nan,
                        std=float(finite.std()) if finite.size else math.nan,
                    )
            entry.setdefault("scores", {})[kind] = scores


def format_table(report: ProtocolReport) -> str:
    """The Table 2 block as Markdown: per method, HV, CV and gap ratio with and without the
    KL term (mean +- std over the evaluation batches when the solver gives them)."""
    labels = list(report.methods)
    lines = ["| metric | " + " | ".join(labels) + " |", "|" + "---|" * (len(labels) + 1)]
    lines += score_rows(labels, lambda m, kind: report.methods[m].get("scores", {}).get(kind))
    lines.append("")
    lines.append(
        "HV reference point: the worst point of every method plus 10% of the spread "
        "per objective (objectives are negated rewards, minimized). Training budget "
        "in slot-epochs: "
        + format_budget(report.gpu_epochs, report.reused_epochs, reused_from=report.reused_from)
        + "."
    )
    return "\n".join(lines)


def _write(report: ProtocolReport, root: Path, objective_names: tuple[str, ...]) -> None:
    """``results.json`` (with the objectives' names), ``table.md`` (naming the objectives
    below the table) and ``front.png`` (:func:`paretosurf.llm._figures.plot_front`: the
    methods overlaid, error bars, weights, the CV as the table writes it)."""
    results = {**report.to_json(), "objective_names": list(objective_names)}
    (root / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    named = "; ".join(f"{i + 1} = {name}" for i, name in enumerate(objective_names))
    (root / "table.md").write_text(format_table(report) + f"\n\nObjectives (minimized): {named}.\n")
    from paretosurf.llm._figures import plot_front
    from paretosurf.plotting import pyplot

    fig = plot_front(report, objective_names, path=root / "front.png")
    pyplot().close(fig)
