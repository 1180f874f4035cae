"""Tiny random models and a tokenizer trained on the fly (built by
:mod:`paretosurf.llm.toy`): the LLM pipeline's tests run them on the CPU, with no model hub.

Every builder saves into a folder and returns it, so code under test loads models by path as
it would load them by name (``HF_HUB_OFFLINE=1`` keeps the hub out).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paretosurf.llm import toy

WORDS = list(toy.WORDS)
synthetic_texts = toy.toy_texts


#: A small, fast configuration of LLMSolver (well under a second per call on the tiny LM).
FAST_OPTIONS: dict[str, Any] = {
    "rank": 4,
    "lora_alpha": 8,
    "lora_dropout": 0.0,
    "learning_rate": 0.05,
    "batch_size": 8,
    "mini_batch_size": 4,
    "num_generations": 4,
    "min_new_tokens": 4,
    "max_new_tokens": 8,
    "eval_batches": 1,
    "eval_batch_size": 8,
    "device": "cpu",
}


def train_tokenizer(folder: Path, *, bart: bool = False) -> Path:
    """The toy word-level tokenizer (BART-style wrapping with ``bart``)."""
    return toy.toy_tokenizer(folder, bart=bart)


def tiny_causal_lm(folder: Path, tokenizer_folder: Path, *, seed: int = 0) -> Path:
    """A 2-layer Qwen2 causal LM with random weights (hidden size 32)."""
    return toy.toy_causal_lm(folder, tokenizer_folder, seed=seed)


def learnable_causal_lm(folder: Path, tokenizer_folder: Path, *, seed: int = 0) -> Path:
    """:func:`tiny_causal_lm` with embeddings 3x larger, so that a few RL steps visibly move
    its policy (see :func:`paretosurf.llm.toy.toy_causal_lm`)."""
    return toy.toy_causal_lm(folder, tokenizer_folder, seed=seed, embedding_scale=3.0)


def tiny_gpt2_classifier(folder: Path, tokenizer_folder: Path, *, seed: int = 1) -> Path:
    """A 1-layer GPT-2 sequence classifier with one logit (a reward model's shape)."""
    return toy.toy_reward_model(folder, tokenizer_folder, kind="gpt2", seed=seed)


def tiny_bart_classifier(folder: Path, tokenizer_folder: Path, *, seed: int = 2) -> Path:
    """A 1-layer BART sequence classifier with two logits (hallucinated, faithful), its
    tokenizer wrapping texts as BART's does."""
    return toy.toy_reward_model(folder, tokenizer_folder, kind="bart", seed=seed)


def random_adapter_model(
    lm_dir: Path, *, dora: bool, rank: int = 4, seed: int = 0, dtype: Any = None
) -> Any:
    """The tiny LM with a LoRA/DoRA adapter whose every tensor is random (a fresh adapter's
    B is zero, which would hide mistakes)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    base = AutoModelForCausalLM.from_pretrained(lm_dir, dtype=dtype)
    model = get_peft_model(
        base,
        LoraConfig(
            r=rank,
            lora_alpha=2 * rank,
            use_dora=dora,
            target_modules="all-linear",
            task_type="CAUSAL_LM",
        ),
    )
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if "lora_" in name:
                noise = torch.randn(param.shape, generator=gen)
                param.copy_(noise + (2.0 if "magnitude" in name else 0.0))
    return model


@contextlib.contextmanager
def fake_gpu_ray(num_gpus: int = 2) -> Iterator[Any]:
    """A local Ray instance declaring ``num_gpus`` GPUs (this machine has none), whose workers
    import the tests' modules by the names pytest gave them (this process's ``sys.path``),
    with one thread each and the model hub off; shut down on leaving. Yields ``ray``."""
    import pytest

    ray = pytest.importorskip("ray")
    assert not ray.is_initialized()
    env = {
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        "OMP_NUM_THREADS": "1",
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    ray.init(
        address="local",
        num_cpus=2,
        num_gpus=num_gpus,
        include_dashboard=False,
        logging_level=logging.ERROR,
        runtime_env={"env_vars": env},
    )
    try:
        yield ray
    finally:
        ray.shutdown()
