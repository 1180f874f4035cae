"""Solver states on disk and in files, without pickle where it can be avoided.

A solver may define ``save_state(state, folder)`` and ``load_state(folder) -> state`` (model
weights and LoRA adapters as safetensors, say). The run then keeps each slot's warm start as a
folder in the run folder, ``states/round-000012/slot-03/``, written atomically (to a
temporary name, then renamed), and solve tasks receive :class:`StateFolder` paths, not objects:
nothing model-sized passes through pickle.

Other states are stored in checkpoints and result files by :func:`encode_states`: ``None``,
booleans, numbers and strings as JSON; numpy arrays, and dataclasses, lists, tuples and dicts
of them, as arrays of an ``.npz`` file. Pickle is the last resort, for states nothing else can
store, and loading a pickled state needs an explicit ``allow_pickle=True`` (unpickling runs
code: only for files you trust).
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import os
import shutil
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paretosurf.checkpoint import CheckpointError, decode_pickled, encode_pickled

__all__ = [
    "StateFolder",
    "decode_states",
    "encode_states",
    "has_disk_states",
    "load_state",
    "save_state",
]


class StateFolder(os.PathLike[str]):
    """A solver state saved in a folder by the solver's ``save_state``.

    Examples
    --------
    >>> from paretosurf.states import StateFolder
    >>> ref = StateFolder("/runs/a/states/round-000003/slot-01")
    >>> str(ref), ref == StateFolder("/runs/a/states/round-000003/slot-01")
    ('/runs/a/states/round-000003/slot-01', True)
    """

    __slots__ = ("path",)

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)

    def __fspath__(self) -> str:
        return self.path

    def __str__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return f"StateFolder({self.path!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StateFolder) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)


def has_disk_states(solver: object) -> bool:
    """Whether ``solver`` keeps its states in folders (``save_state`` and ``load_state``)."""
    return callable(getattr(solver, "save_state", None)) and callable(
        getattr(solver, "load_state", None))


def save_state(solver: Any, state: Any, folder: str | os.PathLike[str]) -> StateFolder:
    """Save ``state`` with ``solver.save_state`` into ``folder``, atomically: the solver writes
    into a temporary folder beside it, which then replaces ``folder``."""
    target = Path(folder)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.mkdir()
    except FileNotFoundError:                       # the first folder of its round
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()
    try:
        solver.save_state(state, tmp)
        try:
            os.replace(tmp, target)
        except OSError:                             # a folder from an earlier attempt
            if not target.is_dir():
                raise
            shutil.rmtree(target)
            os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return StateFolder(target)


def load_state(solver: Any, state: Any) -> Any:
    """``state`` itself, or, for a :class:`StateFolder`, what ``solver.load_state`` reads."""
    if isinstance(state, StateFolder):
        if not Path(state.path).is_dir():
            raise FileNotFoundError(f"solver state folder {state.path} is missing")
        return solver.load_state(Path(state.path))
    return state


# ---------------------------------------------------------------------------- the codec
def _encode(value: Any, name: str, arrays: dict[str, NDArray[Any]], root: Path | None,
            pickled: list[str]) -> Any:
    if isinstance(value, StateFolder):
        path = Path(value.path)
        if root is not None and path.is_relative_to(root):
            return {"folder": str(path.relative_to(root)), "relative": True}
        return {"folder": str(path), "relative": False}
    if isinstance(value, (type(None), bool, int, str)) or (
            isinstance(value, float) and math.isfinite(value)):
        return {"value": value}
    if isinstance(value, np.ndarray) and value.dtype != object:
        arrays[name] = value
        return {"array": name}
    if isinstance(value, (np.generic, float)) and np.asarray(value).dtype != object:
        arrays[name] = np.asarray(value)   # a numpy scalar, or a non-finite float
        return {"array": name, "scalar": True}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        return {"dataclass": f"{cls.__module__}:{cls.__qualname__}",
                "fields": {f.name: _encode(getattr(value, f.name), f"{name}.{f.name}", arrays,
                                           root, pickled)
                           for f in dataclasses.fields(value)}}
    if isinstance(value, (list, tuple)):
        return {"list" if isinstance(value, list) else "tuple":
                [_encode(v, f"{name}.{i}", arrays, root, pickled) for i, v in enumerate(value)]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: _encode(v, f"{name}.{k}", arrays, root, pickled)
                         for k, v in value.items()}}
    arrays[name] = encode_pickled(value)
    pickled.append(name)
    return {"pickle": name}


def _decode(entry: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]], root: Path | None,
            allow_pickle: bool, where: str) -> Any:
    if "value" in entry:
        return entry["value"]
    if "folder" in entry:
        path = Path(entry["folder"])
        return StateFolder(root / path if entry.get("relative") and root is not None else path)
    if "array" in entry:
        arr = np.asarray(arrays[entry["array"]])
        return arr[()] if entry.get("scalar") else arr
    if "dataclass" in entry:
        module, _, qualname = str(entry["dataclass"]).partition(":")
        cls: Any = importlib.import_module(module)
        for part in qualname.split("."):
            cls = getattr(cls, part)
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            raise CheckpointError(f"{where} names {entry['dataclass']}, which is not a "
                                  "dataclass")
        fields = {k: _decode(v, arrays, root, allow_pickle, where)
                  for k, v in entry["fields"].items()}
        return cls(**fields)
    if "list" in entry:
        return [_decode(v, arrays, root, allow_pickle, where) for v in entry["list"]]
    if "tuple" in entry:
        return tuple(_decode(v, arrays, root, allow_pickle, where) for v in entry["tuple"])
    if "dict" in entry:
        return {k: _decode(v, arrays, root, allow_pickle, where)
                for k, v in entry["dict"].items()}
    if "pickle" in entry:
        if not allow_pickle:
            raise CheckpointError(
                f"{where} holds solver states that only pickle could store; loading them runs "
                "code, so pass allow_pickle=True if you trust the file (or give the solver "
                "save_state/load_state, or states of numpy arrays)")
        return decode_pickled(arrays[entry["pickle"]])
    raise CheckpointError(f"{where} holds a solver state of an unknown kind: {sorted(entry)}")


def encode_states(states: Mapping[str, Any], *, prefix: str = "state",
                  root: Path | None = None) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
    """States as JSON-able entries and named arrays (see the module docstring).

    ``root``: folders of :class:`StateFolder` states below it are stored relative to it, so a
    run folder can be moved. The metadata's ``"pickled"`` lists the entries pickle stored.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.solvers import GradientState
    >>> from paretosurf.states import decode_states, encode_states
    >>> meta, arrays = encode_states({"0": GradientState(np.ones(2), np.zeros(2),
    ...                                                  np.zeros(2), 3), "1": None})
    >>> meta["pickled"], sorted(arrays)
    ([], ['state.0.m', 'state.0.params', 'state.0.v'])
    >>> decode_states(meta, arrays)["0"].t
    3
    """
    arrays: dict[str, NDArray[Any]] = {}
    pickled: list[str] = []
    entries = {key: _encode(value, f"{prefix}.{key}", arrays, root, pickled)
               for key, value in states.items()}
    return {"entries": entries, "pickled": pickled}, arrays


def decode_states(meta: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]], *,
                  root: Path | None = None, allow_pickle: bool = False,
                  where: str = "the file") -> dict[str, Any]:
    """Inverse of :func:`encode_states`.

    Raises
    ------
    CheckpointError
        If a state was pickled and ``allow_pickle`` is False, or an entry is unreadable.
    """
    return {key: _decode(entry, arrays, root, allow_pickle, where)
            for key, entry in meta["entries"].items()}
