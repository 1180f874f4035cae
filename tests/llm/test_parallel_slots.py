"""Slots side by side (issue 29): an LLM solver's prompts travel to worker processes and Ray
tasks as plain data; each worker process, or Ray task, sees GPUs of its own through
``CUDA_VISIBLE_DEVICES``; two worker processes, and a local Ray instance declaring two fake
GPUs, give the sequential run's weights and points to the last bit.

Every run here is ``ps.surf(solver, 1, iterations=1)``: two slots (w = 0 and w = 1), one epoch
of two RL steps each, on the tiny random policy. A reward records, in the process that calls
it, that process's ``CUDA_VISIBLE_DEVICES`` and the columns it was given, so the tests see
which GPUs each worker was given, not only what the executor meant to give.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.findings import ParetoWarning
from paretosurf.llm.config import LLMConfig
from paretosurf.llm.rewards import WordCount

from .tiny import FAST_OPTIONS, fake_gpu_ray, synthetic_texts

#: The repository (the working folder of the fresh process).
ROOT = Path(__file__).resolve().parents[2]
#: Settings of a fast solver: 16 training prompts in batches of 8 (2 RL steps per epoch).
SOLVER = {"epochs": 1, "beta": 0.05, **FAST_OPTIONS}


class RecordingWordCount(WordCount):
    """:class:`WordCount` that appends, to ``folder/PID.jsonl``, the ``CUDA_VISIBLE_DEVICES``
    of the process calling it and the keyword columns it got (the prompts' ``post``)."""

    def __init__(self, word: str, folder: str) -> None:
        super().__init__(word)
        self.folder = folder

    def __call__(self, prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float]:
        entry = {
            "devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "posts": isinstance(kwargs.get("post"), list) and len(kwargs["post"]) == len(prompts),
        }
        with open(Path(self.folder) / f"{os.getpid()}.jsonl", "a") as fh:
            fh.write(json.dumps(entry) + "\n")
        return super().__call__(prompts, completions, **kwargs)


def import_path() -> str:
    """A ``PYTHONPATH`` under which a new process imports this module by the name pytest
    gave it (the reward's class is pickled by that name)."""
    return os.pathsep.join(p for p in sys.path if p)


def seen(folder: Path) -> dict[int, set[str | None]]:
    """Process id -> the ``CUDA_VISIBLE_DEVICES`` values it had when the reward ran; every
    call must have had the prompts' ``post`` column."""
    out: dict[int, set[str | None]] = {}
    for path in folder.glob("*.jsonl"):
        entries = [json.loads(line) for line in path.read_text().splitlines()]
        assert entries and all(e["posts"] for e in entries), path
        out[int(path.stem)] = {e["devices"] for e in entries}
    return out


@pytest.fixture(scope="module")
def posts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """64 short posts in a JSONL file: ``load_prompts`` picks 24 of them (a seeded choice,
    so the prompts are a ``select``-ed dataset, as the protocol's are)."""
    path = tmp_path_factory.mktemp("posts") / "posts.jsonl"
    with path.open("w") as fh:
        for text in synthetic_texts(64, seed=3):
            fh.write(json.dumps({"post": " ".join(text.split()[:6])}) + "\n")
    return path


def config(lm_dir: Path, posts: Path, records: Path, executor: dict[str, Any]) -> LLMConfig:
    records.mkdir(parents=True, exist_ok=True)
    return LLMConfig(
        model=str(lm_dir),
        torch_threads=1,
        executor=executor,
        rewards=[
            {
                "kind": "python",
                "function": f"{__name__}:RecordingWordCount",
                "options": {"word": "apple", "folder": str(records)},
            },
            {"kind": "word_count", "word": "berry"},
        ],
        prompts={"source": str(posts), "n": 16, "eval_n": 8, "min_chars": 0, "template": "{post}"},
        solver=dict(SOLVER),
    )


def run(cfg: LLMConfig, workdir: Path, executor: Any = None) -> ps.Result:
    solver = cfg.build_solver(workdir)
    with warnings.catch_warnings():  # two points of a random policy: findings expected
        warnings.simplefilter("ignore", ParetoWarning)
        return ps.surf(solver, 1, iterations=1, executor=executor)


@pytest.fixture(scope="module")
def sequential(
    lm_dir: Path, posts: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[ps.Result, dict[int, set[str | None]]]:
    """The run on :class:`~paretosurf.LocalExecutor`, and what its reward saw."""
    root = tmp_path_factory.mktemp("sequential")
    cfg = config(lm_dir, posts, root / "records", {"kind": "local"})
    res = run(cfg, root / "work", cfg.build_executor())
    return res, seen(root / "records")


def test_prompts_of_a_selected_dataset_unpickle_in_a_fresh_process(
    lm_dir: Path, posts: Path, tmp_path: Path
) -> None:
    """The issue's failure: the solver built from ``load_prompts(...).select(...)`` did not
    unpickle in a worker (``ArrowInvalid``). Its prompts are now plain rows."""
    cfg = config(lm_dir, posts, tmp_path / "records", {"kind": "local"})
    train, evaluation = cfg.build_prompts()
    assert type(train).__name__ == "Dataset"  # what the config hands the solver
    solver = cfg.build_solver(tmp_path / "work")
    for held, source in ((solver.prompts, train), (solver.eval_prompts, evaluation)):
        assert isinstance(held, list) and all(type(row) is dict for row in held)
        assert held == source.to_list()  # every row, every column, in order
    blob = tmp_path / "solver.pkl"
    blob.write_bytes(pickle.dumps(solver))
    code = (
        "import pickle, sys; s = pickle.load(open(sys.argv[1], 'rb')); "
        "print(len(s.prompts), len(s.eval_prompts), sorted(s.prompts[0]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(blob)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": import_path()},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("\n")[0] == "16 8 ['post', 'prompt']"


def test_two_worker_processes_with_a_gpu_each_match_the_sequential_run(
    lm_dir: Path, posts: Path, tmp_path: Path, sequential: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a node whose job holds GPUs 3 and 5 (CUDA_VISIBLE_DEVICES names them); torch on the
    # CPU ignores the variable, so the workers' assignment is all there is to see
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,5")
    cfg = config(
        lm_dir,
        posts,
        tmp_path / "records",
        {"kind": "processes", "gpus_per_slot": 1, "threads_per_worker": 1},
    )
    executor = cfg.build_executor()
    assert isinstance(executor, ps.ProcessExecutor)
    assert executor.max_workers == 2 and executor.worker_devices == (("3",), ("5",))
    with executor:
        res = run(cfg, tmp_path / "work", executor)
    expected, parent_saw = sequential
    np.testing.assert_array_equal(res.weights, expected.weights)
    np.testing.assert_array_equal(res.points, expected.points)
    assert len(parent_saw) == 1  # the sequential run: this process
    workers = seen(tmp_path / "records")
    assert workers and os.getpid() not in workers
    # each worker saw one GPU of its own all along, and no two workers the same
    assert all(len(devices) == 1 for devices in workers.values()), workers
    mine = [next(iter(devices)) for devices in workers.values()]
    assert set(mine) <= {"3", "5"} and len(set(mine)) == len(mine), workers


@pytest.mark.slow  # a local Ray instance: 15-100 s
def test_ray_tasks_on_fake_gpus_match_the_sequential_run(
    lm_dir: Path, posts: Path, tmp_path: Path, sequential: Any
) -> None:
    """A local Ray instance declaring two GPUs (``num_gpus=2``; this machine has none):
    each slot's task reserves one, and Ray shows it only that one, in a worker process of
    its own. About 15 s (Ray's start and its workers' imports)."""
    with fake_gpu_ray():
        cfg = config(lm_dir, posts, tmp_path / "records", {"kind": "ray", "gpus_per_slot": 1})
        executor = cfg.build_executor()
        assert isinstance(executor, ps.RayExecutor) and executor.num_gpus == 1
        res = run(cfg, tmp_path / "work", executor)
        executor.close()
    expected, _ = sequential
    np.testing.assert_array_equal(res.weights, expected.weights)
    np.testing.assert_array_equal(res.points, expected.points)
    tasks = seen(tmp_path / "records")
    assert tasks and os.getpid() not in tasks
    assert all(len(devices) == 1 and devices <= {"0", "1"} for devices in tasks.values()), tasks
