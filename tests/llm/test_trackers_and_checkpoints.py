"""Trackers checked when the solver is configured and grouped per run; checkpoints that fit
the epoch by default, said at a solve's start; the point a resumed solve continues from,
logged."""

from __future__ import annotations

import json
import logging
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl")

from paretosurf.llm import LLMSolver, LLMSolverConfig
from paretosurf.llm import solver as solver_module
from paretosurf.llm._trackers import TRACKERS, installed_trackers, run_group, tracking
from paretosurf.llm.config import LLMConfig
from paretosurf.llm.rewards import reward_name
from paretosurf.llm.training_log import TRAIN_LOG, SolveFolder


# ---------------------------------------------------------------------------- trackers
def test_report_to_is_checked_when_the_solver_is_configured(
    lm_dir: Path, rewards: list[Any], prompts: list[str], tmp_path: Path
) -> None:
    def config(report_to: Any) -> LLMSolverConfig:
        return LLMSolverConfig(steps=1, workdir=tmp_path, report_to=report_to)

    assert config("none").resolved().report_to == "none"
    assert config(["all"]).resolved().report_to == ["all"]
    have = ", ".join(installed_trackers()) or "none"
    with pytest.raises(ValueError, match=rf"report_to names 'bogus'.*\(installed here: {have}\)"):
        config("bogus").resolved()
    with pytest.raises(ValueError, match="report_to names 'bogus'"):  # before any solve
        LLMSolver(str(lm_dir), rewards, prompts, config=config(["bogus"]))
    with pytest.raises(ValueError, match="mixes 'none' or 'all' with other names"):
        config(["none", "bogus"]).resolved()
    missing = [name for name in ("wandb", "trackio", "mlflow") if not TRACKERS[name]()]
    for name in missing:
        with pytest.raises(ImportError, match=f"'{name}', which is not installed here"):
            config(name).resolved()
    with pytest.raises(TypeError, match="report_to must be a name"):
        config(3).resolved()


@pytest.mark.skipif(not TRACKERS["tensorboard"](), reason="needs tensorboard")
def test_an_installed_tracker_is_accepted() -> None:
    config = LLMSolverConfig(steps=1, workdir="w", report_to=["tensorboard"])
    assert config.resolved().report_to == ["tensorboard"]


def test_solves_report_as_one_group_with_their_tags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = (
        "WANDB_RUN_GROUP",
        "WANDB_TAGS",
        "MLFLOW_EXPERIMENT_NAME",
        "MLFLOW_EXPERIMENT_ID",  # the user's choice of experiment would win over the group
        "TENSORBOARD_LOGGING_DIR",
    )
    for name in names:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MLFLOW_TAGS", '{"mine": "1"}')  # the user's own setting wins
    group = run_group(tmp_path / "table2" / "work")
    assert group == "table2"
    trackers = ["wandb", "tensorboard", "trackio", "mlflow"]
    tags = {"epoch": 3, "w": "0.25"}
    with tracking(trackers, group=group, tags=tags, logging_dir=tmp_path / "runs") as extra:
        assert extra == {"project": "table2"}  # trackio's group
        assert os.environ["WANDB_RUN_GROUP"] == "table2"
        assert os.environ["WANDB_TAGS"] == "epoch=3,w=0.25"
        assert os.environ["MLFLOW_EXPERIMENT_NAME"] == "table2"
        assert os.environ["MLFLOW_TAGS"] == '{"mine": "1"}'
        assert os.environ["TENSORBOARD_LOGGING_DIR"] == str(tmp_path / "runs")
    assert not any(name in os.environ for name in names)
    assert os.environ["MLFLOW_TAGS"] == '{"mine": "1"}'
    args = {"project": "mine"}
    with tracking(["trackio"], group="g", tags={}, logging_dir="r", trainer_args=args) as extra:
        assert extra == {}


def test_a_wandb_run_a_solve_started_is_finished(monkeypatch: pytest.MonkeyPatch) -> None:
    """transformers leaves its wandb run open, and the next trainer of the process would log
    into it: each solve finishes the run it started, never one the user started."""
    fake = types.SimpleNamespace(run=None, finished=0)

    def finish() -> None:
        fake.finished += 1
        fake.run = None

    fake.finish = finish
    monkeypatch.setitem(sys.modules, "wandb", fake)
    with tracking(["wandb"], group="g", tags={}, logging_dir="r"):
        fake.run = object()  # what the trainer's callback starts
    assert fake.finished == 1 and fake.run is None
    fake.run = users = object()
    with tracking("wandb", group="g", tags={}, logging_dir="r"):
        pass
    assert fake.finished == 1 and fake.run is users


def test_rewards_are_logged_under_their_names_or_the_ones_given(tmp_path: Path) -> None:
    config = LLMConfig(
        model="m",
        rewards=[{"kind": "word_count", "word": "apple", "name": "fruit"}, {"kind": "word_count"}],
    )
    config.rewards[1]["word"] = "berry"
    first, second = config.reward_functions()
    assert (reward_name(first), reward_name(second)) == ("fruit", "count_berry")
    assert first(["p"], ["apple apple"]) == [2.0]
    with pytest.raises(ValueError, match=r"rewards\[0\]: name must be a non-empty string"):
        LLMConfig(model="m", rewards=[{"kind": "word_count", "name": ""}] * 2).reward_functions()


# ---------------------------------------------------------------------------- checkpoints
def solver(lm_dir: Path, rewards: list[Any], prompts: list[str], tokenizer: Any, **kw: Any) -> Any:
    from .tiny import FAST_OPTIONS

    options = {"epochs": 1, "tokenizer": tokenizer, "workdir": "w", **FAST_OPTIONS, **kw}
    return LLMSolver(str(lm_dir), rewards, prompts, **options)


def test_the_default_save_steps_fits_the_epoch(
    lm_dir: Path, rewards: list[Any], prompts: list[str], tokenizer: Any
) -> None:
    """16 prompts, 4 completions each, 8 completions per generation round of 2 optimizer
    steps: an epoch is 16 steps, checkpointed every 8 by default; a user's save_steps is
    kept (rounded up to whole generation rounds)."""

    def plan(**kw: Any) -> tuple[int, int | None]:
        out: tuple[int, int | None] = solver(
            lm_dir, rewards, prompts[:16], tokenizer, **kw
        )._save_plan()
        return out

    assert LLMSolverConfig().save_steps == "auto"
    assert plan() == (16, 8)
    assert plan(save_steps=6) == (16, 6)
    assert plan(save_steps=5) == (16, 6)
    assert plan(save_steps=None) == (16, None)
    assert plan(epochs=2.5) == (40, 8)  # half an epoch, not of the call
    assert plan(epochs=None, steps=6) == (6, 2)
    assert plan(epochs=None, steps=2) == (2, None)  # one generation round: nothing to resume
    long = solver(lm_dir, rewards, prompts * 40, tokenizer)._save_plan()
    assert long == (1280, 200)  # at most 200
    with pytest.warns(UserWarning, match="save_steps=16 is not below the 16 optimizer steps"):
        assert plan(save_steps=16) == (16, 16)
    with pytest.raises(ValueError, match="save_steps must be 'auto'"):
        LLMSolverConfig(steps=1, workdir="w", save_steps="often").resolved()


def test_a_solve_says_its_plan_and_where_it_resumed(
    lm_dir: Path,
    rewards: list[Any],
    prompts: list[str],
    tokenizer: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An epoch of 16 steps, interrupted in step 10 (after checkpoint-8) and solved again:
    the start says 16 steps and a checkpoint every 8, the retry that it resumed from
    checkpoint-8, step 8 of 16, half the epoch (the log, train_log.jsonl, solve.json)."""
    from transformers import TrainerCallback

    class Interrupted(Exception):
        pass

    class Raise(TrainerCallback):
        def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            if state.global_step == 10:
                raise Interrupted

    real = solver_module.LLMSolver._trainer
    names: list[str] = []

    def trainer(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = real(self, *args, **kwargs)
        names.append(out.args.run_name)
        out.add_callback(Raise())
        return out

    monkeypatch.setattr(solver_module.LLMSolver, "_trainer", trainer)
    caplog.set_level(logging.INFO, logger="paretosurf.llm")
    work = tmp_path / "work"
    with pytest.raises(Interrupted):
        solver(lm_dir, rewards, prompts[:16], tokenizer, workdir=work).solve(0.5, None)
    (folder,) = (work / "solves").iterdir()
    assert names == [folder.name]  # the tracker run is named after the solve folder
    assert [s for s, _ in SolveFolder(folder, {}).checkpoints()] == [8]
    assert "16 optimizer steps, a checkpoint every 8 steps" in caplog.text
    monkeypatch.undo()
    caplog.clear()

    again = solver(lm_dir, rewards, prompts[:16], tokenizer, workdir=work).solve(0.5, None)
    assert again.info["resumed_from"] == 8 and again.info["steps"] == 16  # the whole epoch
    (record,) = [r for r in caplog.records if "resumed" in r.getMessage()]
    assert record.levelno == logging.WARNING
    assert (
        "resumed from checkpoint-8: optimizer step 8 of 16 (epoch 0.50 of the solve; the "
        "adapter's slot-epoch 1)" in record.getMessage()
    )
    events = [json.loads(line) for line in (folder / TRAIN_LOG).read_text().splitlines()]
    events = [e for e in events if "event" in e]
    assert [(e["event"], e["step"]) for e in events] == [("start", 0), ("resumed", 8)]
    assert events[0]["save_steps"] == 8 and events[1]["checkpoint"] == "checkpoint-8"
    assert events[1]["epoch"] == 0.5 and events[1]["weight"] == 0.5
    info = json.loads((folder / "solve.json").read_text())
    assert (info["resumed_from"], info["planned_steps"], info["save_steps"]) == (8, 16, 8)
    assert info["rewards"] == ["count_apple", "count_berry"]


def test_a_config_files_tracker_is_checked_before_its_prompts_are_read(tmp_path: Path) -> None:
    config = LLMConfig(
        model="m",
        prompts={"source": str(tmp_path / "missing.jsonl")},
        solver={"report_to": "bogus"},
    )
    with pytest.raises(ValueError, match="report_to names 'bogus'"):
        config.build_solver(tmp_path / "work")
