"""The LLM inner solver: RLOO fine-tuning of a PEFT adapter on ``w*r1 + (1-w)*r2 - beta*KL``.

:class:`LLMSolver` solves the scalarized alignment problem of the paper's LLM experiment for
one weight: it fine-tunes a LoRA (or DoRA) adapter of a frozen causal language model with
TRL's ``RLOOTrainer`` for a fixed budget, warm-started from the slot's previous adapter, and
estimates the two KL-regularized objectives of the result on evaluation prompts. The state is
the adapter (:class:`~paretosurf.llm.AdapterState`), saved as a PEFT adapter folder, so a run
keeps its warm starts as folders and no model-sized object is pickled.

torch, transformers, peft, trl and datasets (the ``llm`` extra) are imported when a solver
first trains or evaluates, not when this module is imported.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import importlib.util
import json
import math
import numbers
import os
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf._validation import check_non_negative_int, check_positive, check_positive_int
from paretosurf.llm import model_loading
from paretosurf.llm.adapter_state import (
    AdapterState,
    adapter_digest,
    adapter_from_model,
    interpolate_adapters,
    load_adapter,
    load_adapter_into,
    save_adapter,
)
from paretosurf.llm.generation import merged_adapter
from paretosurf.llm.rewards import reward_name
from paretosurf.llm.training_log import SolveFolder, digest, log_callback
from paretosurf.solvers import Solution

__all__ = ["LLMSolver", "clear_model_cache", "require_llm"]

FloatArray = np.ndarray

#: Modules of the ``llm`` extra the solver needs.
LLM_MODULES = ("torch", "transformers", "peft", "trl", "datasets", "accelerate", "safetensors")

#: RLOOConfig fields the solver sets from its own arguments (``trainer_args`` may not).
_RESERVED = frozenset({
    "output_dir", "reward_weights", "beta", "num_generations", "per_device_train_batch_size",
    "gradient_accumulation_steps", "generation_batch_size", "steps_per_generation",
    "num_iterations", "max_completion_length", "learning_rate", "max_steps", "num_train_epochs",
    "temperature", "seed", "use_cpu", "model_init_kwargs", "report_to", "save_steps",
    "save_strategy", "save_total_limit", "resume_from_checkpoint", "run_name"})
#: RLOOConfig defaults of the solver, which ``trainer_args`` may change.
_DEFAULTS: dict[str, Any] = {
    "bf16": False, "fp16": False, "gradient_checkpointing": False,
    "lr_scheduler_type": "constant", "logging_steps": 1, "logging_strategy": "steps",
    "disable_tqdm": True}
_DTYPES = ("float32", "bfloat16", "float16", "auto")
_EVAL_STREAM = 0x5EED  # the evaluation's random stream (distinct from every call's)


def require_llm(what: str = "paretosurf.llm") -> None:
    """Raise an ImportError naming ``pip install 'paretosurf[llm]'`` if a module of the
    ``llm`` extra is missing (checked without importing them)."""
    missing = [m for m in LLM_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise ImportError(f"{what} needs {', '.join(missing)}, which "
                          f"{'is' if len(missing) == 1 else 'are'} not installed: "
                          "pip install 'paretosurf[llm]'")


# ---------------------------------------------------------------------------- the base model
@dataclass
class _Base:
    """A base model loaded in this process, with what lending it must leave unchanged."""

    model: Any
    keys: tuple[str, ...]
    hooks: int


#: Base models loaded in this process, by (model, dtype, device, trust_remote_code,
#: attn_implementation, quantization): every solver of the process reuses them (each call
#: borrows one and hands it back unchanged).
_BASES: dict[tuple[Any, ...], _Base] = {}
_TOKENIZERS: dict[tuple[str, bool], Any] = {}


def clear_model_cache() -> None:
    """Forget the base models and tokenizers this process has loaded (the next solve loads
    them again)."""
    _BASES.clear()
    _TOKENIZERS.clear()
    gc.collect()


def _count_hooks(model: Any) -> int:
    return sum(len(m._forward_hooks) + len(m._forward_pre_hooks) + len(m._backward_hooks)
               for m in model.modules())


def _strip(base: _Base, peft_model: Any) -> bool:
    """Undo what wrapping ``base.model`` in PEFT and training it with TRL changed: remove the
    adapter layers, TRL's fused-LM-head forward, input-gradient hooks and gradient
    checkpointing. Returns whether the model is as it was lent (else it is not reused)."""
    from peft.tuners.tuners_utils import BaseTunerLayer

    model = base.model
    if peft_model is not None:
        model = peft_model.unload()
    if model is not base.model:
        return False
    model.__dict__.pop("forward", None)  # TRL's add_fused_lm_head patches the instance
    for module in model.modules():
        for hooks in (module._forward_hooks, module._forward_pre_hooks):
            for key, fn in list(hooks.items()):
                if getattr(fn, "__name__", "") == "make_inputs_require_grads":
                    del hooks[key]
    if hasattr(model, "_require_grads_hooks"):
        model._require_grads_hooks = []
    model.__dict__.pop("_require_grads_hook", None)
    if hasattr(model, "is_activation_checkpointing"):  # transformers >= 5.x
        if model.is_activation_checkpointing:
            model.activation_checkpointing_disable()
    elif getattr(model, "is_gradient_checkpointing", False):
        model.gradient_checkpointing_disable()
    model.eval()
    for param in model.parameters():
        param.requires_grad_(False)
        param.grad = None
    return (not any(isinstance(m, BaseTunerLayer) for m in model.modules())
            and tuple(model.state_dict()) == base.keys and _count_hooks(model) == base.hooks)


def _adopt(model: Any) -> _Base:
    """A caller's model object as a base model to lend: frozen, in eval mode."""
    model_loading.freeze(model)
    return _Base(model, tuple(model.state_dict()), _count_hooks(model))


@dataclass
class _Session:
    """The base model and tokenizer lent to one call; ``peft`` is the PEFT model built on it."""

    base: _Base
    tokenizer: Any
    device: str
    peft: Any = None
    notes: dict[str, float] = field(default_factory=dict)


# ---------------------------------------------------------------------------- checks
def _check_real(value: object, *, name: str, low: float, high: float | None = None,
                low_open: bool = False, high_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    out = float(value)
    ok = math.isfinite(out) and (out > low if low_open else out >= low)
    if high is not None:
        ok = ok and (out < high if high_open else out <= high)
    if not ok:
        lo = "(" if low_open else "["
        hi = "inf)" if high is None else (f"{high})" if high_open else f"{high}]")
        raise ValueError(f"{name} must lie in {lo}{low}, {hi}, got {out}")
    return out


def _is_conversation(prompt: object) -> bool:
    return (isinstance(prompt, Sequence) and not isinstance(prompt, str) and len(prompt) > 0
            and all(isinstance(m, Mapping) and "role" in m and "content" in m for m in prompt))


def _check_prompts(prompts: object, *, name: str) -> Any:
    """Prompts as a list of strings (or conversations), or a ``datasets.Dataset`` with a
    "prompt" column; returns a list: of the strings, or of the dataset's rows as plain dicts
    (a live Arrow dataset does not unpickle in a worker process)."""
    if hasattr(prompts, "column_names") and hasattr(prompts, "select"):
        from paretosurf.llm.prompts import prompt_records

        data: Any = prompts
        columns = list(data.column_names)
        if "prompt" not in columns:
            raise ValueError(f"{name} is a dataset without a 'prompt' column (columns: "
                             f"{columns})")
        if len(data) == 0:
            raise ValueError(f"{name} holds no prompts")
        return prompt_records(data)
    if isinstance(prompts, (str, bytes)) or not isinstance(prompts, Sequence):
        raise TypeError(f"{name} must be a list of strings or a datasets.Dataset with a "
                        f"'prompt' column, got {type(prompts).__name__}")
    out = list(prompts)
    if not out:
        raise ValueError(f"{name} holds no prompts")
    for i, p in enumerate(out):
        if isinstance(p, str):
            if not p.strip():
                raise ValueError(f"{name}[{i}] is an empty prompt")
        elif not _is_conversation(p):
            raise TypeError(f"{name}[{i}] must be a string (or a conversation: a list of "
                            f"{{'role', 'content'}} messages), got {type(p).__name__}")
    return out


def _check_rewards(rewards: object) -> tuple[Callable[..., Any], Callable[..., Any]]:
    if isinstance(rewards, (str, bytes)) or not isinstance(rewards, Sequence):
        raise TypeError("rewards must be a sequence of two reward functions "
                        "f(prompts, completions, **kwargs) -> list[float], got "
                        f"{type(rewards).__name__}")
    funcs = list(rewards)
    if len(funcs) != 2:
        raise ValueError(f"rewards must hold exactly two reward functions (r1, r2), got "
                         f"{len(funcs)}")
    for i, f in enumerate(funcs):
        if isinstance(f, (str, os.PathLike)) or not callable(f):
            raise TypeError(
                f"rewards[{i}] must be a callable f(prompts, completions, **kwargs) -> "
                f"list[float], got {type(f).__name__}; wrap a reward model in a function or "
                "a reward-model object")
        if any(c.__module__.startswith("torch.nn") and c.__name__ == "Module"
               for c in type(f).__mro__):
            raise TypeError(
                f"rewards[{i}] is a torch module ({type(f).__name__}); pass a callable with "
                "TRL's reward signature f(prompts, completions, **kwargs) -> list[float] that "
                "scores texts with it")
    return funcs[0], funcs[1]


def _check_device(device: object) -> str | None:
    if device is None:
        return None
    text = str(device)
    kind, _, index = text.partition(":")
    if kind not in ("cpu", "cuda", "mps", "xpu") or (index and not index.isdigit()):
        raise ValueError(f"device must be 'cpu', 'cuda', 'cuda:N', 'mps' or 'xpu' (or None: "
                         f"CUDA when available), got {device!r}")
    return text


def _check_dtype(dtype: object) -> str:
    if dtype is None:
        return "float32"
    text = str(dtype).removeprefix("torch.")
    if text not in _DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(_DTYPES)} (or a torch dtype), "
                         f"got {dtype!r}")
    return text


# ---------------------------------------------------------------------------- the solver
class LLMSolver:
    """Fine-tune a PEFT adapter of a causal LM with RLOO on ``w*r1 + (1-w)*r2 - beta*KL``.

    Each :meth:`solve` call builds a fresh TRL ``RLOOTrainer`` on the frozen base model,
    loads the slot's warm-start adapter (a seeded fresh adapter on a cold start), trains it
    for the call's budget (``steps`` optimizer steps or ``epochs`` passes over the prompts),
    and estimates the objectives of the trained policy on the evaluation prompts. The KL is
    always measured against the base model: the trainer gets the base model and a LoRA
    config, and computes the reference log-probabilities with the adapter disabled (it never
    sees a ``PeftModel``, for which it would copy the warm start into a frozen reference
    adapter and regularize towards the warm start instead).

    RLOO, not the paper's PPO. Current TRL no longer ships PPO. RLOO differs from it in that

    - there is no value head (critic): the advantage of a completion is its reward minus the
      mean reward of the other ``num_generations - 1`` completions of the same prompt (the
      leave-one-out baseline);
    - the KL penalty is part of the reward: ``beta`` times the completion's summed per-token
      log-ratio ``log pi(y_t) - log pi_base(y_t)`` is subtracted from its weighted reward,
      rather than added per token to the loss;
    - the loss is sequence-level; its PPO-clip ratio (``epsilon = 0.2``) matters when
      ``num_iterations > 1`` (several passes over one generation batch) and for the later
      mini-batches of a generation batch, which are slightly off-policy; with a single
      mini-batch and ``num_iterations = 1`` it is plain REINFORCE with a baseline.

    Parameters
    ----------
    model : str, path-like or transformers.PreTrainedModel
        A local model folder, or a Hugging Face hub name when online (``HF_HUB_OFFLINE=1``
        keeps the hub out): loaded once per process, lazily, and never pickled. Or a causal
        LM the caller has loaded (any dtype, device or quantization), used as it is: its
        parameters are frozen and each call lends it to the trainer and hands it back
        unchanged. A solver holding a model object does not pickle, so it cannot run in
        worker processes (ProcessExecutor, Ray): save the model with
        ``model.save_pretrained(folder)`` (and its tokenizer) and pass the folder instead.
    rewards : sequence of two callables
        ``r1`` and ``r2`` with TRL's reward signature ``f(prompts, completions, **kwargs) ->
        list[float]`` (higher is better; ``None`` entries mean "not applicable"). They receive
        the dataset's other columns as keyword lists, ``completion_ids``, and TRL's
        ``trainer_state``, ``log_extra`` and ``log_metric`` (``None`` and no-ops when the solver
        evaluates). They must pickle to run in worker processes.
    prompts : list of str or datasets.Dataset
        Training prompts: strings (or chat conversations), or a dataset with a "prompt"
        column whose other columns reach the reward functions. At least
        ``batch_size / num_generations`` prompts.
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

    Notes
    -----
    The objectives, minimized, are ``h_m = -(mean r_m - beta * KL)`` for m = 1, 2, where the
    means are over the evaluation completions sampled from the trained policy and ``KL`` is
    the mean over them of the summed per-token log-ratio between policy and base model (an
    unbiased estimate of the sequence-level KL divergence), so ``w*h1 + (1-w)*h2`` is minus
    the scalarized objective the call trained on. ``Solution.info`` holds

    - ``"steps"``: the RL optimizer steps of the call;
    - ``"stderr"``: the standard errors of the two objectives;
    - ``"objectives_no_kl"``, ``"stderr_no_kl"``: ``-mean r_m`` and their standard errors;
    - ``"rewards"``: ``mean r_m`` (higher is better); ``"kl"``, ``"kl_stderr"``: the mean
      sequence KL and its standard error; ``"n_eval"``: the completions evaluated;
    - ``"batch_objectives"``, ``"batch_objectives_no_kl"``: the objectives per evaluation
      batch (``eval_batches`` lists of two; the paper's mean +- std are over these);
    - ``"train_log"``: one dict per optimizer step, the metrics the trainer logged: ``loss``,
      ``reward`` (the weighted reward without the KL term), ``rewards/r1/mean``,
      ``rewards/r2/mean``, ``kl`` (TRL's mean *per-token* log-ratio), ``entropy``,
      completion lengths... (the reward and KL metrics on the steps that generated);
    - ``"seconds"``: wall time of the call's parts;
    - ``"solve_dir"``: the solve's folder in ``workdir`` (``solves/<tag>``), which keeps its
      ``train_log.jsonl`` (every TRL log entry, one JSON line each; see
      :mod:`paretosurf.llm.training_log` and its ``plot_training_curves``) and, while it
      runs, its checkpoints; ``"resumed_from"``: the checkpoint step it continued from, if
      any.

    :meth:`evaluate` and :meth:`assess` estimate the same for any adapter without training
    (the Soup baseline's mixtures), :meth:`interpolate` mixes two adapters, and
    :meth:`save_state` / :meth:`load_state` keep adapters as PEFT folders.

    Every process loads the base model once and lends it to each call (the adapter layers
    and TRL's patches are removed afterwards and the model checked unchanged, else reloaded);
    each call builds and drops its own trainer, so nothing accumulates across calls.

    Examples
    --------
    >>> from paretosurf.llm import LLMSolver
    >>> def apples(prompts, completions, **kwargs):
    ...     return [c.split().count("apple") for c in completions]
    >>> def berries(prompts, completions, **kwargs):
    ...     return [c.split().count("berry") for c in completions]
    >>> solver = LLMSolver("path/to/model", [apples, berries], ["tell me about fruit"] * 64,
    ...                    steps=20, workdir="scratch")  # doctest: +SKIP
    >>> sol = solver.solve(0.5, None)                   # doctest: +SKIP
    >>> sol.objectives, sol.info["kl"], sol.state       # doctest: +SKIP
    """

    def __init__(
        self,
        model: Any,
        rewards: Sequence[Callable[..., Any]],
        prompts: Any,
        *,
        beta: float = 0.05,
        steps: int | None = None,
        epochs: float | None = None,
        adapter: str = "lora",
        rank: int = 16,
        lora_alpha: float = 32,
        lora_dropout: float = 0.05,
        target_modules: str | Sequence[str] = "all-linear",
        learning_rate: float = 5e-5,
        batch_size: int = 64,
        mini_batch_size: int = 16,
        num_generations: int = 4,
        num_iterations: int = 1,
        min_new_tokens: int = 16,
        max_new_tokens: int = 32,
        temperature: float = 1.0,
        eval_prompts: Any = None,
        eval_batches: int = 10,
        eval_batch_size: int = 64,
        seed: int = 0,
        workdir: str | os.PathLike[str],
        tokenizer: Any = None,
        device: str | None = None,
        dtype: Any = None,
        micro_batch_size: int | None = None,
        trainer_args: Mapping[str, Any] | None = None,
        trust_remote_code: bool = False,
        merged_generation: bool = True,
        peft_config: Any = None,
        torch_dtype: Any = None,
        attn_implementation: str | None = None,
        quantization_config: Any = None,
        load_in_4bit: bool = False,
        chat_template: bool | str = "auto",
        report_to: str | Sequence[str] = "none",
        save_steps: int | None = 200,
    ) -> None:
        require_llm("LLMSolver")
        self.model = model_loading.check_model(model)
        self.rewards = _check_rewards(rewards)
        self.prompts = _check_prompts(prompts, name="prompts")
        self.beta = _check_real(beta, name="beta", low=0.0)
        if (steps is None) == (epochs is None):
            raise ValueError("give exactly one of steps (RL optimizer steps per call) and "
                             f"epochs (passes over the prompts per call); got steps={steps!r}, "
                             f"epochs={epochs!r}")
        self.steps = None if steps is None else check_positive_int(steps, name="steps")
        self.epochs = None if epochs is None else check_positive(epochs, name="epochs")
        if adapter not in ("lora", "dora"):
            raise ValueError(f"adapter must be 'lora' or 'dora', got {adapter!r}")
        self.adapter = adapter
        self.rank = check_positive_int(rank, name="rank")
        alpha = check_positive(lora_alpha, name="lora_alpha")
        self.lora_alpha: float | int = int(alpha) if alpha.is_integer() else alpha
        self.lora_dropout = _check_real(lora_dropout, name="lora_dropout", low=0.0, high=1.0,
                                        high_open=True)
        if isinstance(target_modules, str):
            if not target_modules:
                raise ValueError("target_modules must not be empty")
            self.target_modules: str | list[str] = target_modules
        elif isinstance(target_modules, Sequence) and target_modules and all(
                isinstance(t, str) and t for t in target_modules):
            self.target_modules = list(target_modules)
        else:
            raise TypeError("target_modules must be 'all-linear' or a non-empty list of module "
                            f"names, got {target_modules!r}")
        self.learning_rate = check_positive(learning_rate, name="learning_rate")
        self.batch_size = check_positive_int(batch_size, name="batch_size")
        self.mini_batch_size = check_positive_int(mini_batch_size, name="mini_batch_size")
        self.num_generations = check_positive_int(num_generations, name="num_generations")
        self.num_iterations = check_positive_int(num_iterations, name="num_iterations")
        if self.num_generations < 2:
            raise ValueError("num_generations must be >= 2 (RLOO's baseline is the mean of the "
                             f"other completions of a prompt), got {self.num_generations}")
        if self.batch_size % self.num_generations:
            raise ValueError(f"batch_size ({self.batch_size}) must be a multiple of "
                             f"num_generations ({self.num_generations})")
        if self.batch_size % self.mini_batch_size:
            raise ValueError(f"batch_size ({self.batch_size}) must be a multiple of "
                             f"mini_batch_size ({self.mini_batch_size})")
        self.micro_batch_size = (self.mini_batch_size if micro_batch_size is None else
                                 check_positive_int(micro_batch_size, name="micro_batch_size"))
        if self.mini_batch_size % self.micro_batch_size:
            raise ValueError(f"mini_batch_size ({self.mini_batch_size}) must be a multiple of "
                             f"micro_batch_size ({self.micro_batch_size})")
        per_round = self.batch_size // self.num_generations
        if len(self.prompts) < per_round:
            raise ValueError(
                f"prompts holds {len(self.prompts)} prompts, fewer than one generation round "
                f"takes (batch_size / num_generations = {per_round})")
        self.max_new_tokens = check_positive_int(max_new_tokens, name="max_new_tokens")
        self.min_new_tokens = check_non_negative_int(min_new_tokens, name="min_new_tokens")
        if self.min_new_tokens > self.max_new_tokens:
            raise ValueError(f"min_new_tokens ({self.min_new_tokens}) must not exceed "
                             f"max_new_tokens ({self.max_new_tokens})")
        self.temperature = check_positive(temperature, name="temperature")
        self.eval_prompts = (None if eval_prompts is None
                             else _check_prompts(eval_prompts, name="eval_prompts"))
        self.eval_batches = check_positive_int(eval_batches, name="eval_batches")
        self.eval_batch_size = check_positive_int(eval_batch_size, name="eval_batch_size")
        self.seed = check_non_negative_int(seed, name="seed")
        if workdir is None or not isinstance(workdir, (str, os.PathLike)) or not os.fspath(
                workdir):
            raise TypeError(f"workdir must be a folder path, got {workdir!r}")
        self.workdir = os.fspath(workdir)
        if tokenizer is not None and not isinstance(tokenizer, (str, os.PathLike)) and not (
                callable(tokenizer) and hasattr(tokenizer, "batch_decode")):
            raise TypeError("tokenizer must be a tokenizer, a folder or a hub name, got "
                            f"{type(tokenizer).__name__}")
        self.tokenizer = os.fspath(tokenizer) if isinstance(tokenizer, os.PathLike) else tokenizer
        self.device = _check_device(device)
        if torch_dtype is not None and dtype is not None:
            raise ValueError("give dtype or torch_dtype (its older name), not both")
        self.dtype = _check_dtype(dtype if torch_dtype is None else torch_dtype)
        self.attn_implementation = model_loading.check_attn_implementation(
            attn_implementation)
        self.quantization = model_loading.check_quantization(quantization_config,
                                                             load_in_4bit)
        if model_loading.is_model_object(self.model) and (
                self.quantization is not None or self.attn_implementation is not None
                or dtype is not None or torch_dtype is not None):
            raise ValueError("dtype, attn_implementation and quantization apply to a model "
                             "loaded by name; a model object is used as it was loaded")
        self.peft_config = None
        if peft_config is not None:
            given = {"adapter": adapter != "lora", "rank": rank != 16,
                     "lora_alpha": lora_alpha != 32, "lora_dropout": lora_dropout != 0.05,
                     "target_modules": target_modules != "all-linear"}
            clash = [k for k, v in given.items() if v]
            if clash:
                raise ValueError(f"peft_config replaces the adapter keywords; leave "
                                 f"{', '.join(clash)} at their defaults")
            self.peft_config = model_loading.check_peft_config(peft_config)
            self.adapter = "dora" if self.peft_config.use_dora else "lora"
            self.rank = int(self.peft_config.r)
            self.lora_alpha = self.peft_config.lora_alpha
            self.lora_dropout = float(self.peft_config.lora_dropout)
            modules: Any = self.peft_config.target_modules
            self.target_modules = (modules if isinstance(modules, str) or modules is None
                                   else sorted(modules))  # type: ignore[assignment]
        self.chat_template = model_loading.check_chat_template(chat_template)
        if isinstance(report_to, str):
            self.report_to: str | list[str] = report_to
        elif isinstance(report_to, Sequence) and all(isinstance(r, str) for r in report_to):
            self.report_to = list(report_to)
        else:
            raise TypeError("report_to must be a name ('none', 'tensorboard', 'trackio', "
                            f"'wandb', 'all') or a list of names, got {report_to!r}")
        self.save_steps = None if save_steps is None else check_positive_int(
            save_steps, name="save_steps")
        if trainer_args is None:
            trainer_args = {}
        if not isinstance(trainer_args, Mapping) or not all(
                isinstance(k, str) for k in trainer_args):
            raise TypeError("trainer_args must be a mapping of RLOOConfig field names to "
                            f"values, got {type(trainer_args).__name__}")
        clash = sorted(set(trainer_args) & _RESERVED)
        if clash:
            raise ValueError(f"trainer_args sets {', '.join(clash)}, which LLMSolver sets from "
                             "its own arguments (batch_size, mini_batch_size, steps, ...)")
        kwargs = trainer_args.get("generation_kwargs") or {}
        if not isinstance(kwargs, Mapping) or {"min_new_tokens", "max_new_tokens"} & set(kwargs):
            raise ValueError("trainer_args['generation_kwargs'] must be a mapping without "
                             "min_new_tokens and max_new_tokens (the solver's arguments)")
        self.trainer_args = dict(trainer_args)
        if not isinstance(trust_remote_code, bool):
            raise TypeError(f"trust_remote_code must be a bool, got {trust_remote_code!r}")
        self.trust_remote_code = trust_remote_code
        if not isinstance(merged_generation, bool):
            raise TypeError(f"merged_generation must be a bool, got {merged_generation!r}")
        self.merged_generation = merged_generation

    def __repr__(self) -> str:
        budget = f"steps={self.steps}" if self.steps is not None else f"epochs={self.epochs}"
        return (f"LLMSolver({model_loading.model_label(self.model)!r}, {budget}, "
                f"adapter={self.adapter!r}, "
                f"rank={self.rank}, beta={self.beta})")

    def __getstate__(self) -> dict[str, Any]:
        if model_loading.is_model_object(self.model):
            raise TypeError(
                f"this LLMSolver holds a loaded model object "
                f"({model_loading.model_label(self.model)}), which is not sent to other "
                "processes: save it with model.save_pretrained(folder) (and the tokenizer "
                "with tokenizer.save_pretrained(folder)) and pass the folder as model, or "
                "solve in this process (the local executor)")
        state = dict(self.__dict__)
        state.pop("_object_base", None)
        return state

    @property
    def objective_names(self) -> tuple[str, ...]:
        """What each objective is, for tables and plots: ``-(r_m - beta KL)`` with the rewards'
        names (objectives are minimized)."""
        return tuple(f"-({reward_name(r)} - {self.beta:g} KL)" for r in self.rewards)

    # ------------------------------------------------------------------ the state protocol
    def save_state(self, state: AdapterState, folder: str | os.PathLike[str]) -> None:
        """Write an adapter into ``folder`` (``adapter_model.safetensors`` and
        ``adapter_config.json``, the PEFT format)."""
        save_adapter(state, folder)

    def load_state(self, folder: str | os.PathLike[str]) -> AdapterState:
        """Read an adapter folder written by :meth:`save_state`."""
        return load_adapter(folder)

    @staticmethod
    def _adapter(state: Any, *, name: str = "state") -> AdapterState | None:
        if state is None or isinstance(state, AdapterState):
            return state
        if isinstance(state, (str, os.PathLike)):
            return load_adapter(state)
        raise TypeError(f"{name} must be an AdapterState, an adapter folder or None, got "
                        f"{type(state).__name__}")

    def interpolate(self, state0: Any, state1: Any, t: float) -> AdapterState:
        """The adapter ``(1 - t) * state0 + t * state1``, key by key (DoRA magnitudes
        included), for the Soup baseline; exact at ``t = 0`` and ``t = 1``. States may be
        adapter folders. See :func:`~paretosurf.llm.interpolate_adapters`."""
        a, b = self._adapter(state0, name="state0"), self._adapter(state1, name="state1")
        if a is None or b is None:
            raise ValueError("interpolate needs two adapters, got None")
        return interpolate_adapters(a, b, t)

    # ------------------------------------------------------------------ solving
    def _seed(self, *stream: int) -> int:
        return int(np.random.SeedSequence([self.seed, *stream]).generate_state(1)[0] >> 1)

    def solve(self, weight: float, state: Any) -> Solution:
        """Train the adapter ``state`` (``None``: a fresh one) on ``weight*r1 + (1-weight)*r2
        - beta*KL`` for one call's budget; return its objectives and the trained adapter.

        Raises
        ------
        ValueError
            If ``weight`` is outside [0, 1] or ``state`` does not fit the solver's adapter.
        """
        w = _check_real(weight, name="weight", low=0.0, high=1.0)
        start = self._adapter(state)
        calls = 0 if start is None else start.calls
        start_steps = 0 if start is None else start.steps
        seed = self._seed(calls)
        identity: dict[str, Any] = {
            "weight": w, "call": calls, "start_steps": start_steps, "seed": seed,
            "parent": None if start is None else adapter_digest(start)}
        identity["key"] = digest({**identity, "settings": self._fingerprint()})
        tag = f"e{calls:03d}-w{w:.4f}-{identity['key'][:12]}"
        seconds: dict[str, float] = {}
        with self._session() as sess:
            tic = time.perf_counter()
            folder = SolveFolder.open(self.workdir, identity, tag=tag)
            try:
                resume = folder.last_checkpoint()
                trainer = self._trainer(sess, w, seed, folder.path, name=tag)
                sess.peft = trainer.accelerator.unwrap_model(trainer.model)
                if start is not None:
                    load_adapter_into(sess.peft, start)
                folder.start_log(None if resume is None else resume[0])
                trainer.add_callback(log_callback(folder.path / "train_log.jsonl", identity))
                seconds["setup"] = time.perf_counter() - tic
                tic = time.perf_counter()
                trainer.train(resume_from_checkpoint=None if resume is None else str(resume[1]))
                seconds["train"] = time.perf_counter() - tic
                steps = int(trainer.state.global_step)
                log = _train_log(trainer.state.log_history)
                trained = adapter_from_model(sess.peft, calls=calls + 1,
                                             steps=start_steps + steps)
                folder.finish(adapter_digest(trained), steps)
            finally:  # a failed solve keeps its checkpoints: a retry continues from them
                trainer = None
                folder.close()
            tic = time.perf_counter()
            estimate = self._evaluate_model(sess)
            seconds["eval"] = time.perf_counter() - tic
        info = {"steps": steps, **estimate["info"], "train_log": log,
                "seconds": {**sess.notes, **seconds},
                "solve_dir": None if folder.private else str(folder.path),
                "resumed_from": None if resume is None else resume[0]}
        return Solution(estimate["objectives"], trained, info)

    def _fingerprint(self) -> str:
        """A digest of every setting that determines what a solve trains (not where it runs
        or what it reports), for the solve folders' keys."""
        cached: str | None = self.__dict__.get("_fingerprint_cache")
        if cached is None:
            peft = None if self.peft_config is None else self.peft_config.to_dict()
            settings = {
                "model": model_loading.model_label(self.model),
                "rewards": [reward_name(r) for r in self.rewards],
                "prompts": digest(self.prompts), "beta": self.beta, "steps": self.steps,
                "epochs": self.epochs, "adapter": [self.adapter, self.rank, self.lora_alpha,
                                                   self.lora_dropout, self.target_modules, peft],
                "lr": self.learning_rate, "batch": [self.batch_size, self.mini_batch_size,
                                                    self.micro_batch_size],
                "generations": [self.num_generations, self.num_iterations, self.min_new_tokens,
                                self.max_new_tokens, self.temperature],
                "trainer_args": self.trainer_args, "dtype": self.dtype,
                "attn": self.attn_implementation, "quantization": self.quantization,
                "merged": self.merged_generation, "chat": self.chat_template,
                "seed": self.seed}
            cached = digest(settings)
            self.__dict__["_fingerprint_cache"] = cached
        return cached

    def evaluate(self, state: Any) -> FloatArray:
        """Objectives ``-(mean r_m - beta*KL)`` of an adapter (an :class:`AdapterState`, an
        adapter folder, or ``None``: the base model), estimated as :meth:`solve` does, without
        training (the Soup baseline's ``evaluate``)."""
        return np.asarray(self.assess(state)["objectives"], dtype=np.float64)

    def assess(self, state: Any) -> dict[str, Any]:
        """Everything :meth:`evaluate` estimates: ``objectives`` and ``objectives_no_kl``
        (arrays of shape (2,)), ``batch_objectives`` and ``batch_objectives_no_kl`` (the same
        per evaluation batch, shape (eval_batches, 2)), their standard errors ``stderr`` and
        ``stderr_no_kl``, the mean rewards ``rewards``, ``kl``, ``kl_stderr``, ``n_eval`` and
        ``seconds``."""
        adapter = self._adapter(state)
        with self._session() as sess:
            import torch
            from peft import get_peft_model

            torch.manual_seed(self._seed(0))
            sess.peft = get_peft_model(sess.base.model, self._peft_config())
            if adapter is not None:
                load_adapter_into(sess.peft, adapter)
            tic = time.perf_counter()
            estimate = self._evaluate_model(sess)
            sess.notes["eval"] = time.perf_counter() - tic
        info = estimate["info"]
        out = {"objectives": estimate["objectives"], **info, "seconds": dict(sess.notes)}
        for key in ("objectives_no_kl", "batch_objectives", "batch_objectives_no_kl"):
            out[key] = np.asarray(info[key], dtype=np.float64)
        return out

    # ------------------------------------------------------------------ model plumbing
    def _device(self) -> str:
        if self.device is not None:
            return self.device
        if model_loading.is_model_object(self.model):  # where the caller put it
            param = next(iter(self.model.parameters()), None)
            if param is not None:
                return str(param.device)
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"

    def _load_tokenizer(self) -> Any:
        src = model_loading.tokenizer_source(self.model, self.tokenizer)
        if not isinstance(src, str):
            tok = src
        else:
            key = (src, self.trust_remote_code)
            tok = _TOKENIZERS.get(key)
            if tok is None:
                tok = model_loading.load_tokenizer(src, trust_remote_code=self.trust_remote_code)
                _TOKENIZERS[key] = tok
        tok.padding_side = "left"
        if tok.pad_token is None:
            tok.pad_token = tok.eos_token
        return tok

    def _load_base(self, device: str) -> _Base:
        if model_loading.is_model_object(self.model):
            return _adopt(self.model)
        model = model_loading.load_base_model(
            self.model, device=device, dtype=self.dtype,
            trust_remote_code=self.trust_remote_code,
            attn_implementation=self.attn_implementation, quantization=self.quantization)
        return _Base(model, tuple(model.state_dict()), _count_hooks(model))

    @contextlib.contextmanager
    def _session(self) -> Iterator[_Session]:
        """Lend this process's base model (loading it the first time) and the tokenizer;
        afterwards strip what the call added and keep the model for the next call if it is
        unchanged."""
        require_llm("LLMSolver")
        device = self._device()
        own = model_loading.is_model_object(self.model)
        key = (self.model, self.dtype, device, self.trust_remote_code,
               self.attn_implementation, json.dumps(self.quantization, sort_keys=True))
        notes: dict[str, float] = {}
        if own:  # the caller's model: kept by this solver, never in the process cache
            base = self.__dict__.pop("_object_base", None) or _adopt(self.model)
        else:
            base = _BASES.pop(key, None)  # nobody else may borrow it meanwhile
        if base is None:
            tic = time.perf_counter()
            base = self._load_base(device)
            notes["load"] = time.perf_counter() - tic
        session = _Session(base, self._load_tokenizer(), device, notes=notes)
        try:
            with warnings.catch_warnings():
                # TRL calls an attribute transformers 5 deprecated; nothing a user can change
                warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing",
                                        category=FutureWarning)
                yield session
        finally:
            try:
                clean = _strip(base, session.peft)
            except Exception:  # an unusual model: load it afresh next time
                clean = False
            session.peft = None
            if clean and own:
                self.__dict__["_object_base"] = base
            elif clean:
                _BASES[key] = base
            if device.startswith("cuda"):  # free the trainer's cycles and device memory now
                import torch

                gc.collect()
                torch.cuda.empty_cache()

    def _peft_config(self) -> Any:
        from peft import LoraConfig

        if self.peft_config is not None:
            return copy.deepcopy(self.peft_config)
        alpha: Any = self.lora_alpha  # PEFT types it int; any positive number works
        return LoraConfig(r=self.rank, lora_alpha=alpha,
                          lora_dropout=self.lora_dropout, target_modules=self.target_modules,
                          use_dora=self.adapter == "dora", bias="none", task_type="CAUSAL_LM")

    def _train_dataset(self, tokenizer: Any = None) -> Any:
        from datasets import Dataset

        prompts = self._templated(self.prompts, tokenizer)
        if isinstance(prompts[0], dict):   # a dataset's rows, with all its columns
            return Dataset.from_list(prompts)
        return Dataset.from_dict({"prompt": prompts})

    def _templated(self, prompts: list[Any], tokenizer: Any) -> list[Any]:
        """``prompts`` (strings, conversations or rows), their string prompts made user turns
        when the chat template applies (:func:`model_loading.uses_chat_template`)."""
        if tokenizer is None or not model_loading.uses_chat_template(tokenizer,
                                                                     self.chat_template):
            return prompts
        return [{**p, "prompt": model_loading.as_chat(p["prompt"])} if isinstance(p, dict)
                else model_loading.as_chat(p) for p in prompts]

    def _trainer(self, sess: _Session, weight: float, seed: int, outdir: Path, *,
                 name: str = "solve") -> Any:
        from transformers.trainer_callback import PrinterCallback, ProgressCallback
        from trl import RLOOConfig

        from paretosurf.llm.generation import rloo_trainer_class

        fields = {f.name for f in RLOOConfig.__dataclass_fields__.values()}
        unknown = sorted(set(self.trainer_args) - fields)
        if unknown:
            raise ValueError(f"trainer_args names {', '.join(unknown)}, which are not fields "
                             "of trl.RLOOConfig")
        generation_kwargs = {**(self.trainer_args.get("generation_kwargs") or {}),
                             "min_new_tokens": self.min_new_tokens}
        options = {**_DEFAULTS, **self.trainer_args}
        if "activation_checkpointing" in fields:  # transformers >= 5.x renamed the field
            options.setdefault("activation_checkpointing",
                               options.pop("gradient_checkpointing", False))
            options.pop("gradient_checkpointing", None)
        micro = self.micro_batch_size
        per_round = self.batch_size // self.mini_batch_size * self.num_iterations
        saving: dict[str, Any] = {"save_strategy": "no"}
        if self.save_steps is not None:  # whole generation rounds: a resume regenerates
            saving = {"save_strategy": "steps", "save_total_limit": 2,
                      "save_steps": -(-self.save_steps // per_round) * per_round}
        args = {
            **options, **saving, "report_to": self.report_to, "run_name": name,
            "output_dir": str(outdir), "seed": seed, "use_cpu": sess.device == "cpu",
            "reward_weights": [weight, 1.0 - weight], "beta": self.beta,
            "num_generations": self.num_generations, "num_iterations": self.num_iterations,
            "per_device_train_batch_size": micro,
            "gradient_accumulation_steps": self.mini_batch_size // micro,
            "steps_per_generation": self.batch_size // micro,
            "max_completion_length": self.max_new_tokens,
            "generation_kwargs": generation_kwargs, "temperature": self.temperature,
            "learning_rate": self.learning_rate,
            "max_steps": -1 if self.steps is None else self.steps,
            "num_train_epochs": 1.0 if self.epochs is None else self.epochs,
        }
        config = RLOOConfig(**args)
        trainer = rloo_trainer_class(self._merged(sess))(
            model=sess.base.model, reward_funcs=list(self.rewards), args=config,
            train_dataset=self._train_dataset(sess.tokenizer), processing_class=sess.tokenizer,
            peft_config=self._peft_config())
        for callback in (PrinterCallback, ProgressCallback):
            trainer.remove_callback(callback)
        trainer.reward_func_names = ["r1", "r2"]  # log names that never collide
        model = trainer.accelerator.unwrap_model(trainer.model)
        # the KL must be measured against the base model: TRL's reference is the model with
        # its adapters disabled, never a copied "ref" adapter nor a separate model
        if "ref" in model.peft_config or trainer.ref_model is not None:
            raise RuntimeError("RLOOTrainer built a reference other than the base model")
        return trainer

    def _merged(self, sess: _Session) -> bool:
        """Whether to sample with the adapter merged (never into quantized weights)."""
        return self.merged_generation and not model_loading.is_quantized(sess.base.model)

    # ------------------------------------------------------------------ evaluation
    def _eval_rows(self, tokenizer: Any = None) -> list[dict[str, Any]]:
        """The evaluation's prompts (rows with the dataset's other columns): a seeded draw of
        ``eval_batches * eval_batch_size``, every prompt once before any repeats."""
        source = self.prompts if self.eval_prompts is None else self.eval_prompts
        n = self.eval_batches * self.eval_batch_size
        rng = np.random.default_rng([self.seed, _EVAL_STREAM])
        order = np.concatenate([rng.permutation(len(source))
                                for _ in range(-(-n // len(source)))])[:n]
        if isinstance(source[0], dict):   # a dataset's rows, with all its columns
            rows = [dict(source[int(i)]) for i in order]
        else:
            rows = [{"prompt": source[int(i)]} for i in order]
        return self._templated(rows, tokenizer)

    def _evaluate_model(self, sess: _Session) -> dict[str, Any]:
        """Sample one completion per evaluation prompt from ``sess.peft`` and estimate the
        objectives, with standard errors."""
        import torch

        model, tok = sess.peft, sess.tokenizer
        rows = self._eval_rows(tok)
        rewards = np.full((len(rows), 2), np.nan)
        kl = np.zeros(len(rows))
        eos = _eos_ids(model, tok)
        devices = [torch.device(sess.device)] if sess.device.startswith("cuda") else []
        was_training = model.training
        model.eval()
        try:
            with torch.random.fork_rng(devices=devices):
                for b in range(self.eval_batches):
                    lo = b * self.eval_batch_size
                    batch = rows[lo:lo + self.eval_batch_size]
                    torch.manual_seed(self._seed(_EVAL_STREAM, b))
                    out = self._score_batch(model, tok, batch, eos, sess.device,
                                            merged=self._merged(sess))
                    rewards[lo:lo + len(batch)] = out[0]
                    kl[lo:lo + len(batch)] = out[1]
        finally:
            model.train(was_training)
        return _estimates(rewards, kl, self.beta, self.eval_batch_size)

    def _score_batch(self, model: Any, tok: Any, batch: list[dict[str, Any]], eos: list[int],
                     device: str, *, merged: bool = True) -> tuple[FloatArray, FloatArray]:
        import torch
        from transformers import GenerationConfig

        prompts = [row["prompt"] for row in batch]
        conversational = _is_conversation(prompts[0])
        if conversational:
            ids = tok.apply_chat_template(conversation=prompts, add_generation_prompt=True,
                                          tokenize=True, return_dict=True)["input_ids"]
        else:
            ids = tok(text=prompts)["input_ids"]
        pad = tok.pad_token_id
        width = max(len(x) for x in ids)
        prompt_ids = torch.full((len(ids), width), pad, dtype=torch.long)
        prompt_mask = torch.zeros((len(ids), width), dtype=torch.long)
        for i, x in enumerate(ids):
            if len(x):
                prompt_ids[i, width - len(x):] = torch.tensor(x)
                prompt_mask[i, width - len(x):] = 1
        prompt_ids, prompt_mask = prompt_ids.to(device), prompt_mask.to(device)
        config = GenerationConfig(
            max_new_tokens=self.max_new_tokens, min_new_tokens=self.min_new_tokens,
            do_sample=True, temperature=self.temperature, top_p=1.0, top_k=0,
            pad_token_id=pad, bos_token_id=tok.bos_token_id, eos_token_id=eos,
            **{k: v for k, v in (self.trainer_args.get("generation_kwargs") or {}).items()})
        merging = merged_adapter(model) if merged else contextlib.nullcontext()
        with torch.no_grad(), merging:
            full = model.generate(input_ids=prompt_ids, attention_mask=prompt_mask,
                                  generation_config=config)
        completion = full[:, width:]
        is_eos = torch.isin(completion, torch.tensor(eos, device=completion.device))
        first = torch.where(is_eos.any(1), is_eos.int().argmax(1),
                            torch.full_like(is_eos[:, 0], completion.size(1), dtype=torch.long))
        positions = torch.arange(completion.size(1), device=completion.device)
        completion_mask = (positions[None, :] <= first[:, None]).long()
        completion = completion.masked_fill(completion_mask == 0, pad)
        completion_ids = [c[m.bool()].tolist() for c, m in zip(completion.cpu(),
                                                               completion_mask.cpu(), strict=True)]
        texts = tok.batch_decode(completion_ids, skip_special_tokens=True)
        completions: list[Any] = ([[{"role": "assistant", "content": t}] for t in texts]
                                  if conversational else texts)
        logps = self._logps(model, prompt_ids, prompt_mask, completion, completion_mask)
        with model.disable_adapter():
            ref = self._logps(model, prompt_ids, prompt_mask, completion, completion_mask)
        kl = ((logps - ref) * completion_mask).sum(1).double().cpu().numpy()
        columns = {k: [row[k] for row in batch] for k in batch[0]
                   if k not in ("prompt", "completion", "completion_ids")}
        scores = np.empty((len(batch), 2))
        for m, func in enumerate(self.rewards):
            values = list(func(prompts=prompts, completions=completions,
                               completion_ids=completion_ids, trainer_state=None,
                               log_extra=_ignore, log_metric=_ignore, **columns))
            if len(values) != len(batch):
                raise ValueError(f"reward r{m + 1} returned {len(values)} rewards for "
                                 f"{len(batch)} completions")
            scores[:, m] = [np.nan if v is None else float(v) for v in values]
        return scores, kl

    def _logps(self, model: Any, prompt_ids: Any, prompt_mask: Any, completion: Any,
               completion_mask: Any) -> Any:
        """Per-token log-probabilities of the completion tokens under ``model`` at the
        sampling temperature, in chunks of ``micro_batch_size`` rows."""
        import torch

        input_ids = torch.cat([prompt_ids, completion], dim=1)
        attention = torch.cat([prompt_mask, completion_mask], dim=1)
        keep = completion.size(1)
        out = []
        with torch.no_grad():
            for lo in range(0, input_ids.size(0), self.micro_batch_size):
                rows = slice(lo, lo + self.micro_batch_size)
                try:
                    logits = model(input_ids=input_ids[rows], attention_mask=attention[rows],
                                   logits_to_keep=keep + 1).logits
                except TypeError:  # a model without logits_to_keep
                    logits = model(input_ids=input_ids[rows],
                                   attention_mask=attention[rows]).logits[:, -(keep + 1):]
                logits = logits[:, :-1].float() / self.temperature
                out.append(torch.log_softmax(logits, dim=-1).gather(
                    -1, completion[rows].unsqueeze(-1)).squeeze(-1))
        return torch.cat(out, dim=0)


# ---------------------------------------------------------------------------- helpers
def _ignore(*args: Any, **kwargs: Any) -> None:
    """Stands in for TRL's ``log_extra``/``log_metric`` while the solver evaluates."""


def _eos_ids(model: Any, tok: Any) -> list[int]:
    """End-of-sequence ids as TRL takes them: the model's, and the tokenizer's."""
    ids = model.generation_config.eos_token_id
    out = [] if ids is None else [ids] if isinstance(ids, int) else list(ids)
    if tok.eos_token_id is not None and tok.eos_token_id not in out:
        out = [tok.eos_token_id, *out]
    return out


def _mean_se(values: FloatArray) -> tuple[float, float]:
    ok = values[np.isfinite(values)]
    if ok.size == 0:
        raise ValueError("every evaluation reward was None (not applicable)")
    se = float(ok.std(ddof=1) / math.sqrt(ok.size)) if ok.size > 1 else math.nan
    return float(ok.mean()), se


def _estimates(rewards: FloatArray, kl: FloatArray, beta: float,
               batch_size: int) -> dict[str, Any]:
    """Objectives ``-(r_m - beta*kl)`` and their standard errors, from per-completion
    rewards (n, 2) and sequence KLs (n,); also per evaluation batch of ``batch_size``."""
    with_kl = -(rewards - beta * kl[:, None])
    objectives, stderr, no_kl, no_kl_se, means = [], [], [], [], []
    for m in range(2):
        mean, se = _mean_se(with_kl[:, m])
        objectives.append(mean)
        stderr.append(se)
        r_mean, r_se = _mean_se(rewards[:, m])
        means.append(r_mean)
        no_kl.append(-r_mean)
        no_kl_se.append(r_se)
    kl_mean, kl_se = _mean_se(kl)
    batches = range(0, len(kl), batch_size)
    with warnings.catch_warnings():  # a batch whose rewards were all None: nan
        warnings.simplefilter("ignore", RuntimeWarning)
        per_batch = [np.nanmean(with_kl[lo:lo + batch_size], axis=0).tolist() for lo in batches]
        per_batch_no_kl = [(-np.nanmean(rewards[lo:lo + batch_size], axis=0)).tolist()
                           for lo in batches]
    return {"objectives": np.array(objectives),
            "info": {"stderr": stderr, "objectives_no_kl": no_kl, "stderr_no_kl": no_kl_se,
                     "rewards": means, "kl": kl_mean, "kl_stderr": kl_se, "n_eval": len(kl),
                     "batch_objectives": per_batch, "batch_objectives_no_kl": per_batch_no_kl}}


def _train_log(history: Sequence[Mapping[str, Any]]) -> list[dict[str, float]]:
    """The trainer's per-step log entries (those with a loss), numbers only."""
    out = []
    for entry in history:
        if "loss" not in entry or "step" not in entry:
            continue
        row: dict[str, float] = {key: float(value) for key, value in entry.items()
                                 if isinstance(value, numbers.Real)
                                 and not isinstance(value, bool)}
        row["step"] = int(entry["step"])
        out.append(row)
    return out
