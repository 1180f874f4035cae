"""The LLM inner solver: RLOO fine-tuning of a PEFT adapter on ``w*r1 + (1-w)*r2 - beta*KL``.

:class:`LLMSolver` solves the scalarized alignment problem of the paper's LLM experiment for
one weight: it fine-tunes a LoRA (or DoRA) adapter of a frozen causal language model with
TRL's ``RLOOTrainer`` for a fixed budget, warm-started from the slot's previous adapter, and
estimates the two KL-regularized objectives of the result on evaluation prompts. The state is
the adapter (:class:`~paretosurf.llm.AdapterState`), saved as a PEFT adapter folder, so a run
keeps its warm starts as folders and no model-sized object is pickled.

The solver's settings are one dataclass, :class:`~paretosurf.llm.LLMSolverConfig`
(:mod:`paretosurf.llm.solver_config`, as TRL's ``RLOOConfig`` beside its trainer), also taken
as keywords; the process's cache of base models is :mod:`paretosurf.llm.model_cache`, the
estimate of an adapter's objectives :mod:`paretosurf.llm.evaluation`, and the checks of the
inputs ``paretosurf.llm._checks``.

torch, transformers, peft, trl and datasets (the ``llm`` extra) are imported when a solver
first trains or evaluates, not when this module is imported.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import gc
import importlib.util
import json
import numbers
import os
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf._validation import check_non_negative_int, check_positive, check_positive_int
from paretosurf.llm import evaluation, model_loading
from paretosurf.llm._checks import (
    _check_device,
    _check_dtype,
    _check_prompts,
    _check_real,
    _check_rewards,
)
from paretosurf.llm.adapter_state import (
    AdapterState,
    adapter_digest,
    adapter_from_model,
    interpolate_adapters,
    load_adapter,
    load_adapter_into,
    save_adapter,
)
from paretosurf.llm.model_cache import (
    _BASES,
    _TOKENIZERS,
    _adopt,
    _Base,
    _count_hooks,
    _Session,
    _strip,
    clear_model_cache,
)
from paretosurf.llm.rewards import reward_name
from paretosurf.llm.solver_config import LLMSolverConfig, solver_config
from paretosurf.llm.training_log import SolveFolder, digest, log_callback
from paretosurf.solvers import Solution

__all__ = ["LLMSolver", "LLMSolverConfig", "clear_model_cache", "require_llm"]

FloatArray = np.ndarray

#: Modules of the ``llm`` extra the solver needs.
LLM_MODULES = ("torch", "transformers", "peft", "trl", "datasets", "accelerate", "safetensors")

#: RLOOConfig fields the solver sets from its own arguments (``trainer_args`` may not).
_RESERVED = frozenset(
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
#: RLOOConfig defaults of the solver, which ``trainer_args`` may change.
_DEFAULTS: dict[str, Any] = {
    "bf16": False,
    "fp16": False,
    "gradient_checkpointing": False,
    "lr_scheduler_type": "constant",
    "logging_steps": 1,
    "logging_strategy": "steps",
    "disable_tqdm": True,
}


def require_llm(what: str = "paretosurf.llm") -> None:
    """Raise an ImportError naming ``pip install 'paretosurf[llm]'`` if a module of the
    ``llm`` extra is missing (checked without importing them)."""
    missing = [m for m in LLM_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise ImportError(
            f"{what} needs {', '.join(missing)}, which "
            f"{'is' if len(missing) == 1 else 'are'} not installed: "
            "pip install 'paretosurf[llm]'"
        )


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
    config : LLMSolverConfig, optional
        The solver's settings (default: :class:`~paretosurf.llm.LLMSolverConfig`'s
        defaults); ``workdir`` and one of ``steps`` and ``epochs`` must be set.
    **settings
        The same settings as keywords (``beta=0.1, steps=20, workdir=...``), each a field of
        :class:`~paretosurf.llm.LLMSolverConfig`, where its parameters are described; given
        beside ``config`` they override its fields.

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
        config: LLMSolverConfig | None = None,
        **settings: Any,
    ) -> None:
        require_llm("LLMSolver")
        cfg = solver_config(config, settings)
        self._configure(
            model,
            rewards,
            prompts,
            **{f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg)},
        )

    def _configure(
        self,
        model: Any,
        rewards: Sequence[Callable[..., Any]],
        prompts: Any,
        *,
        beta: float,
        steps: int | None,
        epochs: float | None,
        adapter: str,
        rank: int,
        lora_alpha: float,
        lora_dropout: float,
        target_modules: str | Sequence[str],
        learning_rate: float,
        batch_size: int,
        mini_batch_size: int,
        num_generations: int,
        num_iterations: int,
        min_new_tokens: int,
        max_new_tokens: int,
        temperature: float,
        eval_prompts: Any,
        eval_batches: int,
        eval_batch_size: int,
        seed: int,
        workdir: str | os.PathLike[str] | None,
        tokenizer: Any,
        device: str | None,
        dtype: Any,
        micro_batch_size: int | None,
        trainer_args: Mapping[str, Any] | None,
        trust_remote_code: bool,
        merged_generation: bool,
        peft_config: Any,
        torch_dtype: Any,
        attn_implementation: str | None,
        quantization_config: Any,
        load_in_4bit: bool,
        chat_template: bool | str,
        report_to: str | Sequence[str],
        save_steps: int | None,
    ) -> None:
        """Check the settings and keep them as the solver's attributes (what it pickles)."""
        self.model = model_loading.check_model(model)
        self.rewards = _check_rewards(rewards)
        self.prompts = _check_prompts(prompts, name="prompts")
        self.beta = _check_real(beta, name="beta", low=0.0)
        if (steps is None) == (epochs is None):
            raise ValueError(
                "give exactly one of steps (RL optimizer steps per call) and "
                f"epochs (passes over the prompts per call); got steps={steps!r}, "
                f"epochs={epochs!r}"
            )
        self.steps = None if steps is None else check_positive_int(steps, name="steps")
        self.epochs = None if epochs is None else check_positive(epochs, name="epochs")
        if adapter not in ("lora", "dora"):
            raise ValueError(f"adapter must be 'lora' or 'dora', got {adapter!r}")
        self.adapter = adapter
        self.rank = check_positive_int(rank, name="rank")
        alpha = check_positive(lora_alpha, name="lora_alpha")
        self.lora_alpha: float | int = int(alpha) if alpha.is_integer() else alpha
        self.lora_dropout = _check_real(
            lora_dropout, name="lora_dropout", low=0.0, high=1.0, high_open=True
        )
        if isinstance(target_modules, str):
            if not target_modules:
                raise ValueError("target_modules must not be empty")
            self.target_modules: str | list[str] = target_modules
        elif (
            isinstance(target_modules, Sequence)
            and target_modules
            and all(isinstance(t, str) and t for t in target_modules)
        ):
            self.target_modules = list(target_modules)
        else:
            raise TypeError(
                "target_modules must be 'all-linear' or a non-empty list of module "
                f"names, got {target_modules!r}"
            )
        self.learning_rate = check_positive(learning_rate, name="learning_rate")
        self.batch_size = check_positive_int(batch_size, name="batch_size")
        self.mini_batch_size = check_positive_int(mini_batch_size, name="mini_batch_size")
        self.num_generations = check_positive_int(num_generations, name="num_generations")
        self.num_iterations = check_positive_int(num_iterations, name="num_iterations")
        if self.num_generations < 2:
            raise ValueError(
                "num_generations must be >= 2 (RLOO's baseline is the mean of the "
                f"other completions of a prompt), got {self.num_generations}"
            )
        if self.batch_size % self.num_generations:
            raise ValueError(
                f"batch_size ({self.batch_size}) must be a multiple of "
                f"num_generations ({self.num_generations})"
            )
        if self.batch_size % self.mini_batch_size:
            raise ValueError(
                f"batch_size ({self.batch_size}) must be a multiple of "
                f"mini_batch_size ({self.mini_batch_size})"
            )
        self.micro_batch_size = (
            self.mini_batch_size
            if micro_batch_size is None
            else check_positive_int(micro_batch_size, name="micro_batch_size")
        )
        if self.mini_batch_size % self.micro_batch_size:
            raise ValueError(
                f"mini_batch_size ({self.mini_batch_size}) must be a multiple of "
                f"micro_batch_size ({self.micro_batch_size})"
            )
        per_round = self.batch_size // self.num_generations
        if len(self.prompts) < per_round:
            raise ValueError(
                f"prompts holds {len(self.prompts)} prompts, fewer than one generation round "
                f"takes (batch_size / num_generations = {per_round})"
            )
        self.max_new_tokens = check_positive_int(max_new_tokens, name="max_new_tokens")
        self.min_new_tokens = check_non_negative_int(min_new_tokens, name="min_new_tokens")
        if self.min_new_tokens > self.max_new_tokens:
            raise ValueError(
                f"min_new_tokens ({self.min_new_tokens}) must not exceed "
                f"max_new_tokens ({self.max_new_tokens})"
            )
        self.temperature = check_positive(temperature, name="temperature")
        self.eval_prompts = (
            None if eval_prompts is None else _check_prompts(eval_prompts, name="eval_prompts")
        )
        self.eval_batches = check_positive_int(eval_batches, name="eval_batches")
        self.eval_batch_size = check_positive_int(eval_batch_size, name="eval_batch_size")
        self.seed = check_non_negative_int(seed, name="seed")
        if workdir is None or not isinstance(workdir, (str, os.PathLike)) or not os.fspath(workdir):
            raise TypeError(f"workdir must be a folder path, got {workdir!r}")
        self.workdir = os.fspath(workdir)
        if (
            tokenizer is not None
            and not isinstance(tokenizer, (str, os.PathLike))
            and not (callable(tokenizer) and hasattr(tokenizer, "batch_decode"))
        ):
            raise TypeError(
                "tokenizer must be a tokenizer, a folder or a hub name, got "
                f"{type(tokenizer).__name__}"
            )
        self.tokenizer = os.fspath(tokenizer) if isinstance(tokenizer, os.PathLike) else tokenizer
        self.device = _check_device(device)
        if torch_dtype is not None and dtype is not None:
            raise ValueError("give dtype or torch_dtype (its older name), not both")
        self.dtype = _check_dtype(dtype if torch_dtype is None else torch_dtype)
        self.attn_implementation = model_loading.check_attn_implementation(attn_implementation)
        self.quantization = model_loading.check_quantization(quantization_config, load_in_4bit)
        if model_loading.is_model_object(self.model) and (
            self.quantization is not None
            or self.attn_implementation is not None
            or dtype is not None
            or torch_dtype is not None
        ):
            raise ValueError(
                "dtype, attn_implementation and quantization apply to a model "
                "loaded by name; a model object is used as it was loaded"
            )
        self.peft_config = None
        if peft_config is not None:
            given = {
                "adapter": adapter != "lora",
                "rank": rank != 16,
                "lora_alpha": lora_alpha != 32,
                "lora_dropout": lora_dropout != 0.05,
                "target_modules": target_modules != "all-linear",
            }
            clash = [k for k, v in given.items() if v]
            if clash:
                raise ValueError(
                    f"peft_config replaces the adapter keywords; leave "
                    f"{', '.join(clash)} at their defaults"
                )
            self.peft_config = model_loading.check_peft_config(peft_config)
            self.adapter = "dora" if self.peft_config.use_dora else "lora"
            self.rank = int(self.peft_config.r)
            self.lora_alpha = self.peft_config.lora_alpha
            self.lora_dropout = float(self.peft_config.lora_dropout)
            modules: Any = self.peft_config.target_modules
            targets = modules if isinstance(modules, str) or modules is None else sorted(modules)
            self.target_modules = targets  # type: ignore[assignment]
        self.chat_template = model_loading.check_chat_template(chat_template)
        if isinstance(report_to, str):
            self.report_to: str | list[str] = report_to
        elif isinstance(report_to, Sequence) and all(isinstance(r, str) for r in report_to):
            self.report_to = list(report_to)
        else:
            raise TypeError(
                "report_to must be a name ('none', 'tensorboard', 'trackio', "
                f"'wandb', 'all') or a list of names, got {report_to!r}"
            )
        self.save_steps = (
            None if save_steps is None else check_positive_int(save_steps, name="save_steps")
        )
        if trainer_args is None:
            trainer_args = {}
        if not isinstance(trainer_args, Mapping) or not all(
            isinstance(k, str) for k in trainer_args
        ):
            raise TypeError(
                "trainer_args must be a mapping of RLOOConfig field names to "
                f"values, got {type(trainer_args).__name__}"
            )
        clash = sorted(set(trainer_args) & _RESERVED)
        if clash:
            raise ValueError(
                f"trainer_args sets {', '.join(clash)}, which LLMSolver sets from "
                "its own arguments (batch_size, mini_batch_size, steps, ...)"
            )
        kwargs = trainer_args.get("generation_kwargs") or {}
        if not isinstance(kwargs, Mapping) or {"min_new_tokens", "max_new_tokens"} & set(kwargs):
            raise ValueError(
                "trainer_args['generation_kwargs'] must be a mapping without "
                "min_new_tokens and max_new_tokens (the solver's arguments)"
            )
        self.trainer_args = dict(trainer_args)
        if not isinstance(trust_remote_code, bool):
            raise TypeError(f"trust_remote_code must be a bool, got {trust_remote_code!r}")
        self.trust_remote_code = trust_remote_code
        if not isinstance(merged_generation, bool):
            raise TypeError(f"merged_generation must be a bool, got {merged_generation!r}")
        self.merged_generation = merged_generation

    def __repr__(self) -> str:
        budget = f"steps={self.steps}" if self.steps is not None else f"epochs={self.epochs}"
        return (
            f"LLMSolver({model_loading.model_label(self.model)!r}, {budget}, "
            f"adapter={self.adapter!r}, "
            f"rank={self.rank}, beta={self.beta})"
        )

    def __getstate__(self) -> dict[str, Any]:
        if model_loading.is_model_object(self.model):
            raise TypeError(
                f"this LLMSolver holds a loaded model object "
                f"({model_loading.model_label(self.model)}), which is not sent to other "
                "processes: save it with model.save_pretrained(folder) (and the tokenizer "
                "with tokenizer.save_pretrained(folder)) and pass the folder as model, or "
                "solve in this process (the local executor)"
            )
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
        raise TypeError(
            f"{name} must be an AdapterState, an adapter folder or None, got {type(state).__name__}"
        )

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
            "weight": w,
            "call": calls,
            "start_steps": start_steps,
            "seed": seed,
            "parent": None if start is None else adapter_digest(start),
        }
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
                trained = adapter_from_model(sess.peft, calls=calls + 1, steps=start_steps + steps)
                folder.finish(adapter_digest(trained), steps)
            finally:  # a failed solve keeps its checkpoints: a retry continues from them
                trainer = None
                folder.close()
            tic = time.perf_counter()
            estimate = self._evaluate_model(sess)
            seconds["eval"] = time.perf_counter() - tic
        info = {
            "steps": steps,
            **estimate["info"],
            "train_log": log,
            "seconds": {**sess.notes, **seconds},
            "solve_dir": None if folder.private else str(folder.path),
            "resumed_from": None if resume is None else resume[0],
        }
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
                "prompts": digest(self.prompts),
                "beta": self.beta,
                "steps": self.steps,
                "epochs": self.epochs,
                "adapter": [
                    self.adapter,
                    self.rank,
                    self.lora_alpha,
                    self.lora_dropout,
                    self.target_modules,
                    peft,
                ],
                "lr": self.learning_rate,
                "batch": [self.batch_size, self.mini_batch_size, self.micro_batch_size],
                "generations": [
                    self.num_generations,
                    self.num_iterations,
                    self.min_new_tokens,
                    self.max_new_tokens,
                    self.temperature,
                ],
                "trainer_args": self.trainer_args,
                "dtype": self.dtype,
                "attn": self.attn_implementation,
                "quantization": self.quantization,
                "merged": self.merged_generation,
                "chat": self.chat_template,
                "seed": self.seed,
            }
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
            self.model,
            device=device,
            dtype=self.dtype,
            trust_remote_code=self.trust_remote_code,
            attn_implementation=self.attn_implementation,
            quantization=self.quantization,
        )
        return _Base(model, tuple(model.state_dict()), _count_hooks(model))

    @contextlib.contextmanager
    def _session(self) -> Iterator[_Session]:
        """Lend this process's base model (loading it the first time) and the tokenizer;
        afterwards strip what the call added and keep the model for the next call if it is
        unchanged."""
        require_llm("LLMSolver")
        device = self._device()
        own = model_loading.is_model_object(self.model)
        key = (
            self.model,
            self.dtype,
            device,
            self.trust_remote_code,
            self.attn_implementation,
            json.dumps(self.quantization, sort_keys=True),
        )
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
                warnings.filterwarnings(
                    "ignore", message=".*is_gradient_checkpointing", category=FutureWarning
                )
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
        return LoraConfig(
            r=self.rank,
            lora_alpha=alpha,
            lora_dropout=self.lora_dropout,
            target_modules=self.target_modules,
            use_dora=self.adapter == "dora",
            bias="none",
            task_type="CAUSAL_LM",
        )

    def _train_dataset(self, tokenizer: Any = None) -> Any:
        from datasets import Dataset

        prompts = self._templated(self.prompts, tokenizer)
        if isinstance(prompts[0], dict):  # a dataset's rows, with all its columns
            return Dataset.from_list(prompts)
        return Dataset.from_dict({"prompt": prompts})

    def _templated(self, prompts: list[Any], tokenizer: Any) -> list[Any]:
        """``prompts`` (strings, conversations or rows), their string prompts made user turns
        when the chat template applies (:func:`model_loading.uses_chat_template`)."""
        if tokenizer is None or not model_loading.uses_chat_template(tokenizer, self.chat_template):
            return prompts
        return [
            {**p, "prompt": model_loading.as_chat(p["prompt"])}
            if isinstance(p, dict)
            else model_loading.as_chat(p)
            for p in prompts
        ]

    def _trainer(
        self, sess: _Session, weight: float, seed: int, outdir: Path, *, name: str = "solve"
    ) -> Any:
        from transformers.trainer_callback import PrinterCallback, ProgressCallback
        from trl import RLOOConfig

        from paretosurf.llm.generation import rloo_trainer_class

        fields = {f.name for f in RLOOConfig.__dataclass_fields__.values()}
        unknown = sorted(set(self.trainer_args) - fields)
        if unknown:
            raise ValueError(
                f"trainer_args names {', '.join(unknown)}, which are not fields of trl.RLOOConfig"
            )
        generation_kwargs = {
            **(self.trainer_args.get("generation_kwargs") or {}),
            "min_new_tokens": self.min_new_tokens,
        }
        options = {**_DEFAULTS, **self.trainer_args}
        if "activation_checkpointing" in fields:  # transformers >= 5.x renamed the field
            options.setdefault(
                "activation_checkpointing", options.pop("gradient_checkpointing", False)
            )
            options.pop("gradient_checkpointing", None)
        micro = self.micro_batch_size
        per_round = self.batch_size // self.mini_batch_size * self.num_iterations
        saving: dict[str, Any] = {"save_strategy": "no"}
        if self.save_steps is not None:  # whole generation rounds: a resume regenerates
            saving = {
                "save_strategy": "steps",
                "save_total_limit": 2,
                "save_steps": -(-self.save_steps // per_round) * per_round,
            }
        args = {
            **options,
            **saving,
            "report_to": self.report_to,
            "run_name": name,
            "output_dir": str(outdir),
            "seed": seed,
            "use_cpu": sess.device == "cpu",
            "reward_weights": [weight, 1.0 - weight],
            "beta": self.beta,
            "num_generations": self.num_generations,
            "num_iterations": self.num_iterations,
            "per_device_train_batch_size": micro,
            "gradient_accumulation_steps": self.mini_batch_size // micro,
            "steps_per_generation": self.batch_size // micro,
            "max_completion_length": self.max_new_tokens,
            "generation_kwargs": generation_kwargs,
            "temperature": self.temperature,
            "learning_rate": self.learning_rate,
            "max_steps": -1 if self.steps is None else self.steps,
            "num_train_epochs": 1.0 if self.epochs is None else self.epochs,
        }
        config = RLOOConfig(**args)
        trainer = rloo_trainer_class(self._merged(sess))(
            model=sess.base.model,
            reward_funcs=list(self.rewards),
            args=config,
            train_dataset=self._train_dataset(sess.tokenizer),
            processing_class=sess.tokenizer,
            peft_config=self._peft_config(),
        )
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
        """The evaluation's prompts (:func:`paretosurf.llm.evaluation.eval_rows`)."""
        return evaluation.eval_rows(self, tokenizer)

    def _evaluate_model(self, sess: _Session) -> dict[str, Any]:
        """The objectives of ``sess.peft`` (:func:`paretosurf.llm.evaluation.evaluate_model`)."""
        return evaluation.evaluate_model(self, sess)


def _train_log(history: Sequence[Mapping[str, Any]]) -> list[dict[str, float]]:
    """The trainer's per-step log entries (those with a loss), numbers only."""
    out = []
    for entry in history:
        if "loss" not in entry or "step" not in entry:
            continue
        row: dict[str, float] = {
            key: float(value)
            for key, value in entry.items()
            if isinstance(value, numbers.Real) and not isinstance(value, bool)
        }
        row["step"] = int(entry["step"])
        out.append(row)
    return out
