"""Which solver a run was saved with, and the refusals to resume it with another.

A run folder's ``run.json`` records the solver by name (``module:qualname`` of its class, or of
the function itself, :func:`~paretosurf.solvers.solver_name`) and by its public settings
(:func:`solver_settings`). Resuming compares both with the solver the call passes
(:func:`check_same_solver`): another solver, or the same class set up otherwise, would finish
the run with other results and no word. ``resume="force"`` skips that comparison.

Resuming also checks that the saved states fit the solver (:func:`check_state_shapes`), for
solvers that say what a fresh state looks like (``initial_state(weight)``, as
:class:`~paretosurf.solvers.GradientSolver` has): a state of another shape would otherwise fail
inside the solve with a numpy broadcasting message. ``resume="force"`` skips this check too
(for a solver whose states change shape as it runs).

Runs saved before the settings were recorded are compared by name only.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from paretosurf._utils.validation import FORCE, Hint, OptionError
from paretosurf.solvers._protocol import solver_name, users_solver
from paretosurf.storage import to_json_floats

__all__ = [
    "FORCE_HINT",
    "NOT_SETTINGS",
    "SHAPE_FORCE_HINT",
    "TOLD_SOLVER",
    "check_same_solver",
    "check_state_shapes",
    "solver_identity",
    "solver_settings",
]

#: Attribute names that say where or how a solver runs, not what it computes: left out of its
#: settings, so that a run resumes on another device or with another log level.
NOT_SETTINGS = frozenset(
    {
        "device",
        "verbose",
        "progress",
        "workdir",
        "n_jobs",
        "num_threads",
        "threads",
        "workers",
        "log",
        "logger",
    }
)

#: The solver a run driven by ask and tell (:class:`paretosurf.Study`) records: its results
#: were computed outside, by whatever the user ran, so such a run continues with any solver,
#: and a run of any solver continues as one (:func:`check_same_solver` lets both pass).
TOLD_SOLVER = "paretosurf.jobs:ToldResults"

#: Lists and dicts longer than this are not read as settings.
MAX_ITEMS = 64
#: Strings longer than this are recorded by their SHA-256 (a prompt, say).
MAX_TEXT = 200

#: The end of the refusals, saying how to resume with the other solver all the same: a
#: :class:`~paretosurf._utils.validation.Hint`, which the command line, lacking
#: ``resume='force'``, leaves out.
_FORCE = Hint(" ({resume} continues it with this solver all the same)", {"resume": FORCE})
#: The same for states that do not fit the solver.
_SHAPE_FORCE = Hint(
    " ({resume} skips this check, for a solver whose states change shape as it runs)",
    {"resume": FORCE},
)
#: The end of the refusals as a Python call reads it.
FORCE_HINT = _FORCE.text()
#: The same for states that do not fit the solver.
SHAPE_FORCE_HINT = _SHAPE_FORCE.text()

_SKIP = object()


def _plain(value: Any, depth: int = 0) -> Any:
    """``value`` as a JSON value that compares equal after a round trip through ``run.json``,
    or ``_SKIP`` for what is not a plain setting (arrays, callables, objects)."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    if isinstance(value, str):
        if len(value) <= MAX_TEXT:
            return value
        return "sha256:" + hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()[:16]
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        return number if math.isfinite(number) else repr(number)
    if depth >= 2:
        return _SKIP
    if isinstance(value, (list, tuple)) and len(value) <= MAX_ITEMS:
        items = [_plain(v, depth + 1) for v in value]
        return _SKIP if any(v is _SKIP for v in items) else items
    if isinstance(value, Mapping) and len(value) <= MAX_ITEMS:
        if not all(isinstance(k, str) for k in value):
            return _SKIP
        entries = {k: _plain(v, depth + 1) for k, v in sorted(value.items())}
        return _SKIP if any(v is _SKIP for v in entries.values()) else entries
    return _SKIP


def _constructor_names(obj: Any) -> set[str]:
    """The names of the arguments ``obj``'s class is made with (a dataclass's init fields)."""
    if dataclasses.is_dataclass(obj):
        return {f.name for f in dataclasses.fields(obj) if f.init}
    try:
        params = inspect.signature(type(obj).__init__).parameters.values()
    except (TypeError, ValueError):
        return set()
    return {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _attributes(obj: Any) -> dict[str, Any]:
    """``obj``'s own attributes (a dataclass's fields), without running any property."""
    if dataclasses.is_dataclass(obj):
        return {f.name: getattr(obj, f.name, None) for f in dataclasses.fields(obj)}
    try:
        return dict(vars(obj))
    except TypeError:
        return {}


def _home(obj: Any) -> str:
    return (getattr(type(obj), "__module__", None) or "").split(".")[0]


def _collect(obj: Any, prefix: str, homes: set[str], out: dict[str, Any], nested: bool) -> None:
    own = _constructor_names(obj)
    for name, value in _attributes(obj).items():
        if name.startswith("_") or name in NOT_SETTINGS:
            continue
        plain = _plain(value)
        if plain is not _SKIP:
            if name in own:
                out[prefix + name] = plain
        elif (
            not nested
            and not isinstance(value, (type, np.ndarray))
            and not callable(value)
            and not inspect.ismodule(value)
            and _home(value) in homes
        ):
            _collect(value, f"{prefix}{name}.", homes, out, True)


def solver_settings(solver: Any) -> dict[str, Any]:
    """The public settings of ``solver``, by name, as ``run.json`` records them.

    A setting is an argument the solver's class is made with (a dataclass's init field) that
    the solver keeps as a public attribute of the same name, with a plain value: a number, a
    string, a bool, ``None``, or a short list or dict of those. The objects the solver holds
    in public attributes whose classes come from the solver's package or from paretosurf (say
    :class:`~paretosurf.solvers.GradientSolver`'s step rule, or a problem) add theirs, as
    ``rule.lr``. Arrays, callables and other objects are left out, and so are the names in
    :data:`NOT_SETTINGS` (``device``, ``verbose``...). Counters and other attributes a
    solver sets itself are not arguments, so they are left out too. A plain function has no
    settings: its name (:func:`~paretosurf.solvers.solver_name`) is all there is.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.solvers import GradientSolver
    >>> from paretosurf.solvers._identity import solver_settings
    >>> f = lambda x: np.array([(x[0] - 1) ** 2, x[0] ** 2])
    >>> g = lambda x: np.array([[2 * (x[0] - 1)], [2 * x[0]]])
    >>> solver = GradientSolver(f, g, init=np.zeros(1), steps=20, lr=0.1, optimizer="sgd")
    >>> settings = solver_settings(solver)
    >>> settings["steps"], settings["rule.lr"], settings["rule.optimizer"]
    (20, 0.1, 'sgd')
    """
    inner = users_solver(solver)
    if inspect.isroutine(inner) or isinstance(inner, type):
        return {}
    out: dict[str, Any] = {}
    _collect(inner, "", {_home(inner), "paretosurf"} - {"builtins", ""}, out, False)
    return out


def _canonical(value: Any) -> str:
    """``value`` as JSON text, the same before and after a round trip through ``run.json``
    (which reads ``"nan"`` and ``"inf"`` back as floats, and a NaN equals no NaN)."""
    return json.dumps(to_json_floats(value), sort_keys=True, default=str)


def solver_identity(solver: Any) -> dict[str, Any]:
    """What ``run.json`` records of ``solver``: ``{"solver": name, "solver_settings": ...}``
    (:func:`~paretosurf.solvers.solver_name` and :func:`solver_settings`). Taken when the
    run is set up, before any solve changes the solver."""
    return {"solver": solver_name(solver), "solver_settings": solver_settings(solver)}


def check_same_solver(
    saved: Mapping[str, Any], identity: Mapping[str, Any], *, label: str, where: str
) -> None:
    """Refuse to resume the run of manifest ``saved`` with the solver of ``identity``
    (:func:`solver_identity`) unless it is the saved one: the same name, and the same value
    of each setting that both record (a run saved before settings were recorded is compared
    by name only). A run driven by ask and tell (:data:`TOLD_SOLVER`, saved or now) passes:
    its results came from outside, whatever computed them.

    Raises
    ------
    OptionError
        A :class:`ValueError` naming both solvers (or each setting that differs) and how to
        go on: the solver the run was saved with, ``overwrite=True`` or another folder for a
        new run, or ``resume="force"`` (its :class:`~paretosurf._utils.validation.Hint`).

    Examples
    --------
    >>> from paretosurf.solvers._identity import check_same_solver
    >>> saved = {"solver": "mine:Solver", "solver_settings": {"steps": 10}}
    >>> check_same_solver(saved, {"solver": "mine:Solver", "solver_settings": {"steps": 10}},
    ...                   label="SURF", where="checkpoint run")
    >>> check_same_solver(saved, {"solver": "mine:Other", "solver_settings": {}},
    ...                   label="SURF", where="checkpoint run")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paretosurf._utils.validation.OptionError: cannot resume the SURF run in checkpoint run ...
    """
    name = identity.get("solver")
    before = saved.get("solver")
    if TOLD_SOLVER in (name, before):
        return  # results told from outside: whatever computed them, any solver goes on
    advice = (
        "resume it with the solver it was saved with, or start a new run with "
        "{overwrite} or in another folder"
    )
    if before is not None and before != name:
        raise OptionError(
            f"cannot resume the {label} run in {where} with another solver: it was saved "
            f"with {before}, this call passes {name}; {advice}",
            _FORCE,
            overwrite=True,
        )
    recorded = saved.get("solver_settings")
    now = identity.get("solver_settings") or {}
    if not isinstance(recorded, Mapping):
        return
    diffs = [
        f"{key}: {recorded[key]!r} in the checkpoint, {now[key]!r} now"
        for key in sorted(set(recorded) & set(now))
        if _canonical(recorded[key]) != _canonical(now[key])
    ]
    if diffs:
        raise OptionError(
            f"cannot resume the {label} run in {where} with its solver {name} set up "
            f"otherwise; the solver's settings differ: {'; '.join(diffs)}. Make the solver "
            "as the run was started with, or start a new run with {overwrite} or in "
            "another folder",
            _FORCE,
            overwrite=True,
        )


# ---------------------------------------------------------------------------- state shapes
def _shapes(state: Any, path: str = "", depth: int = 0) -> dict[str, tuple[int, ...]]:
    """The shapes of the arrays (numpy's, or anything with ``shape`` and ``dtype``, as a
    torch tensor) in ``state``, by where they sit: ``""`` for the state itself, ``.params``
    for a field, ``['x']`` for a dict entry, ``[0]`` for an item."""
    if isinstance(state, np.ndarray) or (
        hasattr(state, "shape") and hasattr(state, "dtype") and not isinstance(state, type)
    ):
        try:
            return {path: tuple(int(n) for n in state.shape)}
        except (TypeError, ValueError):
            return {}
    if depth >= 3:
        return {}
    out: dict[str, tuple[int, ...]] = {}
    if dataclasses.is_dataclass(state) and not isinstance(state, type):
        for f in dataclasses.fields(state):
            out.update(_shapes(getattr(state, f.name, None), f"{path}.{f.name}", depth + 1))
    elif isinstance(state, Mapping):
        for key, value in list(state.items())[:MAX_ITEMS]:
            out.update(_shapes(value, f"{path}[{key!r}]", depth + 1))
    elif isinstance(state, (list, tuple)):
        for i, value in enumerate(state[:MAX_ITEMS]):
            out.update(_shapes(value, f"{path}[{i}]", depth + 1))
    return out


def _part(path: str) -> str:
    """How a message names the array at ``path`` of a state (see :func:`_shapes`)."""
    return f"its {path.lstrip('.')}" if path else "a saved state"


def check_state_shapes(
    states: Iterable[Any], solver: Any, weight: Any, *, label: str, where: str
) -> None:
    """Refuse saved ``states`` that do not fit ``solver``: where the solver has
    ``initial_state(weight)`` (the state a slot starts from), each array of a saved state
    must have the shape of the same array of that state.

    States of other kinds (folders of a disk-state solver, ``None``) and solvers without
    ``initial_state``, or whose ``initial_state`` fails, are not checked: the check only
    puts a clear message before a failure the solve would report less clearly.

    Raises
    ------
    OptionError
        A :class:`ValueError` naming the array, its shape in the saved state and in the
        solver's, and how to go on.

    Examples
    --------
    >>> import numpy as np
    >>> from paretosurf.solvers import GradientSolver, GradientState
    >>> from paretosurf.solvers._identity import check_state_shapes
    >>> f = lambda x: np.array([x.sum(), -x.sum()])
    >>> solver = GradientSolver(f, lambda x: np.ones((2, x.size)), init=np.zeros(5),
    ...                         steps=1, lr=0.1)
    >>> small = GradientState(np.zeros(3), np.zeros(3), np.zeros(3), 0)
    >>> check_state_shapes([small], solver, 0.5, label="SURF",
    ...                    where="checkpoint run")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paretosurf._utils.validation.OptionError: the states saved in checkpoint run do not fit ...
    """
    initial_state = getattr(users_solver(solver), "initial_state", None)
    if not callable(initial_state):
        return
    try:
        expected = _shapes(initial_state(weight))
    except Exception:  # a courtesy check: the solve reports the solver's own errors
        return
    if not expected:
        return
    for state in states:
        if state is None or isinstance(state, (str, bytes)) or hasattr(state, "__fspath__"):
            continue
        found = _shapes(state)
        odd = [path for path in found if path in expected and found[path] != expected[path]]
        if not odd:
            continue
        shown = "; ".join(
            f"{_part(path)} has shape {found[path]}, the solver's initial_state gives "
            f"{expected[path]}"
            for path in odd[:3]
        )
        raise OptionError(
            f"the states saved in {where} do not fit this solver: {shown} (a solver of "
            f"another problem size?). Resume the {label} run with the solver it was saved "
            "with, or start a new run with {overwrite} or in another folder",
            _SHAPE_FORCE,
            overwrite=True,
        )
