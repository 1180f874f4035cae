"""Trackers, live (issue 44): the tiny LLMSolver's solves reported to a real mlflow that writes
a local file store (no server, no network), read back with mlflow's own client. The solves of
one run folder are one experiment, each solve one mlflow run named after its folder and
tagged with the group, the slot-epoch and the weight, its metrics under the rewards' names;
nothing the solves set is left behind for what the process logs next; a solve that raises
ends its run as failed, and the next solve gets a run of its own."""

from __future__ import annotations

import importlib.util
import json
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl")

import paretosurf as ps
from paretosurf.findings import ParetoWarning
from paretosurf.llm import LLMSolver
from paretosurf.llm import solver as solver_module

# mlflow is imported by the tests, not when they are collected (it takes seconds)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("mlflow") is None, reason="needs mlflow")

#: What a solve sets, or mlflow sets because of it: none may be left set after a solve.
_SET = ("MLFLOW_EXPERIMENT_NAME", "MLFLOW_EXPERIMENT_ID", "MLFLOW_TAGS")


@pytest.fixture
def mlflow() -> Any:
    """The mlflow module (``mlflow-skinny`` gives it, in the ``dev`` extra)."""
    return pytest.importorskip("mlflow")


@pytest.fixture
def store(mlflow: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A local mlflow file store under ``tmp_path`` (its ``file:`` URI), the only mlflow
    setting in the environment; mlflow's process state is put back afterwards."""
    for name in (*_SET, "MLFLOW_RUN_ID", "MLFLOW_NESTED_RUN", "DISABLE_MLFLOW_INTEGRATION"):
        monkeypatch.delenv(name, raising=False)
    uri = (tmp_path / "mlruns").as_uri()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    # mlflow 3 refuses a file store unless told (it wants a database, which needs the full
    # mlflow, not mlflow-skinny)
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    assert mlflow.active_run() is None
    experiment = mlflow.tracking.fluent._active_experiment_id
    try:
        yield uri
    finally:
        while mlflow.active_run() is not None:  # a failed test's leftovers
            mlflow.end_run()
        mlflow.tracking.fluent._active_experiment_id = experiment


def make_solver(
    lm_dir: Path,
    rewards: list[Any],
    prompts: list[str],
    tokenizer: Any,
    fast_options: dict[str, Any],
    workdir: Path,
) -> LLMSolver:
    return LLMSolver(
        str(lm_dir),
        rewards,
        prompts[:8],  # one generation round of 8 completions: 2 optimizer steps
        steps=2,
        tokenizer=tokenizer,
        workdir=workdir,
        report_to=["mlflow"],
        **fast_options,
    )


def runs_of(client: Any, experiment: str) -> dict[str, Any]:
    """The mlflow runs of ``experiment``, by run name."""
    found = client.get_experiment_by_name(experiment)
    assert found is not None, experiment
    runs = client.search_runs([found.experiment_id])
    by_name = {run.info.run_name: run for run in runs}
    assert len(by_name) == len(runs)  # one run per name
    return by_name


def test_a_runs_solves_are_one_mlflow_experiment_with_a_tagged_run_per_solve(
    lm_dir: Path,
    rewards: list[Any],
    prompts: list[str],
    tokenizer: Any,
    fast_options: dict[str, Any],
    tmp_path: Path,
    store: str,
    mlflow: Any,
) -> None:
    """SURF with two slots over two rounds (4 solves, slot-epochs 1 and 2) in run folder
    ``table2`` and one solve in ``surf-b``: two experiments, a run per solve named after its
    folder, with the group, slot-epoch and weight as tags and the rewards' own names."""
    work = tmp_path / "table2" / "work"
    solver = make_solver(lm_dir, rewards, prompts, tokenizer, fast_options, work)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParetoWarning)  # a tiny model's front is noise
        result = ps.surf(solver, 1, iterations=2)
    assert result.n_solves == 4
    other = make_solver(lm_dir, rewards, prompts, tokenizer, fast_options, tmp_path / "surf-b")
    other.solve(0.5, None)

    assert not any(name in os.environ for name in _SET)  # restored after each solve
    assert mlflow.active_run() is None  # each solve's run ended with it

    client = mlflow.tracking.MlflowClient(store)
    names = {e.name for e in client.search_experiments()}
    assert names - {"Default"} == {"table2", "surf-b"}  # one experiment per run folder
    for experiment, workdir in (("table2", work), ("surf-b", tmp_path / "surf-b")):
        runs = runs_of(client, experiment)
        folders = {p.name: p for p in (workdir / "solves").iterdir()}
        assert set(runs) == set(folders)  # one mlflow run per solve, named as its folder
        for name, run in runs.items():
            info = json.loads((folders[name] / "solve.json").read_text())
            assert run.info.status == "FINISHED"
            tags = run.data.tags
            assert tags["group"] == experiment
            assert tags["epoch"] == str(info["call"] + 1)  # the adapter's slot-epoch
            assert tags["w"] == f"{info['weight']:.4g}"
            metrics = set(run.data.metrics)
            assert {"loss", "kl", "reward"} <= metrics
            for reward in ("count_apple", "count_berry"):  # the rewards' own names
                assert {f"rewards/{reward}/mean", f"rewards/{reward}/std"} <= metrics
            assert not any(part in {"r1", "r2"} for key in metrics for part in key.split("/"))
            history = client.get_metric_history(run.info.run_id, "loss")
            assert [m.step for m in history] == [1, 2]  # this solve's steps only
    epochs = sorted(
        (r.data.tags["epoch"], r.data.tags["w"]) for r in runs_of(client, "table2").values()
    )
    assert [e for e, _ in epochs] == ["1", "1", "2", "2"]  # two slots, two rounds
    assert {w for e, w in epochs if e == "1"} == {"0", "1"}  # the end slots start at 0 and 1

    # what the process logs next goes where it went before the solves: the default experiment
    with mlflow.start_run() as run:
        pass
    assert run.info.experiment_id == client.get_experiment_by_name("Default").experiment_id


def test_a_solve_that_raises_ends_its_mlflow_run_and_the_users_experiment_wins(
    lm_dir: Path,
    rewards: list[Any],
    prompts: list[str],
    tokenizer: Any,
    fast_options: dict[str, Any],
    tmp_path: Path,
    store: str,
    mlflow: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A solve interrupted in its first step: its run ends, FAILED, when the solve raises (not
    whenever its trainer is collected), and its retry gets a run of its own; both go into the
    experiment the user chose with ``MLFLOW_EXPERIMENT_ID``, still set afterwards."""
    from transformers import TrainerCallback

    client = mlflow.tracking.MlflowClient(store)
    mine = client.create_experiment("mine")
    monkeypatch.setenv("MLFLOW_EXPERIMENT_ID", mine)

    class Interrupted(Exception):
        pass

    class Raise(TrainerCallback):
        def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            raise Interrupted

    real = solver_module.LLMSolver._trainer
    kept: list[Any] = []

    def trainer(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = real(self, *args, **kwargs)
        out.add_callback(Raise())
        kept.append(out)  # alive: its MLflowCallback cannot end the run when collected
        return out

    work = tmp_path / "table2" / "work"
    solver = make_solver(lm_dir, rewards, prompts, tokenizer, fast_options, work)
    monkeypatch.setattr(solver_module.LLMSolver, "_trainer", trainer)
    with pytest.raises(Interrupted):
        solver.solve(0.25, None)
    assert mlflow.active_run() is None
    assert os.environ["MLFLOW_EXPERIMENT_ID"] == mine
    monkeypatch.setattr(solver_module.LLMSolver, "_trainer", real)
    solver.solve(0.25, None)
    kept.clear()

    assert os.environ["MLFLOW_EXPERIMENT_ID"] == mine
    assert client.get_experiment_by_name("table2") is None  # the user's experiment won
    (failed, retried) = sorted(client.search_runs([mine]), key=lambda run: run.info.start_time)
    (folder,) = (work / "solves").iterdir()  # the retry solved in the same folder
    assert failed.info.run_name == retried.info.run_name == folder.name
    assert (failed.info.status, retried.info.status) == ("FAILED", "FINISHED")
    assert "train_loss" not in failed.data.metrics and "train_loss" in retried.data.metrics


def test_a_misspelt_tracker_fails_when_the_solver_is_built_before_any_solve(
    lm_dir: Path,
    rewards: list[Any],
    prompts: list[str],
    tokenizer: Any,
    fast_options: dict[str, Any],
    tmp_path: Path,
    store: str,
) -> None:
    """``mlfow`` beside ``mlflow``: the solver is not built, nothing is solved or logged; the
    installed ``mlflow`` alone is accepted."""
    work = tmp_path / "table2" / "work"
    options = {**fast_options, "steps": 2, "tokenizer": tokenizer, "workdir": work}
    with pytest.raises(ValueError, match=r"report_to names 'mlfow'.*installed here: .*mlflow"):
        LLMSolver(str(lm_dir), rewards, prompts, report_to=["mlflow", "mlfow"], **options)
    assert not work.exists() and not (tmp_path / "mlruns").exists()  # nothing solved
    assert LLMSolver(str(lm_dir), rewards, prompts, report_to="mlflow", **options)
