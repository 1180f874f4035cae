"""Trackers (``report_to``): the names checked when a solver is configured, and the solves of
one run reported as one group.

TRL reports through transformers' integrations, one tracker run per trainer, that is, per
solve (106 of them in the paper's protocol). The solver names each such run after its solve
folder and gathers the runs of one run folder into one group, with the slot-epoch and the
weight as tags:

- **wandb**: the group is ``WANDB_RUN_GROUP``, the tags ``WANDB_TAGS`` (the solve's run name
  is its folder's name); the solver finishes the wandb run when the solve ends, so that the
  next solve of the process starts its own run instead of logging into the last one;
- **trackio**: the group is the trackio project (``RLOOConfig(project=...)``, unless
  ``trainer_args`` sets it);
- **mlflow**: the group is the experiment (``MLFLOW_EXPERIMENT_NAME``, unless the user set
  ``MLFLOW_EXPERIMENT_ID``), the tags ``MLFLOW_TAGS``; the solver ends the mlflow run a solve
  started if the solve ends without transformers ending it (an exception: the run is marked
  ``FAILED``), and puts back mlflow's active experiment and ``MLFLOW_EXPERIMENT_ID`` (which
  ``mlflow.set_experiment`` sets), so that what the process logs to mlflow after a solve goes
  where it went before;
- **tensorboard**: each solve writes into its own folder's ``runs/``, so
  ``tensorboard --logdir WORKDIR/solves`` shows the run's solves side by side;
- the others get the run name only.

Environment variables the user has set are left as they are (they win over the solver's).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["TRACKERS", "check_report_to", "installed_trackers", "run_group", "tracking"]


def _modules(*names: str) -> Callable[[], bool]:
    """Available when any of ``names`` is installed."""
    return lambda: any(importlib.util.find_spec(name) is not None for name in names)


#: transformers' reporting integrations (``report_to`` names) and whether each is installed,
#: as transformers tells (without importing transformers, which takes seconds).
TRACKERS: dict[str, Callable[[], bool]] = {
    "azure_ml": _modules("azureml"),
    "clearml": _modules("clearml"),
    "codecarbon": _modules("codecarbon"),
    "comet_ml": _modules("comet_ml"),
    "dagshub": lambda: _modules("dagshub")() and _modules("mlflow")(),
    "dvclive": _modules("dvclive"),
    "flyte": _modules("flytekit"),
    "kubeflow": lambda: os.getenv("KUBEFLOW_TRAINER_SERVER_URL") is not None,
    "mlflow": _modules("mlflow"),
    "neptune": _modules("neptune"),
    "swanlab": _modules("swanlab"),
    "tensorboard": _modules("tensorboard", "tensorboardX"),
    "trackio": _modules("trackio"),
    "wandb": _modules("wandb"),
}
#: The two names that are not a tracker.
_SPECIAL = ("none", "all")
_TYPE_ERROR = (
    "report_to must be a name ('none', 'tensorboard', 'trackio', 'wandb', 'all') or a list of "
    "names, got {!r}"
)


def installed_trackers() -> list[str]:
    """The trackers installed in this environment (what ``report_to="all"`` reports to).

    Examples
    --------
    >>> from paretosurf.llm._trackers import TRACKERS, installed_trackers
    >>> set(installed_trackers()) <= set(TRACKERS)
    True
    """
    return [name for name, available in TRACKERS.items() if available()]


def _known_elsewhere(name: str) -> bool:
    """Whether the installed transformers knows a tracker this table lacks (a newer one)."""
    try:
        from transformers.integrations.integration_utils import INTEGRATION_TO_CALLBACK
    except Exception:  # no transformers, or an older layout: the table is all we know
        return False
    return name in INTEGRATION_TO_CALLBACK


def check_report_to(report_to: object) -> str | list[str]:
    """``report_to`` checked: a tracker name, ``"none"``, ``"all"``, or a list of tracker
    names; every tracker named must be one TRL reports to and be installed here.

    Returns
    -------
    str or list of str
        A name as given, a list as a list.

    Raises
    ------
    TypeError
        If ``report_to`` is neither a string nor a list of strings.
    ValueError
        Naming a tracker TRL does not know, with the known and the installed ones.
    ImportError
        Naming a known tracker that is not installed, with the installed ones.

    Examples
    --------
    >>> from paretosurf.llm._trackers import check_report_to
    >>> check_report_to("none"), check_report_to(("all",))
    ('none', ['all'])
    >>> check_report_to("tensorbored")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: report_to names 'tensorbored', which is not a tracker TRL reports to; the trackers: azure_ml, ..., wandb (installed here: ...); 'none' reports to none, 'all' to every installed one
    """  # noqa: E501
    if isinstance(report_to, str):
        names = [report_to]
    elif isinstance(report_to, Sequence) and all(isinstance(r, str) for r in report_to):
        names = list(report_to)
    else:
        raise TypeError(_TYPE_ERROR.format(report_to))
    if any(n in _SPECIAL for n in names) and len(names) > 1:
        raise ValueError(
            f"report_to {names!r} mixes 'none' or 'all' with other names: give 'none', 'all', "
            "or a list of trackers"
        )
    installed = installed_trackers()
    have = ", ".join(installed) if installed else "none"
    for name in names:
        if name in _SPECIAL:
            continue
        if name not in TRACKERS:
            if _known_elsewhere(name):
                continue
            raise ValueError(
                f"report_to names {name!r}, which is not a tracker TRL reports to; the "
                f"trackers: {', '.join(TRACKERS)} (installed here: {have}); 'none' reports to "
                "none, 'all' to every installed one"
            )
        if not TRACKERS[name]():
            what = (
                "is not set up here (KUBEFLOW_TRAINER_SERVER_URL is unset)"
                if name == "kubeflow"
                else "is not installed here"
            )
            raise ImportError(
                f"report_to names {name!r}, which {what}; installed trackers: {have} "
                "('none' reports to none)"
            )
    return report_to if isinstance(report_to, str) else names


def trackers_of(report_to: str | Sequence[str]) -> list[str]:
    """The trackers ``report_to`` reports to (``"all"``: the installed ones; ``"none"``: none)."""
    names = [report_to] if isinstance(report_to, str) else list(report_to)
    if names == ["all"]:
        return installed_trackers()
    return [n for n in names if n not in _SPECIAL]


def run_group(workdir: str | os.PathLike[str]) -> str:
    """The tracker group of a solver's solves: the name of its run folder, that is of
    ``workdir``'s parent when ``workdir`` is called ``work`` (as ``paretosurf llm`` lays out a
    run: ``runs/table2/work``), else of ``workdir`` itself.

    Examples
    --------
    >>> from paretosurf.llm._trackers import run_group
    >>> run_group("runs/table2/work"), run_group("scratch/surf-a")
    ('table2', 'surf-a')
    """
    path = Path(os.path.abspath(workdir))
    return path.parent.name if path.name == "work" and path.parent.name else path.name


@contextlib.contextmanager
def tracking(
    report_to: str | Sequence[str],
    *,
    group: str,
    tags: Mapping[str, object],
    logging_dir: str | os.PathLike[str],
    trainer_args: Mapping[str, Any] | None = None,
) -> Iterator[dict[str, Any]]:
    """Within this context the trainer's trackers report into ``group`` with ``tags`` (see
    the module docstring); yields the further ``RLOOConfig`` fields that say so. Variables set
    here are restored afterwards, and a wandb run the solve started is finished.

    Examples
    --------
    >>> import os
    >>> from paretosurf.llm._trackers import tracking
    >>> with tracking("none", group="g", tags={"epoch": 1}, logging_dir="d") as extra:
    ...     extra, "WANDB_RUN_GROUP" in os.environ
    ({}, False)
    """
    trackers = trackers_of(report_to)
    labels = [f"{key}={value}" for key, value in tags.items()]
    env: dict[str, str] = {}
    extra: dict[str, Any] = {}
    if "wandb" in trackers:
        env.update(WANDB_RUN_GROUP=group, WANDB_TAGS=",".join(labels))
    if "mlflow" in trackers:
        env["MLFLOW_TAGS"] = json.dumps({"group": group, **{k: str(v) for k, v in tags.items()}})
        if os.environ.get("MLFLOW_EXPERIMENT_ID") is None:  # else the user's experiment wins
            env["MLFLOW_EXPERIMENT_NAME"] = group
    if "tensorboard" in trackers:
        env["TENSORBOARD_LOGGING_DIR"] = os.fspath(logging_dir)
    if "trackio" in trackers and "project" not in (trainer_args or {}):
        extra["project"] = group
    # MLFLOW_EXPERIMENT_ID is set by mlflow.set_experiment (transformers calls it), not here
    also = ["MLFLOW_EXPERIMENT_ID"] if "mlflow" in trackers else []
    saved = {key: os.environ.get(key) for key in [*env, *also]}
    for key, value in env.items():
        if saved[key] is None:  # the user's own setting wins
            os.environ[key] = value
    wandb_before = _wandb_run() if "wandb" in trackers else None
    mlflow_before = _mlflow_state() if "mlflow" in trackers else None
    failed = False
    try:
        yield extra
    except BaseException:
        failed = True
        raise
    finally:
        for key, before in saved.items():
            if before is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = before
        if "wandb" in trackers and wandb_before is None:
            _finish_wandb()
        if mlflow_before is not None:
            _end_mlflow(mlflow_before, failed=failed)


def _wandb_run() -> Any:
    wandb = sys.modules.get("wandb")
    return None if wandb is None else getattr(wandb, "run", None)


def _finish_wandb() -> None:
    """Finish the wandb run a solve started (transformers leaves it open, and the next
    trainer of the process would log into it)."""
    wandb = sys.modules.get("wandb")
    if wandb is not None and getattr(wandb, "run", None) is not None:
        wandb.finish()


def _mlflow_state() -> tuple[str | None, Any]:
    """The id of the mlflow run active now (``None``: none) and mlflow's active experiment
    (``None`` also where mlflow is not imported yet: the trainer imports it)."""
    mlflow = sys.modules.get("mlflow")
    if mlflow is None:
        return None, None
    run = mlflow.active_run()
    fluent = sys.modules.get("mlflow.tracking.fluent")
    return (None if run is None else run.info.run_id), getattr(
        fluent, "_active_experiment_id", None
    )


def _end_mlflow(before: tuple[str | None, Any], *, failed: bool) -> None:
    """End the mlflow run a solve started and left active (transformers ends it when training
    ends, not when training raises: the next solve would log into it), and put back the
    experiment that was active before the solve (``mlflow.set_experiment`` keeps the solve's
    for whatever the process logs next)."""
    mlflow = sys.modules.get("mlflow")
    if mlflow is None:
        return
    run_before, experiment_before = before
    run = mlflow.active_run()
    if run is not None and run.info.run_id != run_before:
        mlflow.end_run(status="FAILED" if failed else "FINISHED")
    fluent: Any = sys.modules.get("mlflow.tracking.fluent")  # where set_experiment keeps it
    if fluent is not None and hasattr(fluent, "_active_experiment_id"):
        fluent._active_experiment_id = experiment_before
