"""``paretosurf llm --config FILE``: the protocol's settings in one YAML or TOML file.

A config names the policy model, its two rewards, the prompts, the solver's settings, the
protocol and where the solves run. Every key but ``model`` has a default (the paper's)::

    model = "Qwen/Qwen2.5-0.5B-Instruct"      # a hub name, or a local model folder
    out = "runs/table2"                        # the run folder (resumable)

    [[rewards]]                                # exactly two, objective 1 then objective 2
    kind = "summary_quality"                   # Tristan/gpt2_reward_summarization
    [[rewards]]
    kind = "faithfulness"                      # CogComp/bart-faithful-summary-detector

    [prompts]
    source = "openai/summarize_from_feedback"  # or a local .jsonl, .csv, .parquet file
    n = 4096                                   # training prompts
    eval_n = 640                               # evaluation prompts (taken after them)

    [solver]                                   # keywords of paretosurf.llm.LLMSolver
    epochs = 1
    beta = 0.05

    [protocol]                                 # paretosurf.llm.protocol.Protocol
    n_segments = 5

    [executor]
    kind = "ray"                               # local, processes or ray
    num_gpus = 1

Relative paths (``model``, ``out``, a local prompt file or reward model) are read from the
working directory. ``torch_threads = 1`` sets torch's thread count (for small models on a CPU
with few cores, one thread is often the fastest).

Reward kinds: ``summary_quality`` and ``faithfulness`` (the paper's pair; ``path`` overrides the
model), ``model`` (any sequence classifier: ``path``, ``score``, ``template``), ``word_count``
(counts of ``word`` in the completion: a toy reward for trying the pipeline on a CPU) and
``python`` (``function = "module:name"``, a callable with TRL's reward signature, or a class
whose instance is one, built with the table ``options``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from paretosurf._validation import check_positive_int
from paretosurf.llm.rewards import RewardModel, WordCount

__all__ = ["LLMConfig", "load_config"]


@dataclass
class LLMConfig:
    """A parsed config (see the module docstring); :meth:`build` makes the objects."""

    model: str
    out: str = "runs/llm"
    rewards: list[dict[str, Any]] = field(default_factory=lambda: [
        {"kind": "summary_quality"}, {"kind": "faithfulness"}])
    prompts: dict[str, Any] = field(default_factory=dict)
    solver: dict[str, Any] = field(default_factory=dict)
    protocol: dict[str, Any] = field(default_factory=dict)
    executor: dict[str, Any] = field(default_factory=lambda: {"kind": "local"})
    torch_threads: int | None = None

    def apply_torch_threads(self) -> None:
        """Set torch's thread count to ``torch_threads`` (if given) in this process and, through
        ``OMP_NUM_THREADS``, in the worker processes it starts. On a machine with few cores one
        thread is often much faster for small models."""
        if self.torch_threads is None:
            return
        check_positive_int(self.torch_threads, name="torch_threads")
        os.environ["OMP_NUM_THREADS"] = str(self.torch_threads)
        import torch

        torch.set_num_threads(self.torch_threads)

    def reward_functions(self) -> list[Callable[..., list[float]]]:
        """The two reward callables."""
        if len(self.rewards) != 2:
            raise ValueError(f"rewards must list exactly two rewards (objective 1, then "
                             f"objective 2), got {len(self.rewards)}")
        return [_reward(spec, i) for i, spec in enumerate(self.rewards)]

    def build_protocol(self) -> Any:
        """The :class:`~paretosurf.llm.protocol.Protocol` of the ``[protocol]`` table.

        Raises
        ------
        ValueError, TypeError
            On an unknown key or a bad value (``alpha`` outside (0, 1], say), naming the key:
            before anything is trained.
        """
        from paretosurf.llm.protocol import Protocol

        known = {f.name for f in fields(Protocol)}
        unknown = sorted(set(self.protocol) - known)
        if unknown:
            raise ValueError(f"unknown [protocol] keys {unknown}; known: {sorted(known)}")
        try:
            return Protocol(**self.protocol)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"[protocol] {exc}") from None

    def build_executor(self) -> Any:
        import paretosurf as ps

        spec = dict(self.executor)
        kind = spec.pop("kind", "local")
        if kind == "local":
            return ps.LocalExecutor()
        if kind == "processes":
            return ps.ProcessExecutor(**spec)
        if kind == "ray":
            return ps.RayExecutor(**spec)
        raise ValueError(f"[executor] kind must be local, processes or ray, got {kind!r}")

    def build_prompts(self) -> tuple[Any, Any]:
        """Training and evaluation prompts."""
        spec = dict(self.prompts)
        source = spec.pop("source", "openai/summarize_from_feedback")
        n = check_positive_int(spec.pop("n", 4096), name="[prompts] n")
        eval_n = check_positive_int(spec.pop("eval_n", 640), name="[prompts] eval_n")
        from paretosurf.llm.prompts import load_prompts

        data = load_prompts(source, n=n + eval_n, **spec)
        if len(data) <= n:
            raise ValueError(f"the prompts hold {len(data)} rows: not enough for n = {n} "
                             f"training and eval_n = {eval_n} evaluation prompts")
        return data.select(range(n)), data.select(range(n, len(data)))

    def build_solver(self, workdir: Path) -> Any:
        from paretosurf.llm.solver import LLMSolver

        train, evaluation = self.build_prompts()
        options = dict(self.solver)
        options.setdefault("epochs", 1)
        return LLMSolver(self.model, self.reward_functions(), train, eval_prompts=evaluation,
                         workdir=workdir, **options)


def _reward(spec: Mapping[str, Any], index: int) -> Callable[..., list[float]]:
    options = dict(spec)
    kind = options.pop("kind", None)
    where = f"rewards[{index}]"
    if kind == "word_count":
        _no_other_keys(options, {"word"}, where)
        return WordCount(options.get("word", ""))
    if kind == "python":
        _no_other_keys(options, {"function", "options"}, where)
        target = str(options.get("function", ""))
        module, _, name = target.partition(":")
        if not module or not name:
            raise ValueError(f"{where}: function must be 'module:name', got {target!r}")
        fn = getattr(importlib.import_module(module), name)
        arguments = dict(options.get("options", {}))
        if isinstance(fn, type):  # a reward class: its instance is the reward
            fn = fn(**arguments)
        elif arguments:
            raise ValueError(f"{where}: options are for a reward class; {target} is not one")
        if not callable(fn):
            raise TypeError(f"{where}: {target} is not callable")
        return fn
    if kind not in ("summary_quality", "faithfulness", "model"):
        raise ValueError(f"{where}: kind must be summary_quality, faithfulness, model, "
                         f"word_count or python, got {kind!r}")
    if kind == "model" and not options.get("path"):
        raise ValueError(f"{where}: kind 'model' needs a path (a folder or a hub name)")
    if kind == "summary_quality":
        return RewardModel.summary_quality(**_path(options))
    if kind == "faithfulness":
        return RewardModel.faithfulness(**_path(options))
    path = options.pop("path")
    if isinstance(options.get("score"), list):
        options["score"] = tuple(options["score"])
    if isinstance(options.get("template"), list):
        options["template"] = tuple(options["template"])
    return RewardModel(path, **options)


def _no_other_keys(options: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"{where}: unknown keys {unknown}; this kind takes {sorted(known)}")


def _path(options: dict[str, Any]) -> dict[str, Any]:
    if "path" in options:
        options["path_or_name"] = options.pop("path")
    return options


def load_config(path: str | Path) -> LLMConfig:
    """Read a YAML (``.yaml``/``.yml``) or TOML (``.toml``) config.

    Raises
    ------
    ValueError
        On an unknown key or a missing ``model``, naming it.
    """
    p = Path(path)
    text = p.read_text()
    if p.suffix in (".yaml", ".yml"):
        import yaml

        data = yaml.safe_load(text)
    elif p.suffix == ".toml":
        try:
            import tomllib
        except ModuleNotFoundError:  # pragma: no cover - Python 3.10
            import tomli as tomllib  # type: ignore[no-redef]
        data = tomllib.loads(text)
    else:
        raise ValueError(f"config must be a .yaml, .yml or .toml file, got {p.name}")
    if not isinstance(data, dict):
        raise ValueError(f"{p} must hold a table of settings")
    known = {f.name for f in fields(LLMConfig)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{p}: unknown keys {unknown}; known: {sorted(known)}")
    if "model" not in data:
        raise ValueError(f"{p}: the policy's 'model' (a folder or a hub name) is missing")
    return LLMConfig(**data)
