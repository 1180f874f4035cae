"""Every job of the protocol that needs the model runs where the executor runs solves (issue
44): the warm start's epochs and the assessment of the final adapters as well as the methods'
solves. With two worker processes, and with a local Ray instance declaring two fake GPUs, the
driver process never loads a model, and the report and adapters equal the in-process run's.

The driver is watched by wrapping, in this process, the function that loads base models and
``transformers.PreTrainedModel.__init__``: in this process they raise. Worker processes
forked from it inherit the wrappers, which there call the originals (Ray's workers are fresh
processes without them). A reward records the process that calls it.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.findings import ParetoWarning
from paretosurf.llm.protocol import Protocol, ProtocolReport, run_protocol
from paretosurf.llm.rewards import WordCount

from .tiny import FAST_OPTIONS, fake_gpu_ray

#: The smallest protocol with every stage: N = 2, one warm epoch, Uniform-w 2 epochs, SURF one
#: round (Uniform-w's epoch 2, reused) with reused endpoints, Soup; 9 adapters assessed.
TINY = Protocol(n_segments=2, warm_epochs=1, uniform_epochs=2, surf_init_epoch=1, surf_rounds=1)
METHODS = ("Uniform-w", "SURF", "Soup")


class PidWordCount(WordCount):
    """:class:`WordCount` that writes the id of the process calling it into ``folder``."""

    def __init__(self, word: str, folder: str) -> None:
        super().__init__(word)
        self.folder = folder

    def __call__(self, prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float]:
        Path(self.folder, str(os.getpid())).touch()
        return super().__call__(prompts, completions, **kwargs)


def callers(folder: Path) -> set[int]:
    return {int(p.name) for p in folder.iterdir()}


def tiny_solver(lm_dir: Path, prompts: list[str], root: Path) -> Any:
    """The LLM solver on the tiny model (one RL step a solve), loading it by path."""
    from paretosurf.llm import LLMSolver

    (root / "calls").mkdir(parents=True)
    rewards = [PidWordCount("apple", str(root / "calls")), WordCount("berry")]
    return LLMSolver(str(lm_dir), rewards, prompts, steps=1, workdir=root / "work", **FAST_OPTIONS)


def protocol(solver: Any, out: Path, executor: Any = None) -> ProtocolReport:
    with warnings.catch_warnings():  # a random policy's points: any front
        warnings.simplefilter("ignore", ParetoWarning)
        return run_protocol(solver, out, protocol=TINY, executor=executor)


@pytest.fixture(scope="module")
def in_process(lm_dir: Path, prompts: list[str], tmp_path_factory: Any) -> tuple[Path, Any]:
    """The protocol run in this process: its folder and report."""
    root = tmp_path_factory.mktemp("in-process")
    report = protocol(tiny_solver(lm_dir, prompts, root), root / "run")
    assert callers(root / "calls") == {os.getpid()}
    # the Python call draws the training curves too, from the solver's workdir outside it
    assert (root / "run" / "training.png").stat().st_size > 10_000
    return root / "run", report


def assert_same_run(run: Path, report: ProtocolReport, expected: tuple[Path, Any]) -> None:
    """The report's weights, points and per-batch points, and every adapter (the warm
    start's and the final ones), equal the in-process run's to the last bit."""
    from paretosurf.llm import load_adapter

    folder, truth = expected
    for label in METHODS:
        for key in ("weights", "points", "points_no_kl", "batch_objectives"):
            assert report.methods[label][key] == truth.methods[label][key], (label, key)
    assert report.gpu_epochs == truth.gpu_epochs and report.reused_epochs == {"SURF": 1}
    finals = [Path("warm", "epoch-001")] + [
        Path("adapters", label, f"slot-{slot:02d}") for label in METHODS for slot in range(3)
    ]
    for name in finals:
        a, b = load_adapter(run / name), load_adapter(folder / name)
        assert a.weights.keys() == b.weights.keys() and (a.calls, a.steps) == (b.calls, b.steps)
        for key in a.weights:
            np.testing.assert_array_equal(a.weights[key], b.weights[key], err_msg=str(name))
    assert (
        json.loads((run / "results.json").read_text())["methods"]
        == json.loads((folder / "results.json").read_text())["methods"]
    )


def test_two_worker_processes_run_every_job_and_the_driver_loads_no_model(
    lm_dir: Path,
    prompts: list[str],
    tmp_path: Path,
    in_process: tuple[Path, Any],
    driver_loads_nothing: list[str],
) -> None:
    """The warm start, Uniform-w, SURF and the assessment of all nine adapters in two worker
    processes (one GPU each on a node whose job holds GPUs 3 and 5), started once by the
    protocol and closed at its end."""
    pool = ps.ProcessExecutor(2, threads_per_worker=1, devices=["3", "5"])
    report = protocol(tiny_solver(lm_dir, prompts, tmp_path), tmp_path / "run", pool)
    assert driver_loads_nothing == []
    workers = callers(tmp_path / "calls")
    assert workers and os.getpid() not in workers
    assert pool._pool is None  # the protocol started the pool, so it closed it
    assert_same_run(tmp_path / "run", report, in_process)


def test_the_watch_sees_a_driver_that_loads_the_model(
    lm_dir: Path, prompts: list[str], tmp_path: Path, driver_loads_nothing: list[str]
) -> None:
    """The check above catches what it is for: in this process, the warm start's first solve
    fails to load the model (tried twice) and says which job it was."""
    solver = tiny_solver(lm_dir, prompts, tmp_path)
    with pytest.raises(ps.InnerSolverError, match="the warm start's epoch 1 failed on attempt 2"):
        protocol(solver, tmp_path / "run", ps.LocalExecutor())
    assert driver_loads_nothing == ["load_base_model('" + str(lm_dir) + "',)"] * 2


# -------------------------------------------------------- every job through the executor
class Watched:
    """An executor with only ``solve`` (no start or close) that runs each call here and
    records it (the solver's type, the tasks' weights); :class:`Standin` refuses to work
    outside its calls."""

    inside = False

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[float]]] = []

    def solve(self, solver: Any, tasks: Any, on_done: Any = None) -> list[Any]:
        from paretosurf.executors import execute

        self.calls.append((type(solver).__name__, [float(t.weight) for t in tasks]))
        Watched.inside = True
        try:
            return execute(solver, tasks, on_done)
        finally:
            Watched.inside = False


class Standin:
    """A one-number "adapter" solver (saved as a folder) that raises when it trains,
    evaluates or assesses outside an executor's call; ``bad_x`` makes the assessment of
    adapters near it fail."""

    def __init__(self, bad_x: float | None = None) -> None:
        self.bad_x = bad_x

    def _here(self) -> None:
        if not Watched.inside:
            raise AssertionError("a job ran outside the executor")

    def solve(self, w: float, state: Any) -> ps.Solution:
        self._here()
        x = 0.5 if state is None else state["x"]
        x += 0.5 * (w - x)
        return ps.Solution(self.evaluate(state={"x": x}), {"x": x})

    def evaluate(self, state: Any) -> np.ndarray:
        self._here()
        return np.array([(1 - state["x"]) ** 2, state["x"] ** 2])

    def assess(self, state: Any) -> dict[str, Any]:
        if self.bad_x is not None and abs(state["x"] - self.bad_x) < 1e-9:
            raise ValueError("no assessment of this adapter")
        return {"objectives": self.evaluate(state)}

    def interpolate(self, a: Any, b: Any, t: float) -> Any:
        return {"x": (1 - t) * a["x"] + t * b["x"]}

    def save_state(self, state: Any, folder: Path) -> None:
        (folder / "x.json").write_text(json.dumps(state))

    def load_state(self, folder: Path) -> Any:
        return json.loads((folder / "x.json").read_text())


def test_every_job_goes_through_the_executor(tmp_path: Path) -> None:
    """An executor with only ``solve`` gets the warm start's epoch, every solve and, last,
    all nine assessments in one call; nothing is solved or assessed outside it, and the
    report is the one a run without executor gives."""
    watched = Watched()
    report = protocol(Standin(), tmp_path / "watched", watched)
    names = [name for name, _ in watched.calls]
    assert watched.calls[0] == ("Standin", [0.5])  # the warm start
    assert names[-1] == "AssessmentJob" and names.count("AssessmentJob") == 1
    assert watched.calls[-1][1] == [0.0, 0.5, 1.0] * 3  # Uniform-w, SURF, Soup
    Watched.inside = True  # the same protocol in this process, without executor
    try:
        alone = protocol(Standin(), tmp_path / "alone")
    finally:
        Watched.inside = False
    for label in METHODS:
        assert report.methods[label] == alone.methods[label], label


def test_a_failed_assessment_is_tried_again_and_named(tmp_path: Path) -> None:
    """The middle adapters (x = 0.5 in every method) fail to be assessed: they are tried
    once more, alone, and the error names the first of them, with its traceback."""
    watched = Watched()
    with pytest.raises(
        ps.InnerSolverError, match="the assessment of Uniform-w's slot 1 failed"
    ) as err:
        protocol(Standin(bad_x=0.5), tmp_path / "run", watched)
    assert "no assessment of this adapter" in str(err.value.__cause__)
    assert watched.calls[-2:] == [
        ("AssessmentJob", [0.0, 0.5, 1.0] * 3),
        ("AssessmentJob", [0.5] * 3),
    ]


@pytest.mark.slow  # local Ray, a fresh worker (importing torch) per GPU task: 4-5 min on 2 cores
def test_ray_gpu_tasks_run_every_job_and_the_driver_loads_no_model(
    lm_dir: Path,
    prompts: list[str],
    tmp_path: Path,
    in_process: tuple[Path, Any],
    driver_loads_nothing: list[str],
) -> None:
    """A local Ray instance declaring two GPUs (this machine has none), one per task: as on
    a cluster whose head has no GPU, nothing of the protocol runs in the driver."""
    with fake_gpu_ray():
        executor = ps.RayExecutor(num_gpus=1)
        report = protocol(tiny_solver(lm_dir, prompts, tmp_path), tmp_path / "run", executor)
        executor.close()
    assert driver_loads_nothing == []
    workers = callers(tmp_path / "calls")
    assert workers and os.getpid() not in workers
    assert_same_run(tmp_path / "run", report, in_process)
