"""The LLM inner solver: RLOO fine-tuning of a PEFT adapter on ``w*r1 + (1-w)*r2 - beta*KL``.

:class:`LLMSolver` solves the scalarized alignment problem of the paper's LLM experiment for
one weight: it fine-tunes a LoRA (or DoRA) adapter of a frozen causal language model with
TRL's ``RLOOTrainer`` for a fixed budget, warm-started from the slot's previous adapter, and
estimates the two KL-regularized objectives of the result on evaluation prompts. The state is
the adapter (:class:`~paretosurf.llm.AdapterState`), saved as a PEFT adapter folder, so a run
keeps its warm starts as folders and no model-sized object is pickled.

The solver's settings are one dataclass, :class:`~paretosurf.llm.LLMSolverConfig`
(:mod:`paretosurf.llm.solver_config`, as TRL's ``RLOOConfig`` beside its trainer), also taken
as keywords, which checks itself; the process's cache of base models is
:mod:`paretosurf.llm.model_cache`, the estimate of an adapter's objectives
:mod:`paretosurf.llm.evaluation` (plain functions of the settings), the checks of the other
inputs ``paretosurf.llm._checks``, and the seeds of its random streams
``paretosurf.llm._streams``.

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
import logging
import math
import numbers
import os
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paretosurf.llm import evaluation, model_loading
from paretosurf.llm._checks import _check_prompts, _check_real, _check_rewards
from paretosurf.llm._streams import stream_seed
from paretosurf.llm._trackers import run_group, tracking
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
from paretosurf.llm.rewards import reward_log_names, reward_name
from paretosurf.llm.solver_config import LLMSolverConfig, check_processes, solver_config
from paretosurf.llm.training_log import SolveFolder, digest, log_callback, prune_callback
from paretosurf.solvers import Solution

__all__ = ["LLMSolver", "LLMSolverConfig", "clear_model_cache", "require_llm"]

FloatArray = np.ndarray

_LOG = logging.getLogger(__name__)

#: Modules of the ``llm`` extra the solver needs.
LLM_MODULES = ("torch", "transformers", "peft", "trl", "datasets", "accelerate", "safetensors")

#: The settings a solver keeps as attributes of the same names: LLMSolverConfig's fields but
#: the shorthands that resolving folds into others (the quantization is kept as
#: ``quantization``).
_KEPT = tuple(
    f.name
    for f in dataclasses.fields(LLMSolverConfig)
    if f.name not in ("quantization_config", "load_in_4bit", "torch_dtype")
)
#: The file of a distributed solve's result (rank 0 writes it, the solve reads it).
_RESULT = "result.json"
#: The random stream (beside the solver seed and the rank) of each rank's sampling.
_RANK_STREAM = 0x52414E4B
#: RLOOConfig defaults of the solver, which ``trainer_args`` may change.
_DEFAULTS: dict[str, Any] = {
    "bf16": False,
    "fp16": False,
    "gradient_checkpointing": False,
    "lr_scheduler_type": "constant",
    "logging_steps": 1,
    "logging_strategy": "steps",
    "disable_tqdm": True,
    "ddp_find_unused_parameters": False,  # a slot on several processes: every LoRA weight is used
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
      ``reward`` (the weighted reward without the KL term), ``rewards/<name>/mean`` for each
      reward (its name: :func:`~paretosurf.llm.rewards.reward_log_names`, e.g.
      ``rewards/count_apple/mean``), ``kl`` (TRL's mean *per-token* log-ratio), ``entropy``,
      completion lengths... (the reward and KL metrics on the steps that generated);
    - ``"seconds"``: wall time of the call's parts;
    - ``"solve_dir"``: the solve's folder in ``workdir`` (``solves/<tag>``), which keeps its
      ``train_log.jsonl`` (every TRL log entry, one JSON line each; see
      :mod:`paretosurf.llm.training_log` and its ``plot_training_curves``) and, while it
      runs, its checkpoints; ``"resumed_from"``: the checkpoint step it continued from, if
      any;
    - ``"processes"``: in a solve trained by several processes (``processes_per_slot``), how
      many; its ``"seconds"`` are rank 0's, with ``"ranks"``, the job's wall time.

    :meth:`evaluate` and :meth:`assess` estimate the same for any adapter without training
    (the Soup baseline's mixtures), :meth:`interpolate` mixes two adapters, and
    :meth:`save_state` / :meth:`load_state` keep adapters as PEFT folders.

    Every process loads the base model once and lends it to each call (the adapter layers
    and TRL's patches are removed afterwards and the model checked unchanged, else reloaded);
    each call builds and drops its own trainer, so nothing accumulates across calls. With
    ``processes_per_slot`` above 1 a call trains in that many fresh processes instead (one
    data-parallel job, :mod:`paretosurf.llm.distributed`), which load the model for the call;
    the calling process loads none.

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

    # What a solver keeps (and pickles): its checked inputs, and its settings as
    # LLMSolverConfig.resolved() gives them, under the same names (``quantization`` is the
    # resolved ``quantization_config``).
    model: Any
    rewards: tuple[Callable[..., Any], Callable[..., Any]]
    prompts: list[Any]
    beta: float
    steps: int | None
    epochs: float | None
    adapter: str
    rank: int
    lora_alpha: float | int
    lora_dropout: float
    target_modules: str | list[str]
    learning_rate: float
    batch_size: int
    mini_batch_size: int
    num_generations: int
    num_iterations: int
    min_new_tokens: int
    max_new_tokens: int
    temperature: float
    eval_prompts: list[Any] | None
    eval_batches: int
    eval_batch_size: int
    seed: int
    workdir: str
    tokenizer: Any
    device: str | None
    dtype: str
    micro_batch_size: int
    trainer_args: dict[str, Any]
    trust_remote_code: bool
    merged_generation: bool
    peft_config: Any
    attn_implementation: str | None
    quantization: dict[str, Any] | None
    chat_template: bool | str
    report_to: str | list[str]
    save_steps: int | str | None
    processes_per_slot: int | str

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
        self._configure(model, rewards, prompts, solver_config(config, settings))

    def _configure(
        self,
        model: Any,
        rewards: Sequence[Callable[..., Any]],
        prompts: Any,
        config: LLMSolverConfig,
    ) -> None:
        """Check the inputs and keep them, with the resolved settings, as the solver's
        attributes (what it pickles)."""
        self.model = model_loading.check_model(model)
        self.rewards = _check_rewards(rewards)
        self.prompts = _check_prompts(prompts, name="prompts")
        settings = config.resolved()
        per_round = settings.batch_size // settings.num_generations
        if len(self.prompts) < per_round:
            raise ValueError(
                f"prompts holds {len(self.prompts)} prompts, fewer than one generation round "
                f"takes (batch_size / num_generations = {per_round})"
            )
        if model_loading.is_model_object(self.model) and (
            settings.quantization_config is not None
            or settings.attn_implementation is not None
            or config.dtype is not None
            or config.torch_dtype is not None
        ):
            raise ValueError(
                "dtype, attn_implementation and quantization apply to a model "
                "loaded by name; a model object is used as it was loaded"
            )
        if model_loading.is_model_object(self.model) and settings.processes_per_slot != 1:
            raise ValueError(
                f"processes_per_slot={settings.processes_per_slot!r} trains each slot in "
                "processes of its own, which load the model by name: save the model with "
                "model.save_pretrained(folder) and pass the folder as model"
            )
        self.__dict__.update({name: getattr(settings, name) for name in _KEPT})
        self.quantization = settings.quantization_config

    def _config(self) -> LLMSolverConfig:
        """The solver's settings (its attributes, as they are now) as a resolved config."""
        return LLMSolverConfig(
            **{name: getattr(self, name) for name in _KEPT},
            quantization_config=self.quantization,
        )

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
        seed = stream_seed(self.seed, calls)
        identity: dict[str, Any] = {
            "weight": w,
            "call": calls,
            "start_steps": start_steps,
            "seed": seed,
            "parent": None if start is None else adapter_digest(start),
        }
        identity["key"] = digest({**identity, "settings": self._fingerprint()})
        tag = f"e{calls:03d}-w{w:.4f}-{identity['key'][:12]}"
        planned, save_every = self._save_plan()
        identity.update(  # recorded in solve.json, not part of the key
            rewards=list(reward_log_names(self.rewards)),
            planned_steps=planned,
            save_steps=save_every,
        )
        processes = self._processes()
        if processes > 1:
            return self._solve_ranks(processes, w, start, identity, tag, save_every)
        seconds: dict[str, float] = {}
        with self._session() as sess:
            tic = time.perf_counter()
            folder = SolveFolder.open(self.workdir, identity, tag=tag)
            try:
                resume = folder.last_checkpoint()
                with self._tracking(folder, calls, w) as extra:
                    trainer = self._trainer(
                        sess, w, seed, folder.path, name=tag, save_every=save_every, extra=extra
                    )
                    sess.peft = trainer.accelerator.unwrap_model(trainer.model)
                    if start is not None:
                        load_adapter_into(sess.peft, start)
                    folder.start_log(None if resume is None else resume[0])
                    _say_start(folder, identity, tag, resume, self._steps_per_epoch())
                    trainer.add_callback(log_callback(folder.path / "train_log.jsonl", identity))
                    trainer.add_callback(prune_callback(folder, keep=2))
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

    # ------------------------------------------------------------------ a slot on k processes
    def _processes(self) -> int:
        """How many processes train a solve (``processes_per_slot`` resolved on this
        machine).

        Raises
        ------
        ValueError
            If the solve's device has fewer GPUs than ``processes_per_slot`` asks for, or
            ``"gpus"`` finds a number of GPUs that does not divide ``mini_batch_size``.
        """
        wanted = getattr(self, "processes_per_slot", 1)  # a solver pickled before it existed
        if wanted == 1:
            return 1
        device = self._device()
        gpus = 0
        if device.startswith("cuda"):
            import torch

            gpus = torch.cuda.device_count()
        if wanted == "gpus":
            processes = max(gpus, 1)
            check_processes(processes, self.mini_batch_size)
            return processes
        processes = int(wanted)
        if device.startswith("cuda") and gpus < processes:
            raise ValueError(
                f"processes_per_slot={processes} needs {processes} GPUs, one per process, "
                f"and this solve sees {gpus} (CUDA_VISIBLE_DEVICES="
                f"{os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')}): give the slot more GPUs "
                "(the executor's gpus_per_slot), or fewer processes"
            )
        return processes

    def _solve_ranks(
        self,
        processes: int,
        weight: float,
        start: AdapterState | None,
        identity: dict[str, Any],
        tag: str,
        save_every: int | None,
    ) -> Solution:
        """:meth:`solve` as one distributed job of ``processes`` processes
        (:func:`paretosurf.llm.distributed.run_ranks`), each running :meth:`_solve_rank`.

        This process keeps the solve folder (its lock, the start of its log, the finish) and
        hands the warm start and the result over through files in a private temporary
        folder; the ranks train, and rank 0 logs, checkpoints and evaluates."""
        from paretosurf.llm.distributed import run_ranks

        require_llm("LLMSolver")
        tic = time.perf_counter()
        cuda = self._device() != "cpu"
        if cuda:
            _free_gpu_bases()
        folder = SolveFolder.open(self.workdir, identity, tag=tag)
        try:
            resume = folder.last_checkpoint()
            folder.start_log(None if resume is None else resume[0])
            _say_start(folder, identity, tag, resume, self._steps_per_epoch())
            with tempfile.TemporaryDirectory(prefix="paretosurf-slot-") as tmp:
                exchange = Path(tmp)
                if start is not None:
                    save_adapter(start, exchange / "start")
                job = {
                    "weight": weight,
                    "identity": identity,
                    "tag": tag,
                    "folder": str(folder.path),
                    "private": folder.private,
                    "save_every": save_every,
                    "resume": None if resume is None else str(resume[1]),
                    "start": None if start is None else str(exchange / "start"),
                    "exchange": str(exchange),
                    "processes": processes,
                    "cuda": cuda,
                }
                _LOG.info(
                    "solve %s: training on %d processes (%s)",
                    tag,
                    processes,
                    "NCCL, a GPU each" if cuda else "gloo, on the CPU",
                )
                launch = time.perf_counter()
                run_ranks(self._solve_rank, (job,), processes=processes)
                result = json.loads((exchange / _RESULT).read_text())
                trained = load_adapter(exchange / "adapter")
            folder.finish(adapter_digest(trained), int(result["steps"]))
        finally:  # a failed solve keeps its checkpoints: a retry continues from them
            folder.close()
        seconds = {
            **result["seconds"],
            "launch": launch - tic,
            "ranks": time.perf_counter() - launch,
        }
        info = {
            "steps": int(result["steps"]),
            **result["info"],
            "train_log": result["train_log"],
            "seconds": seconds,
            "solve_dir": None if folder.private else str(folder.path),
            "resumed_from": None if resume is None else resume[0],
            "processes": processes,
        }
        return Solution(np.asarray(result["objectives"], dtype=np.float64), trained, info)

    def _solve_rank(self, rank: int, job: Mapping[str, Any]) -> None:
        """Rank ``rank`` of a distributed solve (in a process of its own, on a copy of the
        solver): train with the job's share of every batch; rank 0 also logs, evaluates and
        writes the trained adapter and the result into ``job["exchange"]``."""
        import torch

        self.device = f"cuda:{rank}" if job["cuda"] else "cpu"
        if job["cuda"]:
            torch.cuda.set_device(rank)
        identity = job["identity"]
        weight, seed = float(job["weight"]), int(identity["seed"])
        start = None if job["start"] is None else load_adapter(job["start"])
        # the launching process holds the folder's lock; the ranks only write into it
        folder = SolveFolder(Path(job["folder"]), dict(identity), bool(job["private"]))
        calls = 0 if start is None else start.calls
        start_steps = 0 if start is None else start.steps
        seconds: dict[str, float] = {}
        with self._session() as sess:
            tic = time.perf_counter()
            with self._tracking(folder, calls, weight) as extra:
                trainer = self._trainer(
                    sess,
                    weight,
                    seed,
                    folder.path,
                    name=job["tag"],
                    save_every=job["save_every"],
                    extra=extra,
                    processes=int(job["processes"]),
                )
                sess.peft = trainer.accelerator.unwrap_model(trainer.model)
                if start is not None:
                    load_adapter_into(sess.peft, start)
                # on every rank: they must agree on when to checkpoint (only rank 0 writes)
                trainer.add_callback(log_callback(folder.path / "train_log.jsonl", identity))
                trainer.add_callback(prune_callback(folder, keep=2))
                if rank:  # the trainer seeded every rank alike: each samples its own
                    torch.manual_seed(stream_seed(seed, _RANK_STREAM, rank))
                seconds["setup"] = time.perf_counter() - tic
                tic = time.perf_counter()
                trainer.train(resume_from_checkpoint=job["resume"])
                seconds["train"] = time.perf_counter() - tic
            steps = int(trainer.state.global_step)
            log = _train_log(trainer.state.log_history)
            trainer = None
            if rank:
                return
            trained = adapter_from_model(sess.peft, calls=calls + 1, steps=start_steps + steps)
            tic = time.perf_counter()
            estimate = self._evaluate_model(sess)
            seconds["eval"] = time.perf_counter() - tic
        exchange = Path(job["exchange"])
        save_adapter(trained, exchange / "adapter")
        result = {
            "steps": steps,
            "objectives": [float(v) for v in estimate["objectives"]],
            "info": estimate["info"],
            "train_log": log,
            "seconds": {**sess.notes, **seconds},
        }
        (exchange / f".{_RESULT}.tmp").write_text(json.dumps(result))
        os.replace(exchange / f".{_RESULT}.tmp", exchange / _RESULT)

    def _tracking(self, folder: SolveFolder, calls: int, weight: float) -> Any:
        """The trackers of one solve (``report_to``): one group per run, a tracker run per
        solve tagged with its slot-epoch (``calls + 1``) and weight (see
        :func:`~paretosurf.llm._trackers.tracking`)."""
        return tracking(
            self.report_to,
            group=run_group(self.workdir),
            tags={"epoch": calls + 1, "w": f"{weight:.4g}"},
            logging_dir=folder.path / "runs",
            trainer_args=self.trainer_args,
        )

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

            torch.manual_seed(stream_seed(self.seed, 0))
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

        prompts = model_loading.templated_prompts(self.prompts, tokenizer, self.chat_template)
        if isinstance(prompts[0], dict):  # a dataset's rows, with all its columns
            return Dataset.from_list(prompts)
        return Dataset.from_dict({"prompt": prompts})

    def _steps_per_epoch(self) -> int:
        """Optimizer steps of one pass over the prompts, as TRL counts them: whole
        generation rounds of ``batch_size / num_generations`` prompts (a last partial one is
        dropped), ``batch_size / mini_batch_size * num_iterations`` steps each."""
        per_round = self.batch_size // self.mini_batch_size * self.num_iterations
        rounds = len(self.prompts) * self.num_generations // self.batch_size
        return max(rounds, 1) * per_round

    def _rank_batches(self, processes: int = 1) -> tuple[int, int, int]:
        """``(per_device_train_batch_size, gradient_accumulation_steps,
        steps_per_generation)`` of each of ``processes`` processes, which keep the
        generation round (``batch_size``) and the optimizer step (``mini_batch_size``) of
        one process: each takes ``1/processes`` of both, ``micro_batch_size`` completions
        per pass at most.

        Examples
        --------
        >>> from paretosurf.llm.solver import LLMSolver
        >>> solver = LLMSolver.__new__(LLMSolver)
        >>> solver.batch_size, solver.mini_batch_size, solver.micro_batch_size = 64, 16, 8
        >>> solver._rank_batches(1), solver._rank_batches(2), solver._rank_batches(4)
        ((8, 2, 8), (8, 1, 4), (4, 1, 4))
        """
        mini = self.mini_batch_size // processes
        micro = math.gcd(self.micro_batch_size, mini)
        return micro, mini // micro, self.batch_size // processes // micro

    def _save_plan(self) -> tuple[int, int | None]:
        """``(steps, save_every)``: the optimizer steps of one call, and the checkpoint
        interval in steps (whole generation rounds) or ``None`` (no checkpoints); see
        ``save_steps`` in :class:`~paretosurf.llm.LLMSolverConfig`."""
        per_round = self.batch_size // self.mini_batch_size * self.num_iterations
        epoch = self._steps_per_epoch()
        call = self.steps if self.steps is not None else math.ceil((self.epochs or 1.0) * epoch)
        if self.save_steps is None:
            return call, None
        if self.save_steps == "auto":
            every = max(min(min(call, epoch) // 2, 200) // per_round * per_round, per_round)
            return call, (every if every < call else None)  # none for a one-round solve
        every = -(-int(self.save_steps) // per_round) * per_round
        if every >= call:
            warnings.warn(
                f"save_steps={self.save_steps} is not below the {call} optimizer steps of a "
                "solve: no checkpoint is written before a solve ends, and a solve killed "
                "midway starts over; save_steps='auto' (the default) fits the epoch",
                UserWarning,
                stacklevel=3,
            )
        return call, every

    def _trainer(
        self,
        sess: _Session,
        weight: float,
        seed: int,
        outdir: Path,
        *,
        name: str = "solve",
        save_every: int | str | None = "plan",
        extra: Mapping[str, Any] | None = None,
        processes: int = 1,
    ) -> Any:
        from transformers.trainer_callback import PrinterCallback, ProgressCallback
        from trl import RLOOConfig

        from paretosurf.llm.generation import rloo_trainer_class, samples_merged

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
        micro, accumulation, per_generation = self._rank_batches(processes)
        if save_every == "plan":
            save_every = self._save_plan()[1]
        saving: dict[str, Any] = {"save_strategy": "no"}
        if save_every is not None:  # whole generation rounds: a resume regenerates
            # the newest two are kept by the solve's prune_callback, not save_total_limit
            saving = {"save_strategy": "steps", "save_steps": save_every}
        args = {
            **options,
            **(extra or {}),
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
            "gradient_accumulation_steps": accumulation,
            "steps_per_generation": per_generation,
            "max_completion_length": self.max_new_tokens,
            "generation_kwargs": generation_kwargs,
            "temperature": self.temperature,
            "learning_rate": self.learning_rate,
            "max_steps": -1 if self.steps is None else self.steps,
            "num_train_epochs": 1.0 if self.epochs is None else self.epochs,
        }
        config = RLOOConfig(**args)
        trainer = rloo_trainer_class(samples_merged(self.merged_generation, sess.base.model))(
            model=sess.base.model,
            reward_funcs=list(self.rewards),
            args=config,
            train_dataset=self._train_dataset(sess.tokenizer),
            processing_class=sess.tokenizer,
            peft_config=self._peft_config(),
        )
        for callback in (PrinterCallback, ProgressCallback):
            trainer.remove_callback(callback)
        # the rewards' own names (``rewards/<name>/mean``), made distinct
        trainer.reward_func_names = list(reward_log_names(self.rewards))
        model = trainer.accelerator.unwrap_model(trainer.model)
        # the KL must be measured against the base model: TRL's reference is the model with
        # its adapters disabled, never a copied "ref" adapter nor a separate model
        if "ref" in model.peft_config or trainer.ref_model is not None:
            raise RuntimeError("RLOOTrainer built a reference other than the base model")
        return trainer

    # ------------------------------------------------------------------ evaluation
    def _eval_rows(self, tokenizer: Any = None) -> list[dict[str, Any]]:
        """The evaluation's prompts (:func:`paretosurf.llm.evaluation.eval_rows`)."""
        return evaluation.eval_rows(self._config(), self.prompts, tokenizer)

    def _evaluate_model(self, sess: _Session) -> dict[str, Any]:
        """The objectives of ``sess.peft`` (:func:`paretosurf.llm.evaluation.evaluate_model`)."""
        return evaluation.evaluate_model(
            self._config(), sess, rewards=self.rewards, prompts=self.prompts
        )


def _free_gpu_bases() -> None:
    """Drop the base models this process keeps on a GPU (:meth:`LLMSolver.evaluate` and
    :meth:`LLMSolver.assess` load one), whose memory the ranks of a distributed solve need
    (rank 0 shares the first GPU with this process)."""
    gone = [key for key in _BASES if str(key[2]).startswith("cuda")]
    if not gone:
        return
    for key in gone:
        del _BASES[key]
    import torch

    gc.collect()
    torch.cuda.empty_cache()


def _say_start(
    folder: SolveFolder,
    identity: Mapping[str, Any],
    tag: str,
    resume: tuple[int, Path] | None,
    epoch_steps: int,
) -> None:
    """Say where a solve starts: its plan of steps and checkpoints, or the checkpoint it
    resumes from (the ``paretosurf.llm.solver`` logger, and a line of ``train_log.jsonl``)."""
    planned, every = identity["planned_steps"], identity["save_steps"]
    saving = "no checkpoints" if every is None else f"a checkpoint every {every} steps"
    if resume is None:
        _LOG.info("solve %s: %d optimizer steps, %s (%s)", tag, planned, saving, folder.path)
        folder.note("start", 0, planned_steps=planned, save_steps=every)
        return
    step = resume[0]
    epoch = step / epoch_steps
    _LOG.warning(
        "solve %s resumed from %s: optimizer step %d of %d (epoch %.2f of the solve; the "
        "adapter's slot-epoch %d), %s",
        tag,
        resume[1].name,
        step,
        planned,
        epoch,
        int(identity["call"]) + 1,
        saving,
    )
    folder.note(
        "resumed", step, checkpoint=resume[1].name, planned_steps=planned, epoch=round(epoch, 4)
    )


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
