"""Files on disk: result files and run folders, written atomically and checked when read.

This module stores dictionaries of JSON-able values and numpy arrays; it knows nothing about
methods or results (:mod:`paretosurf.result` and :mod:`paretosurf.driver` encode those), so
it sits below everything that saves.

A **file pair** is ``<stem>.json`` (metadata, human-readable) and ``<stem>.npz`` (arrays). The
``.npz`` is written first, the ``.json`` last; the ``.json`` records the ``.npz``'s SHA-256, so a
truncated or swapped array file is detected when read, never half-loaded.

A **run folder** (``checkpoint=DIR``) belongs to one run::

    run.json                  the method's name and every setting (written once)
    history.jsonl             one line per completed round: its scalars (appended)
    rounds.bin                the rounds' arrays, raw, where their history lines say (appended)
    solves.jsonl              one line per solve attempt: round, slot, weight, objectives,
                              seconds, attempt, host, pid, error (appended)
    state.0, state.1          everything needed to continue, written in turn, in place
    states/round-000012/...   solver states kept as folders (solvers with save_state)

A checkpoint appends the lines of the rounds since the last one to each log and rewrites one
state file, of a size that does not grow with the round number, so the bytes a run writes grow
linearly with its rounds. (A run saves every round, or, when its rounds are much shorter than a
checkpoint's cost, every few rounds: see ``checkpoint_period`` in
:func:`paretosurf.driver.run`.) The two state files take turns: a write cut short (a killed
process, a crashed machine) leaves the other one, a checkpoint older, intact, and a CRC tells
which is whole; resuming uses the newest whole one and drops any round logged after it.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import math
import os
import pickle
import re
import shutil
import warnings
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "MANIFEST",
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

#: The file of a run folder that records its method and settings.
MANIFEST = "run.json"
_HISTORY = "history.jsonl"
_ROUND_ARRAYS = "rounds.bin"
_SOLVES = "solves.jsonl"
_STATES = "states"
#: The two state files, written in turn.
_STATE_FILES = ("state.0", "state.1")
_STATE_MAGIC = b"PARETOSURF-STATE\n"
#: Files of the checkpoints of paretosurf 0.1, recognised so that they are never mixed up.
_LATEST = "LATEST"
_ROUNDS = "rounds"
_LEGACY = re.compile(r"^iter-\d{6}\.(json|npz)$")
_OLD_STATE = re.compile(r"^state-\d{6}\.(json|npz|bin)$")


class CheckpointError(ValueError):
    """A file or run folder is corrupt, incomplete, of another format, or of another run."""


# ---------------------------------------------------------------------------- atomic writes
def atomic_write(target: Path, write: Callable[[IO[Any]], object], mode: str = "wb", *,
                 sync: bool = True) -> None:
    """Write ``target`` through a temporary file in the same folder, then rename it: a reader,
    or a process killed at any moment, sees either the old file or the complete new one.
    ``sync`` also flushes the file to the disk first (``fsync``), so that the new file
    survives a crash of the machine."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, mode) as fh:
            write(fh)
            if sync:
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


def _pack(arrays: Mapping[str, NDArray[Any]]) -> tuple[bytes, dict[str, Any]]:
    """Arrays as one blob of their raw bytes and an index (dtype, shape, offset) for JSON.

    Checkpoints write a state every round, and a zip file (``.npz``) of many small arrays costs
    about a millisecond to build; the raw blob costs a few microseconds per array. Result files,
    written once, stay ``.npz`` for other tools to read.
    """
    parts, index, offset = [], {}, 0
    for name, value in arrays.items():
        arr = np.asarray(value)       # (np.ascontiguousarray would make a 0-d array 1-d)
        if arr.dtype.hasobject:
            raise TypeError(f"array {name!r} holds Python objects and cannot be stored raw")
        index[name] = [arr.dtype.str, list(arr.shape), offset]
        parts.append(arr.tobytes(order="C"))
        offset += arr.nbytes
    return b"".join(parts), index


def _unpack(blob: bytes, index: Mapping[str, Any], path: Path) -> dict[str, NDArray[Any]]:
    out = {}
    for name, (dtype, shape, offset) in index.items():
        dt = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        if offset + count * dt.itemsize > len(blob):
            raise CheckpointError(f"{path} is truncated (array {name!r} runs past its end)")
        # a copy: a view of the blob would be read-only, and a resumed solver may update
        # its state in place
        out[name] = np.frombuffer(blob, dtype=dt, count=count, offset=offset).reshape(
            shape).copy()
    return out


def _read_bytes(path: Path, digest: str | None) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CheckpointError(f"{path} is missing") from None
    if digest is not None and hashlib.sha256(data).hexdigest() != digest:
        raise CheckpointError(f"{path} is corrupt or was replaced (its SHA-256 does not match "
                              "the one recorded when it was written)")
    return data


def _load_npz(path: Path, digest: str | None) -> dict[str, NDArray[Any]]:
    """All arrays of ``path``, after checking its SHA-256 against ``digest`` (if given)."""
    data = _read_bytes(path, digest)
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
def pair_stem(path: str | Path) -> Path:
    """``path`` without a ``.json`` or ``.npz`` extension; any other dot belongs to the name
    (``alpha0.3`` names the pair ``alpha0.3.json``/``alpha0.3.npz``)."""
    p = Path(path)
    return p.with_name(p.stem) if p.suffix in (".json", ".npz") else p


def with_extension(stem: Path, extension: str) -> Path:
    """``stem`` with ``extension`` appended (``Path.with_suffix`` would replace whatever
    follows a dot in the name)."""
    return stem.with_name(stem.name + extension)


def write_pair(path: str | Path, meta: Mapping[str, Any],
               arrays: Mapping[str, NDArray[Any]], *, packed: bool = False,
               sync: bool = True) -> tuple[Path, Path]:
    """Write ``<path>.json`` (``meta`` plus format tags) and the arrays: ``<path>.npz``
    (compressed), or with ``packed`` one raw ``<path>.bin`` indexed in the JSON (fast, for
    checkpoints).

    The arrays are written first and the ``.json``, which names them and records their
    SHA-256, last; both atomically (``sync``: and flushed to the disk). Returns the two paths.
    """
    stem = pair_stem(path)
    json_path = with_extension(stem, ".json")
    extra: dict[str, Any] = {}
    if packed:
        blob, extra["arrays_index"] = _pack(arrays)
        data_path = with_extension(stem, ".bin")
    else:
        blob = _npz_bytes(arrays)
        data_path = with_extension(stem, ".npz")
    full = {"format": FORMAT, "version": VERSION, **meta, "arrays": data_path.name,
            "arrays_sha256": hashlib.sha256(blob).hexdigest(), **extra}
    text = (json.dumps(to_json_floats(full), allow_nan=False, separators=(",", ":"))
            if packed else _dump_json(to_json_floats(full)))
    atomic_write(data_path, lambda fh: fh.write(blob), sync=sync)
    atomic_write(json_path, lambda fh: fh.write(text), mode="w", sync=sync)
    return json_path, data_path


def read_pair(path: str | Path) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
    """Read a pair written by :func:`write_pair` (``path`` with or without extension).

    Raises
    ------
    FileNotFoundError
        If there is no ``<path>.json``.
    CheckpointError
        If either file is corrupt, truncated, or of another format or a newer version.
    """
    json_path = with_extension(pair_stem(path), ".json")
    if not json_path.exists():
        raise FileNotFoundError(f"no saved paretosurf file at {json_path}")
    meta = from_json_floats(_read_json(json_path))
    _check_format(meta, json_path)
    data_path = json_path.parent / meta["arrays"]
    if "arrays_index" in meta:
        blob = _read_bytes(data_path, meta.get("arrays_sha256"))
        return meta, _unpack(blob, meta["arrays_index"], data_path)
    return meta, _load_npz(data_path, meta.get("arrays_sha256"))


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


def _json_line(value: Mapping[str, Any]) -> str:
    """One compact JSON line; non-finite floats spelled out only when there are any."""
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"))
    except ValueError:
        return json.dumps(to_json_floats(dict(value)), allow_nan=False, separators=(",", ":"))


_SOLVE_KEYS = ("round", "call", "attempt", "slot", "weight", "objectives", "seconds", "host",
               "pid", "error", "killed", "time")


#: A solve-log line of finite floats, as ``%``-format (``%r`` of a float is exact JSON).
_SOLVE_FORMAT = ('{"round":%d,"call":%d,"attempt":%d,"slot":%d,"weight":%r,"objectives":%s,'
                 '"seconds":%r,"host":%s,"pid":%d,"error":%s,"killed":%s,"time":%r}\n')


def _solve_line(line: Mapping[str, Any]) -> str:
    """One line of the solve log. A run writes one per solve: when the line has exactly the
    log's keys and finite float numbers it is formatted directly, a few times faster than
    :func:`json.dumps`; anything else goes through it."""
    if tuple(line) != _SOLVE_KEYS:
        return _json_line(line) + "\n"
    rnd, call, attempt, slot, weight, objectives, seconds, host, pid, error, killed, at = (
        line.values())
    numbers = (weight, seconds, at, *(objectives or ()))
    if not all(type(v) is float for v in numbers) or not math.isfinite(sum(numbers)):
        return _json_line(line) + "\n"  # a sum is finite only if every term is
    objs = "null" if objectives is None else "[" + ",".join(map(repr, objectives)) + "]"
    return _SOLVE_FORMAT % (rnd, call, attempt, slot, weight, objs, seconds,
                            _json_string(str(host)), pid,
                            "null" if error is None else json.dumps(error),
                            "true" if killed else "false", at)


@functools.lru_cache(maxsize=64)
def _json_string(text: str) -> str:
    """A JSON string literal (host names repeat on every line of the solve log)."""
    return json.dumps(text)


class RunFolder:
    """The files of one run in ``path`` (see the module docstring for the layout).

    During a run the two log files and the two state files stay open: a round costs one
    append to ``history.jsonl``, one to ``solves.jsonl`` and one write of a state file in
    place, whatever the number of rounds. The two state files take turns, so a write cut
    short by a crash leaves the other one, a round older, intact; each is checked by a CRC
    when read.

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> from paretosurf.checkpoint import RunFolder
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = RunFolder(tmp)
    ...     folder.create({"method": "surf", "settings": {"n_segments": 4}})
    ...     folder.append_round(0, {"cv": 0.5}, {"weights": np.linspace(0, 1, 5)})
    ...     _ = folder.save_state(1, {"n_solves": 5}, {"x": np.ones(3)})
    ...     folder.close()
    ...     saved = folder.load()
    >>> saved.manifest["method"], saved.meta["n_solves"], len(saved.records)
    ('surf', 5, 1)
    >>> saved.records[0][1]["weights"].tolist(), saved.arrays["x"].tolist()
    ([0.0, 0.25, 0.5, 0.75, 1.0], [1.0, 1.0, 1.0])
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise NotADirectoryError(f"checkpoint must be a folder, but {self.path} is a file")
        #: Whether writes are flushed to the disk (``fsync``) before they count as done.
        #: A killed process cannot leave the folder inconsistent either way; a run turns this
        #: off for rounds so short that redoing one costs less than syncing.
        self.durable = True
        self._handles: dict[str, IO[Any]] = {}

    # ------------------------------------------------------------------ what is there
    def holds_run(self) -> bool:
        """Whether the folder holds a run (of this or an older version)."""
        if not self.path.is_dir():
            return False
        if any((self.path / name).exists() for name in (MANIFEST, _LATEST, *_STATE_FILES)):
            return True
        return any(_LEGACY.match(p.name) for p in self.path.iterdir())

    def manifest(self) -> dict[str, Any]:
        """The run's ``run.json``: method name and settings."""
        path = self.path / MANIFEST
        if not path.exists() or (self.path / _LATEST).exists():
            if (self.path / _LATEST).exists() or any(
                    _LEGACY.match(p.name) for p in self.path.iterdir()):
                raise CheckpointError(
                    f"{self.path} holds a checkpoint of paretosurf 0.1, which this version "
                    "cannot resume; use another folder or overwrite=True")
            if self.holds_run():
                raise CheckpointError(
                    f"{self.path} holds a run's state files but not its {MANIFEST}, which "
                    "records the run's method and settings: without it the run can be "
                    "neither resumed nor read; put the file back, or use another folder or "
                    "overwrite=True")
            raise CheckpointError(f"{self.path} holds no run")
        meta = from_json_floats(_read_json(path))
        _check_format(meta, path)
        return dict(meta)

    def has_state(self) -> bool:
        """Whether a state file was written (a run killed before its first checkpoint has
        none); :meth:`load` checks that it is whole."""
        return any((self.path / name).exists() for name in _STATE_FILES)

    def n_rounds(self) -> int:
        """Rounds saved in the newest valid state (0 if none)."""
        found = self._newest_state()
        return 0 if found is None else int(found[0]["n_rounds"])

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
        atomic_write(self.path / MANIFEST, lambda fh: fh.write(text), mode="w")

    def clear(self) -> None:
        """Delete the run's own files (and nothing else the folder holds)."""
        self.close()
        if not self.path.is_dir():
            return
        for p in self.path.iterdir():
            if p.name in (MANIFEST, _HISTORY, _ROUND_ARRAYS, _SOLVES, _LATEST, *_STATE_FILES) \
                    or _LEGACY.match(p.name) or _OLD_STATE.match(p.name):
                p.unlink()
            elif p.name in (_ROUNDS, _STATES) and p.is_dir():
                shutil.rmtree(p)

    def _handle(self, name: str, mode: str) -> IO[Any]:
        fh = self._handles.get(name)
        if fh is None or fh.closed:
            self.path.mkdir(parents=True, exist_ok=True)
            fh = open(self.path / name, mode)
            self._handles[name] = fh
        return fh

    def close(self) -> None:
        """Close the files a run keeps open (reopened on the next write)."""
        for fh in self._handles.values():
            fh.close()
        self._handles.clear()

    def _append(self, name: str, data: bytes) -> int:
        """Append ``data`` to the file ``name``; returns the offset it starts at."""
        fh = self._handle(name, "ab")
        at = fh.tell()
        fh.write(data)
        fh.flush()
        if self.durable:
            os.fsync(fh.fileno())
        return at

    def append_round(self, index: int, scalars: Mapping[str, Any],
                     arrays: Mapping[str, NDArray[Any]]) -> None:
        """Save round ``index``: its arrays appended to ``rounds.bin``, then one more line of
        ``history.jsonl`` with its scalars and where its arrays are (and their CRC)."""
        self.append_rounds(index, [(scalars, arrays)])

    def append_rounds(self, first: int, rounds: Sequence[tuple[Mapping[str, Any],
                                                              Mapping[str, NDArray[Any]]]]
                      ) -> None:
        """Save rounds ``first``, ``first + 1``, ... as :meth:`append_round` does, with one
        append to each file."""
        if not rounds:
            return
        at = self._handle(_ROUND_ARRAYS, "ab").tell()
        blobs, lines = [], []
        for offset, (scalars, arrays) in enumerate(rounds):
            blob, index_of = _pack(arrays)
            lines.append(_json_line({**scalars, "round": first + offset, "arrays_at": at,
                                     "arrays_size": len(blob), "arrays_crc": zlib.crc32(blob),
                                     "arrays_index": index_of}) + "\n")
            blobs.append(blob)
            at += len(blob)
        self._append(_ROUND_ARRAYS, b"".join(blobs))
        self._append(_HISTORY, "".join(lines).encode())

    def append_solves(self, lines: Sequence[Mapping[str, Any]]) -> None:
        """Append one line per solve attempt to ``solves.jsonl`` (the run's solve log)."""
        self._append(_SOLVES, "".join(_solve_line(line) for line in lines).encode())

    def repair_solves(self) -> None:
        """Cut a last line of ``solves.jsonl`` that a killed run left half written, so that
        the next appended line starts on a line of its own."""
        _cut_partial_line(self.path / _SOLVES)

    def solves(self) -> list[dict[str, Any]]:
        """The solve log, one dict per attempt (lines cut short by a crash are skipped)."""
        path = self.path / _SOLVES
        if not path.exists():
            return []
        out = []
        for line in path.read_text().splitlines():
            try:
                out.append(from_json_floats(json.loads(line)))
            except json.JSONDecodeError:
                continue
        return out

    def truncate_history(self, n_rounds: int) -> None:
        """Keep the first ``n_rounds`` lines of ``history.jsonl`` (drops a round that was
        appended after the newest state was saved, e.g. by a run killed in between)."""
        self.close()
        path = self.path / _HISTORY
        if not path.exists():
            return
        end = 0
        with open(path, "rb+") as fh:
            offset = 0
            for _ in range(n_rounds):
                line = fh.readline()
                if not line.endswith(b"\n"):
                    raise CheckpointError(f"{path} holds fewer than {n_rounds} rounds")
                offset += len(line)
                record = json.loads(line)
                end = int(record["arrays_at"]) + int(record["arrays_size"])
            fh.truncate(offset)
        arrays = self.path / _ROUND_ARRAYS
        if arrays.exists() and arrays.stat().st_size > end:
            with open(arrays, "rb+") as fh:
                fh.truncate(end)

    def save_state(self, n_rounds: int, meta: Mapping[str, Any],
                   arrays: Mapping[str, NDArray[Any]]) -> Path:
        """Save the state after ``n_rounds`` rounds into the state file of its turn, in place
        (the other file keeps the state of the round before)."""
        blob, index = _pack(arrays)
        header = _json_line({"format": FORMAT, "version": VERSION, **meta,
                             "n_rounds": n_rounds, "arrays_index": index}).encode()
        body = len(header).to_bytes(8, "little") + header + blob
        name = _STATE_FILES[n_rounds % 2]
        fh = self._handle(name, "r+b" if (self.path / name).exists() else "w+b")
        fh.seek(0)
        fh.write(_STATE_MAGIC + zlib.crc32(body).to_bytes(4, "little")
                 + len(body).to_bytes(8, "little") + body)
        fh.flush()  # bytes past the new length (an older, longer state) are never read
        if self.durable:
            os.fsync(fh.fileno())
        return self.path / name

    # ------------------------------------------------------------------ reading
    def _read_state(self, name: str) -> tuple[dict[str, Any], bytes] | str:
        """The state in ``name`` as ``(header, blob)``, or why it cannot be read."""
        path = self.path / name
        if not path.exists():
            return "missing"
        data = path.read_bytes()
        size = len(_STATE_MAGIC)
        if data[:size] != _STATE_MAGIC or len(data) < size + 12:
            return "not a paretosurf state file"
        crc = int.from_bytes(data[size:size + 4], "little")
        length = int.from_bytes(data[size + 4:size + 12], "little")
        body = data[size + 12:size + 12 + length]
        if len(body) != length or zlib.crc32(body) != crc:
            return "damaged (truncated or altered: its CRC does not match)"
        head = int.from_bytes(body[:8], "little")
        try:
            header = from_json_floats(json.loads(body[8:8 + head]))
        except (json.JSONDecodeError, UnicodeDecodeError):
            return "damaged (unreadable header)"
        _check_format(header, path)
        return header, body[8 + head:]

    def _newest_state(self) -> tuple[dict[str, Any], bytes] | None:
        """The valid state file with the most rounds (warning about a damaged one)."""
        found = {name: self._read_state(name) for name in _STATE_FILES}
        valid = [v for v in found.values() if not isinstance(v, str)]
        damaged = {n: v for n, v in found.items() if isinstance(v, str) and v != "missing"}
        if not valid:
            if damaged:
                raise CheckpointError(
                    f"{self.path} holds no readable state: " + "; ".join(
                        f"{n} is {why}" for n, why in damaged.items()))
            return None
        newest = max(valid, key=lambda v: int(v[0]["n_rounds"]))
        for name, why in damaged.items():
            warnings.warn(f"{self.path / name} is {why}; using the state after round "
                          f"{newest[0]['n_rounds']} in the other state file", stacklevel=3)
        return newest

    def load(self) -> SavedRun:
        """The manifest, the newest complete state and the history up to it.

        Raises
        ------
        CheckpointError
            If a file is missing, corrupt or truncated, or the folder holds no saved state.
        """
        manifest = self.manifest()
        found = self._newest_state()
        if found is None:
            raise CheckpointError(f"{self.path} holds a run but no saved state")
        header, blob = found
        n_rounds = int(header["n_rounds"])
        arrays = _unpack(blob, header.pop("arrays_index"), self.path / _STATE_FILES[
            n_rounds % 2])
        history = self.path / _HISTORY
        lines = history.read_text().splitlines() if history.exists() else []
        if len(lines) < n_rounds:
            raise CheckpointError(f"{history} holds {len(lines)} rounds but the saved state "
                                  f"needs {n_rounds}")
        round_path = self.path / _ROUND_ARRAYS
        data = round_path.read_bytes() if n_rounds and round_path.exists() else b""
        records = []
        for index, line in enumerate(lines[:n_rounds]):
            try:
                scalars = from_json_floats(json.loads(line))
                at, size = int(scalars.pop("arrays_at")), int(scalars.pop("arrays_size"))
                crc, layout = int(scalars.pop("arrays_crc")), scalars.pop("arrays_index")
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise CheckpointError(f"{history} line {index + 1} is corrupt: {exc}") from None
            blob = data[at:at + size]
            if len(blob) != size or zlib.crc32(blob) != crc:
                raise CheckpointError(f"{round_path} is damaged or truncated: the arrays of "
                                      f"round {index} do not match their CRC")
            records.append((scalars, _unpack(blob, layout, round_path)))
        return SavedRun(manifest, header, arrays, records)


def _cut_partial_line(path: Path) -> None:
    """Cut a last line that a killed writer left without its newline."""
    if not path.exists():
        return
    with open(path, "rb+") as fh:
        data = fh.read()
        if data and not data.endswith(b"\n"):
            fh.truncate(data.rfind(b"\n") + 1)
