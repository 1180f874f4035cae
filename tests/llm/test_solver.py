"""LLMSolver end to end on the CPU: RLOO on tiny random models, adapters as states, SURF runs
that keep their states as folders and resume from them."""

from __future__ import annotations

import gc
import pickle
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("trl")

import paretosurf as ps
from paretosurf.findings import ParetoWarning
from paretosurf.llm import (
    AdapterState,
    LLMSolver,
    LLMSolverConfig,
    load_adapter,
    model_cache,
    require_llm,
)
from paretosurf.storage._states import StateFolder


def same_adapter(a: AdapterState, b: AdapterState) -> bool:
    return set(a.weights) == set(b.weights) and all(
        np.array_equal(a.weights[k], b.weights[k]) for k in a.weights
    )


# ---------------------------------------------------------------------------- learning
@pytest.fixture(scope="module")
def endpoint_solves(
    learnable_lm_dir: Path,
    tokenizer: Any,
    prompts: list[str],
    rewards: list[Any],
    fast_options: dict[str, Any],
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Any]:
    """Cold solves at w = 1 and w = 0, and a warm-started one from the w = 1 adapter."""
    solver = LLMSolver(
        str(learnable_lm_dir),
        rewards,
        prompts,
        **{
            **fast_options,
            "rank": 8,
            "lora_alpha": 16,
            "batch_size": 16,
            "mini_batch_size": 8,
            "min_new_tokens": 6,
            "max_new_tokens": 12,
            "eval_batches": 2,
            "eval_batch_size": 32,
        },
        steps=20,
        beta=0.05,
        tokenizer=tokenizer,
        workdir=tmp_path_factory.mktemp("work"),
    )
    one = solver.solve(1.0, None)
    zero = solver.solve(0.0, None)
    warm = solver.solve(1.0, one.state)
    return {"solver": solver, "one": one, "zero": zero, "warm": warm}


def test_each_weight_raises_its_own_reward(endpoint_solves: dict[str, Any]) -> None:
    one, zero = endpoint_solves["one"], endpoint_solves["zero"]
    r_one, r_zero = np.array(one.info["rewards"]), np.array(zero.info["rewards"])
    se = np.hypot(one.info["stderr_no_kl"], zero.info["stderr_no_kl"])
    # w = 1 trains on r1 ("apple") alone, w = 0 on r2 ("berry") alone
    assert r_one[0] > r_zero[0] + 2 * se[0], (r_one, r_zero, se)
    assert r_zero[1] > r_one[1] + 2 * se[1], (r_one, r_zero, se)
    # and in minimization form: each endpoint is best on its own objective
    assert one.objectives[0] < zero.objectives[0] and zero.objectives[1] < one.objectives[1]


def test_objectives_are_minus_rewards_plus_the_kl_term(endpoint_solves: dict[str, Any]) -> None:
    sol = endpoint_solves["one"]
    info = sol.info
    beta = endpoint_solves["solver"].beta
    np.testing.assert_allclose(
        sol.objectives, -(np.array(info["rewards"]) - beta * info["kl"]), rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(info["objectives_no_kl"], -np.array(info["rewards"]))
    assert info["steps"] == 20 and info["n_eval"] == 64
    assert len(info["stderr"]) == 2 and all(0 < s < 1 for s in info["stderr"])
    assert info["kl"] > 0  # the trained policy left the base model
    log = info["train_log"]
    assert [row["step"] for row in log] == list(range(1, 21))
    # generation rounds of 16 completions, 2 optimizer steps each: rewards every other step
    assert all("rewards/count_apple/mean" in row and "kl" in row for row in log[::2])
    assert all(row["completions/min_length"] >= 6 for row in log[::2])  # min_new_tokens
    assert isinstance(sol.state, AdapterState)
    assert (sol.state.calls, sol.state.steps) == (1, 20)


def test_the_kl_is_against_the_base_model_from_the_first_step(
    endpoint_solves: dict[str, Any],
) -> None:
    """A warm start's first step already pays KL (TRL, handed a PeftModel, would measure it
    against a copy of the warm start: exactly 0); a cold start's is exactly 0."""
    cold, warm = endpoint_solves["one"], endpoint_solves["warm"]
    assert cold.info["train_log"][0]["kl"] == 0.0
    assert warm.info["train_log"][0]["kl"] > 0.0
    assert (warm.state.calls, warm.state.steps) == (2, 40)


def test_training_changes_every_adapter_tensor(endpoint_solves: dict[str, Any]) -> None:
    before, after = endpoint_solves["one"].state, endpoint_solves["warm"].state
    assert set(before.weights) == set(after.weights)
    unchanged = [k for k in before.weights if np.array_equal(before.weights[k], after.weights[k])]
    assert not unchanged
    # a cold start begins from a fresh adapter (B = 0): training moved B away from zero
    assert all(np.any(v != 0) for k, v in before.weights.items() if "lora_B" in k)


def test_evaluate_reproduces_the_solves_estimate(endpoint_solves: dict[str, Any]) -> None:
    """The evaluation is a fixed function of the adapter: evaluating the trained adapter
    afresh gives the solve's objectives."""
    solver, one = endpoint_solves["solver"], endpoint_solves["one"]
    np.testing.assert_allclose(solver.evaluate(one.state), one.objectives, rtol=1e-9, atol=1e-9)
    assessed = solver.assess(one.state)
    np.testing.assert_array_equal(assessed["objectives"], solver.evaluate(one.state))
    assert assessed["batch_objectives"].shape == (2, 2)  # 2 evaluation batches
    np.testing.assert_allclose(
        assessed["batch_objectives"].mean(axis=0), assessed["objectives"], rtol=1e-12
    )  # equal batches
    np.testing.assert_allclose(assessed["objectives_no_kl"], one.info["objectives_no_kl"])
    base = solver.assess(None)  # the base model: no KL at all
    assert base["kl"] == 0.0


# ---------------------------------------------------------------------------- states
@pytest.mark.parametrize("adapter", ["lora", "dora"])
def test_solver_states_round_trip_through_folders(
    fast_solver: Any, adapter: str, tmp_path: Path
) -> None:
    solver = fast_solver(adapter=adapter)
    sol = solver.solve(0.5, None)
    assert sol.state.dora is (adapter == "dora")
    assert any("magnitude" in k for k in sol.state.weights) is (adapter == "dora")
    solver.save_state(sol.state, tmp_path / "s")
    back = solver.load_state(tmp_path / "s")
    assert same_adapter(back, sol.state) and back.config == sol.state.config
    assert (back.calls, back.steps) == (1, 2)
    # interpolation endpoints are exact, from folders or objects
    other = solver.solve(0.25, back)
    for t, want in ((0.0, sol.state), (1.0, other.state)):
        assert same_adapter(solver.interpolate(StateFolder(tmp_path / "s"), other.state, t), want)


@pytest.mark.parametrize(
    ("options", "steps"),
    [
        ({}, 8),  # 4 rounds of 2 prompts x 4 completions, 2 steps each
        ({"num_iterations": 2}, 16),  # every round used twice
        ({"micro_batch_size": 2}, 8),  # gradient accumulation: the same optimizer steps
    ],
)
def test_an_epoch_is_one_pass_over_the_prompts(
    lm_dir: Path,
    tokenizer: Any,
    prompts: list[str],
    rewards: list[Any],
    fast_options: dict[str, Any],
    tmp_path: Path,
    options: dict[str, Any],
    steps: int,
) -> None:
    """batch_size 8 = 2 prompts x num_generations 4 per generation round, mini_batch_size 4:
    2 optimizer steps per round (times num_iterations); 8 prompts make 4 rounds."""
    solver = LLMSolver(
        str(lm_dir),
        rewards,
        prompts[:8],
        epochs=1,
        tokenizer=tokenizer,
        workdir=tmp_path,
        **{**fast_options, **options},
    )
    assert solver.solve(0.5, None).info["steps"] == steps


def test_a_solve_leaves_the_cached_base_model_as_it_was(fast_solver: Any) -> None:
    """The base model is lent to each call and handed back unchanged: the same call twice
    gives the same result to the last bit, and no adapter outlives its call."""
    from peft import PeftModel
    from peft.tuners.tuners_utils import BaseTunerLayer

    solver = fast_solver(steps=3)
    first = solver.solve(0.3, None)
    again = solver.solve(0.3, None)
    assert np.array_equal(first.objectives, again.objectives)
    assert same_adapter(first.state, again.state)
    assert "load" not in again.info["seconds"]  # the base model was reused
    (base,) = [b for key, b in model_cache._BASES.items() if key[0] == solver.model]
    assert not any(isinstance(m, BaseTunerLayer) for m in base.model.modules())
    assert "forward" not in vars(base.model)  # TRL's fused-LM-head patch is gone
    gc.collect()
    assert not any(issubclass(type(obj), PeftModel) for obj in gc.get_objects())


def test_warm_starts_must_fit_the_adapter(fast_solver: Any) -> None:
    state = fast_solver(steps=1, rank=2, lora_alpha=4).solve(0.5, None).state
    with pytest.raises(ValueError, match=r"does not fit the solver's adapter.*r 2 != 4"):
        fast_solver(steps=1).solve(0.5, state)


# ---------------------------------------------------------------------------- loading
def test_models_and_tokenizers_load_by_folder_name_offline(
    fast_solver: Any, lm_dir: Path, tmp_path: Path
) -> None:
    """``model`` as a folder name, the tokenizer loaded from it (as PreTrainedTokenizerFast,
    which its tokenizer_config.json declares), with HF_HUB_OFFLINE=1."""
    import os

    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    solver = fast_solver(steps=1, model=str(lm_dir), tokenizer=None)
    assert solver.solve(0.5, None).info["steps"] == 1
    from transformers import PreTrainedTokenizerFast

    tok = solver._load_tokenizer()
    assert isinstance(tok, PreTrainedTokenizerFast)  # not the Qwen2 tokenizer of config.json
    assert tok("apple berry")["input_ids"] == [
        tok.convert_tokens_to_ids(w) for w in ("apple", "berry")
    ]
    with pytest.raises(OSError, match="could not load the model 'no/such-model'"):
        fast_solver(steps=1, model="no/such-model", tokenizer=None).solve(0.5, None)


def test_dataset_columns_reach_the_rewards(
    lm_dir: Path, tokenizer: Any, fast_options: dict[str, Any], tmp_path: Path
) -> None:
    from datasets import Dataset

    seen: list[str] = []

    def target(prompts: list[str], completions: list[str], **kwargs: Any) -> list[float]:
        assert kwargs["word"] == [p.split()[0] for p in prompts]
        seen.append("train" if kwargs["trainer_state"] is not None else "eval")
        return [float(c.split().count(w)) for c, w in zip(completions, kwargs["word"], strict=True)]

    prompts = ["apple pie and", "berry jam with", "plum tart of", "kiwi cake on"] * 2
    data = Dataset.from_dict({"prompt": prompts, "word": [p.split()[0] for p in prompts]})
    solver = LLMSolver(
        str(lm_dir),
        [target, target],
        data,
        steps=2,
        tokenizer=tokenizer,
        workdir=tmp_path,
        **fast_options,
    )
    sol = solver.solve(0.5, None)
    assert "train" in seen and "eval" in seen and np.all(np.isfinite(sol.objectives))


def test_chat_prompts_train_and_evaluate(
    lm_dir: Path, tokenizer: Any, fast_options: dict[str, Any], tmp_path: Path
) -> None:
    """Conversations go through the tokenizer's chat template, and the rewards get
    conversations back, as TRL gives them (in training and in the evaluation)."""
    import copy

    chat = copy.deepcopy(tokenizer)
    chat.chat_template = (
        "{% for m in messages %}{{ m['content'] }} {% endfor %}"
        "{% if add_generation_prompt %}summary {% endif %}"
    )
    seen = []

    def reward(prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float]:
        seen.append((prompts[0][0]["role"], completions[0][0]["role"]))
        return [float(c[0]["content"].split().count("apple")) for c in completions]

    prompts = [
        [{"role": "user", "content": f"tell me about {w} and pear"}]
        for w in ("apple", "berry", "plum", "fig")
    ] * 2
    solver = LLMSolver(
        str(lm_dir),
        [reward, reward],
        prompts,
        steps=2,
        tokenizer=chat,
        workdir=tmp_path,
        **fast_options,
    )
    assert np.all(np.isfinite(solver.solve(0.5, None).objectives))
    assert set(seen) == {("user", "assistant")} and len(seen) >= 4


# ---------------------------------------------------------------------------- runs
def test_surf_keeps_adapter_folders_and_resumes_from_them(fast_solver: Any, tmp_path: Path) -> None:
    solver = fast_solver(steps=2)
    run_dir = tmp_path / "run"

    class Stop(Exception):
        pass

    def stop_after_first_round(record: ps.IterationRecord) -> None:
        if record.iteration == 0:
            raise Stop

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParetoWarning)  # a tiny model's front is noise
        with pytest.raises(Stop):
            ps.surf(solver, 2, iterations=2, checkpoint=run_dir, callback=stop_after_first_round)
        folders = sorted(p.relative_to(run_dir).as_posix() for p in run_dir.glob("states/*/*"))
        assert folders == [f"states/round-000000/slot-0{i}" for i in range(3)]
        for folder in folders:
            assert sorted(p.name for p in (run_dir / folder).iterdir()) == [
                "adapter_config.json",
                "adapter_model.safetensors",
            ]
        resumed = ps.surf(solver, 2, iterations=2, checkpoint=run_dir, resume=True)
        whole = ps.surf(solver, 2, iterations=2, checkpoint=tmp_path / "whole")
    assert resumed.n_solves == whole.n_solves == 6
    assert all(isinstance(s, StateFolder) for s in resumed.states)
    assert all(Path(s.path).is_relative_to(run_dir / "states") for s in resumed.states)
    finals = [load_adapter(s) for s in resumed.states]
    assert [(a.calls, a.steps) for a in finals] == [(2, 4)] * 3  # warm-started from folders
    np.testing.assert_array_equal(resumed.points, whole.points)  # to the last bit
    for a, b in zip(finals, whole.states, strict=True):
        assert same_adapter(a, load_adapter(b))


def test_soup_mixes_adapter_folders(fast_solver: Any, tmp_path: Path) -> None:
    solver = fast_solver(steps=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParetoWarning)
        res = ps.methods.soup(solver, 2, iterations=1, checkpoint=tmp_path / "soup")
    ends = [load_adapter(res.states[0]), load_adapter(res.states[2])]
    middle = res.states[1]
    assert isinstance(middle, AdapterState)
    for key, value in middle.weights.items():
        np.testing.assert_allclose(
            value, (ends[0].weights[key] + ends[1].weights[key]) / 2, rtol=1e-6, atol=1e-7
        )
    np.testing.assert_array_equal(res.points[1], solver.evaluate(middle))
    # the mixture is checkpointed as arrays, not pickled
    saved = ps.Result.load(tmp_path / "soup").states[1]
    assert isinstance(saved, AdapterState) and same_adapter(saved, middle)


def test_a_solver_pickles_without_its_model_and_solves_in_a_worker(fast_solver: Any) -> None:
    solver = fast_solver(steps=2)
    local = solver.solve(0.5, None)  # loads (and caches) the model in this process
    blob = pickle.dumps(solver)
    assert len(blob) < 200_000  # no model inside
    twin = pickle.loads(blob)
    assert np.array_equal(twin.solve(0.5, None).objectives, local.objectives)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParetoWarning)
        with ps.ProcessExecutor(1) as pool:
            res = ps.surf(solver, 1, iterations=1, executor=pool)
        here = ps.surf(solver, 1, iterations=1)
    np.testing.assert_array_equal(res.points, here.points)


# ---------------------------------------------------------------------------- arguments
@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"steps": None}, ValueError, "exactly one of steps"),
        ({"epochs": 1}, ValueError, "exactly one of steps"),
        ({"steps": 0}, ValueError, "steps must be an integer >= 1"),
        ({"beta": -0.1}, ValueError, r"beta must lie in \[0.0, inf\)"),
        ({"adapter": "ia3"}, ValueError, "adapter must be 'lora' or 'dora'"),
        ({"lora_dropout": 1.0}, ValueError, "lora_dropout must lie in"),
        ({"batch_size": 6}, ValueError, r"batch_size \(6\) must be a multiple of num_generations"),
        ({"mini_batch_size": 3}, ValueError, "must be a multiple of mini_batch_size"),
        ({"num_generations": 1, "batch_size": 4}, ValueError, "num_generations must be >= 2"),
        ({"micro_batch_size": 3}, ValueError, "must be a multiple of micro_batch_size"),
        ({"min_new_tokens": 9}, ValueError, "min_new_tokens .9. must not exceed max_new_tokens"),
        ({"temperature": 0}, ValueError, "temperature must be a finite number > 0"),
        ({"batch_size": 256, "mini_batch_size": 4}, ValueError, "fewer than one generation round"),
        ({"device": "gpu"}, ValueError, "device must be 'cpu', 'cuda'"),
        ({"dtype": "int8"}, ValueError, "dtype must be one of"),
        ({"trainer_args": {"beta": 0.1}}, ValueError, "trainer_args sets beta"),
        (
            {"trainer_args": {"generation_kwargs": {"max_new_tokens": 3}}},
            ValueError,
            "without min_new_tokens and max_new_tokens",
        ),
        ({"target_modules": []}, TypeError, "target_modules must be"),
        ({"tokenizer": 3}, TypeError, "tokenizer must be a tokenizer"),
        ({"workdir": None}, TypeError, "workdir must be a folder path"),
    ],
)
def test_bad_arguments_are_named(
    fast_solver: Any, options: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        fast_solver(**options)


def test_a_config_gives_the_same_solver_as_its_keywords(
    lm_dir: Path,
    tokenizer: Any,
    prompts: list[str],
    rewards: list[Any],
    fast_options: dict[str, Any],
    tmp_path: Path,
) -> None:
    settings = {
        **fast_options,
        "steps": 3,
        "beta": 0.1,
        "tokenizer": tokenizer,
        "workdir": str(tmp_path / "work"),
    }
    by_keywords = LLMSolver(str(lm_dir), rewards, prompts, **settings)
    config = LLMSolverConfig(**settings)
    by_config = LLMSolver(str(lm_dir), rewards, prompts, config=config)
    assert vars(by_config) == vars(by_keywords)
    assert by_config._fingerprint() == by_keywords._fingerprint()
    # keywords given beside a config override its fields; the config itself is not changed
    other = LLMSolver(str(lm_dir), rewards, prompts, config=config, beta=0.2, rank=8)
    assert (other.beta, other.rank, config.beta, config.rank) == (0.2, 8, 0.1, 4)
    with pytest.raises(TypeError, match="unexpected keyword arguments: no_such_setting"):
        LLMSolver(str(lm_dir), rewards, prompts, config=config, no_such_setting=1)
    with pytest.raises(TypeError, match="config must be an LLMSolverConfig, got dict"):
        LLMSolver(str(lm_dir), rewards, prompts, config=settings)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="workdir must be a folder path"):
        LLMSolver(str(lm_dir), rewards, prompts, config=LLMSolverConfig(steps=1))
    # what a solver pickles is the same however it was built
    assert pickle.loads(pickle.dumps(by_config)).__dict__.keys() == vars(by_keywords).keys()


def test_bad_rewards_and_prompts_are_named(
    lm_dir: Path, tmp_path: Path, rewards: list[Any]
) -> None:
    def make(rw: Any, pr: Any) -> LLMSolver:
        return LLMSolver(str(lm_dir), rw, pr, steps=1, workdir=tmp_path)

    with pytest.raises(ValueError, match="exactly two reward functions"):
        make(rewards[:1], ["a b"] * 64)
    with pytest.raises(TypeError, match=r"rewards\[1\] must be a callable"):
        make([rewards[0], "path/to/reward-model"], ["a b"] * 64)
    with pytest.raises(TypeError, match=r"rewards\[0\] is a torch module"):
        import torch

        make([torch.nn.Linear(2, 1), rewards[1]], ["a b"] * 64)
    with pytest.raises(ValueError, match=r"prompts\[1\] is an empty prompt"):
        make(rewards, ["a b", " "])
    with pytest.raises(TypeError, match="prompts must be a list of strings"):
        make(rewards, "a b")
    with pytest.raises(ValueError, match="without a 'prompt' column"):
        from datasets import Dataset

        make(rewards, Dataset.from_dict({"text": ["a"]}))
    with pytest.raises(ValueError, match="weight must lie in"):
        make(rewards, ["a b"] * 64).solve(1.5, None)


def test_unknown_trainer_args_are_named(fast_solver: Any) -> None:
    with pytest.raises(ValueError, match="trainer_args names no_such_field"):
        fast_solver(trainer_args={"no_such_field": 1}).solve(0.5, None)


def test_a_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "trl" else real(name, *a)
    )
    with pytest.raises(ImportError, match=r"needs trl.*pip install 'paretosurf\[llm\]'"):
        require_llm("LLMSolver")


def test_importing_the_llm_package_imports_no_heavy_module() -> None:
    code = (
        "import sys, paretosurf, paretosurf.llm; print(sorted(m for m in ('torch', "
        "'transformers', 'trl', 'peft', 'datasets', 'safetensors') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
