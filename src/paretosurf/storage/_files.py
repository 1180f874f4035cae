"""Result files: written atomically, checked when read, and the codecs of saved values.

This module stores dictionaries of JSON-able values and numpy arrays; it knows nothing about
methods or results (:mod:`paretosurf.result` and :mod:`paretosurf.loop` encode those), so
it sits below everything that saves. Run folders (``checkpoint=DIR``) are
:mod:`paretosurf.storage`, built on the same pieces; when a run saves itself into one is
the loop's :class:`~paretosurf.loop.Checkpointer`.

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
import uuid
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from paretosurf._utils.validation import Hint, NamesOptions

__all__ = [
    "FORMAT",
    "VERSION",
    "CheckpointError",
    "as_json_value",
    "atomic_write",
    "check_format",
    "decode_pickled",
    "dump_json",
    "encode_pickled",
    "from_json_floats",
    "pack_arrays",
    "pair_stem",
    "read_json",
    "read_pair",
    "to_json_floats",
    "unpack_arrays",
    "with_extension",
    "write_pair",
]

#: Format tag of result files and run folders, and the version of result files.
FORMAT = "paretosurf"
VERSION = 2


class CheckpointError(NamesOptions, ValueError):
    """A file or run folder is corrupt, incomplete, of another format, or of another run.

    Its message may name options of a call as ``{name}`` fields (the ``{overwrite}`` that
    starts a new run there), which ``str(error)`` spells as a Python call writes them and
    ``error.text(spell)`` as a front end does (see
    :class:`~paretosurf._utils.validation.NamesOptions`).

    Examples
    --------
    >>> from paretosurf.storage import CheckpointError
    >>> err = CheckpointError("run/state.0 is damaged; start again with {overwrite}",
    ...                       overwrite=True)
    >>> str(err)
    'run/state.0 is damaged; start again with overwrite=True'
    >>> err.text(lambda name, value: "--" + name)
    'run/state.0 is damaged; start again with --overwrite'
    """

    def __init__(self, message: str = "", hint: Hint | None = None, /, **options: Any) -> None:
        super().__init__(self._name_options(message, options, hint))


# ---------------------------------------------------------------------------- atomic writes
def atomic_write(
    target: Path,
    write: Callable[[IO[Any]], object],
    mode: str = "wb",
    *,
    sync: bool = True,
    tag: str | None = None,
    exclusive: bool = False,
) -> None:
    """Write ``target`` through a temporary file in the same folder, then rename it: a reader,
    or a process killed at any moment, sees either the old file or the complete new one.
    ``sync`` also flushes the file to the disk first (``fsync``), so that the new file
    survives a crash of the machine.

    The temporary file is ``.<name>.<tag>.tmp``. Without ``tag`` it is a random one and this
    process's id, and the file is made anew (a file of that name, a user's, is never written
    over or deleted); a ``tag`` names files of the caller's own (a run folder's: its run id
    and this process's id, see :mod:`paretosurf.storage`).

    ``exclusive``: never replace a file: the complete file is linked into place only where
    no file of that name exists, else :class:`FileExistsError` is raised and nothing is
    written; of several processes writing one name at once, exactly one succeeds (a told
    result of :class:`paretosurf.Study`). On a filesystem without hard links the name is
    first reserved by an empty file, then replaced: a reader of such files takes an empty
    one for one being written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from paretosurf.storage._files import atomic_write
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     target = pathlib.Path(tmp) / "once.txt"
    ...     atomic_write(target, lambda fh: fh.write("first"), "w", exclusive=True)
    ...     try:
    ...         atomic_write(target, lambda fh: fh.write("second"), "w", exclusive=True)
    ...     except FileExistsError:
    ...         print("refused:", target.read_text())
    refused: first
    """
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
        if exclusive:
            _link_new(tmp, target)
        else:
            os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # ours: made (or, with a tag, named) by this call
        raise


def _link_new(tmp: Path, target: Path) -> None:
    """Put the complete file ``tmp`` at ``target`` only if no file is there
    (:class:`FileExistsError` otherwise): a hard link, which fails on an existing name, then
    ``tmp`` removed; without hard links, the name reserved by an empty file made with
    ``O_EXCL``, then replaced."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise
    except OSError:  # no hard links on this filesystem
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
        os.replace(tmp, target)
        return
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _npz_bytes(arrays: Mapping[str, NDArray[Any]]) -> bytes:
    buffer = io.BytesIO()
    named: dict[str, Any] = dict(arrays)
    np.savez_compressed(buffer, **named)
    return buffer.getvalue()


def pack_arrays(arrays: Mapping[str, NDArray[Any]]) -> tuple[bytes, dict[str, Any]]:
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


def unpack_arrays(blob: bytes, index: Mapping[str, Any], path: Path) -> dict[str, NDArray[Any]]:
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


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise CheckpointError(f"{path} is missing") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{path} is corrupt or truncated: {exc}") from None


def dump_json(value: Any) -> str:
    return json.dumps(value, indent=1, allow_nan=False)


# ---------------------------------------------------------------------------- value codecs
def to_json_floats(value: Any) -> Any:
    """``value`` with non-finite floats spelled ``"nan"``, ``"inf"``, ``"-inf"`` (strict JSON).

    Examples
    --------
    >>> from paretosurf.storage._files import from_json_floats, to_json_floats
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
        blob, extra["arrays_index"] = pack_arrays(arrays)
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
        else dump_json(to_json_floats(full))
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
    meta = from_json_floats(read_json(json_path))
    check_format(meta, json_path)
    data_path = json_path.parent / meta["arrays"]
    if "arrays_index" in meta:
        blob = _read_bytes(data_path, meta.get("arrays_sha256"))
        return meta, unpack_arrays(blob, meta["arrays_index"], data_path)
    return meta, _load_npz(data_path, meta.get("arrays_sha256"))


def check_format(meta: Any, path: Path, newest: int = VERSION) -> None:
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


def as_json_value(value: Any) -> Any:
    """``value`` as plain JSON (numpy arrays and numbers as lists and numbers), or raise
    :class:`TypeError` for what JSON cannot hold.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.storage import as_json_value
    >>> as_json_value({"w": np.array([0.5, 0.5]), "n": np.int64(3), "t": (1, "a")})
    {'w': [0.5, 0.5], 'n': 3, 't': [1, 'a']}
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return value.item()
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [as_json_value(v) for v in value]
    if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
        return {k: as_json_value(v) for k, v in value.items()}
    raise TypeError(f"{type(value).__name__} is not a JSON value")
