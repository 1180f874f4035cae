"""Files on disk: result files and run folders, written atomically and checked when read.

This module stores dictionaries of JSON-able values and numpy arrays; it knows nothing about
methods or results (:mod:`paretosurf.result` and :mod:`paretosurf.driver` encode those), so
it sits below everything that saves.

A **file pair** is ``<stem>.json`` (metadata, human-readable) and ``<stem>.npz`` (arrays). The
``.npz`` is written first, the ``.json`` last; the ``.json`` records the ``.npz``'s SHA-256, so a
truncated or swapped array file is detected when read, never half-loaded.

A **run folder** (``checkpoint=DIR``) belongs to one run::

    run.json                  the method's name and every setting (written once)
    history.jsonl             one line per completed round (appended, never rewritten)
    rounds/round-000012.npz   that round's arrays (weights, points, ...)
    state-000013.json/.npz    everything needed to continue after 13 rounds
    LATEST                    names the newest complete state (``state-000013``)

Each round appends its record and writes one state of constant size, so the bytes written
grow linearly with the number of rounds. Only the two newest states are kept; pruning touches
only this layout's own file names, and never the state that ``LATEST`` names.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import pickle
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "CheckpointError",
    "RunFolder",
    "SavedRun",
    "decode_pickled",
    "encode_pickled",
    "from_json_floats",
    "read_pair",
    "to_json_floats",
    "write_pair",
]

#: Format tag and version of result files and run folders.
FORMAT = "paretosurf"
VERSION = 2

_MANIFEST = "run.json"
_HISTORY = "history.jsonl"
_ROUNDS = "rounds"
_LATEST = "LATEST"
_STATE = re.compile(r"^state-(\d{6})\.(json|npz)$")
#: Files of the format-1 checkpoints written by paretosurf 0.1.
_LEGACY = re.compile(r"^iter-\d{6}\.(json|npz)$")
#: How many state saves a run folder keeps.
_KEEP = 2


class CheckpointError(ValueError):
    """A file or run folder is corrupt, incomplete, of another format, or of another run."""


# ---------------------------------------------------------------------------- atomic writes
def atomic_write(target: Path, write: Callable[[IO[Any]], object], mode: str = "wb") -> None:
    """Write ``target`` through a temporary file in the same folder, fsync it, then rename:
    a reader (or a crash) sees either the old file or the complete new one."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _npz_bytes(arrays: Mapping[str, NDArray[Any]]) -> bytes:
    buffer = io.BytesIO()
    named: dict[str, Any] = dict(arrays)
    np.savez_compressed(buffer, **named)
    return buffer.getvalue()


def _load_npz(path: Path, digest: str | None) -> dict[str, NDArray[Any]]:
    """All arrays of ``path``, after checking its SHA-256 against ``digest`` (if given)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CheckpointError(f"{path} is missing") from None
    if digest is not None and hashlib.sha256(data).hexdigest() != digest:
        raise CheckpointError(f"{path} is corrupt or was replaced (its SHA-256 does not match "
                              "the one recorded when it was written)")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return {key: npz[key] for key in npz.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise CheckpointError(f"{path} is corrupt or truncated: {exc}") from None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise CheckpointError(f"{path} is missing") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{path} is corrupt or truncated: {exc}") from None


def _dump_json(value: Any) -> str:
    return json.dumps(value, indent=1, allow_nan=False)


# ---------------------------------------------------------------------------- value codecs
def to_json_floats(value: Any) -> Any:
    """``value`` with non-finite floats spelled ``"nan"``, ``"inf"``, ``"-inf"`` (strict JSON).

    Examples
    --------
    >>> from paretosurf.checkpoint import from_json_floats, to_json_floats
    >>> to_json_floats({"cv": float("nan"), "gaps": [1.0, float("inf")]})
    {'cv': 'nan', 'gaps': [1.0, 'inf']}
    >>> from_json_floats(to_json_floats([float("-inf")]))
    [-inf]
    """
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: to_json_floats(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_floats(v) for v in value]
    return value


def from_json_floats(value: Any) -> Any:
    """Inverse of :func:`to_json_floats`."""
    if isinstance(value, str) and value in ("nan", "inf", "-inf"):
        return float(value)
    if isinstance(value, dict):
        return {k: from_json_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json_floats(v) for v in value]
    return value


def encode_pickled(value: Any) -> NDArray[np.uint8]:
    """``value`` pickled into a byte array (the storage of arbitrary solver states)."""
    return np.frombuffer(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), dtype=np.uint8)


def decode_pickled(data: NDArray[Any]) -> Any:
    """Inverse of :func:`encode_pickled`. Unpickling runs code: read only files you trust."""
    return pickle.loads(np.asarray(data, dtype=np.uint8).tobytes())


# ---------------------------------------------------------------------------- file pairs
def _stem(path: str | Path) -> Path:
    p = Path(path)
    return p.with_suffix("") if p.suffix in (".json", ".npz") else p


def write_pair(path: str | Path, meta: Mapping[str, Any],
               arrays: Mapping[str, NDArray[Any]]) -> tuple[Path, Path]:
    """Write ``<path>.json`` (``meta`` plus format tags) and ``<path>.npz`` (``arrays``).

    The ``.npz`` is written first and the ``.json``, which names it and records its SHA-256,
    last; both atomically. Returns the two paths.
    """
    stem = _stem(path)
    json_path, npz_path = stem.with_suffix(".json"), stem.with_suffix(".npz")
    blob = _npz_bytes(arrays)
    full = {"format": FORMAT, "version": VERSION, **meta, "arrays": npz_path.name,
            "arrays_sha256": hashlib.sha256(blob).hexdigest()}
    text = _dump_json(to_json_floats(full))
    atomic_write(npz_path, lambda fh: fh.write(blob))
    atomic_write(json_path, lambda fh: fh.write(text), mode="w")
    return json_path, npz_path


def read_pair(path: str | Path) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
    """Read a pair written by :func:`write_pair` (``path`` with or without extension).

    Raises
    ------
    FileNotFoundError
        If there is no ``<path>.json``.
    CheckpointError
        If either file is corrupt, truncated, or of another format or a newer version.
    """
    json_path = _stem(path).with_suffix(".json")
    if not json_path.exists():
        raise FileNotFoundError(f"no saved paretosurf file at {json_path}")
    meta = from_json_floats(_read_json(json_path))
    _check_format(meta, json_path)
    arrays = _load_npz(json_path.parent / meta["arrays"], meta.get("arrays_sha256"))
    return meta, arrays


def _check_format(meta: Any, path: Path) -> None:
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path} is not a paretosurf file")
    if meta.get("format") == "paretosurf-state":
        raise CheckpointError(f"{path} was written by paretosurf 0.1 (format version 1), which "
                              "this version does not read; run it again")
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a paretosurf file")
    if int(meta.get("version", 0)) > VERSION:
        raise CheckpointError(f"{path} has format version {meta['version']}; this paretosurf "
                              f"reads up to version {VERSION}")


# ---------------------------------------------------------------------------- run folders
@dataclass
class SavedRun:
    """What :meth:`RunFolder.load` read: the manifest, the newest state and the history.

    ``records`` holds one ``(scalars, arrays)`` pair per completed round, in order.
    """

    manifest: dict[str, Any]
    meta: dict[str, Any]
    arrays: dict[str, NDArray[Any]]
    records: list[tuple[dict[str, Any], dict[str, NDArray[Any]]]]


class RunFolder:
    """The files of one run in ``path`` (see the module docstring for the layout).

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> from paretosurf.checkpoint import RunFolder
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = RunFolder(tmp)
    ...     folder.create({"method": "surf", "settings": {"n_segments": 4}})
    ...     folder.append_round(0, {"cv": 0.5}, {"weights": np.linspace(0, 1, 5)})
    ...     _ = folder.save_state(1, {"n_solves": 5}, {})
    ...     saved = folder.load()
    >>> saved.manifest["method"], saved.meta["n_solves"], len(saved.records)
    ('surf', 5, 1)
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise NotADirectoryError(f"checkpoint must be a folder, but {self.path} is a file")

    # ------------------------------------------------------------------ what is there
    def holds_run(self) -> bool:
        """Whether the folder holds a run (of this or an older version)."""
        if not self.path.is_dir():
            return False
        if (self.path / _MANIFEST).exists() or (self.path / _LATEST).exists():
            return True
        return any(_LEGACY.match(p.name) for p in self.path.iterdir())

    def manifest(self) -> dict[str, Any]:
        """The run's ``run.json``: method name and settings."""
        path = self.path / _MANIFEST
        if not path.exists():
            if self.holds_run():
                raise CheckpointError(
                    f"{self.path} holds a checkpoint of paretosurf 0.1 (format version 1), "
                    "which this version cannot resume; use another folder or overwrite=True")
            raise CheckpointError(f"{self.path} holds no run")
        meta = from_json_floats(_read_json(path))
        _check_format(meta, path)
        return dict(meta)

    def n_rounds(self) -> int:
        """Rounds saved in the newest state (0 if none)."""
        latest = self._latest_name()
        if latest is None:
            return 0
        return int(_read_json(self.path / f"{latest}.json").get("n_rounds", 0))

    def describe(self) -> str:
        """A short description of the run in the folder, for messages."""
        try:
            manifest = self.manifest()
        except CheckpointError as exc:
            return str(exc)
        try:
            rounds = self.n_rounds()
        except CheckpointError:
            rounds = 0
        settings = ", ".join(f"{k}={v!r}" for k, v in manifest.get("settings", {}).items())
        return (f"a {manifest.get('label', manifest.get('method'))} run ({settings}) with "
                f"{rounds} round(s) saved")

    # ------------------------------------------------------------------ writing
    def create(self, manifest: Mapping[str, Any]) -> None:
        """Start a new run: write ``run.json`` (the folder must not hold a run)."""
        if self.holds_run():
            raise FileExistsError(f"checkpoint folder {self.path} already holds "
                                  f"{self.describe()}")
        self.path.mkdir(parents=True, exist_ok=True)
        text = _dump_json(to_json_floats({"format": FORMAT, "version": VERSION, **manifest}))
        atomic_write(self.path / _MANIFEST, lambda fh: fh.write(text), mode="w")

    def clear(self) -> None:
        """Delete the run's own files (and nothing else the folder holds)."""
        if not self.path.is_dir():
            return
        for p in self.path.iterdir():
            if p.name in (_MANIFEST, _HISTORY, _LATEST) or _STATE.match(p.name) \
                    or _LEGACY.match(p.name):
                p.unlink()
            elif p.name == _ROUNDS and p.is_dir():
                shutil.rmtree(p)

    def _round_path(self, index: int) -> Path:
        return self.path / _ROUNDS / f"round-{index:06d}.npz"

    def append_round(self, index: int, scalars: Mapping[str, Any],
                     arrays: Mapping[str, NDArray[Any]]) -> None:
        """Save round ``index``: its arrays as a file of their own, its scalars as one more
        line of ``history.jsonl`` (with the arrays' SHA-256)."""
        blob = _npz_bytes(arrays)
        atomic_write(self._round_path(index), lambda fh: fh.write(blob))
        line = json.dumps(to_json_floats({**scalars, "round": index,
                                          "arrays_sha256": hashlib.sha256(blob).hexdigest()}),
                          allow_nan=False)
        with open(self.path / _HISTORY, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def truncate_history(self, n_rounds: int) -> None:
        """Keep the first ``n_rounds`` lines of ``history.jsonl`` (drops a round that was
        appended after the newest state was saved, e.g. by a run killed in between)."""
        path = self.path / _HISTORY
        if not path.exists():
            return
        with open(path, "rb+") as fh:
            offset = 0
            for _ in range(n_rounds):
                line = fh.readline()
                if not line.endswith(b"\n"):
                    raise CheckpointError(f"{path} holds fewer than {n_rounds} rounds")
                offset += len(line)
            fh.truncate(offset)
            fh.flush()
            os.fsync(fh.fileno())

    def save_state(self, n_rounds: int, meta: Mapping[str, Any],
                   arrays: Mapping[str, NDArray[Any]]) -> Path:
        """Save the state after ``n_rounds`` rounds, point ``LATEST`` at it, prune older ones."""
        name = f"state-{n_rounds:06d}"
        write_pair(self.path / name, {**meta, "n_rounds": n_rounds}, arrays)
        atomic_write(self.path / _LATEST, lambda fh: fh.write(name), mode="w")
        self._prune(n_rounds)
        return self.path / name

    def _prune(self, newest: int) -> None:
        numbers = sorted({int(m.group(1)) for p in self.path.iterdir()
                          if (m := _STATE.match(p.name))})
        keep = {n for n in numbers if n <= newest}
        keep = set(sorted(keep)[-_KEEP:]) | {newest}
        for n in numbers:
            if n not in keep:
                for suffix in (".json", ".npz"):
                    (self.path / f"state-{n:06d}{suffix}").unlink(missing_ok=True)

    # ------------------------------------------------------------------ reading
    def _latest_name(self) -> str | None:
        latest = self.path / _LATEST
        if not latest.exists():
            return None
        name = latest.read_text().strip()
        if not re.fullmatch(r"state-\d{6}", name):
            raise CheckpointError(f"{latest} names {name!r}, not a state of this format")
        return name

    def load(self) -> SavedRun:
        """The manifest, the newest complete state and the history up to it.

        Raises
        ------
        CheckpointError
            If a file is missing, corrupt or truncated, or the folder holds no saved state.
        """
        manifest = self.manifest()
        name = self._latest_name()
        if name is None:
            raise CheckpointError(f"{self.path} holds a run but no saved state")
        meta, arrays = read_pair(self.path / name)
        n_rounds = int(meta["n_rounds"])
        records = []
        history = self.path / _HISTORY
        lines = history.read_text().splitlines() if history.exists() else []
        if len(lines) < n_rounds:
            raise CheckpointError(f"{history} holds {len(lines)} rounds but the saved state "
                                  f"{name} needs {n_rounds}")
        for index, line in enumerate(lines[:n_rounds]):
            try:
                scalars = from_json_floats(json.loads(line))
            except json.JSONDecodeError as exc:
                raise CheckpointError(f"{history} line {index + 1} is corrupt: {exc}") from None
            records.append((scalars, _load_npz(self._round_path(index),
                                               scalars.pop("arrays_sha256", None))))
        return SavedRun(manifest, meta, arrays, records)
