"""Result files: written atomically, checked when read, and the codecs of saved values.

This module stores dictionaries of JSON-able values and numpy arrays; it knows nothing about
methods or results (:mod:`paretosurf.result` and :mod:`paretosurf.driver` encode those), so
it sits below everything that saves. Its :class:`Checkpointer` decides when a run saves
itself and writes what the run hands it, in order. Run folders (``checkpoint=DIR``) are
:mod:`paretosurf.run_folder`, built on the same pieces.

A **file pair** is ``<stem>.json`` (metadata, human-readable) and ``<stem>.npz`` (arrays). The
``.npz`` is written first, the ``.json`` last; the ``.json`` records the ``.npz``'s SHA-256, so a
truncated or swapped array file is detected when read, never half-loaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import pickle
import time
import uuid
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from paretosurf.solvers import weight_to_json

if TYPE_CHECKING:
    from paretosurf.run_folder import RunFolder

__all__ = [
    "CHECKPOINT_SHARE",
    "DURABLE_ROUND_SECONDS",
    "FIRST_CHECKPOINT_SECONDS",
    "CheckpointError",
    "Checkpointer",
    "decode_pickled",
    "encode_pickled",
    "from_json_floats",
    "read_pair",
    "to_json_floats",
    "write_pair",
]

#: Format tag of result files and run folders, and the version of result files.
FORMAT = "paretosurf"
VERSION = 2


class CheckpointError(ValueError):
    """A file or run folder is corrupt, incomplete, of another format, or of another run."""


# ---------------------------------------------------------------------------- atomic writes
def atomic_write(
    target: Path,
    write: Callable[[IO[Any]], object],
    mode: str = "wb",
    *,
    sync: bool = True,
    tag: str | None = None,
) -> None:
    """Write ``target`` through a temporary file in the same folder, then rename it: a reader,
    or a process killed at any moment, sees either the old file or the complete new one.
    ``sync`` also flushes the file to the disk first (``fsync``), so that the new file
    survives a crash of the machine.

    The temporary file is ``.<name>.<tag>.tmp``. Without ``tag`` it is a random one and this
    process's id, and the file is made anew (a file of that name, a user's, is never written
    over or deleted); a ``tag`` names files of the caller's own (a run folder's: its run id
    and this process's id, see :mod:`paretosurf.run_folder`)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    while True:
        name = f"{uuid.uuid4().hex[:12]}.{os.getpid()}" if tag is None else tag
        tmp = target.with_name(f".{target.name}.{name}.tmp")
        try:
            fh = open(tmp, mode.replace("w", "x") if tag is None else mode)
        except FileExistsError:
            continue  # (a random tag taken: another)
        break
    try:
        with fh:
            write(fh)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # ours: made (or, with a tag, named) by this call
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
        arr = np.asarray(value)  # (np.ascontiguousarray would make a 0-d array 1-d)
        if arr.dtype.hasobject:
            raise TypeError(f"array {name!r} holds Python objects and cannot be stored raw")
        index[name] = [arr.dtype.str, list(arr.shape), offset]
        parts.append(arr.tobytes(order="C"))
        offset += arr.nbytes
    return b"".join(parts), index


def _unpack(blob: bytes, index: Mapping[str, Any], path: Path) -> dict[str, NDArray[Any]]:
    out = {}
    for name, (dtype, shape, offset) in index.items():
        try:
            dt = np.dtype(dtype)
        except (TypeError, ValueError):
            raise CheckpointError(
                f"{path}: array {name!r} has an unreadable dtype {dtype!r}"
            ) from None
        if dt.hasobject:
            raise CheckpointError(
                f"{path}: array {name!r} declares the dtype {dtype!r}, "
                "which holds Python objects; paretosurf stores none so "
                "(the file was altered)"
            )
        count = int(np.prod(shape, dtype=np.int64))
        if offset + count * dt.itemsize > len(blob):
            raise CheckpointError(f"{path} is truncated (array {name!r} runs past its end)")
        # a copy: a view of the blob would be read-only, and a resumed solver may update
        # its state in place
        out[name] = np.frombuffer(blob, dtype=dt, count=count, offset=offset).reshape(shape).copy()
    return out


def _read_bytes(path: Path, digest: str | None) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CheckpointError(f"{path} is missing") from None
    if digest is not None and hashlib.sha256(data).hexdigest() != digest:
        raise CheckpointError(
            f"{path} is corrupt or was replaced (its SHA-256 does not match "
            "the one recorded when it was written)"
        )
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


def write_pair(
    path: str | Path,
    meta: Mapping[str, Any],
    arrays: Mapping[str, NDArray[Any]],
    *,
    packed: bool = False,
    sync: bool = True,
) -> tuple[Path, Path]:
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
    full = {
        "format": FORMAT,
        "version": VERSION,
        **meta,
        "arrays": data_path.name,
        "arrays_sha256": hashlib.sha256(blob).hexdigest(),
        **extra,
    }
    text = (
        json.dumps(to_json_floats(full), allow_nan=False, separators=(",", ":"))
        if packed
        else _dump_json(to_json_floats(full))
    )
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


def _check_format(meta: Any, path: Path, newest: int = VERSION) -> None:
    """Refuse ``meta`` unless it is paretosurf's, of a version up to ``newest``."""
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path} is not a paretosurf file")
    if meta.get("format") == "paretosurf-state":
        raise CheckpointError(
            f"{path} was written by paretosurf 0.1 (format version 1), which "
            "this version does not read; run it again"
        )
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a paretosurf file")
    if int(meta.get("version", 0)) > newest:
        raise CheckpointError(
            f"{path} has format version {meta['version']}; this paretosurf "
            f"reads up to version {newest}"
        )


#: Rounds whose solves take at least this many seconds are flushed to the disk (fsync) when
#: checkpointed; shorter ones are only renamed into place, which a killed process cannot
#: break, and a crash of the whole machine loses at most a few seconds of solving. After a
#: round this long, a disk-state solver's states are also written to their folders as each is
#: solved (after shorter ones, they wait in memory for the checkpoint that keeps them).
DURABLE_ROUND_SECONDS = 0.5

#: ``checkpoint_period="auto"``: checkpoints take about this share of the solve time at most.
#: After a checkpoint that took ``c`` seconds, the next is written once the rounds since it
#: have taken ``c / CHECKPOINT_SHARE`` seconds. Rounds longer than that (any solve of a second
#: or more) are each saved; rounds of a few milliseconds are saved every few rounds, so a
#: killed run loses at most ``c / CHECKPOINT_SHARE`` seconds of solving. (Ray Tune's "auto"
#: experiment checkpoint period is the same idea.)
CHECKPOINT_SHARE = 0.01

#: What the first checkpoint is expected to cost, before one has been measured: a small run's
#: checkpoint takes a few milliseconds, so the first is written once the rounds have taken
#: ``FIRST_CHECKPOINT_SECONDS / CHECKPOINT_SHARE`` (half a second): after the first round of
#: any run whose solves take that long, and not at all before the end of a run of
#: millisecond rounds that would otherwise pay for two checkpoints instead of one.
FIRST_CHECKPOINT_SECONDS = 0.005


class Checkpointer:
    """When a run saves itself, and the saving: the rounds' records since the last
    checkpoint, then the run's state, into its run folder; and the run's solve log, a line
    per attempt appended as the solves return.

    A run makes one from its ``checkpoint_period`` ("auto" or seconds); pass one as
    ``checkpoint_period`` for a schedule of your own (the timings below, or a checkpoint
    every few rounds). Its clock times the rounds and the checkpoints.

    Parameters
    ----------
    period : "auto" or float
        Seconds of solving between checkpoints (0: after every round); ``"auto"``: after
        rounds that took ``1 / share`` times the last checkpoint's cost.
    share : float
        ``"auto"``: the share of the run that checkpoints may take (default
        :data:`CHECKPOINT_SHARE`).
    first_seconds : float
        ``"auto"``: the expected cost of the first checkpoint, before one is measured
        (default :data:`FIRST_CHECKPOINT_SECONDS`).
    durable_seconds : float
        Rounds at least this long are flushed to the disk when saved, and a disk-state
        solver's states are written to their folders as solved after them (default
        :data:`DURABLE_ROUND_SECONDS`).
    every : int, optional
        Save after every ``every``-th round instead (rounds counted from the run's start).
    clock : callable
        Seconds, for timing (default :func:`time.perf_counter`).

    Examples
    --------
    >>> import itertools
    >>> from paretosurf.checkpoint import Checkpointer
    >>> ticks = itertools.count(0.0, 0.25)          # every reading of the clock: 0.25 s later
    >>> saver = Checkpointer(share=1.0, first_seconds=1.0, clock=lambda: next(ticks))
    >>> saver.start(None)
    >>> due = []
    >>> for n in range(1, 7):
    ...     saver.round_started(); saver.round_ended()
    ...     due.append(saver.due(n))
    ...     if due[-1]:
    ...         saver.save([None] * n, lambda: ({}, {}))
    >>> due                   # the first after 1 s of rounds; then every 0.25 s (its cost)
    [False, False, False, True, True, True]
    """

    def __init__(
        self,
        period: float | str = "auto",
        *,
        share: float = CHECKPOINT_SHARE,
        first_seconds: float = FIRST_CHECKPOINT_SECONDS,
        durable_seconds: float = DURABLE_ROUND_SECONDS,
        every: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if period != "auto" and (
            isinstance(period, (bool, str))
            or not (isinstance(period, (int, float)) and math.isfinite(period) and period >= 0)
        ):
            raise ValueError(
                "checkpoint_period must be 'auto' or a number of seconds >= 0 "
                f"(0: save after every round), got {period!r}"
            )
        if every is not None and (
            isinstance(every, bool) or not isinstance(every, int) or every < 1
        ):
            raise ValueError(f"every must be an integer >= 1 or None, got {every!r}")
        #: Seconds of running between checkpoints (``None``: "auto").
        self.period = None if period == "auto" else float(period)
        self.share = float(share)
        self.first_seconds = float(first_seconds)
        self.durable_seconds = float(durable_seconds)
        self.every = every
        self.clock = clock
        self.start(None)

    def start(self, folder: RunFolder | None, saved_rounds: int = 0) -> None:
        """Begin a run saved in ``folder`` (``None``: none; only the solve log's and the
        schedule's bookkeeping then), which holds ``saved_rounds`` rounds."""
        self.folder = folder
        #: Rounds saved by the last checkpoint; the seconds the rounds since it took; the
        #: last round's; what the last checkpoint cost.
        self.saved_rounds = saved_rounds
        self.unsaved_seconds = 0.0
        self.last_round_seconds = 0.0
        self.checkpoint_seconds: float | None = None
        self._round_start = 0.0

    def round_started(self) -> None:
        """A round begins (its time counts towards the next checkpoint)."""
        self._round_start = self.clock()

    def round_ended(self) -> None:
        """The round begun last has ended."""
        self.last_round_seconds = self.clock() - self._round_start
        self.unsaved_seconds += self.last_round_seconds

    @property
    def long_rounds(self) -> bool:
        """Whether the last round took ``durable_seconds`` or more."""
        return self.last_round_seconds >= self.durable_seconds

    def due(self, n_rounds: int) -> bool:
        """Whether the rounds since the last checkpoint have run long enough for the next one
        (``n_rounds``: the rounds run so far)."""
        if self.every is not None:
            return n_rounds % self.every == 0
        if self.period is not None:
            wait = self.period
        elif self.checkpoint_seconds is None:
            wait = self.first_seconds / self.share
        else:
            wait = self.checkpoint_seconds / self.share
        return self.unsaved_seconds >= wait

    def log(
        self, outcomes: Sequence[Any], index: int, call: int, attempt: int, *, probe: bool = False
    ) -> None:
        """Append one solve-log line per attempt of ``outcomes``
        (:class:`~paretosurf.executors.SolveOutcome`) to the run folder's ``solves.jsonl`` at
        once, flushed to the operating system (a process killed afterwards loses none of them;
        the next checkpoint flushes them to the disk): the tries an executor lost to a dying
        worker and ran again (``killed``), then the outcome. ``probe``: the solves of basin
        probes (:mod:`paretosurf.basin_probes`), whose lines say ``"probe": true``."""
        if self.folder is None:
            return
        now = time.time()
        self.folder.append_solves(
            [
                {
                    "round": index,
                    "call": call,
                    "attempt": attempt,
                    "slot": o.slot,
                    "weight": o.weight if type(o.weight) is float else weight_to_json(o.weight),
                    "objectives": None if o.solution is None else o.solution.objectives.tolist(),
                    "seconds": float(o.seconds),
                    "host": o.host,
                    "pid": o.pid,
                    "error": o.error,
                    "killed": o.killed,
                    "time": now,
                    **({"traceback": o.traceback} if o.traceback else {}),
                    **({"probe": True} if probe else {}),
                }
                for outcome in outcomes
                for o in (*outcome.lost, outcome)
            ]
        )

    def save(
        self,
        records: Sequence[Any],
        state: Callable[[], tuple[dict[str, Any], dict[str, NDArray[Any]]]],
        persist: Callable[[], None] = lambda: None,
        saved: Callable[[], None] = lambda: None,
    ) -> None:
        """Checkpoint the run whose ``records`` (:class:`~paretosurf.IterationRecord`) are
        these: ``persist()`` the states still in memory, flush the solve log (written as the
        solves returned) to the disk when the rounds are long enough to sync, then write the
        records since the last checkpoint, then the state (``state()``: metadata and
        arrays); ``saved()`` follows (pruning what the saved state no longer names). Without
        a run folder only ``saved()`` runs."""
        started = self.clock()
        if self.folder is not None:
            with self.folder.writing("the solver's state folders (states/)"):
                persist()
            if self.unsaved_seconds > 0:
                # fsync only rounds that cost more to redo than to sync
                self.folder.durable = self.unsaved_seconds >= self.durable_seconds
            self.folder.sync_solves()
            self.folder.append_rounds(
                self.saved_rounds, [(r.scalars(), r.arrays()) for r in records[self.saved_rounds :]]
            )
            meta, arrays = state()
            self.folder.save_state(len(records), meta, arrays)
        self.saved_rounds = len(records)
        saved()
        self.unsaved_seconds = 0.0
        self.checkpoint_seconds = self.clock() - started
