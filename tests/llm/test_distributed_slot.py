"""A slot on several processes (issue 44): ``LLMSolver(..., processes_per_slot=k)`` trains one
solve as a DDP job of ``k`` processes (gloo on the CPU here), and
:func:`paretosurf.llm.distributed.run_ranks` launches and watches them.

What the equality test compares. One process and two processes train the same adapter only if
they train on the same completions: with ordinary sampling each rank draws its own, so the two
runs see different samples. The test therefore samples with *keyed* sampling: a logits
processor that picks each token by the Gumbel-max trick with noise seeded by the completion's
global row in the generation round (``rank * rows + row``) and its tokens so far, so a
completion is the same sample of the policy whichever process generates it. TRL gives rank
``r`` rows ``r * B/k .. (r+1) * B/k - 1`` of each generation round of ``B = batch_size``
completions, gathers the rewards for the leave-one-out baseline, and each rank's loss is the
mean over its rows; with ``mini_batch_size = batch_size`` (one optimizer step per round) DDP's
average of the two ranks' gradients is the one process's gradient, up to floating-point
rounding (sums in another order, matrix products over other batch shapes). What is compared,
after one epoch (4 rounds, 4 optimizer steps) on the tiny random policy from the same warm
start (a one-process solve's adapter, which the ranks receive as a file): the adapter weights
(within ``ATOL`` of each other, measured 4e-6, the adapter having moved by more than 100 times
``ATOL``), the solve's objectives and KL (within ``ATOL``, measured 1e-8), the steps and the
per-step rewards the trainer logged. The processes get the keyed sampling by unpickling the
rewards (:class:`KeyedWordCount`), the test's own process by ``monkeypatch``.

The launcher's tests run trivial jobs (no torch) and take a few seconds each; the two solves
on two processes take 30-50 s each on a loaded 2-core machine (each rank imports torch,
transformers and TRL and loads the model), so they are marked ``slow``.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paretosurf.llm.rewards import WordCount

from .tiny import FAST_OPTIONS

#: Agreement of the one- and two-process adapters and objectives (float32 rounding through
#: four Adam steps).
ATOL = 1e-4
#: One epoch of 4 generation rounds, each one optimizer step (8 prompts, 2 per round).
SOLVER = {**FAST_OPTIONS, "mini_batch_size": 8, "epochs": 1, "beta": 0.05, "seed": 3}


# ---------------------------------------------------------------------------- keyed sampling
class KeyedGumbel:
    """A logits processor that samples each row's next token from its (processed) scores by
    the Gumbel-max trick, with noise seeded by the row's global index and its tokens, and
    leaves only that token possible: the sample does not depend on the batch it is in."""

    def __init__(self, pad_token_id: int | None) -> None:
        self.pad = pad_token_id

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        rank = (
            torch.distributed.get_rank()
            if torch.distributed.is_available() and torch.distributed.is_initialized()
            else 0
        )
        rows = input_ids.shape[0]
        out = torch.full_like(scores, -float("inf"))
        for row in range(rows):
            ids = input_ids[row]
            if self.pad is not None:
                ids = ids[ids != self.pad]
            key = zlib.crc32(ids.cpu().numpy().astype(np.int64).tobytes())
            gen = torch.Generator().manual_seed(key * 100_003 + rank * rows + row)
            uniform = torch.rand(scores.shape[1], generator=gen, dtype=torch.float64)
            noisy = scores[row].double().cpu() - torch.log(-torch.log(uniform.clamp_min(1e-300)))
            out[row, int(torch.argmax(noisy))] = 0.0
        return out


def keyed_logits_processor(original: Any) -> Any:
    """``GenerationMixin._get_logits_processor`` with :class:`KeyedGumbel` appended."""

    def patched(self: Any, generation_config: Any, *args: Any, **kwargs: Any) -> Any:
        processors = original(self, generation_config, *args, **kwargs)
        processors.append(KeyedGumbel(generation_config.pad_token_id))
        return processors

    patched.keyed = True  # type: ignore[attr-defined]
    return patched


def install_keyed_sampling() -> None:
    """Sample with :class:`KeyedGumbel` in this process, for good (a rank's process)."""
    from transformers.generation.utils import GenerationMixin

    if not getattr(GenerationMixin._get_logits_processor, "keyed", False):
        GenerationMixin._get_logits_processor = keyed_logits_processor(  # type: ignore[method-assign]
            GenerationMixin._get_logits_processor
        )


class KeyedWordCount(WordCount):
    """:class:`WordCount` that installs keyed sampling in each process that unpickles it."""

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        install_keyed_sampling()


class FailingWordCount(KeyedWordCount):
    """:class:`KeyedWordCount` that writes its process's id into ``folder`` and, while
    ``folder/fail`` exists, raises at its 4th call (the 4th generation round) in rank 1 of a
    distributed job."""

    def __init__(self, word: str, folder: str) -> None:
        super().__init__(word)
        self.folder = folder
        self.calls = 0

    def __call__(self, prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float]:
        rank = os.environ.get("RANK", "x")
        Path(self.folder, f"{rank}.pid").write_text(str(os.getpid()))
        self.calls += 1
        if rank == "1" and self.calls == 4 and Path(self.folder, "fail").exists():
            raise ValueError("the reward failed on rank 1, as the test asked")
        return super().__call__(prompts, completions, **kwargs)


# ---------------------------------------------------------------------------- launcher jobs
def job_ok(rank: int, folder: str) -> None:
    """Write the rank's environment."""
    keys = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
    env = {k: os.environ.get(k) for k in keys}
    Path(folder, f"{rank}.json").write_text(json.dumps({**env, "pid": os.getpid()}))


def _register(rank: int, folder: str) -> None:
    """Write this rank's pid (whole, by a rename) for the test to check on later."""
    Path(folder, f"{rank}.tmp").write_text(str(os.getpid()))
    Path(folder, f"{rank}.tmp").replace(Path(folder, f"{rank}.pid"))


def _await_all(folder: str) -> None:
    """Wait until every rank has written its pid (a loaded machine starts them late)."""
    deadline = time.monotonic() + 20.0
    while len(list(Path(folder).glob("*.pid"))) < int(os.environ["WORLD_SIZE"]):
        if time.monotonic() > deadline:
            raise TimeoutError("the other ranks did not start")
        time.sleep(0.01)


def job_fails_or_hangs(rank: int, folder: str) -> None:
    """Rank 1 raises once every rank runs; the others wait forever, as on a dead peer."""
    _register(rank, folder)
    if rank == 1:
        _await_all(folder)
        raise KeyError("rank 1 broke")
    while True:
        time.sleep(0.05)


def job_dies(rank: int, folder: str) -> None:
    """Rank 1 ends without a traceback once every rank runs; the others wait forever."""
    _register(rank, folder)
    if rank == 1:
        _await_all(folder)
        os._exit(3)
    while True:
        time.sleep(0.05)


def job_sleeps(rank: int, folder: str) -> None:
    _register(rank, folder)
    time.sleep(60)


class BreaksInRanks:
    """An argument that pickles, and fails to unpickle in a rank's process."""

    def __getstate__(self) -> dict[str, Any]:
        return {"x": 1}

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "RANK" in os.environ:
            raise RuntimeError("cannot unpickle in a rank")
        self.__dict__.update(state)


def job_takes(rank: int, thing: Any) -> None:
    """Nothing but take an argument."""


def _pids(folder: Path) -> list[int]:
    return [int(p.read_text()) for p in folder.glob("*.pid")]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for every purpose but the process table
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True


# ---------------------------------------------------------------------------- the launcher
def test_run_ranks_gives_each_rank_torchrun_environment(tmp_path: Path) -> None:
    from paretosurf.llm.distributed import run_ranks

    run_ranks(job_ok, (str(tmp_path),), processes=2)
    got = [json.loads((tmp_path / f"{r}.json").read_text()) for r in range(2)]
    assert [g["RANK"] for g in got] == ["0", "1"] == [g["LOCAL_RANK"] for g in got]
    assert {g["WORLD_SIZE"] for g in got} == {"2"}
    assert got[0]["MASTER_PORT"] == got[1]["MASTER_PORT"] and got[0]["MASTER_ADDR"] == "127.0.0.1"
    assert got[0]["pid"] != got[1]["pid"] != os.getpid()
    assert not multiprocessing.active_children()


def test_a_failing_rank_raises_its_traceback_and_stops_the_others(tmp_path: Path) -> None:
    from paretosurf.llm.distributed import RankError, run_ranks

    tic = time.perf_counter()
    with pytest.raises(RankError, match="rank 1 of the 3 processes") as info:
        run_ranks(job_fails_or_hangs, (str(tmp_path),), processes=3)
    assert time.perf_counter() - tic < 30  # not the hanging ranks' "forever"
    err = info.value
    assert err.rank == 1 and err.exitcode == 1
    assert "KeyError: 'rank 1 broke'" in str(err)
    assert err.worker_traceback is not None and "job_fails_or_hangs" in err.worker_traceback
    pids = _pids(tmp_path)
    assert len(pids) == 3 and not any(_alive(pid) for pid in pids)
    assert not multiprocessing.active_children()


def test_a_rank_dying_without_traceback_is_named(tmp_path: Path) -> None:
    from paretosurf.llm.distributed import RankError, run_ranks

    with pytest.raises(RankError, match=r"rank 1 of the 2 processes .* exited with code 3") as info:
        run_ranks(job_dies, (str(tmp_path),), processes=2)
    assert info.value.worker_traceback is None and info.value.exitcode == 3
    assert not any(_alive(pid) for pid in _pids(tmp_path))


def test_arguments_that_do_not_travel_fail_clearly() -> None:
    from paretosurf.llm.distributed import RankError, run_ranks

    with pytest.raises((AttributeError, TypeError, pickle.PicklingError)):  # here, at once
        run_ranks(lambda rank: None, processes=2)
    with pytest.raises(RankError, match="RuntimeError: cannot unpickle in a rank") as info:
        run_ranks(job_takes, (BreaksInRanks(),), processes=1)
    assert "__setstate__" in (info.value.worker_traceback or "")
    with pytest.raises(ValueError, match="processes must be an integer >= 1"):
        run_ranks(job_takes, (None,), processes=0)


def test_run_ranks_timeout_stops_every_rank(tmp_path: Path) -> None:
    from paretosurf.llm.distributed import run_ranks

    with pytest.raises(TimeoutError, match="timeout of 2 s"):
        run_ranks(job_sleeps, (str(tmp_path),), processes=2, timeout=2, grace=0.5)
    assert not any(_alive(pid) for pid in _pids(tmp_path))
    assert not multiprocessing.active_children()


# ---------------------------------------------------------------------------- the settings
def test_processes_per_slot_is_checked(tmp_path: Path) -> None:
    from paretosurf.llm import LLMSolverConfig

    base: dict[str, Any] = {"steps": 1, "workdir": tmp_path}
    assert LLMSolverConfig(**base).resolved().processes_per_slot == 1
    assert LLMSolverConfig(**base, processes_per_slot="gpus").resolved().processes_per_slot == (
        "gpus"
    )
    with pytest.raises(ValueError, match="processes_per_slot must be"):
        LLMSolverConfig(**base, processes_per_slot=0).resolved()
    with pytest.raises(ValueError, match="processes_per_slot must be an integer >= 1 or 'gpus'"):
        LLMSolverConfig(**base, processes_per_slot="all").resolved()
    with pytest.raises(ValueError, match=r"mini_batch_size \(16\) must be a multiple of "):
        LLMSolverConfig(**base, processes_per_slot=3).resolved()
    with pytest.raises(ValueError, match="device must be None, 'cpu' or 'cuda'"):
        LLMSolverConfig(**base, processes_per_slot=2, device="cuda:1").resolved()


def test_processes_per_slot_resolves_on_the_machine(fast_solver: Any) -> None:
    solver = fast_solver(processes_per_slot="gpus")  # device="cpu": one process
    assert solver._processes() == 1
    assert fast_solver(processes_per_slot=2)._processes() == 2
    # one process's batches, split: a pass per rank of at most micro_batch_size completions
    assert solver._rank_batches(1) == (4, 1, 2)
    assert solver._rank_batches(2) == (2, 1, 2)
    assert solver._rank_batches(4) == (1, 1, 2)


def test_several_gpus_per_slot_imply_a_process_per_gpu(tmp_path: Path) -> None:
    from paretosurf.llm.config import LLMConfig

    def config(**executor: Any) -> LLMConfig:
        return LLMConfig(model="m", executor=executor)

    assert config(kind="processes", gpus_per_slot=2).implied_processes() == "gpus"
    assert config(kind="ray", gpus_per_slot=4).implied_processes() == "gpus"
    assert config(kind="processes", gpus_per_slot=1).implied_processes() is None
    assert config(kind="ray", gpus_per_slot=0.5).implied_processes() is None
    assert config(kind="ray", gpus_per_slot=1.5).implied_processes() is None
    assert config(kind="local").implied_processes() is None
    assert config(kind="processes").implied_processes(gpus_per_slot=2) == "gpus"
    assert config(kind="processes", gpus_per_slot=3).implied_processes(gpus_per_slot=1) is None
    # a mini-batch the slot's GPUs cannot share is refused before any prompt is read
    with pytest.raises(ValueError, match=r"mini_batch_size \(16\) must be a multiple of"):
        config(kind="processes", gpus_per_slot=3).build_solver(tmp_path)


def test_a_distributed_solve_frees_the_gpu_models_of_its_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from paretosurf.llm import model_cache
    from paretosurf.llm.solver import _free_gpu_bases

    on_gpu, on_cpu = ("m", "float32", "cuda:0", False, None, "null"), ("m", "float32", "cpu")
    monkeypatch.setitem(model_cache._BASES, on_gpu, object())
    monkeypatch.setitem(model_cache._BASES, on_cpu, object())
    _free_gpu_bases()  # rank 0 gets the first GPU's memory; a CPU model may stay
    assert on_gpu not in model_cache._BASES and on_cpu in model_cache._BASES


def test_a_model_object_is_refused_with_several_processes(lm_dir: Path, fast_solver: Any) -> None:
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(lm_dir)
    with pytest.raises(ValueError, match="load the model by name"):
        fast_solver(model=model, processes_per_slot=2)


# ---------------------------------------------------------------------------- the slot on 2 CPUs
@pytest.fixture
def keyed_solver(lm_dir: Path, tokenizer: Any, prompts: list[str], tmp_path: Path) -> Any:
    """Solvers with keyed sampling (see the module docstring) on 8 prompts."""
    from paretosurf.llm import LLMSolver

    def make(processes: int, **options: Any) -> Any:
        rewards = options.pop("rewards", [KeyedWordCount("apple"), KeyedWordCount("berry")])
        return LLMSolver(
            str(lm_dir),
            rewards,
            prompts[:8],
            tokenizer=tokenizer,
            workdir=tmp_path / f"work-{processes}",
            processes_per_slot=processes,
            **{**SOLVER, **options},
        )

    return make


@pytest.mark.slow
def test_two_processes_train_the_one_process_adapter(
    keyed_solver: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transformers.generation.utils import GenerationMixin

    monkeypatch.setattr(
        GenerationMixin,
        "_get_logits_processor",
        keyed_logits_processor(GenerationMixin._get_logits_processor),
    )
    solver = keyed_solver(1)
    start = solver.solve(0.5, None).state  # a warm start: its adapter travels to the ranks
    one = solver.solve(0.5, start)
    two = keyed_solver(2).solve(0.5, start)

    assert one.info["steps"] == two.info["steps"] == 4
    assert "processes" not in one.info and two.info["processes"] == 2
    a, b = one.state.weights, two.state.weights
    assert a.keys() == b.keys() and (two.state.calls, two.state.steps) == (2, 8)
    moved = max(float(np.abs(v - start.weights[k]).max()) for k, v in a.items())
    assert moved > 100 * ATOL
    for key in a:
        np.testing.assert_allclose(b[key], a[key], rtol=0, atol=ATOL, err_msg=key)
    np.testing.assert_allclose(two.objectives, one.objectives, rtol=0, atol=ATOL)
    assert two.info["kl"] == pytest.approx(one.info["kl"], abs=ATOL)
    assert two.info["n_eval"] == one.info["n_eval"]
    rewards = [[row["rewards/count_apple/mean"] for row in s.info["train_log"]] for s in (one, two)]
    assert rewards[0] == pytest.approx(rewards[1], abs=1e-6) and len(rewards[0]) == 4
    # the solve folder: rank 0's log, finished, checkpoints removed
    folder = Path(two.info["solve_dir"])
    assert json.loads((folder / "solve.json").read_text())["status"] == "done"
    assert not list(folder.glob("checkpoint-*"))
    steps = [json.loads(line) for line in (folder / "train_log.jsonl").read_text().splitlines()]
    assert sum("loss" in row for row in steps) == 4


@pytest.mark.slow
def test_a_failing_rank_fails_the_solve_and_a_retry_resumes(
    keyed_solver: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rank 1 raises in the last of 4 optimizer steps: the solve raises with its traceback,
    no rank is left, and the solve folder keeps the checkpoint of step 2 (``save_steps``
    "auto": half the epoch). Run again, the solve resumes from it on two processes and ends
    with the adapter of an uninterrupted one-process solve (keyed sampling: see the module
    docstring; TRL restores each rank's random state, the data order and the optimizer)."""
    from transformers.generation.utils import GenerationMixin

    from paretosurf.llm.distributed import RankError

    monkeypatch.setattr(
        GenerationMixin,
        "_get_logits_processor",
        keyed_logits_processor(GenerationMixin._get_logits_processor),
    )
    pids = tmp_path / "pids"
    pids.mkdir()
    (pids / "fail").touch()
    failing = FailingWordCount("apple", str(pids))
    solver = keyed_solver(2, rewards=[failing, KeyedWordCount("berry")])
    with pytest.raises(RankError, match="rank 1 of the 2 processes") as info:
        solver.solve(0.5, None)
    assert "ValueError: the reward failed on rank 1, as the test asked" in str(info.value)
    trace = info.value.worker_traceback or ""
    assert "test_distributed_slot.py" in trace and "in __call__" in trace
    assert not multiprocessing.active_children()
    ranks = _pids(pids)
    assert len(ranks) == 2 and not any(_alive(pid) for pid in ranks)
    (folder,) = (Path(solver.workdir) / "solves").iterdir()
    assert json.loads((folder / "solve.json").read_text())["status"] == "running"
    assert [p.name for p in folder.glob("checkpoint-*")] == ["checkpoint-2"]

    (pids / "fail").unlink()
    resumed = solver.solve(0.5, None)
    assert resumed.info["resumed_from"] == 2 and resumed.info["steps"] == 4
    assert json.loads((folder / "solve.json").read_text())["status"] == "done"
    one = keyed_solver(1).solve(0.5, None)
    for key, value in one.state.weights.items():
        np.testing.assert_allclose(resumed.state.weights[key], value, rtol=0, atol=ATOL)
    np.testing.assert_allclose(resumed.objectives, one.objectives, rtol=0, atol=ATOL)


def test_the_command_lines_gpus_per_slot_implies_processes_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``paretosurf llm --gpus-per-slot 3`` implies a process per GPU as the config's
    ``gpus_per_slot`` does: a mini-batch that three processes cannot share is refused before
    anything is loaded or trained."""
    from paretosurf import cli

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2")  # a node of three GPUs
    config = tmp_path / "run.toml"
    config.write_text('model = "m"\n[solver]\nmini_batch_size = 16\n')
    args = ["llm", "--config", str(config), "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as exc:
        cli.main([*args, "--executor", "processes", "--gpus-per-slot", "3"])
    assert exc.value.code == 2
    assert "mini_batch_size (16) must be a multiple of" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
