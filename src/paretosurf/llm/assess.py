"""``paretosurf llm assess DIR``: the saved adapters of a protocol run, assessed again, with
sample completions.

:func:`assess_run` takes a finished run folder (:class:`~paretosurf.llm.protocol_run.ProtocolRun`)
and a solver with the run's settings, and for every method and slot loads the adapter and
estimates, on the solver's evaluation prompts, its two mean rewards, its KL to the base model
and its objectives with and without the KL term (``solver.assess``), keeping every evaluation
completion with its prompt and rewards. It writes, under ``DIR/assess/``:

- ``points/METHOD/slot-NN.json``: one record per adapter (its weight, the adapter's digest,
  the solver settings' fingerprint, the estimates, and every completion), written as each
  finishes: a run stopped half way resumes where it stopped, and an adapter is assessed again
  only when its files or the solver's settings changed (``force=True``: always);
- ``samples.jsonl``: one JSON line per sample completion (``samples`` per adapter, default
  all): method, slot, weight, prompt, completion (plain text), and each reward;
- ``assessment.json``: the records without their completions, the reward and objective
  names, and per method the front scores (HV against the run's reference point, CV, gap
  ratio; mean +- std over the evaluation batches where there are several);
- ``table.md``: the same as Markdown, beside the objectives ``results.json`` holds.

Written again from the records, the files are the same bytes however often it runs.

Samples come from the solver's evaluation itself: while it assesses, its two rewards are
wrapped in recorders that keep what they score. A solver without ``rewards`` (or whose
evaluation runs elsewhere) gets its estimates and no samples. The assessments run in this
process, on the solver's device, or, given an ``executor``, where it runs solves (its worker
processes and their GPUs, Ray GPU tasks: the process that calls :func:`assess_run` then loads
no model), all at once, each record written as its job comes back.

Examples
--------
::

    from paretosurf.llm.assess import assess_run
    from paretosurf.llm.config import load_config

    config = load_config("table2.toml")
    solver = config.build_solver("runs/table2/work")
    assessment = assess_run(solver, "runs/table2", samples=16)
    print(assessment.table)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf.llm._jobs import AssessmentJob, run_jobs, solver_assessment
from paretosurf.llm._scores import score_rows
from paretosurf.llm.protocol_run import FrontPoint, ProtocolRun, folder_digest
from paretosurf.llm.reward_inputs import message_text

__all__ = ["ASSESS_FOLDER", "Assessment", "assess_run", "format_assessment"]

#: The folder of a run that ``assess_run`` writes into.
ASSESS_FOLDER = "assess"
#: What a record is, for telling records of another version apart.
_RECORD_VERSION = 1


class _Recorder:
    """A reward that keeps what it scores: each call's prompts, completions and rewards."""

    def __init__(self, reward: Callable[..., Any], name: str) -> None:
        self.reward = reward
        self.__name__ = name
        self.calls: list[tuple[list[Any], list[Any], list[Any]]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> list[Any]:
        values = list(self.reward(*args, **kwargs))
        prompts = kwargs.get("prompts", args[0] if args else [])
        completions = kwargs.get("completions", args[1] if len(args) > 1 else [])
        self.calls.append((list(prompts), list(completions), values))
        return values


def _plain(value: Any) -> Any:
    """``value`` as JSON (numpy arrays and numbers as lists and floats; nan as None)."""
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return number if math.isfinite(number) else None
    return value


def _text(value: Any) -> str:
    try:
        return message_text(value)
    except TypeError:
        return str(value)


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file (a stop never leaves half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def _settings(solver: Any) -> str:
    from paretosurf.llm.protocol import solver_settings

    return solver_settings(solver)


def _names(solver: Any) -> tuple[list[str], list[str]]:
    """The reward and objective names of ``solver`` (generic ones where it has none)."""
    from paretosurf.llm.rewards import reward_name

    rewards = getattr(solver, "rewards", None)
    reward_names = (
        [reward_name(r) for r in rewards]
        if isinstance(rewards, Sequence) and len(rewards) == 2
        else ["r1", "r2"]
    )
    objective_names = getattr(solver, "objective_names", None)
    if objective_names is None:
        objective_names = [f"-({n} - beta KL)" for n in reward_names]
    return reward_names, list(objective_names)


def _assess_point(solver: Any, point: FrontPoint) -> dict[str, Any]:
    """The estimates of one adapter, and the completions the evaluation scored."""
    return _assess_state(solver, solver.load_state(point.adapter))


def _assess_state(solver: Any, state: Any) -> dict[str, Any]:
    """The estimates of the adapter ``state``, and the completions the evaluation scored."""
    from paretosurf.llm.rewards import reward_name

    rewards = getattr(solver, "rewards", None)
    recorders: list[_Recorder] = []
    if isinstance(rewards, tuple) and len(rewards) == 2:
        recorders = [_Recorder(r, reward_name(r)) for r in rewards]
        solver.rewards = tuple(recorders)
    try:
        found = solver_assessment(solver, state)
    finally:
        if recorders:
            solver.rewards = rewards
    found.pop("seconds", None)  # timings differ from run to run
    samples: list[dict[str, Any]] = []
    if recorders and len(recorders[0].calls) == len(recorders[1].calls):
        for (prompts, completions, first), (_, _, second) in zip(
            recorders[0].calls, recorders[1].calls, strict=True
        ):
            for prompt, completion, r1, r2 in zip(prompts, completions, first, second, strict=True):
                samples.append(
                    {
                        "prompt": _text(prompt),
                        "completion": _text(completion),
                        "rewards": [
                            _plain(None if r1 is None else float(r1)),
                            _plain(None if r2 is None else float(r2)),
                        ],
                    }
                )
    return {"estimates": _plain(found), "samples": samples}


def _estimated_objectives(found: Mapping[str, Any]) -> Any:
    """The objectives of a record's ``estimates`` (an :class:`AssessmentJob`'s)."""
    return found["estimates"].get("objectives")


@dataclass
class Assessment:
    """What :func:`assess_run` found.

    Attributes
    ----------
    folder : Path
        Where it wrote its files (``DIR/assess``).
    records : list of dict
        One per adapter, method by method and slot by slot: ``method``, ``slot``, ``weight``,
        ``adapter`` (its folder, relative to the run), ``estimates`` (``objectives``,
        ``objectives_no_kl``, ``rewards``, ``kl``, their standard errors, ``n_eval``, the
        per-batch objectives), ``run_objectives`` (``results.json``'s) and ``samples``.
    reward_names, objective_names : list of str
        The names of the two rewards and of the two objectives.
    scores : dict
        Per method, per kind (``"with KL"``, ``"without KL"``), the front scores ``hv``,
        ``cv``, ``gap_ratio`` (``value``, and ``mean``/``std`` over evaluation batches).
    assessed : int
        Adapters assessed by this call (the others were read back from their records).
    """

    folder: Path
    records: list[dict[str, Any]]
    reward_names: list[str]
    objective_names: list[str]
    scores: dict[str, dict[str, dict[str, dict[str, float | None]]]] = field(default_factory=dict)
    assessed: int = 0

    @property
    def table(self) -> str:
        """The assessment as Markdown (:func:`format_assessment`)."""
        return format_assessment(self)


def _front_scores(
    records: list[dict[str, Any]], results: Mapping[str, Any]
) -> dict[str, dict[str, dict[str, dict[str, float | None]]]]:
    """Per method and kind, HV (against the run's reference point), CV and gap ratio of the
    assessed points, and their mean and std over the evaluation batches."""
    from paretosurf import metrics

    out: dict[str, dict[str, dict[str, dict[str, float | None]]]] = {}
    methods: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        methods.setdefault(record["method"], []).append(record["estimates"])
    for kind, key, batch_key, ref_key in (
        ("with KL", "objectives", "batch_objectives", "hv_ref"),
        ("without KL", "objectives_no_kl", "batch_objectives_no_kl", "hv_ref_no_kl"),
    ):
        ref = results.get(ref_key) or None
        for label, rows in methods.items():
            if len(rows) < 2 or not all(row.get(key) is not None for row in rows):
                continue
            fronts = [np.asarray(row[key], dtype=np.float64) for row in rows]
            points = np.stack(fronts)

            def scores(pts: np.ndarray, ref: Any = ref) -> dict[str, float]:
                found = {"cv": metrics.cv(pts), "gap_ratio": metrics.gap_ratio(pts)}
                if ref is not None:
                    found["hv"] = metrics.hypervolume(pts, ref=ref)
                return found

            if not np.all(np.isfinite(points)):
                continue
            entry: dict[str, dict[str, float | None]] = {
                name: {"value": _plain(value)} for name, value in scores(points).items()
            }
            batches = [row.get(batch_key) for row in rows]
            if all(b is not None for b in batches):
                per_batch = np.asarray(batches, dtype=np.float64)  # (slots, batches, 2)
                if per_batch.ndim == 3 and per_batch.shape[1] > 1:
                    runs = [
                        scores(per_batch[:, b, :])
                        for b in range(per_batch.shape[1])
                        if np.all(np.isfinite(per_batch[:, b, :]))
                    ]
                    for name in entry:
                        values = np.array([r[name] for r in runs], dtype=np.float64)
                        finite = values[np.isfinite(values)]
                        entry[name]["mean"] = _plain(finite.mean()) if finite.size else None
                        entry[name]["std"] = _plain(finite.std()) if finite.size else None
            out.setdefault(label, {})[kind] = entry
    return out


def assess_run(
    solver: Any,
    run: str | os.PathLike[str] | ProtocolRun,
    *,
    methods: Sequence[str] | None = None,
    samples: int | None = None,
    force: bool = False,
    log: Callable[[str], None] | None = None,
    executor: Any = None,
) -> Assessment:
    """Assess every saved adapter of a finished protocol run again and keep sample
    completions (see the module docstring for the files written under ``DIR/assess``).

    Parameters
    ----------
    solver : object
        A solver with the run's settings (``load_state`` and ``assess`` or ``evaluate``),
        e.g. the :class:`~paretosurf.llm.LLMSolver` of the run's config
        (:meth:`~paretosurf.llm.config.LLMConfig.build_solver`).
    run : path or ProtocolRun
        The run folder.
    methods : sequence of str, optional
        The methods to assess (default: all of the run's).
    samples : int, optional
        Sample completions per adapter in ``samples.jsonl`` (default: every evaluation
        completion; the records keep them all either way).
    force : bool
        Assess again even the adapters whose records are up to date.
    log : callable, optional
        Called with a line of text per adapter.
    executor : Executor, optional
        Where the assessments run (:class:`paretosurf.executors.Executor`: a
        :class:`~paretosurf.executors.ProcessExecutor` with a GPU per worker, a
        :class:`~paretosurf.executors.RayExecutor`), all at once; a failed one is tried once
        more. Default: one after another in this process.

    Returns
    -------
    Assessment

    Raises
    ------
    paretosurf.llm.protocol_run.NotAProtocolRun
        If ``run`` is not a finished protocol run folder.
    ValueError
        If ``methods`` names a method the run does not have, or ``samples`` is negative.
    """
    if samples is not None and (
        isinstance(samples, bool) or int(samples) != samples or samples < 0
    ):
        raise ValueError(f"samples must be an integer >= 0 or None (all), got {samples!r}")
    opened = run if isinstance(run, ProtocolRun) else ProtocolRun.open(run)
    say = log or (lambda line: None)
    folder = opened.folder / ASSESS_FOLDER
    settings = _settings(solver)
    reward_names, objective_names = _names(solver)
    records: list[dict[str, Any] | None] = []
    pending: list[tuple[int, FrontPoint, dict[str, Any], Path]] = []
    assessed = 0

    def keep(i: int, point: FrontPoint, key: dict[str, Any], path: Path, found: Any) -> None:
        nonlocal assessed
        record = {
            "method": point.method,
            "slot": point.slot,
            "weight": point.weight,
            "adapter": point.adapter.relative_to(opened.folder).as_posix(),
            "key": key,
            "run_objectives": _plain(point.objectives),
            "run_objectives_no_kl": _plain(point.objectives_no_kl),
            "reward_names": reward_names,
            **found,
        }
        _write(path, json.dumps(record, indent=1, sort_keys=True) + "\n")
        records[i] = record
        assessed += 1
        where = f"{point.method} slot {point.slot} (w = {point.weight:.4g})"
        say(f"assessed {where}: objectives {_short(record['estimates'].get('objectives'))}")

    for point in opened.points(methods):
        path = folder / "points" / point.method / f"slot-{point.slot:02d}.json"
        key = {
            "version": _RECORD_VERSION,
            "adapter_sha256": folder_digest(point.adapter),
            "settings": settings,
        }
        record = None
        if path.is_file() and not force:
            try:
                kept = json.loads(path.read_text())
            except json.JSONDecodeError:
                kept = None
            if isinstance(kept, dict) and kept.get("key") == key:
                record = kept
        records.append(record)
        if record is not None:
            say(f"{point.method} slot {point.slot} (w = {point.weight:.4g}): assessed before, kept")
        elif executor is None:
            keep(len(records) - 1, point, key, path, _assess_point(solver, point))
        else:
            pending.append((len(records) - 1, point, key, path))
    if pending:
        from paretosurf.executors import ManagedExecutor, SolveOutcome, SolveTask
        from paretosurf.storage import StateFolder

        def done(outcome: SolveOutcome) -> None:
            assert outcome.solution is not None
            keep(*pending[outcome.slot], outcome.solution.info["assessment"])

        started = executor.start() if isinstance(executor, ManagedExecutor) else False
        try:
            run_jobs(
                executor,
                AssessmentJob(solver, _assess_state, _estimated_objectives),
                [
                    SolveTask(k, point.weight, StateFolder(point.adapter))
                    for k, (_, point, _, _) in enumerate(pending)
                ],
                [f"the assessment of {p.method} slot {p.slot}" for _, p, _, _ in pending],
                on_done=done,
            )
        finally:
            if started:
                executor.close()
    kept = [record for record in records if record is not None]
    assessment = Assessment(
        folder,
        kept,
        reward_names,
        objective_names,
        _front_scores(kept, opened.results),
        assessed,
    )
    _write_outputs(assessment, samples)
    return assessment


def _short(values: Any) -> str:
    if values is None:
        return "-"
    return "[" + ", ".join("-" if v is None else f"{v:.4g}" for v in values) + "]"


def _write_outputs(assessment: Assessment, samples: int | None) -> None:
    folder = assessment.folder
    lines = []
    for record in assessment.records:
        kept = record.get("samples") or []
        for sample in kept if samples is None else kept[:samples]:
            lines.append(
                json.dumps(
                    {
                        "method": record["method"],
                        "slot": record["slot"],
                        "weight": record["weight"],
                        "prompt": sample["prompt"],
                        "completion": sample["completion"],
                        "rewards": dict(
                            zip(assessment.reward_names, sample["rewards"], strict=True)
                        ),
                    },
                    ensure_ascii=False,
                )
            )
    _write(folder / "samples.jsonl", "".join(line + "\n" for line in lines))
    summary = {
        "reward_names": assessment.reward_names,
        "objective_names": assessment.objective_names,
        "points": [
            {k: v for k, v in record.items() if k not in ("samples", "key")}
            for record in assessment.records
        ],
        "scores": assessment.scores,
    }
    _write(folder / "assessment.json", json.dumps(summary, indent=1, sort_keys=True) + "\n")
    _write(folder / "table.md", format_assessment(assessment) + "\n")


def _mean_se(value: Any, se: Any) -> str:
    if value is None:
        return "-"
    if se is None or (isinstance(se, float) and not math.isfinite(se)):
        return f"{value:.4g}"
    return f"{value:.4g} ± {se:.2g}"


def _score_cell(score: Mapping[str, Any] | None) -> str:
    if not score:
        return "-"
    if score.get("mean") is not None:
        return f"{score['mean']:.4g} ± {score['std']:.2g}"
    value = score.get("value")
    return "-" if value is None else f"{value:.4g}"


def format_assessment(assessment: Assessment) -> str:
    """The assessment as Markdown: one row per adapter (weight, mean rewards, KL, objectives
    with their standard errors, and the objectives the run estimated), then the front scores
    per method.

    Examples
    --------
    >>> from pathlib import Path
    >>> from paretosurf.llm.assess import Assessment, format_assessment
    >>> record = {"method": "SURF", "slot": 1, "weight": 0.5, "run_objectives": [-1.0, -2.0],
    ...           "estimates": {"rewards": [1.0, 2.0], "stderr_no_kl": [0.1, 0.2], "kl": 0.5,
    ...                         "kl_stderr": 0.05, "objectives": [-0.9, -1.9],
    ...                         "stderr": [0.1, 0.2]}}
    >>> print(format_assessment(Assessment(Path("run/assess"), [record], ["a", "b"],
    ...                                    ["-(a - 0.2 KL)", "-(b - 0.2 KL)"])))
    | method | slot | w | a | b | KL | -(a - 0.2 KL) | -(b - 0.2 KL) | objectives in results.json |
    |---|---|---|---|---|---|---|---|---|
    | SURF | 1 | 0.5 | 1 ± 0.1 | 2 ± 0.2 | 0.5 ± 0.05 | -0.9 ± 0.1 | -1.9 ± 0.2 | -1, -2 |
    <BLANKLINE>
    Mean rewards (higher is better), KL to the base model and objectives (minimized) ± their standard errors, on the evaluation completions of each adapter.
    """  # noqa: E501
    r1, r2 = assessment.reward_names
    h1, h2 = assessment.objective_names
    lines = [
        f"| method | slot | w | {r1} | {r2} | KL | {h1} | {h2} | objectives in results.json |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for record in assessment.records:
        est = record["estimates"]
        rewards = est.get("rewards") or [None, None]
        reward_se = est.get("stderr_no_kl") or [None, None]
        objectives = est.get("objectives") or [None, None]
        objective_se = est.get("stderr") or [None, None]
        run = record.get("run_objectives")
        cells = [
            record["method"],
            str(record["slot"]),
            f"{record['weight']:.4g}",
            _mean_se(rewards[0], reward_se[0]),
            _mean_se(rewards[1], reward_se[1]),
            _mean_se(est.get("kl"), est.get("kl_stderr")),
            _mean_se(objectives[0], objective_se[0]),
            _mean_se(objectives[1], objective_se[1]),
            "-" if run is None else ", ".join(f"{v:.4g}" for v in run),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        "Mean rewards (higher is better), KL to the base model and objectives (minimized) "
        "± their standard errors, on the evaluation completions of each adapter."
    )
    if assessment.scores:
        labels = list(assessment.scores)
        lines += ["", "| front | " + " | ".join(labels) + " |", "|" + "---|" * (len(labels) + 1)]
        lines += score_rows(labels, lambda m, kind: assessment.scores[m].get(kind), _score_cell)
        lines.append("")
        lines.append(
            "Front scores of the assessed objectives (HV against the run's reference point, "
            "from results.json); mean ± std over the evaluation batches."
        )
    return "\n".join(lines)
