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

    [executor]                                 # where the slots of a round run
    kind = "processes"                         # local, processes or ray
    gpus_per_slot = 1                          # one GPU per slot, its own
    workers = 8                                # slots side by side (processes only)

Relative paths (``model``, ``out``, a local prompt file or reward model) are read from the
working directory. ``torch_threads = 1`` sets torch's thread count (for small models on a CPU
with few cores, one thread is often the fastest).

The ``[executor]`` table (the command line's ``--executor``, ``--workers`` and
``--gpus-per-slot`` override it):

- ``kind``: ``local`` (default: one slot after another in this process), ``processes`` (a
  pool of ``workers`` local processes: :class:`~paretosurf.executors.ProcessExecutor`) or
  ``ray`` (one Ray task per slot, on this machine or a cluster:
  :class:`~paretosurf.executors.RayExecutor`; ``pip install 'paretosurf[llm,ray]'``);
- ``workers``: with ``processes``, how many slots train side by side (default: one per
  ``gpus_per_slot`` GPUs this machine has, else 2). Ray runs as many as its resources allow;
- ``gpus_per_slot``: GPUs each slot gets to itself (default 0: the workers see every GPU,
  as a local run does). With ``processes`` a whole number: each worker process sees only its
  own GPUs through ``CUDA_VISIBLE_DEVICES``; with ``ray`` the GPUs each task reserves (a
  fraction such as 0.5 puts two slots on a GPU). A whole number ``k > 1`` also trains each
  slot on its ``k`` GPUs as one data-parallel job of ``k`` processes: the solver's
  ``processes_per_slot`` is then ``"gpus"`` (one process per GPU the slot sees) unless the
  ``[solver]`` table sets it (``processes_per_slot = 1`` keeps one process per slot);
- the executor's other keywords: ``solve_timeout`` (any kind), ``max_retries``,
  ``threads_per_worker`` and ``devices`` (processes), ``address``, ``num_cpus``,
  ``max_retries`` and ``runtime_env`` (ray).

``max_workers`` and ``num_gpus``, the old names of ``workers`` and ``gpus_per_slot``, still work
with a ``FutureWarning``.

Reward kinds: ``summary_quality`` and ``faithfulness`` (the paper's pair; ``path`` overrides the
model), ``model`` (any sequence classifier: ``path``, ``score``, ``template``), ``word_count``
(counts of ``word`` in the completion: a toy reward for trying the pipeline on a CPU) and
``python`` (``function = "module:name"``, a callable with TRL's reward signature, or a class
whose instance is one, built with the table ``options``). Every reward takes a ``name``: the
name it is logged under (in ``train_log.jsonl``, the trackers and the figures; default: the
reward's own, ``count_apple``, ``summary_quality``, a function's name).
"""

from __future__ import annotations

import importlib
import importlib.util
import numbers
import os
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from paretosurf._utils.validation import check_positive_int
from paretosurf.llm.rewards import NamedReward, RewardModel, WordCount

__all__ = ["EXECUTOR_KINDS", "LLMConfig", "load_config"]

#: Where the solves run: ``[executor] kind`` and the command line's ``--executor``.
EXECUTOR_KINDS = ("local", "processes", "ray")
#: Worker processes of ``kind = "processes"`` without ``workers`` or GPUs.
DEFAULT_WORKERS = 2
#: The ``[executor]`` keys every kind takes, and those of each kind (its executor's keywords).
_COMMON_KEYS = frozenset({"kind", "workers", "gpus_per_slot", "solve_timeout"})
_KIND_KEYS = {
    "local": frozenset(),
    "processes": frozenset({"max_retries", "threads_per_worker", "devices"}),
    "ray": frozenset({"address", "num_cpus", "max_retries", "runtime_env"}),
}
#: Old ``[executor]`` keys and their names now (one spelling for config and command line).
_RENAMED = {"max_workers": "workers", "num_gpus": "gpus_per_slot"}


@dataclass
class LLMConfig:
    """A parsed config (see the module docstring); :meth:`build` makes the objects."""

    model: str
    out: str = "runs/llm"
    rewards: list[dict[str, Any]] = field(
        default_factory=lambda: [{"kind": "summary_quality"}, {"kind": "faithfulness"}]
    )
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
            raise ValueError(
                f"rewards must list exactly two rewards (objective 1, then "
                f"objective 2), got {len(self.rewards)}"
            )
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

    def executor_settings(
        self,
        *,
        kind: str | None = None,
        workers: int | None = None,
        gpus_per_slot: float | None = None,
    ) -> dict[str, Any]:
        """The ``[executor]`` table with the command line's overrides (``None``: not given),
        old key names renamed (with a ``FutureWarning``) and every key checked.

        When ``kind`` changes the table's kind, the table's keys that the new kind does not
        take (``workers`` or ``address``, say) are dropped.

        Raises
        ------
        ValueError, TypeError
            On an unknown kind or key, a key the kind does not take, or a bad value, naming
            the key and its command-line flag.

        Examples
        --------
        >>> from paretosurf.llm.config import LLMConfig
        >>> config = LLMConfig(model="m", executor={"kind": "processes", "workers": 4})
        >>> config.executor_settings(gpus_per_slot=1)
        {'kind': 'processes', 'workers': 4, 'gpus_per_slot': 1}
        >>> config.executor_settings(kind="ray")
        {'kind': 'ray'}
        """
        if not isinstance(self.executor, Mapping):
            raise TypeError(f"[executor] must be a table, got {type(self.executor).__name__}")
        spec = dict(self.executor)
        for old, new in _RENAMED.items():
            if old not in spec:
                continue
            if new in spec:
                raise ValueError(
                    f"[executor] gives both {old} and {new}: {old} is the old "
                    f"name of {new}; keep {new} only"
                )
            warnings.warn(
                f"[executor] {old} is now called {new} (as the command line's "
                f"--{new.replace('_', '-')}); {old} will stop working in a future "
                "release",
                FutureWarning,
                stacklevel=2,
            )
            spec[new] = spec.pop(old)
        spec.setdefault("kind", "local")
        if kind is not None and kind != spec["kind"]:  # the command line changes the kind
            if kind in _KIND_KEYS:
                spec = {k: v for k, v in spec.items() if k in _COMMON_KEYS or k in _KIND_KEYS[kind]}
                if kind != "processes":
                    spec.pop("workers", None)
            spec["kind"] = kind
        if workers is not None:
            spec["workers"] = workers
        if gpus_per_slot is not None:
            spec["gpus_per_slot"] = gpus_per_slot
        kind = spec["kind"]
        if kind not in _KIND_KEYS:
            raise ValueError(
                f"[executor] kind (--executor) must be local, processes or ray, got {kind!r}"
            )
        known = _COMMON_KEYS | _KIND_KEYS[kind]
        unknown = sorted(set(spec) - known)
        if unknown:
            raise ValueError(
                f"[executor] keys {unknown} do not apply to kind = {kind!r}, "
                f"which takes {sorted(known)}"
            )
        if spec.get("workers") is not None:
            spec["workers"] = check_positive_int(
                spec["workers"], name="[executor] workers (--workers)"
            )
            if kind != "processes":
                raise ValueError(
                    "[executor] workers (--workers) sizes the pool of kind = 'processes'; "
                    + (
                        "a local run trains one slot at a time"
                        if kind == "local"
                        else "Ray runs as many slots side by side as the "
                        "cluster's resources allow (gpus_per_slot, num_cpus)"
                    )
                    + ": drop workers, or use kind = 'processes' (--executor processes)"
                )
        if spec.get("gpus_per_slot") is not None:
            spec["gpus_per_slot"] = _gpus_per_slot(spec["gpus_per_slot"], kind)
        return spec

    def build_executor(
        self,
        *,
        kind: str | None = None,
        workers: int | None = None,
        gpus_per_slot: float | None = None,
    ) -> Any:
        """The executor of the ``[executor]`` table, with the command line's overrides
        (``--executor``, ``--workers``, ``--gpus-per-slot``; ``None``: not given). See
        :meth:`executor_settings` for the checks.

        Raises
        ------
        ImportError
            For ``kind = "ray"`` without Ray installed.

        Examples
        --------
        >>> import os
        >>> from unittest import mock
        >>> from paretosurf.llm.config import LLMConfig
        >>> config = LLMConfig(model="m", executor={"kind": "processes", "gpus_per_slot": 1})
        >>> with mock.patch.dict(os.environ, {"CUDA_VISIBLE_DEVICES": "0,1,2,3"}):
        ...     config.build_executor()        # one slot per GPU
        ...     config.build_executor(workers=2).worker_devices
        ProcessExecutor(max_workers=4, max_retries=2, threads_per_worker=None, solve_timeout=None, gpus_per_worker=1, devices=['0', '1', '2', '3'])
        (('0',), ('1',))
        """  # noqa: E501
        from paretosurf import executors
        from paretosurf.executors.process import visible_devices

        spec = self.executor_settings(kind=kind, workers=workers, gpus_per_slot=gpus_per_slot)
        kind = spec.pop("kind")
        n_workers = spec.pop("workers", None)
        gpus = spec.pop("gpus_per_slot", None) or 0
        if kind == "local":
            if gpus:
                raise ValueError(
                    "[executor] gpus_per_slot (--gpus-per-slot) gives each slot "
                    "GPUs of its own, and a local run trains one slot at a time "
                    "in this process: use kind = 'processes' or 'ray' "
                    "(--executor), or drop gpus_per_slot"
                )
            return executors.LocalExecutor(**spec)
        if kind == "processes":
            if n_workers is None and gpus:
                devices = spec.get("devices") or visible_devices() or ()
                n_workers = max(1, len(devices) // int(gpus))
            return executors.ProcessExecutor(
                DEFAULT_WORKERS if n_workers is None else n_workers,
                gpus_per_worker=int(gpus) or None,
                **spec,
            )
        if importlib.util.find_spec("ray") is None:
            raise ImportError(
                "[executor] kind = 'ray' needs Ray, which is not installed: "
                "pip install 'paretosurf[llm,ray]'"
            )
        return executors.RayExecutor(num_gpus=gpus, **spec)

    def implied_processes(
        self, *, kind: str | None = None, gpus_per_slot: float | None = None
    ) -> str | None:
        """``"gpus"`` when the executor gives each slot several whole GPUs (``[executor]
        gpus_per_slot``, or ``gpus_per_slot`` given here, a whole number above 1, with kind
        ``processes`` or ``ray``: the table's, or ``kind`` given here), else ``None``: the
        ``processes_per_slot`` that :meth:`build_solver` sets unless ``[solver]`` does. An
        ``[executor]`` table that does not check implies nothing (:meth:`build_executor`
        reports it).

        Examples
        --------
        >>> from paretosurf.llm.config import LLMConfig
        >>> config = LLMConfig(model="m", executor={"kind": "processes", "gpus_per_slot": 2})
        >>> config.implied_processes(), config.implied_processes(gpus_per_slot=1)
        ('gpus', None)
        """
        return None if self._slot_gpus(kind, gpus_per_slot) is None else "gpus"

    def _slot_gpus(self, kind: str | None, gpus_per_slot: float | None) -> int | None:
        """The whole number ``k > 1`` of GPUs the executor gives each slot, else ``None``."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # old key names: said elsewhere
            try:
                spec = self.executor_settings(kind=kind, gpus_per_slot=gpus_per_slot)
            except (ValueError, TypeError):
                return None
        gpus = spec.get("gpus_per_slot") or 0
        if spec["kind"] != "local" and float(gpus).is_integer() and gpus > 1:
            return int(gpus)
        return None

    def build_prompts(self) -> tuple[Any, Any]:
        """Training and evaluation prompts."""
        spec = dict(self.prompts)
        source = spec.pop("source", "openai/summarize_from_feedback")
        n = check_positive_int(spec.pop("n", 4096), name="[prompts] n")
        eval_n = check_positive_int(spec.pop("eval_n", 640), name="[prompts] eval_n")
        from paretosurf.llm.prompts import load_prompts

        data = load_prompts(source, n=n + eval_n, **spec)
        if len(data) <= n:
            raise ValueError(
                f"the prompts hold {len(data)} rows: not enough for n = {n} "
                f"training and eval_n = {eval_n} evaluation prompts"
            )
        return data.select(range(n)), data.select(range(n, len(data)))

    def build_solver(
        self, workdir: Path, *, kind: str | None = None, gpus_per_slot: float | None = None
    ) -> Any:
        """The solver of the ``[solver]`` table, on the prompts and the rewards.

        With ``[executor] gpus_per_slot`` (or ``gpus_per_slot``, the command line's
        ``--gpus-per-slot``, with ``kind``, its ``--executor``; ``None``: not given) a whole
        number above 1 and an executor other than ``local``, the solver trains
        each slot on its GPUs as one job of a process per GPU (``processes_per_slot =
        "gpus"``), unless ``[solver]`` sets ``processes_per_slot``.

        Raises
        ------
        ValueError, TypeError, ImportError
            On a bad ``[solver]`` setting (an unknown or missing tracker in ``report_to``,
            say), before the prompts are read.
        """
        from paretosurf.llm.solver import LLMSolver
        from paretosurf.llm.solver_config import check_processes, solver_config

        options = dict(self.solver)
        options.setdefault("epochs", 1)
        gpus = self._slot_gpus(kind, gpus_per_slot)
        if gpus is not None:
            options.setdefault("processes_per_slot", "gpus")
        settings = solver_config(None, {**options, "workdir": workdir}).resolved()  # first
        if settings.processes_per_slot == "gpus" and gpus is not None:
            check_processes(gpus, settings.mini_batch_size)  # as each slot will find
        train, evaluation = self.build_prompts()
        return LLMSolver(
            self.model,
            self.reward_functions(),
            train,
            eval_prompts=evaluation,
            workdir=workdir,
            **options,
        )


def _gpus_per_slot(value: object, kind: str) -> float:
    """``gpus_per_slot`` checked: a number >= 0, whole for ``kind = "processes"``."""
    name = "[executor] gpus_per_slot (--gpus-per-slot)"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number of GPUs >= 0, got {value!r}")
    gpus = float(value)
    if not (gpus >= 0 and gpus < float("inf")):
        raise ValueError(f"{name} must be a number of GPUs >= 0, got {value!r}")
    if kind == "processes" and not gpus.is_integer():
        raise ValueError(
            f"{name} must be a whole number of GPUs with kind = 'processes', got "
            f"{value!r}: each worker process gets whole GPUs of its own (Ray can "
            "put several slots on one GPU: kind = 'ray')"
        )
    return int(gpus) if gpus.is_integer() else gpus


def _reward(spec: Mapping[str, Any], index: int) -> Callable[..., list[float]]:
    """The reward of ``spec``, under its ``name`` when the spec gives one."""
    options = dict(spec)
    name = options.pop("name", None)
    where = f"rewards[{index}]"
    if name is None:
        return _unnamed_reward(options, where)
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{where}: name must be a non-empty string, got {name!r}")
    if options.get("kind") in ("summary_quality", "faithfulness", "model"):
        reward = _unnamed_reward({**options, "name": name.strip()}, where)
    else:
        reward = NamedReward(_unnamed_reward(options, where), name)
    return reward


def _unnamed_reward(options: dict[str, Any], where: str) -> Callable[..., list[float]]:
    kind = options.pop("kind", None)
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
        raise ValueError(
            f"{where}: kind must be summary_quality, faithfulness, model, "
            f"word_count or python, got {kind!r}"
        )
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
