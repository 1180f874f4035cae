"""A study's own files in its run folder, beside the run's (which :mod:`paretosurf.storage`
keeps and never touches these)::

    study.json                              the study: its id, method, arguments and the
                                            solver's declarations (written once, when its
                                            run starts)
    asked.json, asked.bin                   the tasks asked last, with their warm starts
                                            (replaced at each ask)
    tells/round-000003/ask-0/slot-0007.json one told result (written once, never replaced)
    tells/round-000003/ask-0/slot-0007.<id>.bin
                                            the arrays of its state, when it has some
    tells/ends/ask-2/slot-0001.json         a solve of the front's ends, before round 0

Every file is written atomically (:func:`~paretosurf.storage.atomic_write`); a told result
is written *exclusively*: of two processes telling one slot at once exactly one succeeds,
and a result told is never lost or replaced. A told result's arrays go to a file of a name
of its own, so that a refused second tell cannot touch the first's.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from numpy.typing import NDArray

from paretosurf.storage import (
    CheckpointError,
    as_json_value,
    atomic_write,
    check_format,
    from_json_floats,
    pack_arrays,
    read_json,
    read_pair,
    to_json_floats,
    unpack_arrays,
    write_pair,
)

__all__ = [
    "ASKED",
    "STUDY_FILE",
    "TELLS",
    "as_json_value",
    "batch_folder",
    "read_asked",
    "read_asked_states",
    "read_study",
    "read_tell",
    "round_folder",
    "tell_path",
    "write_asked",
    "write_study",
    "write_tell",
]

#: The study's record, in its run folder.
STUDY_FILE = "study.json"
#: The stem of the pair of files of the tasks asked last (``asked.json``, ``asked.bin``).
ASKED = "asked"
#: The folder of the told results.
TELLS = "tells"
#: The format tag of ``study.json`` and of the told results.
STUDY_FORMAT = "paretosurf-study"
STUDY_VERSION = 1


def round_folder(root: Path, phase: str, round: int | None) -> Path:
    """The folder of a round's told results (``phase="ends"``: of the front's ends)."""
    if phase == "ends":
        return root / TELLS / "ends"
    return root / TELLS / f"round-{int(round or 0):06d}"


def batch_folder(root: Path, phase: str, round: int | None, ask: int) -> Path:
    """The folder of the results told for one ask (one batch of tasks) of a round."""
    return round_folder(root, phase, round) / f"ask-{int(ask)}"


def tell_path(root: Path, phase: str, round: int | None, ask: int, slot: int) -> Path:
    """The file of the result told for ``slot`` in one ask of a round.

    Examples
    --------
    >>> from pathlib import Path
    >>> from paretosurf.jobs._files import tell_path
    >>> tell_path(Path("run"), "round", 3, 0, 7).as_posix()
    'run/tells/round-000003/ask-0/slot-0007.json'
    >>> tell_path(Path("run"), "ends", None, 2, 1).as_posix()
    'run/tells/ends/ask-2/slot-0001.json'
    """
    return batch_folder(root, phase, round, ask) / f"slot-{int(slot):04d}.json"


# ---------------------------------------------------------------------------- study.json
def read_study(root: Path) -> dict[str, Any] | None:
    """The study recorded in ``root`` (``None``: none yet)."""
    path = root / STUDY_FILE
    if not path.is_file():
        return None
    data = from_json_floats(read_json(path))
    if not isinstance(data, dict) or data.get("format") != STUDY_FORMAT:
        raise CheckpointError(f"{path} is not a paretosurf study's record")
    if int(data.get("version", 0)) > STUDY_VERSION:
        raise CheckpointError(
            f"{path} has study format version {data['version']}; this paretosurf reads up to "
            f"version {STUDY_VERSION}"
        )
    return data


def write_study(root: Path, record: Mapping[str, Any]) -> None:
    """Record the study in ``root``, once (:class:`FileExistsError` if one is there)."""
    text = json.dumps(
        to_json_floats({"format": STUDY_FORMAT, "version": STUDY_VERSION, **record}),
        indent=1,
        allow_nan=False,
    )
    atomic_write(root / STUDY_FILE, lambda fh: fh.write(text), "w", exclusive=True)


# ---------------------------------------------------------------------------- asked
def write_asked(root: Path, meta: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]]) -> None:
    """Replace the record of the tasks asked last (``asked.json`` and ``asked.bin``)."""
    write_pair(root / ASKED, {"kind": "asked", **meta}, arrays, packed=True)


def read_asked(root: Path) -> dict[str, Any] | None:
    """The tasks asked last, without their states (``None``: nothing asked yet)."""
    path = root / f"{ASKED}.json"
    if not path.is_file():
        return None
    meta = from_json_floats(read_json(path))
    check_format(meta, path)
    if meta.get("kind") != "asked":
        raise CheckpointError(f"{path} is not a record of asked tasks")
    return dict(meta)


def read_asked_states(root: Path) -> tuple[dict[str, Any], dict[str, NDArray[Any]]] | None:
    """The tasks asked last with the arrays of their warm starts (``None``: nothing asked
    yet). An ask replacing the pair meanwhile is waited out (read again)."""
    for attempt in range(20):
        if not (root / f"{ASKED}.json").is_file():
            return None
        try:
            meta, arrays = read_pair(root / ASKED)
        except CheckpointError:
            if attempt == 19:
                raise
            time.sleep(0.05)  # the .bin of the next ask, the .json of this one
            continue
        return dict(meta), arrays
    return None  # pragma: no cover - the loop returns or raises


# ---------------------------------------------------------------------------- told results
def write_tell(path: Path, record: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]]) -> None:
    """Write one told result at ``path``, exclusively (:class:`FileExistsError` if a result
    is there already: nothing is written then); the arrays of its state first, to a file of
    a name of their own that the record names with their SHA-256."""
    extra: dict[str, Any] = {}
    data_path: Path | None = None
    if arrays:
        blob, index = pack_arrays(arrays)
        data_path = path.with_name(f"{path.stem}.{uuid.uuid4().hex[:12]}.bin")
        atomic_write(data_path, lambda fh: fh.write(blob))
        extra = {
            "arrays": data_path.name,
            "arrays_sha256": hashlib.sha256(blob).hexdigest(),
            "arrays_index": index,
        }
    full = {
        "format": STUDY_FORMAT,
        "version": STUDY_VERSION,
        "kind": "tell",
        **record,
        **extra,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "time": time.time(),
    }
    text = json.dumps(to_json_floats(full), allow_nan=False, separators=(",", ":"))
    try:
        atomic_write(path, lambda fh: fh.write(text), "w", exclusive=True)
    except BaseException:
        if data_path is not None:
            data_path.unlink(missing_ok=True)
        raise


def read_tell(path: Path) -> tuple[dict[str, Any], dict[str, NDArray[Any]]] | None:
    """The result told at ``path`` and the arrays of its state; ``None`` where none is (or
    one is being written: an empty file, on a filesystem without hard links)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    if not text:
        return None
    try:
        record = from_json_floats(json.loads(text))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{path} is corrupt or truncated: {exc}") from None
    if not isinstance(record, dict) or record.get("kind") != "tell":
        raise CheckpointError(f"{path} is not a told result")
    arrays: dict[str, NDArray[Any]] = {}
    if record.get("arrays"):
        data_path = path.parent / str(record["arrays"])
        try:
            blob = data_path.read_bytes()
        except FileNotFoundError:
            raise CheckpointError(
                f"{data_path}, the state's arrays of {path}, is missing"
            ) from None
        if hashlib.sha256(blob).hexdigest() != record.get("arrays_sha256"):
            raise CheckpointError(
                f"{data_path} is corrupt or was replaced (its SHA-256 does not match the one "
                f"{path} recorded)"
            )
        arrays = unpack_arrays(blob, record["arrays_index"], data_path)
    return record, arrays
