"""A solve keeps TRL checkpoints while it trains, and a solve run again with the same inputs
(a resumed run after SIGKILL, a retried solve) continues from the last one: to the same
adapter, bit for bit, as an uninterrupted solve (the checkpoint holds the adapter, the Adam
moments, the scheduler and every RNG state, and checkpoints fall on generation-round
boundaries, so the resumed trainer generates exactly what the uninterrupted one would)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("trl")

import paretosurf as ps
from paretosurf.findings import ParetoWarning
from paretosurf.llm import AdapterState, load_adapter
from paretosurf.llm import solver as solver_module
from paretosurf.llm.training_log import SolveFolder


def same_adapter(a: AdapterState, b: AdapterState) -> bool:
    return set(a.weights) == set(b.weights) and all(
        np.array_equal(a.weights[k], b.weights[k]) for k in a.weights
    )


def solve_dirs(workdir: Path) -> list[Path]:
    return sorted(p for p in (workdir / "solves").iterdir() if p.is_dir())


def log_steps(folder: Path) -> list[int]:
    lines = (folder / "train_log.jsonl").read_text().splitlines()
    return [json.loads(line)["step"] for line in lines if "loss" in json.loads(line)]


@pytest.fixture
def interrupt_at(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``interrupt_at(step)``: the next solves raise at the end of optimizer step ``step``."""
    from transformers import TrainerCallback

    class Interrupted(Exception):
        pass

    def arm(step: int) -> type[Exception]:
        class Raise(TrainerCallback):
            def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
                if state.global_step == step:
                    raise Interrupted(f"interrupted after step {step}")

        real = solver_module.LLMSolver._trainer

        def trainer(self: Any, *args: Any, **kwargs: Any) -> Any:
            out = real(self, *args, **kwargs)
            out.add_callback(Raise())
            return out

        monkeypatch.setattr(solver_module.LLMSolver, "_trainer", trainer)
        return Interrupted

    return arm


def test_a_retried_solve_continues_from_its_checkpoint(
    fast_solver: Any, tmp_path: Path, interrupt_at: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """save_steps=3 rounds up to 4 (two generation rounds of 2 optimizer steps): a solve
    interrupted in step 6 (steps 1-5 logged) leaves checkpoint-4 only, and the retry
    continues from it, its log cut back to step 4 first."""
    whole = fast_solver(steps=8, save_steps=3, workdir=tmp_path / "whole").solve(0.3, None)
    assert whole.info["resumed_from"] is None
    # a finished solve keeps its log and identity, not its checkpoints
    done = Path(whole.info["solve_dir"])
    assert sorted(p.name for p in done.iterdir() if not p.name.startswith(".")) == [
        "solve.json",
        "train_log.jsonl",
    ]

    work = tmp_path / "killed"
    interrupted = interrupt_at(6)  # raised before step 6 is logged
    with pytest.raises(interrupted):
        fast_solver(steps=8, save_steps=3, workdir=work).solve(0.3, None)
    (folder,) = solve_dirs(work)
    assert sorted(p.name for p in folder.glob("checkpoint-*")) == ["checkpoint-4"]
    assert log_steps(folder) == [1, 2, 3, 4, 5]
    monkeypatch.undo()

    again = fast_solver(steps=8, save_steps=3, workdir=work).solve(0.3, None)
    assert again.info["resumed_from"] == 4
    assert Path(again.info["solve_dir"]) == folder
    assert log_steps(folder) == list(range(1, 9))  # step 5 logged again, once
    assert [row["step"] for row in again.info["train_log"]] == list(range(1, 9))
    assert not list(folder.glob("checkpoint-*"))
    assert same_adapter(again.state, whole.state)
    assert (again.state.calls, again.state.steps) == (1, 8)
    np.testing.assert_array_equal(again.objectives, whole.objectives)
    for a, b in zip(again.info["train_log"], whole.info["train_log"], strict=True):
        assert a["loss"] == b["loss"] and a.get("kl") == b.get("kl")


def test_without_save_steps_a_retry_starts_over(
    fast_solver: Any, tmp_path: Path, interrupt_at: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    interrupted = interrupt_at(3)
    with pytest.raises(interrupted):
        fast_solver(steps=4, save_steps=None).solve(0.3, None)
    assert log_steps(solve_dirs(tmp_path / "work")[0]) == [1, 2]
    (folder,) = solve_dirs(tmp_path / "work")
    assert not list(folder.glob("checkpoint-*"))
    monkeypatch.undo()
    again = fast_solver(steps=4, save_steps=None).solve(0.3, None)
    assert again.info["resumed_from"] is None and log_steps(folder) == [1, 2, 3, 4]


def test_other_inputs_get_another_solve_folder(fast_solver: Any, tmp_path: Path) -> None:
    """The folder's key covers the weight, the warm start and the training settings, so a
    checkpoint is never resumed by a solve it does not belong to."""
    solver = fast_solver(steps=2)
    first = solver.solve(0.3, None)
    names = {
        Path(first.info["solve_dir"]).name,
        Path(solver.solve(0.7, None).info["solve_dir"]).name,
        Path(solver.solve(0.3, first.state).info["solve_dir"]).name,
        Path(fast_solver(steps=2, learning_rate=0.01).solve(0.3, None).info["solve_dir"]).name,
    }
    assert len(names) == 4
    assert Path(first.info["solve_dir"]).name.startswith("e000-w0.3000-")
    assert (
        Path(solver.solve(0.3, None).info["solve_dir"]).name == Path(first.info["solve_dir"]).name
    )  # the same inputs: the same folder


def test_a_folder_held_by_another_process_is_not_shared(tmp_path: Path) -> None:
    """Two processes solving the same inputs at once: the second trains in a private folder
    (removed when it finishes), never in the first one's checkpoints."""
    identity = {"weight": 0.5, "call": 0, "key": "k"}
    code = textwrap.dedent(f"""
        import sys, time
        from paretosurf.llm.training_log import SolveFolder
        SolveFolder.open({str(tmp_path)!r}, {identity!r}, tag="t")
        print("locked", flush=True)
        time.sleep(60)
    """)
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "locked"
        mine = SolveFolder.open(tmp_path, identity, tag="t")
        assert mine.private and mine.path.name.startswith("t-")
        mine.finish("d", 1)
        assert not mine.path.exists()
    finally:
        child.kill()
        child.wait()
    shared = SolveFolder.open(tmp_path, identity, tag="t")
    assert not shared.private and shared.path == tmp_path / "solves" / "t"
    shared.close()


_CHILD = """
import os, sys, time, warnings
os.environ["HF_HUB_OFFLINE"] = "1"
import torch
torch.set_num_threads(1)
from transformers import PreTrainedTokenizerFast, TrainerCallback
import paretosurf as ps
from paretosurf.llm import LLMSolver, WordCount
from paretosurf.llm import solver as solver_module

lm, run, work, prompts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split("|")

class Linger(TrainerCallback):   # gives the test time to kill us after checkpoint-4
    def on_save(self, args, state, control, **kwargs):
        if state.global_step == 4:
            print("saved", args.output_dir, flush=True)
            time.sleep(120)

real = solver_module.LLMSolver._trainer
def trainer(self, *a, **k):
    out = real(self, *a, **k)
    out.add_callback(Linger())
    return out
solver_module.LLMSolver._trainer = trainer

tok = PreTrainedTokenizerFast.from_pretrained(lm)
solver = LLMSolver(lm, [WordCount("apple"), WordCount("berry")], prompts, steps=8,
                   save_steps=2, workdir=work, tokenizer=tok, **{OPTIONS})
warnings.simplefilter("ignore")
ps.surf(solver, 1, iterations=1, checkpoint=run)
print("finished", flush=True)
"""


def test_a_run_killed_mid_solve_resumes_from_the_checkpoint(
    lm_dir: Path,
    tokenizer: Any,
    prompts: list[str],
    rewards: list[Any],
    fast_options: dict[str, Any],
    tmp_path: Path,
) -> None:
    """SIGKILL a run (in a subprocess) once its first solve has saved checkpoint-4 of 8;
    resuming the run continues that solve from step 4 (its log goes on from step 5), and the
    run's adapters equal an uninterrupted run's exactly."""
    from paretosurf.llm import LLMSolver

    run, work = tmp_path / "run", tmp_path / "work"
    script = tmp_path / "child.py"
    script.write_text(_CHILD.replace("{OPTIONS}", repr(fast_options)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "OMP_NUM_THREADS": "1"}
    child = subprocess.Popen(
        [sys.executable, str(script), str(lm_dir), str(run), str(work), "|".join(prompts)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("saved"), line
        folder = Path(line.split()[1])
        deadline = time.monotonic() + 30
        while not (folder / "checkpoint-4" / "trainer_state.json").is_file():
            assert time.monotonic() < deadline, "checkpoint-4 never completed"
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL
    assert [s for s, _ in SolveFolder(folder, {}).checkpoints()] == [2, 4]
    assert log_steps(folder) == [1, 2, 3, 4]  # killed before step 5 was logged

    def solver(workdir: Path) -> LLMSolver:
        return LLMSolver(
            str(lm_dir),
            rewards,
            prompts,
            steps=8,
            save_steps=2,
            workdir=workdir,
            tokenizer=tokenizer,
            **fast_options,
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParetoWarning)
        resumed = ps.surf(solver(work), 1, iterations=1, checkpoint=run, resume=True)
        whole = ps.surf(
            solver(tmp_path / "work-whole"), 1, iterations=1, checkpoint=tmp_path / "whole"
        )
    info = json.loads((folder / "solve.json").read_text())
    assert info["resumed_from"] == 4 and info["status"] == "done"
    assert log_steps(folder) == list(range(1, 9))
    assert not list(folder.glob("checkpoint-*"))
    # deterministic on one machine: same adapters and objectives, to the last bit
    for a, b in zip(resumed.states, whole.states, strict=True):
        assert same_adapter(load_adapter(a), load_adapter(b))
    np.testing.assert_array_equal(resumed.points, whole.points)
