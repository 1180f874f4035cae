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

Reading a file imports nothing it names: a dataclass state is rebuilt only from a class the
library trusts, which is one of paretosurf's own, one registered with
:func:`register_state_class`, one the solver names in its ``state_classes`` attribute, or one
defined in the solver's own (already imported) module. A run folder's state folders must lie
inside it.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import math
import os
import shutil
import sys
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence, Set
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from paretosurf._utils.validation import check_flag
from paretosurf.storage._files import CheckpointError, decode_pickled, encode_pickled
from paretosurf.storage._tempdirs import make_owned_tempdir, remove_owned_tempdir, sweep_stale

if TYPE_CHECKING:
    from paretosurf.storage._run_folder import RunFolder

__all__ = [
    "DiskStates",
    "StateFolder",
    "StatePool",
    "copy_state_folder",
    "decode_states",
    "encode_states",
    "folders_of",
    "has_disk_states",
    "load_state",
    "register_state_class",
    "save_state",
    "trusted_state_classes",
    "warm_start_keys",
]

#: The prefix of the temporary folders of a disk-state solver's states in a run without a
#: run folder (those of a killed run are swept by the next such run).
STATES_TEMP_PREFIX = "paretosurf-states-"

#: Dataclasses that files may name as solver states, by ``module:qualname``.
_REGISTERED: dict[str, type] = {}


def _class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def register_state_class(cls: type) -> type:
    """Let files name the dataclass ``cls`` as a solver state (usable as a decorator).

    Reading a checkpoint or a result file imports nothing the file names: a dataclass state is
    rebuilt only from a class the library trusts. Register the state classes of a solver whose
    states are dataclasses defined outside the solver's own module.

    Examples
    --------
    >>> import dataclasses
    >>> import numpy as np
    >>> from paretosurf.storage._states import register_state_class
    >>> @register_state_class
    ... @dataclasses.dataclass
    ... class MyState:
    ...     x: np.ndarray
    """
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"register_state_class takes a dataclass, got {cls!r}")
    _REGISTERED[_class_name(cls)] = cls
    return cls


def trusted_state_classes(solver: object) -> dict[str, type]:
    """The dataclasses a file may name as states of runs of ``solver`` (the user's object: a
    solver, or a plain function): those its ``state_classes`` attribute lists, and those
    defined in the module of its class (of the function itself, for a function), which is
    imported already.

    Examples
    --------
    >>> from paretosurf.problems import Quadratic1D
    >>> from paretosurf.storage._states import trusted_state_classes
    >>> solver = Quadratic1D(1.0, 0.0, 1.0, 1.0).gradient_solver(steps=5)
    >>> any(name.endswith(":GradientState") for name in trusted_state_classes(solver))
    True
    """
    out: dict[str, type] = {}
    for cls in getattr(solver, "state_classes", ()) or ():
        if isinstance(cls, type) and dataclasses.is_dataclass(cls):
            out[_class_name(cls)] = cls
    owner = solver if inspect.isroutine(solver) else type(solver)
    module = sys.modules.get(getattr(owner, "__module__", None) or "")
    if module is not None:
        for value in list(vars(module).values()):
            if (
                isinstance(value, type)
                and dataclasses.is_dataclass(value)
                and value.__module__ == module.__name__
            ):
                out[_class_name(value)] = value
    return out


class StateFolder(os.PathLike[str]):
    """A solver state saved in a folder by the solver's ``save_state``.

    Examples
    --------
    >>> from paretosurf.storage._states import StateFolder
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
        getattr(solver, "load_state", None)
    )


def _write_folder(folder: str | os.PathLike[str], fill: Any) -> StateFolder:
    """Make ``folder`` atomically: ``fill(tmp)`` writes a temporary folder beside it, which
    then replaces ``folder``."""
    target = Path(folder)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fill(tmp)
        try:
            os.replace(tmp, target)
        except OSError:  # a folder from an earlier attempt
            if not target.is_dir():
                raise
            shutil.rmtree(target)
            os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return StateFolder(target)


def save_state(solver: Any, state: Any, folder: str | os.PathLike[str]) -> StateFolder:
    """Save ``state`` with ``solver.save_state`` into ``folder``, atomically: the solver writes
    into a temporary folder beside it, which then replaces ``folder``."""

    def fill(tmp: Path) -> None:
        tmp.mkdir()
        solver.save_state(state, tmp)

    return _write_folder(folder, fill)


def _link_or_copy(source: str, target: str) -> None:
    """Hard-link ``source`` at ``target`` where the filesystem allows, else copy it."""
    try:
        os.link(source, target)
    except OSError:  # another filesystem, or one without hard links
        shutil.copy2(source, target)


def copy_state_folder(
    state: StateFolder, folder: str | os.PathLike[str], *, link: bool = False
) -> StateFolder:
    """A copy of the state folder ``state`` at ``folder``, made atomically (a run keeps a copy
    of a warm start given as a folder elsewhere, so that its run folder holds every state it
    names).

    ``link``: hard-link the files instead of copying them where the filesystem allows (no
    second copy on disk; only for a source that no one writes into afterwards: state folders
    are written once, then only read).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from paretosurf.storage import StateFolder, copy_state_folder
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = Path(tmp, "a").mkdir(), Path(tmp, "a", "x.txt").write_text("0.25")
    ...     copy = copy_state_folder(StateFolder(Path(tmp, "a")), Path(tmp, "b"), link=True)
    ...     Path(copy, "x.txt").read_text(), Path(tmp, "b", "x.txt").stat().st_nlink
    ('0.25', 2)
    """
    copy_function = _link_or_copy if link else shutil.copy2
    return _write_folder(
        folder,
        lambda tmp: shutil.copytree(state.path, tmp, symlinks=True, copy_function=copy_function),
    )


def load_state(solver: Any, state: Any) -> Any:
    """``state`` itself, or, for a :class:`StateFolder`, what ``solver.load_state`` reads."""
    if isinstance(state, StateFolder):
        if not Path(state.path).is_dir():
            raise FileNotFoundError(f"solver state folder {state.path} is missing")
        return solver.load_state(Path(state.path))
    return state


# ---------------------------------------------------------------------------- the codec
def _encode(
    value: Any, name: str, arrays: dict[str, NDArray[Any]], root: Path | None, pickled: list[str]
) -> Any:
    if isinstance(value, StateFolder):
        path = Path(value.path)
        if root is not None and path.is_relative_to(root):
            return {"folder": str(path.relative_to(root)), "relative": True}
        return {"folder": str(path), "relative": False}
    if isinstance(value, (type(None), bool, int, str)) or (
        isinstance(value, float) and math.isfinite(value)
    ):
        return {"value": value}
    if isinstance(value, np.ndarray) and value.dtype != object:
        arrays[name] = value
        return {"array": name}
    if isinstance(value, (np.generic, float)) and np.asarray(value).dtype != object:
        arrays[name] = np.asarray(value)  # a numpy scalar, or a non-finite float
        return {"array": name, "scalar": True}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        _REGISTERED.setdefault(_class_name(cls), cls)  # this process made it: trusted here
        return {
            "dataclass": _class_name(cls),
            "fields": {
                f.name: _encode(getattr(value, f.name), f"{name}.{f.name}", arrays, root, pickled)
                for f in dataclasses.fields(value)
            },
        }
    if isinstance(value, (list, tuple)):
        return {
            "list" if isinstance(value, list) else "tuple": [
                _encode(v, f"{name}.{i}", arrays, root, pickled) for i, v in enumerate(value)
            ]
        }
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {
            "dict": {k: _encode(v, f"{name}.{k}", arrays, root, pickled) for k, v in value.items()}
        }
    arrays[name] = encode_pickled(value)
    pickled.append(name)
    return {"pickle": name}


def _state_class(name: str, trusted: Mapping[str, type], where: str) -> type:
    """The dataclass a file names as a state: one of paretosurf's own (imported if needed),
    or one the library trusts (see the module docstring); never an import the file asks
    for."""
    module, _, qualname = name.partition(":")
    cls: Any = _REGISTERED.get(name) or trusted.get(name)
    if cls is None and (module == "paretosurf" or module.startswith("paretosurf.")):
        try:
            cls = importlib.import_module(module)
            for part in qualname.split("."):
                cls = getattr(cls, part)
        except (ImportError, AttributeError):
            cls = None
    if cls is None:
        raise CheckpointError(
            f"{where} holds solver states of the class {name}, which paretosurf does not "
            "import to read a file: import it and register it with "
            "paretosurf.storage.register_state_class, or list it in the solver's "
            "state_classes attribute"
        )
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise CheckpointError(f"{where} names {name}, which is not a dataclass")
    return cls


def _folder(entry: Mapping[str, Any], root: Path | None, where: str) -> StateFolder:
    """A state folder entry as a path: inside ``root`` (a run folder) when there is one."""
    path = Path(str(entry["folder"]))
    if root is None:
        return StateFolder(path)
    if not entry.get("relative") or path.is_absolute():
        raise CheckpointError(
            f"{where} names the state folder {path}, outside the run folder "
            f"{root}; a run's state folders lie inside it"
        )
    full = root / path
    if not os.path.realpath(full).startswith(os.path.realpath(root) + os.sep):
        raise CheckpointError(
            f"{where} names the state folder {path}, which leads out of the run folder {root}"
        )
    return StateFolder(full)


def _decode(
    entry: Mapping[str, Any],
    arrays: Mapping[str, NDArray[Any]],
    root: Path | None,
    allow_pickle: bool,
    where: str,
    trusted: Mapping[str, type],
) -> Any:
    if "value" in entry:
        return entry["value"]
    if "folder" in entry:
        return _folder(entry, root, where)
    if "array" in entry:
        arr = np.asarray(arrays[entry["array"]])
        return arr[()] if entry.get("scalar") else arr
    if "dataclass" in entry:
        cls = _state_class(str(entry["dataclass"]), trusted, where)
        fields = {
            k: _decode(v, arrays, root, allow_pickle, where, trusted)
            for k, v in entry["fields"].items()
        }
        return cls(**fields)
    if "list" in entry:
        return [_decode(v, arrays, root, allow_pickle, where, trusted) for v in entry["list"]]
    if "tuple" in entry:
        return tuple(_decode(v, arrays, root, allow_pickle, where, trusted) for v in entry["tuple"])
    if "dict" in entry:
        return {
            k: _decode(v, arrays, root, allow_pickle, where, trusted)
            for k, v in entry["dict"].items()
        }
    if "pickle" in entry:
        if not allow_pickle:
            raise CheckpointError(
                f"{where} holds solver states that only pickle could store; loading them runs "
                "code, so pass allow_pickle=True if you trust the file (or give the solver "
                "save_state/load_state, or states of numpy arrays)"
            )
        return decode_pickled(arrays[entry["pickle"]])
    raise CheckpointError(f"{where} holds a solver state of an unknown kind: {sorted(entry)}")


def folders_of(meta: Mapping[str, Any], root: Path) -> set[Path]:
    """The state folders the encoded states ``meta`` name (below ``root``), without decoding
    anything else."""
    out: set[Path] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "folder" in value and isinstance(value["folder"], str):
                path = Path(value["folder"])
                out.add(root / path if value.get("relative") else path)
                return
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(meta.get("entries", {}))
    return out


def encode_states(
    states: Mapping[str, Any], *, prefix: str = "state", root: Path | None = None
) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
    """States as JSON-able entries and named arrays (see the module docstring).

    ``root``: folders of :class:`StateFolder` states below it are stored relative to it, so a
    run folder can be moved. The metadata's ``"pickled"`` lists the entries pickle stored.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.solvers import GradientState
    >>> from paretosurf.storage._states import decode_states, encode_states
    >>> meta, arrays = encode_states({"0": GradientState(np.ones(2), np.zeros(2),
    ...                                                  np.zeros(2), 3), "1": None})
    >>> meta["pickled"], sorted(arrays)
    ([], ['state.0.m', 'state.0.params', 'state.0.v'])
    >>> decode_states(meta, arrays)["0"].t
    3
    """
    arrays: dict[str, NDArray[Any]] = {}
    pickled: list[str] = []
    entries = {
        key: _encode(value, f"{prefix}.{key}", arrays, root, pickled)
        for key, value in states.items()
    }
    return {"entries": entries, "pickled": pickled}, arrays


def decode_states(
    meta: Mapping[str, Any],
    arrays: Mapping[str, NDArray[Any]],
    *,
    root: Path | None = None,
    allow_pickle: bool = False,
    where: str = "the file",
    state_classes: Mapping[str, type] | Iterable[type] = (),
) -> dict[str, Any]:
    """Inverse of :func:`encode_states`.

    ``root``: the run folder the states were saved in (their folders must lie inside it);
    ``state_classes``: dataclasses trusted besides the registered ones (see
    :func:`trusted_state_classes`).

    Raises
    ------
    CheckpointError
        If a state was pickled and ``allow_pickle`` is False, a dataclass is not trusted, a
        folder lies outside ``root``, or an entry is unreadable.
    """
    allow_pickle = check_flag(allow_pickle, name="allow_pickle")
    trusted = (
        dict(state_classes)
        if isinstance(state_classes, Mapping)
        else {_class_name(cls): cls for cls in state_classes}
    )
    return {
        key: _decode(entry, arrays, root, allow_pickle, where, trusted)
        for key, entry in meta["entries"].items()
    }


class StatePool:
    """The run's solver states, by integer key (methods hold keys, never states).

    Examples
    --------
    >>> from paretosurf.storage._states import StatePool
    >>> pool = StatePool()
    >>> a, b = pool.add([1.0]), pool.add([2.0])
    >>> starts = pool.take([a, a, None])          # the second use of `a` is a copy
    >>> starts[0] is pool.get(a), starts[1] is pool.get(a), starts[1] == [1.0], starts[2]
    (True, False, True, None)
    >>> _ = pool.keep([b]); sorted(pool.keys())
    [1]
    """

    def __init__(self) -> None:
        self._states: dict[int, Any] = {}
        self._next = 0

    def add(self, state: Any) -> int:
        """Store ``state``; returns its new key."""
        key = self._next
        self._states[key] = state
        self._next += 1
        return key

    def get(self, key: int | None) -> Any:
        """The state stored under ``key`` (``None`` for ``None``)."""
        if key is None:
            return None
        try:
            return self._states[key]
        except KeyError:
            raise KeyError(
                f"no solver state with key {key} is kept (kept: "
                f"{sorted(self._states)}); a method proposed a state it had "
                "released"
            ) from None

    def take(self, keys: Sequence[int | None], intact: Set[int] = frozenset()) -> list[Any]:
        """Warm starts for a round: the states of ``keys``, a deep copy for every repeat use
        of one key, so that no two slots share a state object, and for every use of a key in
        ``intact``, whose state must stay as it was solved (a solver may update its warm
        start in place)."""
        used: set[int] = set()
        out = []
        for key in keys:
            state = self.get(key)
            if key is not None and (key in used or key in intact):
                state = copy.deepcopy(state)
            if key is not None:
                used.add(key)
            out.append(state)
        return out

    def keep(self, keys: Iterable[int | None]) -> list[Any]:
        """Forget every state not in ``keys``; returns the states forgotten."""
        live = {k for k in keys if k is not None}
        return [self._states.pop(key) for key in [k for k in self._states if k not in live]]

    def keys(self) -> list[int]:
        """Keys of the states kept."""
        return list(self._states)

    def replace(self, key: int, state: Any) -> None:
        """Store ``state`` under the existing ``key`` (a state moved to a folder, say)."""
        self.get(key)
        self._states[key] = state

    def folders(self) -> set[Path]:
        """The state folders the pool names."""
        return {Path(st.path) for st in self._states.values() if isinstance(st, StateFolder)}

    def to_parts(self, root: Path | None = None) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """The pool as metadata and arrays (see :func:`encode_states`; folders below ``root``
        are stored relative to it)."""
        meta, arrays = encode_states(
            {str(k): v for k, v in self._states.items()}, prefix="pool", root=root
        )
        return {"next_key": self._next, "states": meta}, arrays

    @classmethod
    def from_parts(
        cls,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        *,
        root: Path | None = None,
        allow_pickle: bool = False,
        where: str = "the checkpoint",
        state_classes: Mapping[str, type] | None = None,
    ) -> StatePool:
        """Inverse of :meth:`to_parts` (``state_classes``: dataclasses trusted as states, see
        :func:`decode_states`)."""
        pool = cls()
        states = decode_states(
            meta["states"],
            arrays,
            root=root,
            allow_pickle=allow_pickle,
            where=where,
            state_classes=state_classes or {},
        )
        pool._states = {int(k): v for k, v in states.items()}
        pool._next = int(meta["next_key"])
        return pool


class DiskStates:
    """The life of a disk-state solver's states in one run (a solver with ``save_state`` and
    ``load_state``; for any other solver every method does nothing).

    A state solved in this process stays in memory until the checkpoint that keeps it (most
    short rounds reach none) and is then saved into its folder, named by round and slot;
    solves elsewhere save their states into those folders themselves. The folders live in
    the run folder's ``states/`` or, without one, in a temporary folder deleted at the end
    (:meth:`finish`). Folders that neither the pool nor the state file before the last one
    names are pruned.

    Parameters
    ----------
    solver : object
        The run's inner solver.
    folder : RunFolder or None
        The run folder.
    in_process : bool
        Whether solves run in this process (then a state needs no folder to reach them).
    """

    def __init__(self, solver: Any, folder: RunFolder | None, *, in_process: bool) -> None:
        self.solver = solver
        #: Whether the solver keeps its states as folders.
        self.enabled = has_disk_states(solver)
        self.folder = folder
        self.in_process = in_process
        #: The folder (by round, ``-1`` for the warm starts, and slot) of each kept state that
        #: is still in memory only (returned in this process, or given as a warm start, and
        #: not checkpointed yet).
        self.unsaved: dict[int, tuple[int, int]] = {}
        #: States just saved by a checkpoint, still in memory: the next round starts from
        #: them instead of reading their folders back.
        self.resident: dict[int, Any] = {}
        #: Where the folders go (made on first use: the run folder's ``states/``, or without
        #: one a temporary folder deleted at the run's end).
        self.temp_root: Path | None = None
        self.root: Path | None = None
        #: The state folders named by the last saved state: kept until the checkpoint after
        #: it, so that the state before the newest (the fallback) never names a pruned one.
        self.fallback_folders: set[Path] = set()

    def states_root(self) -> Path:
        """The folder of the state folders, made (and, in a run folder, recorded as the
        run's own) on first use."""
        if self.root is None:
            if self.folder is not None:
                self.root = self.folder.states_folder()
            else:
                sweep_stale(STATES_TEMP_PREFIX)
                self.temp_root = self.root = make_owned_tempdir(STATES_TEMP_PREFIX)
        return self.root

    def state_folder(self, index: int, slot: int, call: int | None = None) -> Path:
        """The folder of the state that round ``index`` (``-1``: the warm starts) left in
        ``slot`` (``call``: after that call of a round of several)."""
        group = "init" if index < 0 else f"round-{index:06d}"
        name = f"slot-{slot:02d}" if call is None else f"slot-{slot:02d}-call-{call}"
        return self.states_root() / group / name

    def save_to(
        self, index: int, slot: int, call: int, last: bool, long_rounds: bool
    ) -> str | None:
        """Where a task of round ``index`` saves its new state: ``None`` for states kept in
        memory (any solver's but a disk-state one's, and, in this process, those of short
        rounds: ``long_rounds`` says whether the last round was long enough to write each
        state as soon as it is solved)."""
        if not self.enabled or (self.in_process and not long_rounds):
            return None
        return str(self.state_folder(index, slot, None if last else call))

    def add_warm_start(self, pool: StatePool, key: int, state: Any, slot: int) -> None:
        """Place the user's warm start of ``slot``, stored under ``key``: a folder outside
        the run folder is copied in, a state in memory is saved into its folder (or, for
        solves in this process, when checkpointed)."""
        if not self.enabled:
            return
        if isinstance(state, StateFolder):
            if self.folder is not None and not _inside(state.path, self.folder.path):
                # a run folder holds every state it names: a copy of a warm start kept
                # elsewhere (it may be moved, or deleted, while the run goes on)
                pool.replace(key, copy_state_folder(state, self.state_folder(-1, slot)))
        elif self.in_process:
            self.unsaved[key] = (-1, slot)  # saved if checkpointed
        else:
            pool.replace(key, save_state(self.solver, state, self.state_folder(-1, slot)))

    def starts(self, pool: StatePool, keys: Sequence[int | None], intact: Set[int]) -> list[Any]:
        """The warm starts of a round (see :meth:`StatePool.take`). A state in memory that
        starts several slots goes to its folder first: each further slot then reads its own
        copy back (as from a checkpoint), so that no state of a disk-state solver is ever
        deep-copied; one just checkpointed is used from memory first."""
        if self.unsaved:
            counts = Counter(k for k in keys if k is not None)
            self.persist(pool, [k for k, n in counts.items() if n > 1])
        states = pool.take(keys, set() if self.enabled else intact)
        for i, key in enumerate(keys):  # a first use; repeats read the folder
            if key is not None and key in self.resident:
                states[i] = self.resident.pop(key)
        self.resident.clear()
        return states

    def solved(
        self, keys: Sequence[int], slots: Sequence[int], states: Sequence[Any], index: int
    ) -> None:
        """Note the states round ``index`` left in memory, stored under ``keys``."""
        if self.enabled:
            self.unsaved.update(
                (key, (index, slot))
                for key, slot, s in zip(keys, slots, states, strict=True)
                if s is not None and not isinstance(s, StateFolder)
            )

    def persist(self, pool: StatePool, keys: Iterable[int] | None = None) -> None:
        """Save into their folders the kept states still in memory (returned in this process
        in rounds that were not checkpointed): all of them, or those of ``keys``. They stay
        in memory for the next round's first use."""
        kept = set(pool.keys())
        for key in list(self.unsaved) if keys is None else list(keys):
            where = self.unsaved.pop(key, None)
            if where is not None and key in kept:
                self.resident[key] = state = pool.get(key)
                pool.replace(key, save_state(self.solver, state, self.state_folder(*where)))

    def checkpointed(self, pool: StatePool) -> None:
        """After a checkpoint: prune the folders no longer named; the state just saved names
        the pool's (without a run folder, nothing was saved)."""
        self.prune(pool)
        if self.folder is not None:
            self.fallback_folders = pool.folders()

    def resumed(self, pool: StatePool | None, fallback: Mapping[str, Any] | None) -> None:
        """On resume, with the saved ``pool`` (``None``: no checkpoint was completed) and the
        metadata of the older state file (``fallback``): delete the folders a killed run
        wrote after its last checkpoint, or half wrote (they name no saved state)."""
        assert self.folder is not None
        if pool is not None:
            # the older state file names its folders until the next checkpoint replaces it
            older = (
                set()
                if fallback is None
                else folders_of(fallback["pool"]["states"], self.folder.path)
            )
            self.fallback_folders = older | pool.folders()
        if self.enabled and (self.folder.path / "states").is_dir():
            self.root = self.folder.states_folder()
            self.prune(pool, stale=True)
        if pool is not None:
            # the next checkpoint replaces the older state file: the newest is the fallback
            self.fallback_folders = pool.folders()

    def prune(self, pool: StatePool | None, *, stale: bool = False) -> None:
        """Delete the state folders that neither the pool nor the state saved before the last
        one names (so a state file never names a pruned folder); only the run's own
        ``states/`` is touched. ``stale``: also the temporary folders of saves a killed run
        left half done (on resume, when no one else writes the folder)."""
        if self.root is None or not self.root.is_dir():
            return
        kept = (set() if pool is None else pool.folders()) | self.fallback_folders
        for group in self.root.iterdir():
            if not group.is_dir() or not (group.name.startswith("round-") or group.name == "init"):
                continue
            for folder in group.iterdir():
                if not folder.is_dir() or folder in kept:
                    continue
                if stale or not folder.name.startswith("."):
                    shutil.rmtree(folder, ignore_errors=True)
            if not any(group.iterdir()):
                group.rmdir()

    def finish(self, states: list[Any] | None) -> list[Any] | None:
        """At the run's end: without a run folder, states on disk lived in a temporary
        folder: returns the final ``states`` loaded (``None``: none wanted) and deletes it."""
        if self.temp_root is None:
            return states
        try:
            if states is not None:
                states = [load_state(self.solver, st) for st in states]
        finally:
            remove_owned_tempdir(self.temp_root)
            self.temp_root = None
        return states


def warm_start_keys(
    pool: StatePool, disk: DiskStates, init_states: Sequence[Any] | None
) -> list[int | None] | None:
    """Add a run's ``init_states`` to ``pool`` (and a disk-state solver's to ``disk``); the
    slots' keys (``None`` for a cold start), or ``None`` without init states (checked by
    :func:`paretosurf._utils.validation.check_init_states`).

    One object given for several slots (``[x0] * (n + 1)``) is one warm start shared by
    them: it is added once, and each further slot gets its own copy when it is taken
    (:meth:`StatePool.take`), so that a solver updating its state in place cannot tie the
    slots together.
    """
    if init_states is None:
        return None
    keys: list[int | None] = []
    seen: dict[int, int] = {}  # id of a state object -> its key
    for slot, state in enumerate(init_states):
        if state is None:
            keys.append(None)
        elif id(state) in seen:
            keys.append(seen[id(state)])
        else:
            key = seen[id(state)] = pool.add(state)
            keys.append(key)
            disk.add_warm_start(pool, key, state, slot)
    return keys


def _inside(path: str | Path, folder: Path) -> bool:
    """Whether ``path`` lies inside ``folder`` (symbolic links resolved)."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))
