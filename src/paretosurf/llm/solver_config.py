"""The settings of :class:`~paretosurf.llm.LLMSolver` as one dataclass, as TRL's
``RLOOConfig`` sits beside its ``RLOOTrainer``.

``LLMSolver(model, rewards, prompts, config=LLMSolverConfig(steps=20, workdir="runs/a"))`` is
the same solver as ``LLMSolver(model, rewards, prompts, steps=20, workdir="runs/a")``; keywords
given beside a config override its fields. The config checks itself
(:meth:`LLMSolverConfig.resolved`, which the solver calls when it is built); what depends on the
model and the prompts as well (enough prompts for a generation round, load options only for a
model loaded by name) the solver checks.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paretosurf._utils.validation import check_non_negative_int, check_positive, check_positive_int
from paretosurf.llm import model_loading
from paretosurf.llm._checks import _check_device, _check_dtype, _check_prompts, _check_real
from paretosurf.llm._trackers import check_report_to

__all__ = ["LLMSolverConfig"]

#: RLOOConfig fields the solver sets from its own settings (``trainer_args`` may not).
RESERVED_TRAINER_ARGS = frozenset(
    {
        "output_dir",
        "reward_weights",
        "beta",
        "num_generations",
        "per_device_train_batch_size",
        "gradient_accumulation_steps",
        "generation_batch_size",
        "steps_per_generation",
        "num_iterations",
        "max_completion_length",
        "learning_rate",
        "max_steps",
        "num_train_epochs",
        "temperature",
        "seed",
        "use_cpu",
        "model_init_kwargs",
        "report_to",
        "save_steps",
        "save_strategy",
        "save_total_limit",
        "resume_from_checkpoint",
        "run_name",
    }
)


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
        ``{"lr_scheduler_type": "linear"}``. ``use_vllm`` samples with vLLM inside each
        slot's training process (TRL's ``vllm_mode="colocate"``; vLLM and a CUDA GPU
        needed, refused with an ``ImportError`` that says so where vLLM is not installed).
        The solver's defaults: no mixed precision, no
        gradient checkpointing, a constant learning rate, a log entry every step (and
        ``save_steps``, ``report_to`` below). Fields the arguments above set are refused.
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
        or ``"all"``: the installed ones), as ``RLOOConfig(report_to=...)``. Checked here: a
        name TRL does not know is a ``ValueError`` and a tracker that is not installed an
        ``ImportError``, both naming the installed ones. Each solve is a tracker run named
        after its folder, in one group per run folder (the workdir's, or its parent's when
        the workdir is called ``work``), tagged with its slot-epoch and weight (wandb's group
        and tags, trackio's project, mlflow's experiment and tags); TensorBoard writes into
        the solve folder's ``runs/``. The JSON-lines log (below) is always written.
    save_steps : int, "auto" or None, default "auto"
        Save a checkpoint (adapter, optimizer, scheduler, RNG state: TRL's own) every
        ``save_steps`` optimizer steps, rounded up to whole generation rounds
        (``batch_size / mini_batch_size * num_iterations`` steps), so that a solve killed
        midway continues from its last checkpoint when it is run again with the same inputs
        (a resumed run, a retried solve), and gives the same adapter. ``"auto"``: half an
        epoch's optimizer steps (of the call's, when shorter), rounded down to whole
        generation rounds, at most 200: at least two checkpoints an epoch (the one at a
        solve's last step is not written: the finished solve supersedes it), none for a
        solve of one generation round. ``None``: no checkpoints. A finished solve removes
        them.
        Each solve says at its start how many steps it trains and where it checkpoints
        (the ``paretosurf.llm`` logger, and ``solve.json``); a ``save_steps`` that leaves a
        solve without a checkpoint gets a warning.
    processes_per_slot : int or "gpus", default 1
        How many processes train a slot, as one data-parallel (DDP) job
        (:mod:`paretosurf.llm.distributed`): ``k > 1`` starts ``k`` fresh processes on the
        machine of the solve, rank ``r`` on ``cuda:r`` of the GPUs the solve sees (NCCL),
        or, on the CPU (``device="cpu"``, or no GPU), ``k`` CPU processes (gloo). Each
        generates and trains on ``1/k`` of every generation round (``batch_size``) and of
        every optimizer step (``mini_batch_size``, which ``k`` must divide); DDP averages
        their gradients, so each optimizer step averages over ``mini_batch_size``
        completions as one process's does (on the same completions, to rounding, when a
        generation round is one step; with several steps a round, each rank splits its own
        share of the round into steps). Each rank samples its own completions, and makes
        passes of at most ``micro_batch_size`` (and ``mini_batch_size / k``) completions.
        Rank 0 writes the solve folder's log and checkpoints and estimates the objectives;
        the solve returns its adapter. Each solve starts its processes afresh (they load
        the base model); a process that fails ends the others, and the solve raises
        :class:`~paretosurf.llm.distributed.RankError` with its traceback (a retry resumes
        from the last checkpoint). ``"gpus"``: one process per CUDA GPU the solve sees (one process
        without GPUs, or with ``device="cpu"``), what ``[executor] gpus_per_slot = k``
        implies in a config file. FSDP or DeepSpeed (ZeRO) go through ``trainer_args``
        (``{"fsdp": "full_shard", "fsdp_config": {...}}``, ``{"deepspeed": "ds.json"}``:
        ``transformers.TrainingArguments`` fields that Accelerate applies), untested here.
        Not for a model object (each process loads the model by name), and with ``device``
        only ``None``, ``"cpu"`` or ``"cuda"``. Where it runs, not what it trains: it is not
        part of a solve folder's key, so a solve killed under one number of processes
        resumes its checkpoints under another (tested with the same number only; the ranks'
        random states then start afresh).

    Examples
    --------
    >>> from paretosurf.llm import LLMSolverConfig
    >>> config = LLMSolverConfig(steps=20, beta=0.1, workdir="runs/a")
    >>> config.beta, config.rank, config.batch_size
    (0.1, 16, 64)
    >>> LLMSolverConfig(steps=20).with_settings(beta=0.2).beta
    0.2
    >>> config.resolved().micro_batch_size   # checked, defaults filled in
    16
    >>> LLMSolverConfig(steps=20, beta=-1, workdir="runs/a").resolved()
    Traceback (most recent call last):
    ...
    ValueError: beta must lie in [0.0, inf), got -1.0
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
    save_steps: int | str | None = "auto"
    processes_per_slot: int | str = 1

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

    def resolved(self) -> LLMSolverConfig:
        """This config checked, with its values in the form a solver keeps them.

        The checks are every one :class:`~paretosurf.llm.LLMSolver` makes of its settings, with
        the same errors, but those that need the model or the prompts too. The values come back
        as the solver's attributes of the same names hold them: numbers as ``int`` and
        ``float``, ``lora_alpha`` an ``int`` when whole, ``target_modules`` and ``report_to``
        a string or a list, ``micro_batch_size`` defaulted to ``mini_batch_size``,
        ``eval_prompts`` a list (a dataset's rows as dicts), ``workdir`` and a tokenizer folder
        strings, ``trainer_args`` a dict, ``dtype`` a name (``torch_dtype`` folded into it and
        ``None``), ``quantization_config`` a dict of its fields (``load_in_4bit`` expanded into
        it and ``False``), and with ``peft_config`` (a checked ``LoraConfig``) the adapter
        fields read from it.

        It is a one-way step: give :class:`~paretosurf.llm.LLMSolver` configs as written (a
        resolved config repeats the adapter fields of its ``peft_config``, which a config as
        written may not).

        Raises
        ------
        TypeError, ValueError
            Naming the first setting that is wrong, as the solver does.
        ImportError
            For a quantized base without ``bitsandbytes``.
        """
        out: dict[str, Any] = {"beta": _check_real(self.beta, name="beta", low=0.0)}
        out.update(_budget(self.steps, self.epochs))
        out.update(_adapter(self))
        out["learning_rate"] = check_positive(self.learning_rate, name="learning_rate")
        out.update(_batches(self))
        out.update(_lengths(self.min_new_tokens, self.max_new_tokens))
        out["temperature"] = check_positive(self.temperature, name="temperature")
        out["eval_prompts"] = (
            None
            if self.eval_prompts is None
            else _check_prompts(self.eval_prompts, name="eval_prompts")
        )
        out["eval_batches"] = check_positive_int(self.eval_batches, name="eval_batches")
        out["eval_batch_size"] = check_positive_int(self.eval_batch_size, name="eval_batch_size")
        out["seed"] = check_non_negative_int(self.seed, name="seed")
        out["workdir"] = _workdir(self.workdir)
        out["tokenizer"] = _tokenizer(self.tokenizer)
        out["device"] = _check_device(self.device)
        if self.torch_dtype is not None and self.dtype is not None:
            raise ValueError("give dtype or torch_dtype (its older name), not both")
        out["dtype"] = _check_dtype(self.dtype if self.torch_dtype is None else self.torch_dtype)
        out["torch_dtype"] = None
        out["attn_implementation"] = model_loading.check_attn_implementation(
            self.attn_implementation
        )
        out["quantization_config"] = model_loading.check_quantization(
            self.quantization_config, self.load_in_4bit
        )
        out["load_in_4bit"] = False
        if self.peft_config is not None:
            out.update(_from_peft_config(self))
        out["chat_template"] = model_loading.check_chat_template(self.chat_template)
        out["report_to"] = check_report_to(self.report_to)
        out["save_steps"] = _save_steps(self.save_steps)
        out["trainer_args"] = _trainer_args(self.trainer_args)
        out["processes_per_slot"] = _processes_per_slot(
            self.processes_per_slot, out["device"], out["mini_batch_size"]
        )
        for name in ("trust_remote_code", "merged_generation"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, got {value!r}")
        return dataclasses.replace(self, **out)


def solver_config(config: object, settings: Mapping[str, Any]) -> LLMSolverConfig:
    """The settings of one solver: ``config`` (default: all defaults) with the keywords given
    beside it."""
    if config is None:
        config = LLMSolverConfig()
    elif not isinstance(config, LLMSolverConfig):
        raise TypeError(f"config must be an LLMSolverConfig, got {type(config).__name__}")
    return config.with_settings(**settings)


# ---------------------------------------------------------------------------- the checks
# Each takes settings as written and returns them resolved. LLMSolverConfig.resolved checks the
# settings in the order LLMSolver always has, so a config with several wrong settings names the
# same one first.
def _budget(steps: object, epochs: object) -> dict[str, Any]:
    if (steps is None) == (epochs is None):
        raise ValueError(
            "give exactly one of steps (RL optimizer steps per call) and "
            f"epochs (passes over the prompts per call); got steps={steps!r}, "
            f"epochs={epochs!r}"
        )
    return {
        "steps": None if steps is None else check_positive_int(steps, name="steps"),
        "epochs": None if epochs is None else check_positive(epochs, name="epochs"),
    }


def _adapter(config: LLMSolverConfig) -> dict[str, Any]:
    """The LoRA keywords (``adapter``, ``rank``, ``lora_alpha``, ``lora_dropout``,
    ``target_modules``)."""
    if config.adapter not in ("lora", "dora"):
        raise ValueError(f"adapter must be 'lora' or 'dora', got {config.adapter!r}")
    rank = check_positive_int(config.rank, name="rank")
    alpha = check_positive(config.lora_alpha, name="lora_alpha")
    dropout = _check_real(
        config.lora_dropout, name="lora_dropout", low=0.0, high=1.0, high_open=True
    )
    targets: str | list[str]
    modules = config.target_modules
    if isinstance(modules, str):
        if not modules:
            raise ValueError("target_modules must not be empty")
        targets = modules
    elif (
        isinstance(modules, Sequence) and modules and all(isinstance(t, str) and t for t in modules)
    ):
        targets = list(modules)
    else:
        raise TypeError(
            "target_modules must be 'all-linear' or a non-empty list of module "
            f"names, got {modules!r}"
        )
    return {
        "adapter": config.adapter,
        "rank": rank,
        "lora_alpha": int(alpha) if alpha.is_integer() else alpha,
        "lora_dropout": dropout,
        "target_modules": targets,
    }


def _batches(config: LLMSolverConfig) -> dict[str, int]:
    """``batch_size``, ``mini_batch_size``, ``num_generations``, ``num_iterations`` and
    ``micro_batch_size``, which must divide one another."""
    batch = check_positive_int(config.batch_size, name="batch_size")
    mini = check_positive_int(config.mini_batch_size, name="mini_batch_size")
    generations = check_positive_int(config.num_generations, name="num_generations")
    iterations = check_positive_int(config.num_iterations, name="num_iterations")
    if generations < 2:
        raise ValueError(
            "num_generations must be >= 2 (RLOO's baseline is the mean of the "
            f"other completions of a prompt), got {generations}"
        )
    if batch % generations:
        raise ValueError(
            f"batch_size ({batch}) must be a multiple of num_generations ({generations})"
        )
    if batch % mini:
        raise ValueError(f"batch_size ({batch}) must be a multiple of mini_batch_size ({mini})")
    micro = (
        mini
        if config.micro_batch_size is None
        else check_positive_int(config.micro_batch_size, name="micro_batch_size")
    )
    if mini % micro:
        raise ValueError(
            f"mini_batch_size ({mini}) must be a multiple of micro_batch_size ({micro})"
        )
    return {
        "batch_size": batch,
        "mini_batch_size": mini,
        "num_generations": generations,
        "num_iterations": iterations,
        "micro_batch_size": micro,
    }


def _lengths(min_new_tokens: object, max_new_tokens: object) -> dict[str, int]:
    longest = check_positive_int(max_new_tokens, name="max_new_tokens")
    shortest = check_non_negative_int(min_new_tokens, name="min_new_tokens")
    if shortest > longest:
        raise ValueError(f"min_new_tokens ({shortest}) must not exceed max_new_tokens ({longest})")
    return {"max_new_tokens": longest, "min_new_tokens": shortest}


def _workdir(workdir: object) -> str:
    if workdir is None or not isinstance(workdir, (str, os.PathLike)) or not os.fspath(workdir):
        raise TypeError(f"workdir must be a folder path, got {workdir!r}")
    return os.fspath(workdir)


def _tokenizer(tokenizer: object) -> Any:
    if (
        tokenizer is not None
        and not isinstance(tokenizer, (str, os.PathLike))
        and not (callable(tokenizer) and hasattr(tokenizer, "batch_decode"))
    ):
        raise TypeError(
            f"tokenizer must be a tokenizer, a folder or a hub name, got {type(tokenizer).__name__}"
        )
    return os.fspath(tokenizer) if isinstance(tokenizer, os.PathLike) else tokenizer


def _from_peft_config(config: LLMSolverConfig) -> dict[str, Any]:
    """The checked ``peft_config`` and the adapter fields read from it (the LoRA keywords
    must be left at their defaults)."""
    defaults = {f.name: f.default for f in dataclasses.fields(LLMSolverConfig)}
    clash = [
        name for name in model_loading.ADAPTER_KEYWORDS if getattr(config, name) != defaults[name]
    ]
    if clash:
        raise ValueError(
            f"peft_config replaces the adapter keywords; leave {', '.join(clash)} at their defaults"
        )
    peft = model_loading.check_peft_config(config.peft_config)
    modules: Any = peft.target_modules
    return {
        "peft_config": peft,
        "adapter": "dora" if peft.use_dora else "lora",
        "rank": int(peft.r),
        "lora_alpha": peft.lora_alpha,
        "lora_dropout": float(peft.lora_dropout),
        "target_modules": modules
        if isinstance(modules, str) or modules is None
        else sorted(modules),
    }


def _save_steps(save_steps: object) -> int | str | None:
    if save_steps is None:
        return None
    if save_steps == "auto":
        return "auto"
    if isinstance(save_steps, str):
        raise ValueError(
            "save_steps must be 'auto' (checkpoints that fit the epoch), an integer >= 1 or "
            f"None (no checkpoints), got {save_steps!r}"
        )
    return check_positive_int(save_steps, name="save_steps")


def _processes_per_slot(processes: object, device: str | None, mini_batch_size: int) -> int | str:
    """``processes_per_slot`` checked: an integer >= 1 that divides ``mini_batch_size``, or
    ``"gpus"``; for more than one process, a ``device`` of ``None``, ``"cpu"`` or
    ``"cuda"``."""
    if processes == "gpus":
        value: int | str = "gpus"
    elif isinstance(processes, str):
        raise ValueError(
            "processes_per_slot must be an integer >= 1 or 'gpus' (one process per GPU the "
            f"solve sees), got {processes!r}"
        )
    else:
        value = check_positive_int(processes, name="processes_per_slot")
    if value != 1 and device not in (None, "cpu", "cuda"):
        raise ValueError(
            f"processes_per_slot={value!r} trains a slot on GPUs cuda:0, cuda:1, ... of those "
            f"the solve sees (or on the CPU): device must be None, 'cpu' or 'cuda', got "
            f"{device!r} (choose the GPUs with CUDA_VISIBLE_DEVICES, or the executor's "
            "gpus_per_slot)"
        )
    check_processes(value, mini_batch_size)
    return value


def check_processes(processes: int | str, mini_batch_size: int) -> None:
    """Refuse ``processes`` (an int) that does not divide ``mini_batch_size``: each process
    takes an equal share of every optimizer step."""
    if isinstance(processes, int) and mini_batch_size % processes:
        raise ValueError(
            f"mini_batch_size ({mini_batch_size}) must be a multiple of processes_per_slot "
            f"({processes}): each process trains on an equal share of every optimizer step"
        )


def _trainer_args(trainer_args: object) -> dict[str, Any]:
    if trainer_args is None:
        trainer_args = {}
    if not isinstance(trainer_args, Mapping) or not all(isinstance(k, str) for k in trainer_args):
        raise TypeError(
            "trainer_args must be a mapping of RLOOConfig field names to "
            f"values, got {type(trainer_args).__name__}"
        )
    clash = sorted(set(trainer_args) & RESERVED_TRAINER_ARGS)
    if clash:
        raise ValueError(
            f"trainer_args sets {', '.join(clash)}, which LLMSolver sets from "
            "its own arguments (batch_size, mini_batch_size, steps, ...)"
        )
    if trainer_args.get("use_vllm"):
        import importlib.util

        if importlib.util.find_spec("vllm") is None:
            raise ImportError(
                "trainer_args={'use_vllm': True} samples completions with vLLM, which is not "
                "installed: pip install vllm (it needs a CUDA GPU). TRL then runs vLLM "
                "inside each slot's training process (vllm_mode='colocate', its default) and "
                "loads the adapter's merged weights into it after every optimizer step. "
                "Without use_vllm the solver samples with transformers' generate, the adapter "
                "merged into the base weights (merged_generation=True)"
            )
    kwargs = trainer_args.get("generation_kwargs") or {}
    if not isinstance(kwargs, Mapping) or {"min_new_tokens", "max_new_tokens"} & set(kwargs):
        raise ValueError(
            "trainer_args['generation_kwargs'] must be a mapping without "
            "min_new_tokens and max_new_tokens (the solver's arguments)"
        )
    return dict(trainer_args)
