"""LLMSolverConfig checks itself (``resolved()``, without a solver, with the errors the solver
has always raised), a solver keeps the resolved settings, and the evaluation stands below the
solver: it takes the settings and plain functions, never the solver."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from paretosurf.llm import LLMSolver, LLMSolverConfig, evaluation

#: Each bad setting (beside ``steps=2`` and a workdir; the other settings at their defaults:
#: batch_size 64, mini_batch_size 16, num_generations 4, max_new_tokens 32), the error and its
#: whole message, as LLMSolver raised them before the config checked itself.
BAD_SETTINGS: list[tuple[dict[str, Any], type[Exception], str]] = [
    (
        {"steps": None},
        ValueError,
        "give exactly one of steps (RL optimizer steps per call) and epochs (passes over the "
        "prompts per call); got steps=None, epochs=None",
    ),
    ({"steps": 0}, ValueError, "steps must be an integer >= 1, got 0"),
    ({"steps": 1.5}, TypeError, "steps must be an integer >= 1, got 1.5"),
    ({"beta": -0.1}, ValueError, "beta must lie in [0.0, inf), got -0.1"),
    ({"beta": "x"}, TypeError, "beta must be a real number, got 'x'"),
    ({"adapter": "ia3"}, ValueError, "adapter must be 'lora' or 'dora', got 'ia3'"),
    ({"lora_alpha": 0}, ValueError, "lora_alpha must be a finite number > 0, got 0.0"),
    ({"lora_dropout": 1.0}, ValueError, "lora_dropout must lie in [0.0, 1.0), got 1.0"),
    (
        {"target_modules": []},
        TypeError,
        "target_modules must be 'all-linear' or a non-empty list of module names, got []",
    ),
    ({"target_modules": ""}, ValueError, "target_modules must not be empty"),
    ({"batch_size": 6}, ValueError, "batch_size (6) must be a multiple of num_generations (4)"),
    (
        {"mini_batch_size": 24},
        ValueError,
        "batch_size (64) must be a multiple of mini_batch_size (24)",
    ),
    (
        {"num_generations": 1},
        ValueError,
        "num_generations must be >= 2 (RLOO's baseline is the mean of the other completions "
        "of a prompt), got 1",
    ),
    (
        {"micro_batch_size": 3},
        ValueError,
        "mini_batch_size (16) must be a multiple of micro_batch_size (3)",
    ),
    ({"min_new_tokens": 33}, ValueError, "min_new_tokens (33) must not exceed max_new_tokens (32)"),
    ({"temperature": 0}, ValueError, "temperature must be a finite number > 0, got 0.0"),
    ({"eval_prompts": []}, ValueError, "eval_prompts holds no prompts"),
    ({"seed": -1}, ValueError, "seed must be an integer >= 0, got -1"),
    ({"workdir": None}, TypeError, "workdir must be a folder path, got None"),
    ({"tokenizer": 3}, TypeError, "tokenizer must be a tokenizer, a folder or a hub name, got int"),
    (
        {"device": "gpu"},
        ValueError,
        "device must be 'cpu', 'cuda', 'cuda:N', 'mps' or 'xpu' (or None: CUDA when "
        "available), got 'gpu'",
    ),
    (
        {"dtype": "int8"},
        ValueError,
        "dtype must be one of float32, bfloat16, float16, auto (or a torch dtype), got 'int8'",
    ),
    (
        {"dtype": "float32", "torch_dtype": "float32"},
        ValueError,
        "give dtype or torch_dtype (its older name), not both",
    ),
    ({"load_in_4bit": "yes"}, TypeError, "load_in_4bit must be a bool, got 'yes'"),
    (
        {"peft_config": {"r": 2}, "rank": 8},
        ValueError,
        "peft_config replaces the adapter keywords; leave rank at their defaults",
    ),
    (
        {"peft_config": {"r": 2, "task_type": "SEQ_CLS"}},
        ValueError,
        "peft_config.task_type must be 'CAUSAL_LM' (or None), got 'SEQ_CLS'",
    ),
    (
        {"chat_template": "yes"},
        ValueError,
        "chat_template must be True, False or 'auto', got 'yes'",
    ),
    ({"save_steps": 0}, ValueError, "save_steps must be an integer >= 1, got 0"),
    (
        {"trainer_args": {"beta": 0.1}},
        ValueError,
        "trainer_args sets beta, which LLMSolver sets from its own arguments (batch_size, "
        "mini_batch_size, steps, ...)",
    ),
    (
        {"trainer_args": {"generation_kwargs": {"max_new_tokens": 3}}},
        ValueError,
        "trainer_args['generation_kwargs'] must be a mapping without min_new_tokens and "
        "max_new_tokens (the solver's arguments)",
    ),
    ({"merged_generation": None}, TypeError, "merged_generation must be a bool, got None"),
]
if importlib.util.find_spec("vllm") is None:
    BAD_SETTINGS.append(
        (
            {"trainer_args": {"use_vllm": True}},
            ImportError,
            "trainer_args={'use_vllm': True} samples completions with vLLM, which is not "
            "installed: pip install vllm (it needs a CUDA GPU). TRL then runs vLLM inside each "
            "slot's training process (vllm_mode='colocate', its default) and loads the "
            "adapter's merged weights into it after every optimizer step. Without use_vllm "
            "the solver samples with transformers' generate, the adapter merged into the base "
            "weights (merged_generation=True)",
        )
    )

#: What a solver has always kept as attributes (and pickles, and a protocol run fingerprints).
SOLVER_ATTRIBUTES = {
    "model",
    "rewards",
    "prompts",
    "beta",
    "steps",
    "epochs",
    "adapter",
    "rank",
    "lora_alpha",
    "lora_dropout",
    "target_modules",
    "learning_rate",
    "batch_size",
    "mini_batch_size",
    "num_generations",
    "num_iterations",
    "micro_batch_size",
    "max_new_tokens",
    "min_new_tokens",
    "temperature",
    "eval_prompts",
    "eval_batches",
    "eval_batch_size",
    "seed",
    "workdir",
    "tokenizer",
    "device",
    "dtype",
    "attn_implementation",
    "quantization",
    "peft_config",
    "chat_template",
    "report_to",
    "save_steps",
    "trainer_args",
    "trust_remote_code",
    "merged_generation",
    "processes_per_slot",
}


@pytest.mark.parametrize(("options", "error", "message"), BAD_SETTINGS)
def test_a_config_names_its_bad_setting_as_the_solver_did(
    options: dict[str, Any],
    error: type[Exception],
    message: str,
    lm_dir: Path,
    rewards: list[Any],
    prompts: list[str],
) -> None:
    config = LLMSolverConfig(**{"steps": 2, "workdir": "runs/a", **options})
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        config.resolved()  # no model, no prompts, no solver
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        LLMSolver(str(lm_dir), rewards, prompts, config=config)


def test_a_solver_keeps_the_resolved_config(
    lm_dir: Path, tokenizer: Any, rewards: list[Any], prompts: list[str], tmp_path: Path
) -> None:
    from datasets import Dataset
    from peft import LoraConfig

    small = {"steps": 2, "batch_size": 8, "mini_batch_size": 4, "workdir": tmp_path / "w"}
    for options in (
        {"tokenizer": tokenizer, "lora_alpha": 8.0, "target_modules": ("q_proj", "v_proj")},
        {"epochs": 1.5, "steps": None, "micro_batch_size": 2, "report_to": ("all",)},
        {"torch_dtype": "bfloat16", "tokenizer": lm_dir, "eval_prompts": ["x y"] * 3},
        {"eval_prompts": Dataset.from_dict({"prompt": ["x y", "z"], "post": ["p", "q"]})},
        {"peft_config": LoraConfig(r=3, lora_alpha=6, target_modules=["v_proj", "q_proj"])},
    ):
        config = LLMSolverConfig(**{**small, **options})
        resolved = config.resolved()
        solver = LLMSolver(str(lm_dir), rewards, prompts, config=config)
        assert set(vars(solver)) == SOLVER_ATTRIBUTES
        kept = SOLVER_ATTRIBUTES - {"model", "rewards", "prompts", "quantization"}
        for name in kept:
            assert vars(solver)[name] == getattr(resolved, name), name
            assert type(vars(solver)[name]) is type(getattr(resolved, name)), name
        assert solver.quantization == resolved.quantization_config is None
        assert solver._config() == resolved  # what the evaluation is given
        assert config == LLMSolverConfig(**{**small, **options})  # left as written
    # the forms resolving gives
    assert (resolved.adapter, resolved.rank, resolved.lora_alpha) == ("lora", 3, 6)
    assert resolved.target_modules == ["q_proj", "v_proj"]
    dtype = LLMSolverConfig(steps=1, workdir=tmp_path, torch_dtype="torch.float16").resolved()
    assert (dtype.dtype, dtype.torch_dtype, dtype.workdir) == ("float16", None, str(tmp_path))


def test_resolving_a_config_needs_no_heavy_module() -> None:
    code = (
        "import sys\n"
        "from paretosurf.llm import LLMSolverConfig\n"
        "LLMSolverConfig(steps=2, workdir='w', micro_batch_size=4).resolved()\n"
        "try:\n"
        "    LLMSolverConfig(steps=2, workdir='w', batch_size=6).resolved()\n"
        "except ValueError as exc:\n"
        "    print(exc)\n"
        "print(sorted(m for m in ('torch', 'transformers', 'trl', 'peft', 'datasets') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [
        "batch_size (6) must be a multiple of num_generations (4)",
        "[]",
    ]


# ---------------------------------------------------------------------------- layering
def _imports(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports, anywhere: module level, inside functions, and in
    ``if TYPE_CHECKING`` blocks (``from a import b`` gives ``a`` and ``a.b``)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            out |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return out


def test_the_evaluation_does_not_import_the_solver() -> None:
    path = Path(evaluation.__file__)
    imported = _imports(path, "paretosurf.llm")
    assert "paretosurf.llm.solver" not in imported
    assert "paretosurf.llm.LLMSolver" not in imported
    assert "paretosurf.llm.model_loading" in imported  # the walk does see its imports
    # nor does it reach into anything's private attributes (the solver's methods, say)
    private = sorted(
        {
            node.attr
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        }
    )
    assert private == []


def test_the_import_walk_sees_every_kind_of_import(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from paretosurf.llm.solver import LLMSolver\n"
        "def f():\n"
        "    from . import solver\n"
        "    import paretosurf.llm.toy\n"
    )
    imported = _imports(source, "paretosurf.llm")
    assert {"paretosurf.llm.solver", "paretosurf.llm.toy"} <= imported
    assert "paretosurf.llm.solver.LLMSolver" in imported
