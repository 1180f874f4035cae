"""Run methods on a task over seeds, score them, and write the Table 1 block and figures.

Every method gets the same inner solver and budget: ``iterations`` solver calls per slot (Soup:
per endpoint; OLS: at most ``iterations * (N + 1)`` calls). Scores use exact references: the HV
reference point is ``nadir + HV_MARGIN * (nadir - ideal)`` of the exact front and IGD is measured
against ``problem.reference_front(IGD_POINTS)`` (points evenly spaced in arc length). A problem
without an exact front (deep RL) is scored against the non-dominated union of every method's
points over all seeds, with the task's fixed HV reference point where it has one.
"""

from __future__ import annotations

import json
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import moocore
import numpy as np
from numpy.typing import ArrayLike, NDArray

from paretosurf import metrics
from paretosurf._utils.validation import as_front_points
from paretosurf.bench.figures import FIGURE_NAMES, task_figures
from paretosurf.bench.tasks import SOLVER_KINDS, Task
from paretosurf.findings import ParetoWarning
from paretosurf.loop import RunOptions, Spacing
from paretosurf.methods import METHODS as ALL_METHODS
from paretosurf.methods import MethodInfo, method_names
from paretosurf.result import Result

__all__ = [
    "HV_MARGIN",
    "IGD_POINTS",
    "METHODS",
    "REPORT_FILES",
    "MethodRun",
    "TaskReport",
    "foreign_report_files",
    "format_table",
    "hv_reference_point",
    "run_method",
    "run_task",
    "score",
    "write_report",
]

FloatArray = NDArray[np.float64]

#: HV reference point: nadir + HV_MARGIN * (nadir - ideal) of the exact front, per objective.
HV_MARGIN = 0.1
#: Points of the exact reference front used for IGD and the distance to the front.
IGD_POINTS = 1001
#: Grid of the CDF error.
CDF_GRID = 4001


def hv_reference_point(reference_front: ArrayLike) -> FloatArray:
    """The HV reference point: ``nadir + HV_MARGIN * (nadir - ideal)`` of the exact front.

    Nadir and ideal are the per-objective maximum and minimum (objectives minimized). An
    objective constant on the front gets a margin of ``HV_MARGIN * max(|nadir|, 1)``.

    Examples
    --------
    >>> from paretosurf.bench.runner import hv_reference_point
    >>> hv_reference_point([[0.0, -1.0], [2.0, -3.0]]).tolist()
    [2.2, -0.8]
    """
    front = as_front_points(reference_front, name="reference_front", min_points=1)
    nadir, ideal = front.max(axis=0), front.min(axis=0)
    spread = nadir - ideal
    spread = np.where(spread > 0, spread, np.maximum(np.abs(nadir), 1.0))
    return np.asarray(nadir + HV_MARGIN * spread, dtype=np.float64)


# ------------------------------------------------------------------------------- methods
@dataclass
class MethodRun:
    """Everything a method needs for one run."""

    task: Task
    problem: Any
    solver: Any
    kind: str
    n_segments: int
    iterations: int
    seed: int
    init_states: list[Any] | None
    loop: RunOptions = field(default_factory=lambda: RunOptions())
    slots: bool = True

    def options(self) -> RunOptions:
        """The loop options the method runs with: the task's coordinates, moving average and
        (for a method with ``slots``, see :attr:`paretosurf.methods.MethodInfo.slots`) the
        round its result reports, and ``loop`` (executor, checkpoint, progress...)."""
        # the paper's protocol: every run takes its rounds (no early stop)
        options = RunOptions(normalize=self.task.normalize, early_stopping=False)
        if self.task.moving_average is not None:
            options["moving_average"] = self.task.moving_average
        if self.slots and self.task.report != "auto":
            options["report"] = self.task.report
        options.update(self.loop)
        return options

    def keywords(self) -> dict[str, Any]:
        """The task's settings for every method; each method takes those its entry function
        has (:meth:`paretosurf.methods.MethodInfo.__call__`): SURF's ``alpha``, the
        ``warm_start`` rule, the ``seed``, the per-solve budget of OLS (``calls_per_solve``:
        a gradient solver gets the calls of one slot of a SURF run) and the problem as
        Soup's ``interpolator`` when it can interpolate solutions."""
        problem = (
            self.problem
            if any(callable(getattr(self.problem, m, None)) for m in ("interpolate", "evaluate"))
            else None
        )
        return {
            "alpha": self.task.alpha,
            "warm_start": self.task.warm_start,
            "seed": self.seed,
            "init_states": self.init_states,
            "calls_per_solve": self.iterations if self.kind == "gradient" else 1,
            "interpolator": problem,
            **self.options(),
        }


def run_method(info: MethodInfo, run: MethodRun) -> Result:
    """Run the registry's method ``info`` as :func:`run_task` does: the budget of
    ``run.iterations`` rounds of every slot."""
    return info(run.solver, run.n_segments + 1, rounds=run.iterations, **run.keywords())


#: The benchmark's methods (those of two objectives in :data:`paretosurf.methods.METHODS`),
#: by command-line name.
METHODS: dict[str, MethodInfo] = {name: ALL_METHODS[name] for name in method_names(simplex=False)}


# ------------------------------------------------------------------------------- scoring
def score(
    result: Result, reference_front: FloatArray, hv_ref: FloatArray, true_cdf: Any = None
) -> dict[str, float]:
    """HV, IGD, CV, gap ratio, distance to the exact front and (if known) CDF error."""
    pts = result.points
    dist = metrics.front_distance(pts, reference_front)
    out = {
        "hv": metrics.hypervolume(pts, ref=hv_ref),
        "igd": metrics.igd(pts, reference_front),
        "cv": metrics.cv(pts),
        "gap_ratio": metrics.gap_ratio(pts),
        "front_distance_mean": float(np.mean(dist)),
        "front_distance_max": float(np.max(dist)),
    }
    if true_cdf is not None and result.cdf is not None:
        out["cdf_error"] = metrics.cdf_error(result.cdf, true_cdf, n_grid=CDF_GRID)
    return out


def _summary(values: Sequence[float]) -> dict[str, float | None]:
    arr = np.asarray(values, dtype=np.float64)
    bad = int(np.sum(~np.isfinite(arr)))
    if bad or arr.size == 0:  # e.g. an infinite gap ratio when two points coincide
        return {"mean": None, "std": None, "non_finite": bad}
    return {"mean": float(np.mean(arr)), "std": float(np.std(arr))}


# ------------------------------------------------------------------------------- the run
@dataclass
class TaskReport:
    """What :func:`run_task` measured; :meth:`to_json` is the ``results.json`` content."""

    task: Task
    solver_kind: str
    n_segments: int
    iterations: int
    seeds: list[int]
    hv_ref: FloatArray
    hv_exact_front: float
    problem: Any
    reference_front: FloatArray
    scores: dict[str, list[dict[str, float]]] = field(default_factory=dict)
    results: dict[str, list[Result]] = field(default_factory=dict)
    seconds: dict[str, list[float]] = field(default_factory=dict)
    warmup_steps: int = 0
    exact_reference: bool = True

    def summary(self, method: str, key: str) -> dict[str, float | None]:
        """Mean and std over seeds of one score."""
        return _summary([s[key] for s in self.scores[method] if key in s])

    def _hv_ref_rule(self) -> str:
        if self.exact_reference:
            return f"nadir + {HV_MARGIN} * (nadir - ideal) of the exact front"
        if self.task.hv_ref is not None:
            return "the task's fixed reference point"
        return (
            f"nadir + {HV_MARGIN} * (nadir - ideal) of the non-dominated union of every "
            "method's points"
        )

    def to_json(self) -> dict[str, Any]:
        methods: dict[str, Any] = {}
        for name, runs in self.results.items():
            first = runs[0]
            entry: dict[str, Any] = {
                key: self.summary(name, key)
                for key in (
                    "hv",
                    "igd",
                    "cv",
                    "gap_ratio",
                    "front_distance_mean",
                    "front_distance_max",
                    "cdf_error",
                )
                if key in self.scores[name][0]
            }
            entry.update(
                {
                    "label": METHODS[name].label,
                    "points": first.points.tolist(),
                    "weights": first.weights.tolist(),
                    "n_solves": int(first.n_solves),
                    "n_steps": int(first.n_steps) + self.warmup_steps,
                    "seconds": _summary(self.seconds[name]),
                    "per_seed": [
                        {k: (v if math.isfinite(v) else None) for k, v in s.items()}
                        for s in self.scores[name]
                    ],
                    "success": [bool(r.success) for r in runs],
                    "messages": [r.message for r in runs],
                }
            )
            methods[name] = entry
        return {
            "task": self.task.name,
            "title": self.task.title,
            "solver": self.solver_kind,
            "n_segments": self.n_segments,
            "iterations": self.iterations,
            "alpha": self.task.alpha,
            "seeds": self.seeds,
            "hv_ref": self.hv_ref.tolist(),
            "hv_ref_rule": self._hv_ref_rule(),
            "hv_exact_front": self.hv_exact_front,
            "exact_reference": self.exact_reference,
            "igd_reference": (
                f"exact front, {IGD_POINTS} points evenly spaced in arc length"
                if self.exact_reference
                else f"the non-dominated union of every method's points over all "
                f"seeds ({len(self.reference_front)} points; no exact front)"
            ),
            "objective_names": list(self.task.objective_names),
            "coordinates": Spacing(self.task.normalize).describe(),
            "methods": methods,
        }


def run_task(
    task: Task,
    *,
    methods: Sequence[str] = tuple(METHODS),
    seeds: int | Sequence[int] = 8,
    solver_kind: str = "gradient",
    n_segments: int | None = None,
    iterations: int | None = None,
    progress: Callable[[str], None] | None = None,
    loop: RunOptions | None = None,
    steps: int | None = None,
) -> TaskReport:
    """Run ``methods`` on ``task`` for each seed with the same solver and budget.

    Parameters
    ----------
    task : Task
    methods : sequence of str
        Names from :data:`METHODS`.
    seeds : int or sequence of int
        Number of seeds (0..n-1) or the seeds themselves.
    solver_kind : {"gradient", "exact"}
        The task's K-step solver or the exact one.
    n_segments, iterations : int, optional
        Override the task's N and outer iterations.
    progress : callable, optional
        Called with a line of text after each run.
    loop : dict, optional
        Loop options for every run (see :class:`paretosurf.loop.RunOptions`: executor,
        checkpoint, resume, callback, progress...); the task's ``normalize`` always applies.
    steps : int, optional
        Override the inner solver's budget per call (the task's K: gradient steps, or
        training episodes for a deep-RL task).

    Examples
    --------
    >>> from paretosurf.bench import get_task, run_task
    >>> report = run_task(get_task("gear"), methods=["surf", "uniform"], seeds=1,
    ...                   solver_kind="exact", iterations=10)
    >>> cv = {m: report.summary(m, "cv")["mean"] for m in report.results}
    >>> bool(cv["surf"] < 0.1 < cv["uniform"])
    True
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ValueError(
            f"methods must be a non-empty subset of {list(METHODS)}, got {list(methods)}"
        )
    if solver_kind not in SOLVER_KINDS:
        raise ValueError(f"solver must be one of {SOLVER_KINDS}, got {solver_kind!r}")
    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    if not seed_list:
        raise ValueError("seeds must name at least one seed")
    n = task.n_segments if n_segments is None else int(n_segments)
    iters = task.iterations if iterations is None else int(iterations)
    if n < 1 or iters < 1:
        raise ValueError(f"n_segments and iterations must be >= 1, got {n} and {iters}")
    problem = task.make_problem()
    exact = problem.reference_front(IGD_POINTS)
    true_cdf = problem.cdf()
    if exact is not None:
        reference = np.asarray(exact, dtype=np.float64)
        hv_ref = hv_reference_point(reference)
        hv_front = metrics.hypervolume(reference, ref=hv_ref)
    else:  # scored once every method has run
        reference, hv_front = np.empty((0, 2)), math.nan
        hv_ref = (
            np.asarray(task.hv_ref, dtype=np.float64)
            if task.hv_ref is not None
            else np.full(2, np.nan)
        )
    report = TaskReport(
        task,
        solver_kind,
        n,
        iters,
        seed_list,
        hv_ref,
        hv_front,
        problem,
        reference,
        exact_reference=exact is not None,
    )
    for name in methods:
        report.scores[name], report.results[name], report.seconds[name] = [], [], []
        for seed in seed_list:
            solver = task.solver(problem, solver_kind, seed=seed, steps=steps)
            init, spent = task.initial_states(problem, solver, solver_kind, n, seed)
            report.warmup_steps = spent
            start = time.perf_counter()
            with warnings.catch_warnings():
                # a baseline's clumped or dominated points are what the table measures; the
                # result's success and message record them (results.json, per seed)
                warnings.simplefilter("ignore", ParetoWarning)
                info = METHODS[name]
                result = run_method(
                    info,
                    MethodRun(
                        task,
                        problem,
                        solver,
                        solver_kind,
                        n,
                        iters,
                        seed,
                        init,
                        loop or RunOptions(),
                        slots=info.slots,
                    ),
                )
            elapsed = time.perf_counter() - start
            report.results[name].append(result)
            report.seconds[name].append(elapsed)
            if exact is None:
                if progress is not None:
                    progress(
                        f"{task.name} {METHODS[name].label:<9} seed {seed}: CV "
                        f"{metrics.cv(result.points):.4f}  gap ratio "
                        f"{metrics.gap_ratio(result.points):.3f}  ({elapsed:.2f} s)"
                    )
                continue
            sc = score(result, reference, hv_ref, true_cdf if name == "surf" else None)
            report.scores[name].append(sc)
            if progress is not None:
                progress(
                    f"{task.name} {METHODS[name].label:<9} seed {seed}: CV {sc['cv']:.4f}  "
                    f"gap ratio {sc['gap_ratio']:.3f}  HV {sc['hv']:.5g}  "
                    f"IGD {sc['igd']:.4g}  ({elapsed:.2f} s)"
                )
    if exact is None:
        _score_empirically(report)
    return report


def _score_empirically(report: TaskReport) -> None:
    """Score every run against the non-dominated union of all runs' points (no exact front)."""
    everything = np.concatenate([r.points for runs in report.results.values() for r in runs])
    finite = everything[np.all(np.isfinite(everything), axis=1)]
    kept = moocore.filter_dominated(finite)
    reference = np.unique(kept[np.lexsort(kept.T[::-1])], axis=0)
    if np.isnan(report.hv_ref).any():
        report.hv_ref = hv_reference_point(reference)
    report.reference_front = reference
    report.hv_exact_front = metrics.hypervolume(reference, ref=report.hv_ref)
    alone = len(report.results) == 1
    for name, runs in report.results.items():
        report.scores[name] = [score(r, reference, report.hv_ref) for r in runs]
        if alone:  # a method measured against its own points: IGD and distance say nothing
            for sc in report.scores[name]:
                for key in ("igd", "front_distance_mean", "front_distance_max"):
                    sc.pop(key)


# ------------------------------------------------------------------------------- output
def _fmt(
    stat: dict[str, float | None],
    with_std: bool = True,
    *,
    noise_rtol: float = 1e-9,
    noise_atol: float = 1e-13,
) -> str:
    """A score over seeds as ``mean +- std``: the mean to 4 significant digits, the std to 2.

    A std of at most ``noise_rtol * |mean|`` is floating-point noise, not a spread: the seeds
    of a method that does not depend on the seed give values that differ in their last bits
    only (relative differences of about 1e-16 to 1e-13, from another summation order), and it
    is printed as ``+- 0``. With ``noise_rtol = 1e-9`` a real spread is never hidden: the
    smallest in the paper's tasks is about 1e-6 of the mean, and a std of 1e-9 of the mean
    could not show in a mean printed to 4 digits anyway. The rule is relative, so it holds at
    any scale; a mean of exactly 0 treats only a std of 0 as noise (the table's scores are
    non-negative, so a zero mean has a zero std). A std of at most ``noise_atol`` is noise too:
    a score that is a tiny difference of objectives of order 1 (the distance to the front of
    a point on it, about 1e-8) carries their rounding, about 1e-16, whatever its own size.

    Examples
    --------
    >>> from paretosurf.bench.runner import _fmt
    >>> _fmt({"mean": 0.09762, "std": 7.3e-15}), _fmt({"mean": 2.5e-08, "std": 7.9e-24})
    ('0.09762 +- 0', '2.500e-08 +- 0')
    >>> _fmt({"mean": 2.595, "std": 0.62}), _fmt({"mean": 0.004978, "std": 9.2e-09})
    ('2.595 +- 0.62', '0.004978 +- 9.2e-09')
    >>> _fmt({"mean": 3.394e-08, "std": 7.8e-16})
    '3.394e-08 +- 0'
    >>> _fmt({"mean": 1.0, "std": 0.0}), _fmt({"mean": 1.0, "std": 0.5}, with_std=False)
    ('1.000 +- 0', '1.000')
    >>> _fmt({"mean": None, "std": None, "non_finite": 2})
    'inf/nan in 2 run(s)'
    """
    mean, std = stat["mean"], stat["std"]
    if mean is None or std is None:
        return f"inf/nan in {stat.get('non_finite', 0)} run(s)"
    shown = f"{mean:#.4g}".rstrip(".")  # keep trailing zeros: 1.000, not 1
    if not with_std:
        return shown
    if std <= max(noise_rtol * abs(mean), noise_atol):
        return f"{shown} +- 0"
    return f"{shown} +- {std:.2g}"


def format_table(report: TaskReport) -> str:
    """The Table 1 block as Markdown: mean +- std over seeds per method (the mean alone for a
    single seed).

    A std that is floating-point noise (see :func:`_fmt`; a method that gives the same
    result for every seed), is printed as ``+- 0``; any larger std as it is, to 2 significant
    digits.
    """
    data = report.to_json()
    rows = [
        ("HV", "hv"),
        ("IGD", "igd"),
        ("CV", "cv"),
        ("gap ratio", "gap_ratio"),
        ("distance to front (mean)", "front_distance_mean"),
        ("CDF error (max abs Phi_T - Phi)", "cdf_error"),
        ("seconds", "seconds"),
    ]
    with_std = len(report.seeds) > 1
    names = list(data["methods"])
    head = ["metric", *(data["methods"][m]["label"] for m in names)]
    lines = [
        f"**{report.task.title}**, N = {report.n_segments}, {report.iterations} outer "
        f"iterations, {report.solver_kind} inner solver, {len(report.seeds)} seed(s)"
        f"{'' if 'surf' not in names else f', SURF alpha {report.task.alpha}'}; "
        f"HV reference point {np.round(report.hv_ref, 6).tolist()} "
        f"({data['hv_ref_rule']}), HV of the "
        f"{'exact' if report.exact_reference else 'non-dominated union'} front "
        f"{report.hv_exact_front:.5g}; CV and "
        f"gap ratio in {data['coordinates']}.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for title, key in rows:
        cells = [
            _fmt(data["methods"][m][key], with_std) if key in data["methods"][m] else "-"
            for m in names
        ]
        if all(cell == "-" for cell in cells):
            continue
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    lines.append(
        "| solver calls | " + " | ".join(str(data["methods"][m]["n_solves"]) for m in names) + " |"
    )
    counts = {m: [len(r.points) for r in report.results[m]] for m in names}
    if any(c < report.n_segments + 1 for cs in counts.values() for c in cs):
        # a method that returns fewer points (OLS on a front with few corners) has trivially
        # low CV and gap ratio: say so next to them
        lines.append(
            f"| points (of N + 1 = {report.n_segments + 1}) | "
            + " | ".join(
                f"{min(counts[m])}"
                if min(counts[m]) == max(counts[m])
                else f"{min(counts[m])}-{max(counts[m])}"
                for m in names
            )
            + " |"
        )
    return "\n".join(lines)


#: Every file :func:`write_report` may write into its folder.
REPORT_FILES = ("results.json", "table.md", *FIGURE_NAMES)
#: The file of a report folder that lists the files paretosurf wrote there.
REPORT_RECORD = ".paretosurf-report.json"


def _recorded(root: Path) -> set[str]:
    """The files the record of ``root`` says paretosurf wrote there."""
    try:
        data = json.loads((root / REPORT_RECORD).read_text())
        return {str(n) for n in data["files"]}
    except (OSError, ValueError, KeyError, TypeError):
        return set()


def foreign_report_files(out: str | Path) -> list[str]:
    """The files of ``out`` that :func:`write_report` would write over but that paretosurf
    did not write there (not in the folder's record): a user's own.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from paretosurf.bench.runner import foreign_report_files
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     (pathlib.Path(tmp) / "table.md").write_text("my notes")
    ...     foreign_report_files(tmp)
    8
    ['table.md']
    """
    root = Path(out)
    if not root.is_dir():
        return []
    ours = _recorded(root)
    return [name for name in REPORT_FILES if (root / name).exists() and name not in ours]


def write_report(
    report: TaskReport, out: str | Path, *, plots: bool = True, stream: TextIO | None = None
) -> list[Path]:
    """Write ``results.json``, ``table.md`` and (with ``plots``) the figures into ``out``.

    The folder's ``.paretosurf-report.json`` records the files written, so that a later report
    may replace them; a file of those names that paretosurf did not write is never replaced.

    Raises
    ------
    FileExistsError
        If ``out`` holds a file of those names that paretosurf did not write (nothing is
        written then).
    """
    root = Path(out)
    foreign = foreign_report_files(root)
    if foreign:
        raise FileExistsError(
            f"{root} holds {', '.join(foreign)}, which paretosurf did not write; it writes "
            "over no file of yours: choose another folder for the results, or move them"
        )
    root.mkdir(parents=True, exist_ok=True)
    # recorded before they are written: a report cut short leaves no file it cannot replace
    claimed = sorted(_recorded(root) | {n for n in REPORT_FILES if not (root / n).exists()})
    (root / REPORT_RECORD).write_text(
        json.dumps({"format": "paretosurf report", "files": claimed}, indent=1) + "\n"
    )
    written = [root / "results.json", root / "table.md"]
    (root / "results.json").write_text(
        json.dumps(report.to_json(), indent=1, allow_nan=False) + "\n"
    )
    (root / "table.md").write_text(format_table(report) + "\n")
    if plots:
        written += task_figures(report, root)
    if stream is not None:
        stream.write(format_table(report) + "\n")
    return written
