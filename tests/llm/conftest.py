"""Fixtures of the LLM tests: tiny random models and a tokenizer, built once per session.

Everything runs on the CPU with one thread and without the model hub (``HF_HUB_OFFLINE=1``):
models are loaded from the folders these fixtures write, as they would be by name. Without the
``llm`` extra the tests of this folder are not collected.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # before huggingface_hub reads it
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

_NEEDED = ("torch", "transformers", "peft", "trl", "datasets", "accelerate", "safetensors")
if any(importlib.util.find_spec(m) is None for m in _NEEDED):
    collect_ignore_glob = ["test_*.py", "tiny.py", "__init__.py"]


@pytest.fixture(scope="session", autouse=True)
def _one_thread() -> None:
    """One torch thread: on two cores, two threads were 10-50x slower here."""
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(1)


@pytest.fixture(scope="session")
def llm_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("llm")


@pytest.fixture(scope="session")
def tokenizer_dir(llm_root: Path) -> Path:
    """A word-level tokenizer over :data:`tiny.WORDS`."""
    from . import tiny

    return tiny.train_tokenizer(llm_root / "tokenizer")


@pytest.fixture(scope="session")
def lm_dir(llm_root: Path, tokenizer_dir: Path) -> Path:
    """The tiny random Qwen2 causal LM (with its tokenizer), as a model folder."""
    from . import tiny

    return tiny.tiny_causal_lm(llm_root / "lm", tokenizer_dir)


@pytest.fixture(scope="session")
def learnable_lm_dir(llm_root: Path, tokenizer_dir: Path) -> Path:
    """The tiny LM with wider logits, whose policy a few RL steps move (see
    :func:`tiny.learnable_causal_lm`)."""
    from . import tiny

    return tiny.learnable_causal_lm(llm_root / "learnable-lm", tokenizer_dir)


@pytest.fixture(scope="session")
def tokenizer(lm_dir: Path) -> Any:
    """The tiny tokenizer, loaded as ``PreTrainedTokenizerFast`` (``AutoTokenizer`` would
    take the Qwen2 tokenizer class from the model's config)."""
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast.from_pretrained(lm_dir)


@pytest.fixture(scope="session")
def prompts() -> list[str]:
    """32 synthetic prompts of six words."""
    from . import tiny

    return [" ".join(text.split()[:6]) for text in tiny.synthetic_texts(32, seed=1)]


@pytest.fixture(scope="session")
def rewards() -> list[Any]:
    """r1 counts "apple" in a completion, r2 counts "berry": both learnable, and competing
    (a completion has a fixed number of tokens)."""
    from paretosurf.llm.rewards import WordCount

    return [WordCount("apple"), WordCount("berry")]


@pytest.fixture(scope="session")
def fast_options() -> dict[str, Any]:
    """A small, fast configuration of the solver (:data:`tiny.FAST_OPTIONS`)."""
    from .tiny import FAST_OPTIONS

    return dict(FAST_OPTIONS)


@pytest.fixture
def fast_solver(
    lm_dir: Path,
    tokenizer: Any,
    prompts: list[str],
    rewards: list[Any],
    fast_options: dict[str, Any],
    tmp_path: Path,
) -> Any:
    """A factory of small solvers on the tiny LM: ``fast_solver(steps=3, adapter="dora")``."""
    from paretosurf.llm import LLMSolver

    def make(**options: Any) -> LLMSolver:
        model = options.pop("model", str(lm_dir))
        settings = {
            "steps": 2,
            "tokenizer": tokenizer,
            "workdir": tmp_path / "work",
            **fast_options,
            **options,
        }
        return LLMSolver(model, rewards, prompts, **settings)

    return make


@pytest.fixture
def driver_loads_nothing(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """In this process, loading a base model or building any transformers model raises (and
    is recorded); in a process forked from it both work (:func:`guard_driver`)."""
    return guard_driver(monkeypatch)


def guard_driver(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """From now on (until ``monkeypatch`` is undone), loading a base model or building any
    transformers model in this process raises and is recorded in the list returned; in a
    process forked from it both work. This process's cache of loaded models is emptied
    first, so that forked workers load their own."""
    from transformers import PreTrainedModel

    from paretosurf.llm import clear_model_cache, model_loading

    clear_model_cache()
    driver = os.getpid()
    seen: list[str] = []
    load, init = model_loading.load_base_model, PreTrainedModel.__init__

    def guarded_load(*args: Any, **kwargs: Any) -> Any:
        if os.getpid() == driver:
            seen.append(f"load_base_model{args}")
            raise AssertionError("the driver process loaded a model")
        return load(*args, **kwargs)

    def guarded_init(self: Any, *args: Any, **kwargs: Any) -> None:
        if os.getpid() == driver:
            seen.append(type(self).__name__)
            raise AssertionError(f"the driver process built a {type(self).__name__}")
        init(self, *args, **kwargs)

    monkeypatch.setattr(model_loading, "load_base_model", guarded_load)
    monkeypatch.setattr(PreTrainedModel, "__init__", guarded_init)
    return seen
