"""LLM alignment with SURF (the ``llm`` extra: ``pip install 'paretosurf[llm]'``).

:class:`LLMSolver` is an inner solver that fine-tunes a PEFT adapter (LoRA or DoRA) of a causal
language model with TRL's RLOO on ``w*r1 + (1-w)*r2 - beta*KL(policy || base)``; its states are
adapters (:class:`AdapterState`), kept on disk in the PEFT format and mixed linearly for the
Soup baseline (:func:`interpolate_adapters`). Rewards are callables with TRL's reward signature;
:class:`RewardModel` wraps a sequence classifier as one. :func:`load_prompts` reads the paper's
prompts or a local file, and :func:`run_protocol` (``paretosurf llm --config FILE``) runs the
paper's whole Table 2 protocol.

Importing this package imports neither torch nor transformers; they are imported when a
solver first trains or evaluates, and a missing one raises an ImportError naming
``pip install 'paretosurf[llm]'``.

Examples
--------
A run on a CPU with toy rewards (the count of one word against another); with the paper's
reward models, ``RewardModel.summary_quality()`` and ``RewardModel.faithfulness()``::

    import paretosurf as ps
    from paretosurf.llm import LLMSolver, WordCount, load_prompts

    prompts = load_prompts("posts.jsonl", n=256)
    solver = LLMSolver("Qwen/Qwen2.5-0.5B-Instruct", [WordCount("apple"), WordCount("berry")],
                       prompts, steps=20, num_generations=4, workdir="runs/words")
    result = ps.surf(solver, n_points=5, iterations=3, moving_average=0.2)
"""

from paretosurf.llm.adapter_state import (
    AdapterState,
    interpolate_adapters,
    load_adapter,
    save_adapter,
)
from paretosurf.llm.config import LLMConfig, load_config
from paretosurf.llm.distributed import RankError
from paretosurf.llm.model_cache import clear_model_cache
from paretosurf.llm.prompts import PAPER_TEMPLATE, load_prompts
from paretosurf.llm.protocol import Protocol, ProtocolReport, run_protocol
from paretosurf.llm.rewards import RewardFunction, RewardModel, WordCount, reward_name
from paretosurf.llm.solver import LLMSolver, require_llm
from paretosurf.llm.solver_config import LLMSolverConfig

__all__ = [
    "PAPER_TEMPLATE",
    "AdapterState",
    "LLMConfig",
    "LLMSolver",
    "LLMSolverConfig",
    "Protocol",
    "ProtocolReport",
    "RankError",
    "RewardFunction",
    "RewardModel",
    "WordCount",
    "clear_model_cache",
    "interpolate_adapters",
    "load_adapter",
    "load_config",
    "load_prompts",
    "require_llm",
    "reward_name",
    "run_protocol",
    "save_adapter",
]
