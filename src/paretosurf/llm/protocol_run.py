"""A finished protocol run folder, read back: its front points and the config it ran with.

:func:`~paretosurf.llm.protocol.run_protocol` (``paretosurf llm --config FILE``) leaves in its
folder every final adapter (``adapters/METHOD/slot-NN``), ``results.json`` (per method the
weights and the objectives of its slots) and ``table.md``. :class:`ProtocolRun` opens such a
folder, refusing with a clear message one that is not a run or whose run has not finished,
and lists its :class:`FrontPoint` s: method, slot, weight, adapter folder, objectives.

``paretosurf llm`` also records the config it ran with in the folder (:data:`RUN_RECORD`,
written by :func:`record_run`, its relative paths made absolute), so that ``paretosurf llm
assess DIR`` and ``paretosurf llm export DIR`` rebuild the solver and name the base model
without the config file; :meth:`ProtocolRun.config` reads it back.

Examples
--------
::

    from paretosurf.llm.protocol_run import ProtocolRun

    run = ProtocolRun.open("runs/table2")
    for point in run.points():
        print(point.method, point.slot, point.weight, point.objectives)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - typing only
    from paretosurf.llm.config import LLMConfig

__all__ = [
    "RUN_RECORD",
    "FrontPoint",
    "NotAProtocolRun",
    "ProtocolRun",
    "folder_digest",
    "record_run",
]

#: The record of the config a run folder was made with (written by ``paretosurf llm``).
RUN_RECORD = "run.json"
#: What ``run_protocol`` writes when it has finished.
RESULTS = "results.json"
ADAPTERS = "adapters"


class NotAProtocolRun(ValueError):
    """A folder that does not hold a finished protocol run (the message says what it lacks
    and what to do)."""


@dataclass(frozen=True)
class FrontPoint:
    """One policy of a run's fronts.

    Attributes
    ----------
    method : str
        ``"Uniform-w"``, ``"SURF"`` or ``"Soup"`` (the keys of ``results.json``).
    slot : int
        Its slot, 0 to N (slot 0 has ``w = 0``: all weight on reward 2).
    n_slots : int
        N + 1, the method's slots.
    weight : float
        The weight ``w`` of reward 1 it was trained at (``1 - w`` on reward 2); for Soup, the
        mixing position of the endpoints.
    adapter : Path
        Its adapter folder (``adapters/METHOD/slot-NN``).
    objectives : tuple of float or None
        Its objectives ``-(r_m - beta KL)`` as the run estimated them (``results.json``).
    objectives_no_kl : tuple of float or None
        The same without the KL term, where the run has them.
    """

    method: str
    slot: int
    n_slots: int
    weight: float
    adapter: Path
    objectives: tuple[float, ...] | None = None
    objectives_no_kl: tuple[float, ...] | None = None

    @property
    def name(self) -> str:
        """A folder name for the point: ``surf-slot-02``, ``uniform-w-slot-00``."""
        slug = "".join(c if c.isalnum() else "-" for c in self.method.lower()).strip("-")
        return f"{slug}-slot-{self.slot:02d}"


def folder_digest(folder: str | os.PathLike[str]) -> str:
    """A hex SHA-256 of a folder's files (names and bytes, in name order; not recursive):
    equal for byte-identical adapter folders.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from paretosurf.llm.protocol_run import folder_digest
    >>> with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
    ...     _ = (Path(a) / "x").write_text("1"), (Path(b) / "x").write_text("1")
    ...     folder_digest(a) == folder_digest(b)
    True
    """
    h = hashlib.sha256()
    for path in sorted(Path(folder).iterdir()):
        if path.is_file():
            h.update(path.name.encode() + b"\0")
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _absolute(value: Any, cwd: Path) -> Any:
    """``value`` as an absolute path if it is a relative path that exists under ``cwd`` (a
    hub name, which exists nowhere, stays as it is)."""
    if isinstance(value, str) and value and not os.path.isabs(value) and (cwd / value).exists():
        return str((cwd / value).resolve())
    return value


def _config_paths_absolute(data: dict[str, Any], cwd: Path) -> dict[str, Any]:
    """A config's path settings (``model``, ``out``, ``prompts.source``, rewards' ``path``,
    ``solver.tokenizer``) made absolute where they name something under ``cwd``."""
    out = json.loads(json.dumps(data, default=str))
    for key in ("model", "out"):
        out[key] = _absolute(out.get(key), cwd)
    if isinstance(out.get("prompts"), dict) and "source" in out["prompts"]:
        out["prompts"]["source"] = _absolute(out["prompts"]["source"], cwd)
    for spec in out.get("rewards") or []:
        if isinstance(spec, dict) and "path" in spec:
            spec["path"] = _absolute(spec["path"], cwd)
    if isinstance(out.get("solver"), dict) and "tokenizer" in out["solver"]:
        out["solver"]["tokenizer"] = _absolute(out["solver"]["tokenizer"], cwd)
    return out


def record_run(
    folder: str | os.PathLike[str], config: LLMConfig, config_file: str | os.PathLike[str]
) -> Path:
    """Write :data:`RUN_RECORD` into the run folder: the config (its paths made absolute,
    read from the working directory as the run reads them), the config file it came from
    and the working directory. Returns the record's path.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from paretosurf.llm.config import LLMConfig
    >>> from paretosurf.llm.protocol_run import ProtocolRun, record_run
    >>> with tempfile.TemporaryDirectory() as run:
    ...     _ = record_run(run, LLMConfig(model="Qwen/Qwen2.5-0.5B"), "table2.toml")
    ...     ProtocolRun(Path(run), {}).config().model
    'Qwen/Qwen2.5-0.5B'
    """
    from paretosurf._version import __version__

    cwd = Path.cwd()
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    record = {
        "config_file": str(Path(config_file).resolve()),
        "cwd": str(cwd),
        "config": _config_paths_absolute(dataclasses.asdict(config), cwd),
        "paretosurf": __version__,
    }
    path = target / RUN_RECORD
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)
    return path


def _numbers(row: object) -> tuple[float, ...] | None:
    if not isinstance(row, Sequence):
        return None
    return tuple(float(v) for v in row)


@dataclass(frozen=True)
class ProtocolRun:
    """A finished protocol run folder (open it with :meth:`open`).

    Attributes
    ----------
    folder : Path
        The run folder.
    results : dict
        Its ``results.json``.
    """

    folder: Path
    results: Mapping[str, Any]

    @classmethod
    def open(cls, folder: str | os.PathLike[str]) -> ProtocolRun:
        """Open the run folder ``folder``.

        Raises
        ------
        NotAProtocolRun
            If the folder does not exist, holds no protocol run, holds one that has not
            finished (no ``results.json`` yet), or its ``results.json`` or adapters are not
            what ``run_protocol`` writes; the message says which and what to do.
        """
        path = Path(folder)
        if not path.is_dir():
            raise NotAProtocolRun(
                f"{path}: no such folder (a protocol run folder is the --out of "
                "paretosurf llm --config FILE)"
            )
        results_file = path / RESULTS
        if not results_file.is_file():
            started = [name for name in ("warm", "uniform", "surf") if (path / name).is_dir()]
            if started:
                raise NotAProtocolRun(
                    f"{path}: the protocol run there has not finished (it has "
                    f"{', '.join(name + '/' for name in started)} but no {RESULTS}); finish "
                    f"it first: paretosurf llm --config FILE --out {path}"
                )
            raise NotAProtocolRun(
                f"{path} is not a protocol run folder: it has no {RESULTS} and no "
                f"{ADAPTERS}/ (paretosurf llm --config FILE --out {path} makes one)"
            )
        try:
            results = json.loads(results_file.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise NotAProtocolRun(f"{results_file}: cannot be read as JSON ({exc})") from None
        methods = results.get("methods") if isinstance(results, dict) else None
        if not isinstance(methods, dict) or not methods:
            raise NotAProtocolRun(
                f"{results_file} lists no methods: it is not the results of a protocol run"
            )
        for label, entry in methods.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("weights"), list):
                raise NotAProtocolRun(f"{results_file}: method {label!r} has no weights")
            for slot in range(len(entry["weights"])):
                adapter = path / ADAPTERS / label / f"slot-{slot:02d}"
                if not adapter.is_dir():
                    raise NotAProtocolRun(
                        f"{path}: {label}'s slot {slot} has no adapter folder {adapter} (was "
                        "it moved or deleted?)"
                    )
        return cls(path, results)

    @property
    def methods(self) -> list[str]:
        """The methods of the run, in the order of ``results.json``."""
        return list(self.results.get("methods", {}))

    def points(self, methods: Sequence[str] | None = None) -> list[FrontPoint]:
        """The front points of ``methods`` (default: all), method by method, slot by slot.

        Raises
        ------
        ValueError
            If ``methods`` names a method the run does not have.
        """
        chosen = self.methods if methods is None else list(methods)
        unknown = [m for m in chosen if m not in self.methods]
        if unknown:
            raise ValueError(
                f"the run in {self.folder} has no method {', '.join(map(repr, unknown))}; its "
                f"methods: {', '.join(self.methods)}"
            )
        out = []
        for label in chosen:
            entry = self.results["methods"][label]
            weights = entry["weights"]
            points = entry.get("points") or [None] * len(weights)
            no_kl = entry.get("points_no_kl") or [None] * len(weights)
            for slot, weight in enumerate(weights):
                out.append(
                    FrontPoint(
                        label,
                        slot,
                        len(weights),
                        float(weight),
                        self.folder / ADAPTERS / label / f"slot-{slot:02d}",
                        _numbers(points[slot]),
                        _numbers(no_kl[slot]),
                    )
                )
        return out

    def record(self) -> dict[str, Any] | None:
        """The folder's :data:`RUN_RECORD`, or ``None`` (a run from Python, or from a version
        that did not record it)."""
        path = self.folder / RUN_RECORD
        if not path.is_file():
            return None
        data: dict[str, Any] = json.loads(path.read_text())
        return data

    def config(self, config_file: str | os.PathLike[str] | None = None) -> LLMConfig:
        """The run's config: read from ``config_file`` if given, else from the folder's
        record.

        Raises
        ------
        NotAProtocolRun
            Without ``config_file`` and without a record in the folder.
        """
        from paretosurf.llm.config import LLMConfig, load_config

        if config_file is not None:
            return load_config(Path(config_file))
        record = self.record()
        if record is None:
            raise NotAProtocolRun(
                f"{self.folder} holds no record of its config ({RUN_RECORD}: a run made from "
                "Python, or by an older paretosurf): pass --config FILE, the config it ran with"
            )
        return LLMConfig(**record["config"])
