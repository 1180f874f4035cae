"""The paper's LLM protocol (its Table 2) as one resumable run.

Stages, each in its own folder under ``out`` and each resumable:

1. ``warm/``: a shared warm start, ``warm_epochs`` solves at ``w = 0.5`` (one epoch each).
2. ``uniform/``: Uniform-w, ``N + 1`` weights ``0, 1/N, ..., 1`` for ``uniform_epochs`` rounds
   from the warm start; the adapters after ``surf_init_epoch`` rounds are kept aside.
3. ``surf/``: SURF from those adapters for ``surf_rounds`` rounds of one epoch (so that every
   slot gets Uniform-w's budget), the objectives averaged across rounds (``moving_average``);
   the endpoints are Uniform-w's finished ones, reused, not trained again.
4. Soup: Uniform-w's two endpoint adapters interpolated at ``w = n / N``.

Every final adapter is then assessed on the same evaluation prompts, and ``table.md``,
``results.json`` and ``front.png`` are written: HV, CV and gap ratio with and without the KL
term, mean +- std over the evaluation batches.

The solver is any inner solver with one epoch per call, ``save_state``/``load_state`` (its
states are adapter folders), ``evaluate(state)`` and ``interpolate(state0, state1, t)``;
:class:`paretosurf.llm.LLMSolver` is one. If it also has ``assess(state) -> dict`` (keys
``objectives``, ``objectives_no_kl``, ``batch_objectives``, ``batch_objectives_no_kl``), the
table uses it; otherwise ``evaluate`` alone (no std, no figures without the KL term).
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf import metrics
from paretosurf._validation import check_n_segments, check_non_negative_int, check_positive_int
from paretosurf.driver import check_moving_average
from paretosurf.result import SurfResult
from paretosurf.solvers import Solution
from paretosurf.states import StateFolder, load_state, save_state
from paretosurf.surf import CDFRefinement

__all__ = ["Protocol", "ProtocolReport", "ReuseEndpoints", "run_protocol"]

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

    def __post_init__(self) -> None:
        # The checks of the functions the stages call (surf, uniform and the driver), run
        # now rather than when the stage starts: the values are stored as those take them.
        checked: dict[str, object] = {
            "n_segments": check_n_segments(self.n_segments),
            "warm_epochs": check_non_negative_int(self.warm_epochs, name="warm_epochs"),
            **{name: check_positive_int(getattr(self, name), name=name)
               for name in ("uniform_epochs", "surf_init_epoch", "surf_rounds")},
            "moving_average": check_moving_average(self.moving_average),
            "alpha": CDFRefinement(self.alpha).setting(),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)
        if self.surf_init_epoch >= self.uniform_epochs:
            raise ValueError(f"surf_init_epoch ({self.surf_init_epoch}) must be below "
                             f"uniform_epochs ({self.uniform_epochs})")
        if self.surf_init_epoch + self.surf_rounds > self.uniform_epochs:
            raise ValueError(
                f"SURF's per-slot budget, surf_init_epoch + surf_rounds = "
                f"{self.surf_init_epoch + self.surf_rounds}, exceeds Uniform-w's "
                f"uniform_epochs = {self.uniform_epochs}")

    def gpu_epochs(self) -> dict[str, int]:
        """Slot-epochs each stage trains (one epoch is one solve on one GPU)."""
        n = self.n_segments + 1
        return {"warm start": self.warm_epochs, "Uniform-w": n * self.uniform_epochs,
                "SURF": (n - 2) * self.surf_rounds, "Soup": 0}


class ReuseEndpoints:
    """A solver that trains no more at ``w = 0`` and ``w = 1``: there it returns given, finished
    adapters (re-evaluated, so that their estimates carry fresh noise like the others'),
    elsewhere it defers to ``solver``."""

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


@dataclass
class ProtocolReport:
    """What :func:`run_protocol` produced: per method, its weights, its assessed points with
    and without the KL term, per-batch points, and the Table 2 scores."""

    methods: dict[str, dict[str, Any]] = field(default_factory=dict)
    hv_ref: list[float] = field(default_factory=list)
    hv_ref_no_kl: list[float] = field(default_factory=list)
    gpu_epochs: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"methods": self.methods, "hv_ref": self.hv_ref,
                "hv_ref_no_kl": self.hv_ref_no_kl, "gpu_epochs": self.gpu_epochs,
                "hv_ref_rule": "worst point of every method plus 10% of the spread, per "
                               "objective (rewards negated: minimized)"}


def _warm_start(solver: Any, protocol: Protocol, folder: Path,
                log: Callable[[str], None]) -> Any:
    """The shared warm start: ``warm_epochs`` solves at ``w = 0.5``, each saved (resumable)."""
    folder.mkdir(parents=True, exist_ok=True)
    done = sorted(p for p in folder.glob("epoch-*") if p.is_dir())
    state = StateFolder(done[-1]) if done else None
    for epoch in range(len(done), protocol.warm_epochs):
        sol = solver.solve(0.5, load_state(solver, state))
        state = save_state(solver, sol.state, folder / f"epoch-{epoch + 1:03d}")
        log(f"warm start: epoch {epoch + 1}/{protocol.warm_epochs}, objectives "
            f"{np.round(sol.objectives, 4).tolist()}")
    return state


def _stage(run: Callable[..., SurfResult], folder: Path, **options: Any) -> SurfResult:
    """A method's run in ``folder``, resumed if it was started; every round is saved (a round
    is N + 1 fine-tunings)."""
    return run(checkpoint=folder, resume=True, checkpoint_period=0, **options)


def run_protocol(solver: Any, out: str | Path, *, protocol: Protocol | None = None,
                 executor: Any = None, log: Callable[[str], None] | None = None,
                 progress: bool = False) -> ProtocolReport:
    """Run the paper's protocol with ``solver`` into ``out`` (resumable: run it again to
    continue); returns the report and writes ``table.md``, ``results.json``, ``front.png``
    and every final adapter (``adapters/METHOD/slot-NN``).

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
        Where the solves run (``ps.RayExecutor(num_gpus=1)``: one GPU per solve).
    log : callable, optional
        Called with a line of text at each milestone.
    progress : bool
        Progress bars for the methods' rounds.
    """
    from paretosurf.baselines import uniform
    from paretosurf.surf import surf

    p = protocol or Protocol()
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    say = log or (lambda line: None)
    n = p.n_segments
    warm = _warm_start(solver, p, root / "warm", say)
    init = None if warm is None else [warm] * (n + 1)
    loop = {"executor": executor, "progress": progress}

    kept = root / f"uniform-epoch-{p.surf_init_epoch}"
    if not (kept / "done").exists():   # (once they are kept, Uniform-w's run is further on)
        say(f"Uniform-w: {n + 1} weights, epochs 1..{p.surf_init_epoch}")
        early = _stage(uniform, root / "uniform", solver=solver, n_segments=n,
                       iterations=p.surf_init_epoch, init_states=init, **loop)
        shutil.rmtree(kept, ignore_errors=True)
        for slot, state in enumerate(early.states):
            save_state(solver, load_state(solver, state), kept / f"slot-{slot:02d}")
        (kept / "done").write_text("")
    surf_init = [StateFolder(kept / f"slot-{slot:02d}") for slot in range(n + 1)]
    say(f"Uniform-w: epochs {p.surf_init_epoch + 1}..{p.uniform_epochs}")
    uni = _stage(uniform, root / "uniform", solver=solver, n_segments=n,
                 iterations=p.uniform_epochs, **loop)

    say(f"SURF: N = {n}, {p.surf_rounds} rounds from Uniform-w's epoch-{p.surf_init_epoch} "
        "adapters, endpoints reused")
    reuse = ReuseEndpoints(solver, {0.0: uni.states[0], 1.0: uni.states[-1]})
    surf_res = _stage(surf, root / "surf", solver=reuse, n_segments=n, alpha=p.alpha,
                      iterations=p.surf_rounds, init_states=surf_init,
                      moving_average=p.moving_average, **loop)

    say("Soup: Uniform-w's endpoint adapters interpolated")
    end0 = load_state(solver, uni.states[0])
    end1 = load_state(solver, uni.states[-1])
    soup_states = [solver.interpolate(end0, end1, i / n) for i in range(n + 1)]

    finals = {"Uniform-w": (uni.weights, [load_state(solver, s) for s in uni.states]),
              "SURF": (surf_res.weights, [load_state(solver, s) for s in surf_res.states]),
              "Soup": (np.arange(n + 1) / n, soup_states)}
    report = ProtocolReport(gpu_epochs=p.gpu_epochs())
    for label, (weights, states) in finals.items():
        say(f"assessing {label}'s {len(states)} adapters")
        for slot, state in enumerate(states):
            save_state(solver, state, root / "adapters" / label / f"slot-{slot:02d}")
        report.methods[label] = _assess(solver, np.asarray(weights, dtype=np.float64), states)
    _score(report)
    names = getattr(solver, "objective_names", None)
    _write(report, root, tuple(names) if names is not None else
           ("-(reward 1 - beta KL)", "-(reward 2 - beta KL)"))
    say(f"wrote table.md, results.json and front.png to {root}")
    return report


def _assess(solver: Any, weights: FloatArray, states: Sequence[Any]) -> dict[str, Any]:
    rows = []
    for state in states:
        if callable(getattr(solver, "assess", None)):
            rows.append(solver.assess(state))
        else:
            rows.append({"objectives": np.asarray(solver.evaluate(state), dtype=np.float64)})
    out: dict[str, Any] = {"weights": weights.tolist(),
                           "points": np.stack([r["objectives"] for r in rows]).tolist()}
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
    return {"hv": metrics.hypervolume(points, ref=ref), "cv": metrics.cv(points),
            "gap_ratio": metrics.gap_ratio(points)}


def _score(report: ProtocolReport) -> None:
    for kind, key, batch_key, ref_name in (
            ("with KL", "points", "batch_objectives", "hv_ref"),
            ("without KL", "points_no_kl", "batch_objectives_no_kl", "hv_ref_no_kl")):
        if not all(key in m for m in report.methods.values()):
            continue
        ref = _reference([np.asarray(m[key]) for m in report.methods.values()])
        setattr(report, ref_name, ref.tolist())
        for entry in report.methods.values():
            scores = {name: {"value": value} for name, value in
                      _scores(np.asarray(entry[key]), ref).items()}
            if batch_key in entry:
                # the slots' estimates on evaluation batch b: (slots, batches, 2)
                per_batch = np.asarray(entry[batch_key])
                runs = [_scores(per_batch[:, b, :], ref) for b in range(per_batch.shape[1])]
                for name in scores:
                    values = np.array([r[name] for r in runs])
                    finite = values[np.isfinite(values)]
                    scores[name].update(mean=float(finite.mean()) if finite.size else math.nan,
                                        std=float(finite.std()) if finite.size else math.nan)
            entry.setdefault("scores", {})[kind] = scores


def _cell(score: dict[str, float]) -> str:
    if "mean" in score and math.isfinite(score["mean"]):
        return f"{score['mean']:.4g} +- {score['std']:.2g}"
    return f"{score['value']:.4g}"


def format_table(report: ProtocolReport) -> str:
    """The Table 2 block as Markdown: per method, HV, CV and gap ratio with and without the
    KL term (mean +- std over the evaluation batches when the solver gives them)."""
    labels = list(report.methods)
    lines = ["| metric | " + " | ".join(labels) + " |", "|" + "---|" * (len(labels) + 1)]
    for kind in ("with KL", "without KL"):
        for name, title in (("hv", "HV"), ("cv", "CV"), ("gap_ratio", "gap ratio")):
            cells = [_cell(report.methods[m]["scores"][kind][name])
                     if kind in report.methods[m].get("scores", {}) else "-" for m in labels]
            if all(c == "-" for c in cells):
                continue
            lines.append(f"| {title} ({kind}) | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("HV reference point: the worst point of every method plus 10% of the spread "
                 "per objective (objectives are negated rewards, minimized). Training budget "
                 "in slot-epochs: " + ", ".join(f"{k} {v}" for k, v in
                                                report.gpu_epochs.items()) + ".")
    return "\n".join(lines)


def _write(report: ProtocolReport, root: Path, objective_names: tuple[str, ...]) -> None:
    (root / "results.json").write_text(json.dumps(report.to_json(), indent=1) + "\n")
    (root / "table.md").write_text(format_table(report) + "\n")
    from paretosurf import plotting

    plt = plotting._pyplot()
    fig = plotting.plot_fronts({label: np.asarray(m["points"]) for label, m in
                                report.methods.items()},
                               objective_names=objective_names,
                               title="LLM policies: SURF, Uniform-w and Soup")
    plotting.save_figure(fig, root / "front.png")
    plt.close(fig)
