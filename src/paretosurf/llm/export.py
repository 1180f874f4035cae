"""``paretosurf llm export DIR``: each policy of a protocol run's fronts as a folder of its own.

:func:`export_run` writes, for every method and slot of a finished run folder, a folder
``OUT/METHOD-slot-NN`` (``surf-slot-02``, ``uniform-w-slot-00``, ``soup-slot-05``) holding

- the adapter, in the PEFT format (``adapter_model.safetensors``, ``adapter_config.json``,
  copied byte for byte), or with ``merged=True`` the whole model with the adapter merged into
  the base weights (``model.safetensors``, ``config.json``, ...) and its tokenizer;
- ``front_point.json``: the method, slot, weight ``w``, the objectives the run estimated
  (with and without the KL term), the rewards' names, ``beta``, the base model, the run
  folder and the adapter's digest, and where ``paretosurf llm assess`` has assessed it, the
  assessed mean rewards, KL and objectives;
- ``README.md``: a model card (Hugging Face's format, with its metadata header) saying how
  the policy was made: base model, method, weight, rewards and objective, protocol, run.

``OUT/front.json`` lists the points. Running it again writes the same folders again.

The base model, rewards and ``beta`` come from the config the run recorded
(:func:`~paretosurf.llm.protocol_run.record_run`) or a config given; without either, the base
model is the adapters' ``base_model_name_or_path`` and the rewards are called ``r1`` and
``r2``. A merged export loads the base model once, on the CPU, in the config's ``dtype``
(never quantized: the merged weights are plain ones).

Examples
--------
::

    from paretosurf.llm.export import export_run

    folders = export_run("runs/table2", merged=True)
    # runs/table2/export/surf-slot-02/ holds a model: AutoModelForCausalLM.from_pretrained(...)
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from paretosurf.llm.adapter_state import ADAPTER_CONFIG, ADAPTER_WEIGHTS
from paretosurf.llm.assess import ASSESS_FOLDER
from paretosurf.llm.protocol_run import FrontPoint, ProtocolRun, folder_digest

__all__ = ["EXPORT_FOLDER", "POINT_FILE", "export_run", "model_card"]

#: The default export folder, in the run folder.
EXPORT_FOLDER = "export"
#: A point's weight and objectives, in its export folder.
POINT_FILE = "front_point.json"

_METHODS = {
    "Uniform-w": (
        "Uniform-w: trained at the fixed weight w = slot / N for {uniform_epochs} epochs (one "
        "RLOO pass over the training prompts each) from a shared warm start of "
        "{warm_epochs} epochs at w = 0.5."
    ),
    "SURF": (
        "SURF: the weights moved by SURF so that the N + 1 policies spread evenly along the "
        "front; started from Uniform-w's epoch-{surf_init_epoch} adapters and trained for "
        "{surf_rounds} rounds of one epoch, w being this slot's weight in the last round "
        "(the endpoints, w = 0 and w = 1, are Uniform-w's final adapters)."
    ),
    "Soup": (
        "Soup (rewarded soups): not trained on its own; Uniform-w's two final endpoint "
        "adapters mixed tensor by tensor, (1 - w) * adapter(w = 0) + w * adapter(w = 1)."
    ),
}


def _reward_names(config: Any) -> list[str]:
    if config is None:
        return ["r1", "r2"]
    from paretosurf.llm.rewards import reward_name

    try:
        return [reward_name(r) for r in config.reward_functions()]
    except Exception:  # a python reward that does not import here: its config's words
        return [str(spec.get("kind", f"r{i + 1}")) for i, spec in enumerate(config.rewards)]


def _beta(config: Any) -> float | None:
    from paretosurf.llm.solver_config import LLMSolverConfig

    if config is None:
        return None
    beta = config.solver.get("beta", LLMSolverConfig.__dataclass_fields__["beta"].default)
    return float(beta)


def _protocol(config: Any) -> dict[str, Any]:
    import dataclasses

    from paretosurf.llm.protocol import Protocol

    try:
        protocol = Protocol() if config is None else config.build_protocol()
    except (TypeError, ValueError):
        protocol = Protocol()
    return dataclasses.asdict(protocol)


def _assessed(run: ProtocolRun, point: FrontPoint) -> dict[str, Any] | None:
    """The point's record from ``paretosurf llm assess``, if it assessed these adapter
    files."""
    path = run.folder / ASSESS_FOLDER / "points" / point.method / f"slot-{point.slot:02d}.json"
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text())
    except json.JSONDecodeError:
        return None
    if record.get("key", {}).get("adapter_sha256") != folder_digest(point.adapter):
        return None
    estimates = record.get("estimates", {})
    keys = ("rewards", "stderr_no_kl", "kl", "kl_stderr", "objectives", "stderr", "n_eval")
    return {k: estimates[k] for k in keys if k in estimates}


def _base_model(point: FrontPoint, config: Any) -> str | None:
    if config is not None:
        return str(config.model)
    try:
        adapter = json.loads((point.adapter / ADAPTER_CONFIG).read_text())
    except (OSError, json.JSONDecodeError):
        return None
    base = adapter.get("base_model_name_or_path")
    return None if base is None else str(base)


def _numbers(values: Sequence[float] | None) -> str:
    return "-" if values is None else ", ".join(f"{v:.4g}" for v in values)


def model_card(info: Mapping[str, Any]) -> str:
    """The README.md of an exported point, from its ``front_point.json`` content.

    Examples
    --------
    >>> from paretosurf.llm.export import model_card
    >>> card = model_card({"method": "Soup", "slot": 1, "n_slots": 3, "weight": 0.5,
    ...                    "base_model": "Qwen/Qwen2.5-0.5B", "reward_names": ["a", "b"],
    ...                    "beta": 0.05, "objectives": [-1.0, -2.0], "merged": False,
    ...                    "run": "runs/x", "source": "adapters/Soup/slot-01", "protocol": {},
    ...                    "paretosurf_version": "0.1.0"})
    >>> print(card.splitlines()[1])
    base_model: Qwen/Qwen2.5-0.5B
    >>> "(1 - w) * adapter(w = 0) + w * adapter(w = 1)" in card
    True
    """
    r1, r2 = info["reward_names"]
    weight = float(info["weight"])
    base = info.get("base_model") or "(unknown base model)"
    merged = bool(info.get("merged"))
    beta = info.get("beta")
    beta_text = "beta" if beta is None else f"beta = {beta:g}"
    protocol = dict(info.get("protocol") or {})
    described = _METHODS.get(info["method"], f"{info['method']}.")
    try:
        described = described.format(**protocol)
    except (KeyError, IndexError):
        described = described.split(":")[0] + "."
    header = ["---", f"base_model: {base}"]
    header += ["library_name: transformers" if merged else "library_name: peft"]
    header += ["tags:", "- paretosurf", "- pareto-front", "- multi-objective", "- rloo", "- trl"]
    header += ["- lora", "---", ""]
    what = (
        "a whole model: the LoRA adapter merged into the base weights"
        if merged
        else "a LoRA adapter of the base model (PEFT format)"
    )
    lines = [
        f"# {info['method']} policy, slot {info['slot']} of {info['n_slots']}: w = {weight:.4g}",
        "",
        f"One of the {info['n_slots']} policies of a Pareto front between two rewards, "
        f"`{r1}` and `{r2}`, made with paretosurf's LLM protocol. This folder holds {what}.",
        "",
        "## How it was made",
        "",
        f"- Base model: `{base}`, frozen; only the adapter was trained.",
        f"- Objective: maximize `w * {r1} + (1 - w) * {r2} - {beta_text} * KL(policy || base)` "
        f"with w = {weight:.6g}, by RLOO (TRL) on a LoRA adapter.",
        f"- Method: {described}",
        f"- Run: `{info.get('run')}` (`{info.get('source')}`), paretosurf "
        f"{info.get('paretosurf_version')}.",
    ]
    if protocol:
        settings = ", ".join(f"{k} = {v}" for k, v in protocol.items())
        lines.append(f"- Protocol: {settings}.")
    lines += [
        "",
        "## Objectives",
        "",
        f"| | {r1} | {r2} |",
        "|---|---|---|",
        f"| objective -(reward - beta KL), as the run estimated it | "
        f"{' | '.join(_numbers(info.get('objectives')).split(', '))} |",
    ]
    if info.get("objectives_no_kl") is not None:
        lines.append(
            f"| -reward, without the KL term | "
            f"{' | '.join(_numbers(info['objectives_no_kl']).split(', '))} |"
        )
    assessed = info.get("assessment")
    if assessed and assessed.get("rewards") is not None:
        lines.append(
            f"| mean reward (paretosurf llm assess) | "
            f"{' | '.join(_numbers(assessed['rewards']).split(', '))} |"
        )
        if assessed.get("kl") is not None:
            lines += ["", f"KL to the base model (assessed): {assessed['kl']:.4g}."]
    lines += ["", "Objectives are minimized (negated rewards); rewards are maximized.", ""]
    lines += ["## Use", "", "```python"]
    if merged:
        lines += [
            "from transformers import AutoModelForCausalLM, AutoTokenizer",
            "",
            'model = AutoModelForCausalLM.from_pretrained("path/to/this/folder")',
            'tokenizer = AutoTokenizer.from_pretrained("path/to/this/folder")',
        ]
    else:
        lines += [
            "from peft import PeftModel",
            "from transformers import AutoModelForCausalLM",
            "",
            f'base = AutoModelForCausalLM.from_pretrained("{base}")',
            'model = PeftModel.from_pretrained(base, "path/to/this/folder")',
        ]
    lines += ["```", ""]
    return "\n".join(header + lines)


def _clear(folder: Path) -> None:
    """Make ``folder`` empty for a point's files: an earlier export is replaced, anything
    else refused."""
    if not folder.exists():
        return
    if not folder.is_dir() or (any(folder.iterdir()) and not (folder / POINT_FILE).is_file()):
        raise FileExistsError(
            f"{folder} exists and is not a point exported by paretosurf (no {POINT_FILE}): "
            "choose another export folder"
        )
    shutil.rmtree(folder)


class _Merger:
    """The base model, loaded once, and each adapter merged into a copy of it."""

    def __init__(self, base: str, config: Any, dtype: str | None) -> None:
        from paretosurf.llm import model_loading

        solver = {} if config is None else dict(config.solver)
        trust = bool(solver.get("trust_remote_code", False))
        chosen = dtype or solver.get("dtype") or solver.get("torch_dtype") or "float32"
        self.model = model_loading.load_base_model(
            base,
            device="cpu",
            dtype=str(chosen).removeprefix("torch."),
            trust_remote_code=trust,
        )
        tokenizer = solver.get("tokenizer")
        source = tokenizer if isinstance(tokenizer, str) else base
        self.tokenizer = model_loading.load_tokenizer(source, trust_remote_code=trust)

    def save(self, adapter: Path, target: Path) -> None:
        from peft import PeftModel

        model = PeftModel.from_pretrained(copy.deepcopy(self.model), str(adapter))
        merged = model.merge_and_unload()
        merged.save_pretrained(target)
        self.tokenizer.save_pretrained(target)


def export_run(
    run: str | os.PathLike[str] | ProtocolRun,
    out: str | os.PathLike[str] | None = None,
    *,
    merged: bool = False,
    methods: Sequence[str] | None = None,
    config: Any = None,
    dtype: str | None = None,
    log: Callable[[str], None] | None = None,
) -> list[Path]:
    """Export every front point of a finished protocol run (see the module docstring).

    Parameters
    ----------
    run : path or ProtocolRun
        The run folder.
    out : path, optional
        Where the points' folders go (default: ``DIR/export``).
    merged : bool
        Write each point as a whole model, its adapter merged into the base weights (loads
        the base model), instead of the adapter.
    methods : sequence of str, optional
        The methods to export (default: all of the run's).
    config : LLMConfig, optional
        The run's config (default: the one the run folder recorded, if any).
    dtype : str, optional
        The dtype of a merged model (default: the config's solver ``dtype``, else float32).
    log : callable, optional
        Called with a line of text per point.

    Returns
    -------
    list of Path
        The points' folders, method by method and slot by slot.

    Raises
    ------
    paretosurf.llm.protocol_run.NotAProtocolRun
        If ``run`` is not a finished protocol run folder.
    ValueError
        If ``merged`` and no base model is known, or ``methods`` names a method the run
        does not have.
    FileExistsError
        If a point's folder exists and holds something other than an earlier export.
    """
    from paretosurf._version import __version__

    opened = run if isinstance(run, ProtocolRun) else ProtocolRun.open(run)
    if config is None and opened.record() is not None:
        config = opened.config()
    say = log or (lambda line: None)
    target = opened.folder / EXPORT_FOLDER if out is None else Path(out)
    points = opened.points(methods)
    names = _reward_names(config)
    beta = _beta(config)
    protocol = _protocol(config)
    merger: _Merger | None = None
    if merged:
        base = _base_model(points[0], config)
        if base is None:
            raise ValueError(
                f"a merged export needs the base model, and {opened.folder} names none (no "
                "recorded config, no base_model_name_or_path in the adapters): pass --config"
            )
        say(f"loading the base model {base} to merge the adapters into")
        merger = _Merger(base, config, dtype)
    folders, index = [], []
    for point in points:
        folder = target / point.name
        _clear(folder)
        folder.mkdir(parents=True)
        if merger is not None:
            merger.save(point.adapter, folder)
        else:
            for name in (ADAPTER_WEIGHTS, ADAPTER_CONFIG):
                shutil.copyfile(point.adapter / name, folder / name)
        info = {
            "method": point.method,
            "slot": point.slot,
            "n_slots": point.n_slots,
            "weight": point.weight,
            "reward_names": names,
            "beta": beta,
            "objectives": None if point.objectives is None else list(point.objectives),
            "objectives_no_kl": (
                None if point.objectives_no_kl is None else list(point.objectives_no_kl)
            ),
            "assessment": _assessed(opened, point),
            "base_model": _base_model(point, config),
            "merged": merged,
            "adapter_sha256": folder_digest(point.adapter),
            "run": str(opened.folder.resolve()),
            "source": point.adapter.relative_to(opened.folder).as_posix(),
            "protocol": protocol,
            "paretosurf_version": __version__,
        }
        (folder / POINT_FILE).write_text(json.dumps(info, indent=1, sort_keys=True) + "\n")
        (folder / "README.md").write_text(model_card(info))
        index.append(
            {k: info[k] for k in ("method", "slot", "weight", "objectives")}
            | {"folder": point.name}
        )
        folders.append(folder)
        say(f"exported {point.method} slot {point.slot} (w = {point.weight:.4g}) to {folder}")
    (target / "front.json").write_text(json.dumps(index, indent=1) + "\n")
    return folders
