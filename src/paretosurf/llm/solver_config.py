"""The settings of :class:`~paretosurf.llm.LLMSolver` as one dataclass, as TRL's
``RLOOConfig`` sits beside its ``RLOOTrainer``.

``LLMSolver(model, rewards, prompts, config=LLMSolverConfig(steps=20, workdir="runs/a"))`` is
the same solver as ``LLMSolver(model, rewards, prompts, steps=20, workdir="runs/a")``; keywords
given beside a config override its fields. The solver checks the settings when it is built.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["LLMSolverConfig"]


@dataclass(kw_only=True)
class LLMSolverConfig:
    """Everything :class:`~paretosurf.llm.LLMSolver` takes besides the model, the rewards and
    the prompts (keyword-only; the defaults are the solver's).

    Parameters
    ----------
    beta : float
        KL coefficient (>= 0).
    steps, epochs : int or float
        The budget of one call: exactly one of ``steps`` (RL optimizer steps) and ``epochs``
        (passes over the prompts; each prompt gets ``num_generations`` completions per pass).
    adapter : {"lora", "dora"}
        LoRA, or DoRA (``LoraConfig(use_dora=True)``: LoRA plus a trained magnitude vector
        per adapted layer). With ``peft_config``, taken from it.
    rank, lora_alpha, lora_dropout, target_modules :
        The LoRA configuration (``LoraConfig(r=rank, ...)``); ``"all-linear"`` adapts every
        linear layer but the output head.
    learning_rate : float
        AdamW step size (constant; a fresh optimizer every call).
    batch_size : int
        Completions sampled per generation round (TRL's ``generation_batch_size``):
        ``batch_size / num_generations`` prompts, ``num_generations`` completions each.
    mini_batch_size : int
        Completions per optimizer step; a generation round makes
        ``batch_size / mini_batch_size * num_iterations`` steps. Divides ``batch_size``.
    num_generations : int
        Completions per prompt (>= 2, for the leave-one-out baseline); divides
        ``batch_size``.
    num_iterations : int
        Passes over each generation round (TRL's ``num_iterations``, PPO's epochs).
    min_new_tokens, max_new_tokens : int
        Completion length bounds (the end-of-sequence token is suppressed before
        ``min_new_tokens``).
    temperature : float
        Sampling temperature, in training and evaluation (log-probabilities and the KL are
        those of the tempered policy, as in TRL).
    eval_prompts : list of str or datasets.Dataset, optional
        Prompts of the evaluation (default: the training prompts).
    eval_batches, eval_batch_size : int
        The evaluation samples one completion for each of ``eval_batches * eval_batch_size``
        prompts (a fixed seeded draw, cycling through the prompts when there are fewer),
        generated ``eval_batch_size`` at a time.
    seed : int
        Seeds the cold-start adapter, each call's sampling and data order (from the seed and
        the number of calls the adapter has had, so successive calls of a slot see fresh
        samples, and the slots of one round common ones) and the evaluation (fixed: the same
        prompts and random stream for every adapter).
    workdir : str or path-like
        Required (the default None is refused when the solver is built).
        The solves' folders, ``workdir/solves/<tag>/`` (created if needed): each keeps its
        training log; its checkpoints are removed when it finishes.
    tokenizer : str, path-like or tokenizer, optional
        A tokenizer, or where to load it from (default: ``model``). A folder whose
        ``tokenizer_config.json`` declares a plain fast tokenizer is loaded as
        ``PreTrainedTokenizerFast``; anything else with ``AutoTokenizer``.
    device : str, optional
        "cpu", "cuda" (the current CUDA device), "cuda:N", "mps" or "xpu"; default CUDA when
        available, else the CPU.
    dtype : str or torch.dtype, optional
        The base model's dtype: "float32" (default), "bfloat16", "float16" or "auto" (the
        checkpoint's). Adapters train in float32.
    micro_batch_size : int, optional
        Completions per forward/backward pass (default ``mini_batch_size``); divides
        ``mini_batch_size``, the rest is gradient accumulation. Lowers memory, not results.
    trainer_args : mapping, optional
        Further ``trl.RLOOConfig`` fields, e.g. ``{"bf16": True}``,
        ``{"gradient_checkpointing": True}``, ``{"use_vllm": True}``, or
        ``{"lr_scheduler_type": "linear"}``. The solver's defaults: no mixed precision, no
        gradient checkpointing, a constant learning rate, a log entry every step, no
        checkpoints, no reporting. Fields the arguments above set are refused.
    trust_remote_code : bool
        Passed to ``from_pretrained``.
    merged_generation : bool, default True
        Sample completions (in training and evaluation) with the adapter merged into the base
        weights, one matmul per linear layer instead of two, and the base weights restored
        exactly afterwards (:func:`paretosurf.llm.generation.merged_adapter`). False samples
        as TRL does, through the unmerged adapter (with its dropout, as TRL samples in
        training mode). A quantized base always samples unmerged.
    peft_config : peft.LoraConfig or mapping, optional
        The adapter as a PEFT ``LoraConfig`` (or a mapping of its fields, as in a config
        file), in place of ``adapter``, ``rank``, ``lora_alpha``, ``lora_dropout`` and
        ``target_modules`` (which must then be left at their defaults). Its ``task_type``
        must be ``CAUSAL_LM`` or unset.
    torch_dtype : str or torch.dtype, optional
        The older transformers name of ``dtype`` (give one of the two).
    attn_implementation : str, optional
        The base model's attention (``"eager"``, ``"sdpa"``, ``"flash_attention_2"``, ...;
        default: transformers' choice), for a model loaded by name.
    quantization_config : transformers.BitsAndBytesConfig or mapping, optional
        Load the base model quantized (needs ``bitsandbytes``, in practice a CUDA GPU): QLoRA
        with ``load_in_4bit``. The adapter trains in TRL's QLoRA precision (bfloat16 LoRA
        factors).
    load_in_4bit : bool, default False
        Shorthand for the usual QLoRA quantization (NF4, double quantization, bfloat16
        compute; :data:`paretosurf.llm.model_loading.QLORA_4BIT`).
    chat_template : {"auto", True, False}, default "auto"
        Whether string prompts are wrapped as a user turn and go through the tokenizer's chat
        template (TRL's conversational format; the rewards then receive conversations, as TRL
        gives them): ``"auto"`` when the tokenizer has a template, ``True`` always (an error
        without one), ``False`` never (the prompts as they are, for a base model or prompts
        already formatted). Conversations always use the template.
    report_to : str or list of str, default "none"
        Where TRL also reports its logs (``"tensorboard"``, ``"trackio"``, ``"wandb"``, ...,
        or ``"all"``: the installed ones), as ``RLOOConfig(report_to=...)``. TensorBoard
        writes into the solve folder's ``runs/``; each solve is a run named after its folder.
        The JSON-lines log (below) is always written.
    save_steps : int or None, default 200
        Save a checkpoint (adapter, optimizer, scheduler, RNG state: TRL's own) every
        ``save_steps`` optimizer steps, rounded up to whole generation rounds
        (``batch_size / mini_batch_size * num_iterations`` steps), so that a solve killed
        midway continues from its last checkpoint when it is run again with the same inputs
        (a resumed run, a retried solve), and gives the same adapter. ``None``: no
        checkpoints. A finished solve removes them.

    Examples
    --------
    >>> from paretosurf.llm import LLMSolverConfig
    >>> config = LLMSolverConfig(steps=20, beta=0.1, workdir="runs/a")
    >>> config.beta, config.rank, config.batch_size
    (0.1, 16, 64)
    >>> LLMSolverConfig(steps=20).with_settings(beta=0.2).beta
    0.2
    """

    beta: float = 0.05
    steps: int | None = None
    epochs: float | None = None
    adapter: str = "lora"
    rank: int = 16
    lora_alpha: float = 32
    lora_dropout: float = 0.05
    target_modules: str | Sequence[str] = "all-linear"
    learning_rate: float = 5e-5
    batch_size: int = 64
    mini_batch_size: int = 16
    num_generations: int = 4
    num_iterations: int = 1
    min_new_tokens: int = 16
    max_new_tokens: int = 32
    temperature: float = 1.0
    eval_prompts: Any = None
    eval_batches: int = 10
    eval_batch_size: int = 64
    seed: int = 0
    workdir: str | os.PathLike[str] | None = None
    tokenizer: Any = None
    device: str | None = None
    dtype: Any = None
    micro_batch_size: int | None = None
    trainer_args: Mapping[str, Any] | None = None
    trust_remote_code: bool = False
    merged_generation: bool = True
    peft_config: Any = None
    torch_dtype: Any = None
    attn_implementation: str | None = None
    quantization_config: Any = None
    load_in_4bit: bool = False
    chat_template: bool | str = "auto"
    report_to: str | Sequence[str] = "none"
    save_steps: int | None = 200

    def with_settings(self, **settings: Any) -> LLMSolverConfig:
        """A copy with ``settings`` (field names) replaced; an unknown name is refused."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(settings) - names)
        if unknown:
            raise TypeError(
                f"LLMSolver got unexpected keyword arguments: {', '.join(unknown)} "
                "(its settings are the fields of LLMSolverConfig)"
            )
        return dataclasses.replace(self, **settings) if settings else self


def solver_config(config: object, settings: Mapping[str, Any]) -> LLMSolverConfig:
    """The settings of one solver: ``config`` (default: all defaults) with the keywords given
    beside it."""
    if config is None:
        config = LLMSolverConfig()
    elif not isinstance(config, LLMSolverConfig):
        raise TypeError(f"config must be an LLMSolverConfig, got {type(config).__name__}")
    return config.with_settings(**settings)
