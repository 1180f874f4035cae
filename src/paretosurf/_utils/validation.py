"""Argument checks shared across the library: one message style, nothing silently clipped."""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

# the boolean loop options' checks live with the loop options (which import nothing of the
# package); the checks here, and the library's other callers, take them from this module too

FloatArray = NDArray[np.float64]


# ---------------------------------------------------------------------------- options in messages
#: How a front end writes an option that a message names: ``spell(name, value)``, the text
#: for it, or ``None`` for an option the front end lacks (the command line's
#: ``resume='force'``).
Spelling: TypeAlias = Callable[[str, Any], str | None]


def python_spelling(name: str, value: Any) -> str:
    """An option as a Python call writes it: ``resume=True``, ``alpha='auto'``; a bare name
    for a value of ``None`` (``iterations``).

    Examples
    --------
    >>> from paretosurf._utils.validation import python_spelling
    >>> python_spelling("resume", True), python_spelling("alpha", "auto")
    ('resume=True', "alpha='auto'")
    >>> python_spelling("iterations", None)
    'iterations'
    """
    return name if value is None else f"{name}={value!r}"


def spell_options(
    template: str,
    options: Mapping[str, Any],
    spell: Spelling = python_spelling,
) -> str:
    """``template`` with each ``{name}`` field of an option in ``options`` written as
    ``spell(name, value)`` (as a Python call writes it where ``spell`` gives ``None``: the
    front end lacks the option, and the message still names it); every other character,
    braces included, is kept as it is (a path or a value shown in the message needs no
    escaping).

    Examples
    --------
    >>> from paretosurf._utils.validation import spell_options
    >>> spell_options("{a} is not {b}; pass {overwrite}", {"overwrite": True})
    '{a} is not {b}; pass overwrite=True'
    >>> spell_options("pass {overwrite}", {"overwrite": True}, lambda n, v: "--" + n)
    'pass --overwrite'
    """
    out: list[str] = []
    start = 0
    while (opening := template.find("{", start)) >= 0:
        closing = template.find("}", opening)
        name = template[opening + 1 : closing] if closing >= 0 else ""
        if name in options:
            spelled = spell(name, options[name])
            if spelled is None:
                spelled = python_spelling(name, options[name])
            out += [template[start:opening], spelled]
            start = closing + 1
        else:
            out.append(template[start : opening + 1])
            start = opening + 1
    out.append(template[start:])
    return "".join(out)


def _rebuilt(cls: type[BaseException], args: tuple[Any, ...]) -> BaseException:
    """An exception of class ``cls`` with ``args``, made without calling its ``__init__`` (for
    unpickling; its attributes come back with its state)."""
    error = cls.__new__(cls, *args)
    error.args = args
    return error


@dataclasses.dataclass(frozen=True)
class Hint:
    """The end of a message that gives advice through options not every front end has
    (``resume='force'``, which the command line lacks): shown by each front end whose
    spelling spells all of its options, left out by the others.

    Parameters
    ----------
    template : str
        The hint, each option it names written as a ``{name}`` field (see
        :func:`spell_options`).
    options : mapping
        The options it names, with their values.

    Examples
    --------
    >>> from paretosurf._utils.validation import Hint
    >>> hint = Hint(" ({resume} continues it all the same)", {"resume": "force"})
    >>> hint.text()
    " (resume='force' continues it all the same)"
    >>> hint.text(lambda name, value: None if value == "force" else "--" + name)
    ''
    """

    template: str
    options: Mapping[str, Any]

    def text(self, spell: Spelling = python_spelling) -> str:
        """The hint with its options spelled by ``spell``, or ``""`` if ``spell`` lacks one
        of them (gives ``None``)."""
        if any(spell(name, value) is None for name, value in self.options.items()):
            return ""
        return spell_options(self.template, self.options, spell)


class NamesOptions:
    """An exception whose message names options of a call as ``{name}`` fields, so that each
    front end spells them in its own terms (a Python call's ``overwrite=True``, the command
    line's ``--overwrite``) with no rewriting of text; and whose :class:`Hint`, if it has
    one, each front end shows or leaves out by its own options.

    A mixin, listed before the exception class it adds to (``class E(NamesOptions,
    ValueError)``), whose meaning it leaves as it was: the error is raised and caught as
    before, and ``str(error)`` spells the options as a Python call writes them
    (:func:`python_spelling`). A class's ``__init__`` passes its message through
    :meth:`_name_options`.

    Attributes
    ----------
    template : str
        The message with its fields.
    options : dict
        Every option the message names, with its value (``None``: the option's name alone).
    hint : Hint or None
        The advice at its end through options that not every front end has.
    """

    template: str
    options: dict[str, Any]
    hint: Hint | None

    def _name_options(
        self, template: str, options: Mapping[str, Any], hint: Hint | None = None
    ) -> str:
        """Keep the message's fields; return it as a Python call spells them, for the
        exception's own ``__init__``."""
        self.template = template
        self.options = dict(options)
        self.hint = hint
        return NamesOptions.text(self)  # (the message alone, whatever a subclass adds to it)

    def text(self, spell: Spelling = python_spelling) -> str:
        """The message with its options spelled by ``spell(name, value)`` (default: as a
        Python call writes them), and its hint where ``spell`` has every option it names."""
        message = spell_options(self.template, self.options, spell)
        return message if self.hint is None else message + self.hint.text(spell)

    def __reduce__(self) -> tuple[Any, ...]:
        # by its state: a subclass's __init__ takes other arguments than its message
        assert isinstance(self, BaseException)
        return (_rebuilt, (type(self), self.args), self.__dict__)


class ExistingFileError(NamesOptions, FileExistsError):
    """A :class:`FileExistsError` whose message names options of a call as fields (the
    ``{overwrite}`` that would replace the file): see :class:`NamesOptions`.

    Parameters
    ----------
    template : str
        The message, each option it names written as a ``{name}`` field.
    hint : Hint, optional
        Advice at its end, through options that not every front end has.
    **options
        The options the message names, with their values.

    Examples
    --------
    >>> from paretosurf._utils.validation import ExistingFileError
    >>> err = ExistingFileError("out.json exists: pass {overwrite} to replace it",
    ...                         overwrite=True)
    >>> isinstance(err, FileExistsError), str(err)
    (True, 'out.json exists: pass overwrite=True to replace it')
    >>> err.text(lambda name, value: "--" + name)
    'out.json exists: pass --overwrite to replace it'
    """

    def __init__(self, template: str, hint: Hint | None = None, /, **options: Any) -> None:
        super().__init__(self._name_options(template, options, hint))


class OptionError(NamesOptions, ValueError):
    """A :class:`ValueError` about options of a call, whose message names them as fields, so
    that each front end spells them in its own terms (a Python call's ``overwrite=True``, the
    command line's ``--overwrite``) with no rewriting of text (see :class:`NamesOptions`).

    ``str(error)`` spells them as a Python call writes them (:func:`python_spelling`), and
    :meth:`text` as a front end does.

    Parameters
    ----------
    template : str
        The message, each option it names written as a ``{name}`` field (other braces are
        text: see :func:`spell_options`).
    hint : Hint, optional
        Advice at its end, through options that not every front end has (shown where the
        front end has them all).
    **options
        The options the message names, with their values (``None``: the option's name alone),
        the one the error is about first.

    Attributes
    ----------
    option : str
        The option the error is about: its keyword name.
    value : object
        Its value, as the message shows it.
    options : dict
        Every option the message names, with its value.
    template : str
        The message with its fields.
    hint : Hint or None
        As given.

    Examples
    --------
    >>> from paretosurf._utils.validation import OptionError
    >>> err = OptionError("the folder holds a run; pass {resume} to continue it", resume=True)
    >>> str(err), err.option, err.value
    ('the folder holds a run; pass resume=True to continue it', 'resume', True)
    >>> err.text(lambda name, value: "--" + name)
    'the folder holds a run; pass --resume to continue it'
    """

    def __init__(self, template: str, hint: Hint | None = None, /, **options: Any) -> None:
        if not options:
            raise TypeError("an OptionError names at least one option")
        message = self._name_options(template, options, hint)
        self.option: str = next(iter(self.options))
        self.value: Any = self.options[self.option]
        super().__init__(message)


class SettingsMismatchError(OptionError):
    """Settings that differ from those a saved run was started with: an :class:`OptionError`
    whose fields are the names of the settings that differ (each spelled with its value
    ``None``: the name alone), about the first of them.

    Parameters
    ----------
    opening : str
        The start of the message (what cannot be done, and where), up to ``"differing: "``.
    differing : mapping
        Each setting that differs, by name: its value in the checkpoint and the one given
        (``"(unset)"`` where one has none), in the order the message lists them.

    Attributes
    ----------
    differing : dict
        As given.
    value : object
        The value given for :attr:`option`, the first setting that differs.

    Examples
    --------
    >>> from paretosurf._utils.validation import SettingsMismatchError
    >>> err = SettingsMismatchError("cannot resume the run here; ", {"alpha": (0.3, 0.5)})
    >>> str(err)
    'cannot resume the run here; differing: alpha: 0.3 in the checkpoint, 0.5 now'
    >>> err.option, err.value
    ('alpha', 0.5)
    >>> err.text(lambda name, value: f"{name} (--{name})")
    'cannot resume the run here; differing: alpha (--alpha): 0.3 in the checkpoint, 0.5 now'
    """

    def __init__(self, opening: str, differing: Mapping[str, tuple[Any, Any]]) -> None:
        self.differing = {name: (saved, given) for name, (saved, given) in differing.items()}
        listed = "; ".join(
            f"{{{name}}}: {saved!r} in the checkpoint, {given!r} now"
            for name, (saved, given) in self.differing.items()
        )
        super().__init__(f"{opening}differing: {listed}", **dict.fromkeys(self.differing))
        self.value = self.differing[self.option][1]


def check_n_segments(n_segments: object, *, name: str = "n_segments") -> int:
    """Return ``n_segments`` as an int >= 1, or raise naming the argument."""
    if isinstance(n_segments, bool) or not isinstance(n_segments, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1, got {n_segments!r}")
    if n_segments < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {n_segments}")
    return int(n_segments)


def check_alpha(alpha: object, *, name: str = "alpha") -> float:
    """Return ``alpha`` as a float in (0, 1], or raise naming the argument."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"{name} must be a real number in (0, 1], got {alpha!r}")
    value = float(alpha)
    if not (0.0 < value <= 1.0):
        raise ValueError(f"{name} must lie in (0, 1], got {value}")
    return value


def check_non_negative_int(value: object, *, name: str) -> int:
    """Return ``value`` as an int >= 0, or raise naming the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 0, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value}")
    return int(value)


def check_positive_int(value: object, *, name: str) -> int:
    """Return ``value`` as an int >= 1, or raise naming the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value}")
    return int(value)


def check_positive(value: object, *, name: str) -> float:
    """Return ``value`` as a finite float > 0, or raise naming the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive real number, got {value!r}")
    out = float(value)
    if not (np.isfinite(out) and out > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {out}")
    return out


def as_weights(
    weights: ArrayLike, *, name: str = "weights", span_unit_interval: bool = True
) -> FloatArray:
    """Validate a strictly increasing 1-D weight array inside [0, 1].

    With ``span_unit_interval`` the first weight must be 0 and the last 1.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size < 2:
        raise ValueError(f"{name} must be a 1-D array of at least 2 weights, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} must be finite")
    if np.any((w < 0) | (w > 1)):
        bad = w[(w < 0) | (w > 1)]
        raise ValueError(f"{name} must lie in [0, 1]; got {bad.tolist()}")
    if np.any(np.diff(w) <= 0):
        raise ValueError(f"{name} must be strictly increasing")
    if span_unit_interval and (w[0] != 0.0 or w[-1] != 1.0):
        raise ValueError(f"{name} must start at 0 and end at 1; got {w[0]} and {w[-1]}")
    return w


def as_front_points(
    points: ArrayLike, *, n_points: int | None = None, name: str = "points", min_points: int = 2
) -> FloatArray:
    """Validate a finite ``(P, M)`` array of objective vectors with M >= 1."""
    p = np.asarray(points, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] < 1:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_points, n_objectives), got shape {p.shape}"
        )
    if n_points is not None and p.shape[0] != n_points:
        raise ValueError(f"{name} must have {n_points} rows (one per weight), got {p.shape[0]}")
    if p.shape[0] < min_points:
        raise ValueError(f"{name} must have at least {min_points} rows, got {p.shape[0]}")
    if not np.all(np.isfinite(p)):
        rows = np.flatnonzero(~np.all(np.isfinite(p), axis=1))
        raise ValueError(f"{name} must be finite; rows {rows.tolist()} are not")
    return p


def as_weight_array(w: ArrayLike, *, name: str = "w") -> FloatArray:
    """Weights as a float array (any shape) of finite values inside [0, 1], or a ``ValueError``."""
    arr = np.asarray(w, dtype=np.float64)
    if not np.all(np.isfinite(arr)) or np.any((arr < 0) | (arr > 1)):
        raise ValueError(f"{name} must lie in [0, 1]")
    return arr


def check_torch_device(device: object, *, numpy_backend: bool = True) -> str:
    """A torch ``device`` (``"cpu"``, ``"cuda"`` or ``"cuda:N"``) checked against what torch
    sees on this machine, before any work starts.

    Parameters
    ----------
    device : str
        The torch device the work is to run on.
    numpy_backend : bool
        Whether the caller also runs without torch (``device=None``, numpy): the messages
        then offer it.

    Returns
    -------
    str
        ``device``, as given.

    Raises
    ------
    TypeError
        If ``device`` is not a string.
    ValueError
        If it names no CPU or CUDA device, or a CUDA device that torch does not see (no GPU,
        or a torch built without CUDA, or an index beyond the GPUs there are); the message
        says what to use instead.
    ImportError
        If torch (the ``rl`` extra) is not installed.
    """
    allowed = (
        "None (numpy), 'cpu' or 'cuda[:N]' (torch)" if numpy_backend else "'cpu' or 'cuda[:N]'"
    )
    instead = (
        "device='cpu' (torch on the CPU) or device=None (numpy)"
        if numpy_backend
        else "device='cpu'"
    )
    if not isinstance(device, str):
        raise TypeError(f"device must be {allowed}, got {device!r}")
    if re.fullmatch(r"(cpu|cuda)(:[0-9]+)?", device) is None:
        # named wrongly whether torch is installed or not: said so before asking for torch
        raise ValueError(f"device must be {allowed}, got {device!r}")
    try:
        import torch
    except ImportError as exc:
        fallback = ", or pass device=None (numpy)" if numpy_backend else ""
        raise ImportError(
            f"device={device!r} runs in torch, which is not installed: "
            f"pip install 'paretosurf[rl]'{fallback}"
        ) from exc
    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError):
        parsed = None
    if parsed is None or parsed.type not in ("cpu", "cuda"):
        raise ValueError(f"device must be {allowed}, got {device!r}")
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            build = ", built without CUDA" if torch.version.cuda is None else ""
            raise ValueError(
                f"device={device!r} asks for a CUDA GPU, but torch sees no CUDA "
                f"device (torch {torch.__version__}{build}); use {instead}"
            )
        count = torch.cuda.device_count()
        if parsed.index is not None and parsed.index >= count:
            raise ValueError(
                f"device={device!r} asks for CUDA GPU {parsed.index}, but torch "
                f"sees {count} (cuda:0 to cuda:{count - 1}); use one of them or "
                f"{instead}"
            )
    return device


def check_checkpoint(checkpoint: object) -> None:
    """``checkpoint`` must be ``None`` or a folder path (a ``str`` or :class:`os.PathLike`)
    that names a folder: an empty string would make the working directory the run folder.

    Raises
    ------
    TypeError
        If it is neither ``None`` nor a path.
    ValueError
        If it is empty (or blank).

    Examples
    --------
    >>> from paretosurf._utils.validation import check_checkpoint
    >>> check_checkpoint("runs/surf")
    >>> check_checkpoint("")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: checkpoint='' names no folder: ...
    """
    if checkpoint is None:
        return
    text = os.fspath(checkpoint) if isinstance(checkpoint, (str, os.PathLike)) else None
    if not isinstance(text, str):
        raise TypeError(
            f"checkpoint must be the path of the run folder (a str or pathlib.Path) or None, "
            f"got {checkpoint!r} ({type(checkpoint).__name__})"
        )
    if not text.strip():
        raise ValueError(
            f"checkpoint={checkpoint!r} names no folder: the run folder would be the working "
            "directory. Pass the folder to save the run in (checkpoint='runs/surf', say), "
            "checkpoint='.' if you do mean the working directory, or checkpoint=None for no "
            "run folder"
        )


def check_not_a_class(value: object, *, name: str, what: str, methods: Sequence[str]) -> None:
    """Refuse a class where an instance is wanted (``executor=ProcessExecutor`` for
    ``executor=ProcessExecutor()``), naming the option and the call that makes one.

    A class whose ``methods`` include a static or class method is let through: it works
    without an instance.

    Raises
    ------
    TypeError
        If ``value`` is a class whose ``methods`` need an instance.

    Examples
    --------
    >>> from paretosurf._utils.validation import check_not_a_class
    >>> from paretosurf.executors import ProcessExecutor
    >>> check_not_a_class(ProcessExecutor, name="executor", what="an executor",
    ...                   methods=["solve"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: executor is the class ProcessExecutor, not an executor: pass an instance, ...
    """
    if not isinstance(value, type):
        return
    for method in methods:
        if isinstance(inspect.getattr_static(value, method, None), (staticmethod, classmethod)):
            return
    cls = value.__name__
    raise TypeError(
        f"{name} is the class {cls}, not {what}: pass an instance, {name}={cls}() (with "
        f"the arguments {cls} takes)"
    )


def check_run_options(
    *,
    tol: object = None,
    checkpoint: object = None,
    resume: object = False,
    overwrite: object = False,
    callback: object = None,
    executor: object = None,
    allow_pickle: object = False,
    early_stopping: object = True,
) -> None:
    """Validate the loop keywords every method takes (raises ``ValueError``/``TypeError``,
    naming the option): ``resume`` is ``True``, ``False`` or ``"force"``, ``overwrite``,
    ``allow_pickle`` and ``early_stopping`` booleans, ``checkpoint`` a folder path, and
    ``executor`` an executor object (not its class)."""
    if tol is not None and (
        isinstance(tol, bool)
        or not isinstance(tol, (int, float))
        or not (tol > 0 and math.isfinite(tol))
    ):
        raise ValueError(f"tol must be a finite number > 0 or None, got {tol!r}")
    resume = check_resume(resume)
    overwrite = check_flag(overwrite, name="overwrite")
    check_flag(allow_pickle, name="allow_pickle")
    check_flag(early_stopping, name="early_stopping")
    check_checkpoint(checkpoint)
    if resume and checkpoint is None:
        raise OptionError("{resume} needs a checkpoint folder", resume=resume)
    if overwrite and checkpoint is None:
        raise OptionError("{overwrite} needs a checkpoint folder", overwrite=True)
    if resume and overwrite:
        raise OptionError(
            "pass {resume} (continue the run in the checkpoint folder) or {overwrite} "
            "(replace it), not both",
            resume=resume,
            overwrite=True,
        )
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable, got {type(callback).__name__}")
    check_not_a_class(executor, name="executor", what="an executor", methods=("solve",))
    if executor is not None and not callable(getattr(executor, "solve", None)):
        raise TypeError(
            f"executor must have a solve(solver, tasks, on_done=None) method returning one "
            f"SolveOutcome per task (see paretosurf.executors.Executor); "
            f"{type(executor).__name__} has none"
        )


def check_checkpoint_period(checkpoint_period: Any, *, has_folder: bool) -> None:
    """Refuse a ``checkpoint_period`` other than ``"auto"`` without a run folder: it says
    how often the run is saved in ``checkpoint``, so without one it would do nothing.

    ``checkpoint_period`` is the option as given, or the
    :class:`~paretosurf.loop.Checkpointer` made from it (one whose ``period`` and
    ``every`` are both ``None`` is "auto").
    """
    if has_folder:
        return
    if isinstance(checkpoint_period, str) and checkpoint_period == "auto":
        return
    period = getattr(checkpoint_period, "period", checkpoint_period)
    every = getattr(checkpoint_period, "every", None)
    if period is None and every is None:
        return
    if every is not None:
        shown = f"Checkpointer(every={every})"
    elif isinstance(period, numbers.Real) and not isinstance(period, bool):
        shown = f"{float(period):g}"
    else:
        shown = repr(checkpoint_period)
    raise ValueError(
        f"checkpoint_period={shown} sets how often the run is saved in its run folder, "
        "but no checkpoint folder is given: pass checkpoint=DIR too, or drop checkpoint_period"
    )


def format_weight_value(weight: object) -> str:
    """A weight for a message: ``0.25``, or ``[0.2, 0.3, 0.5]`` for a weight vector."""
    arr = np.asarray(weight, dtype=np.float64)
    if arr.ndim == 0:
        return f"{float(arr):.6g}"
    return "[" + ", ".join(f"{float(v):.6g}" for v in arr.ravel()) + "]"


def check_objective_sizes(
    outcomes: Sequence[Any], *, expected: int | None, label: str, index: int
) -> None:
    """Refuse a round whose solves returned objective vectors of different sizes, naming
    the slots (and their weights) that returned another number of objectives than
    ``expected`` (the method's, or the earlier rounds'; ``None``: the most common size).
    A round whose solves all returned the same number is left to the method's own check.

    ``outcomes`` are the round's :class:`~paretosurf.executors.SolveOutcome` (``slot``,
    ``weight`` and ``solution``); those without a solution are skipped.

    Raises
    ------
    ValueError
        Naming up to five of the odd slots, what each returned and what the run expects.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> from paretosurf import Solution
    >>> from paretosurf._utils.validation import check_objective_sizes
    >>> outs = [NS(slot=s, weight=[0.5, 0.5 - 0.1 * s, 0.1 * s],
    ...            solution=Solution([1.0, 2.0, 3.0][: 2 if s == 2 else 3])) for s in range(4)]
    >>> check_objective_sizes(outs, expected=3, label="S", index=0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: S: the solver returned 2 objectives for slot 2 (weight [0.5, 0.3, 0.2]) in ...
    """
    solved = [o for o in outcomes if getattr(o, "solution", None) is not None]
    sizes = [int(np.size(o.solution.objectives)) for o in solved]
    if len(set(sizes)) <= 1:
        return
    if expected is None or expected not in sizes:
        counts = {size: sizes.count(size) for size in sorted(set(sizes))}
        expected = max(counts, key=lambda size: counts[size])
    odd = [(o, size) for o, size in zip(solved, sizes, strict=True) if size != expected]
    shown = "; ".join(
        f"{size} objectives for slot {o.slot} (weight {format_weight_value(o.weight)})"
        for o, size in odd[:5]
    )
    more = f" and {len(odd) - 5} more slots" if len(odd) > 5 else ""
    rest = f" (the other slots returned {expected})" if len(odd) < len(solved) else ""
    raise ValueError(
        f"{label}: the solver returned {shown}{more} in round {index}, where the run expects "
        f"{expected}{rest}; every solve must return the same number of objectives"
    )


def check_iterations(iterations: object, *, resume: bool | str) -> int | None:
    """``run``'s round limit: ``None`` or an int >= 1 (0 only with ``resume``, to read a
    saved run)."""
    if iterations is None:
        return None
    checked = check_non_negative_int(iterations, name="iterations")
    if checked == 0 and not resume:
        raise ValueError(
            "iterations must be at least 1 (0 would solve nothing; to read a "
            "saved run, use Result.load)"
        )
    return checked


def check_init_states(init_states: object) -> None:
    """``init_states`` must be ``None`` or a sequence (not a string) of warm starts."""
    if init_states is not None and (
        isinstance(init_states, (str, bytes)) or not isinstance(init_states, Sequence)
    ):
        raise TypeError(
            "init_states must be a sequence of warm starts (None for a cold "
            f"start) or None, got {type(init_states).__name__}"
        )


def check_weight_bounds(weight_bounds: object) -> tuple[float, float] | str | None:
    """``weight_bounds`` as ``(lo, hi)`` with ``0 <= lo < hi <= 1``, ``"auto"``, or ``None``."""
    if weight_bounds is None:
        return None
    if isinstance(weight_bounds, str):
        if weight_bounds == "auto":
            return "auto"
        raise ValueError(
            f"weight_bounds must be a pair (lo, hi) of weights, 'auto' or None, got "
            f"{weight_bounds!r}"
        )
    try:
        lo, hi = (float(v) for v in weight_bounds)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise TypeError(
            f"weight_bounds must be a pair (lo, hi) of weights, 'auto' or None, got "
            f"{weight_bounds!r}"
        ) from None
    if not (0.0 <= lo < hi <= 1.0):
        raise ValueError(f"weight_bounds must satisfy 0 <= lo < hi <= 1, got ({lo}, {hi})")
    return lo, hi


def check_moving_average(rate: object) -> float | None:
    """The moving-average rate in (0, 1], or ``None``."""
    if rate is None:
        return None
    if (
        isinstance(rate, bool)
        or not isinstance(rate, numbers.Real)
        or not (0.0 < float(rate) <= 1.0)
    ):
        raise ValueError(
            f"moving_average must be a rate in (0, 1] (the weight of the newest "
            f"estimate) or None, got {rate!r}"
        )
    return float(rate)


def _is_bool(value: object) -> bool:
    """Whether ``value`` is ``True`` or ``False``: a Python bool or numpy's (known by
    name, as in a module that imports no numpy)."""
    kind = type(value)
    return isinstance(value, bool) or (
        kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")
    )


def check_flag(value: object, *, name: str) -> bool:
    """Return ``value`` as a bool: ``True`` or ``False`` (numpy's booleans too), nothing else.

    A string is refused rather than read: ``"False"`` or ``"no"`` (from a config file or a
    command line) would count as true.

    Raises
    ------
    TypeError
        Naming ``name`` and the value given.

    Examples
    --------
    >>> from paretosurf._utils.validation import check_flag
    >>> check_flag(False, name="allow_pickle")
    False
    >>> check_flag("False", name="allow_pickle")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: allow_pickle must be True or False, got 'False' (a string, which ...
    """
    if _is_bool(value):
        return bool(value)
    if isinstance(value, str):
        raise TypeError(
            f"{name} must be True or False, got {value!r} (a string, which is not read as a "
            f"boolean: pass {name}=True or {name}=False)"
        )
    raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")


#: The string ``resume`` takes besides ``True`` and ``False``: continue the run with another
#: solver than the one it was saved with.
FORCE = "force"


def check_resume(resume: object) -> bool | str:
    """``resume`` checked: ``True``, ``False`` or ``"force"`` (returned as given).

    Examples
    --------
    >>> from paretosurf._utils.validation import check_resume
    >>> check_resume(True), check_resume("force")
    (True, 'force')
    >>> check_resume("yes")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: resume must be True, False or 'force' (...), got 'yes'
    """
    if isinstance(resume, str):
        if resume == FORCE:
            return FORCE
        raise ValueError(
            f"resume must be True, False or {FORCE!r} (continue the run even with another "
            f"solver than it was saved with), got {resume!r}"
        )
    if not _is_bool(resume):
        raise TypeError(
            f"resume must be True, False or {FORCE!r}, got {resume!r} ({type(resume).__name__})"
        )
    return bool(resume)


def add_note(exc: BaseException, note: str) -> None:
    """``exc.add_note(note)`` (Python 3.11+); on Python 3.10, which has no such method, the
    note is kept in ``exc.__notes__`` alike (tracebacks of 3.10 do not print it).

    Examples
    --------
    >>> err = ValueError("bad")
    >>> add_note(err, "while reading the run folder")
    >>> err.__notes__
    ['while reading the run folder']
    """
    if hasattr(exc, "add_note"):
        exc.add_note(note)
    else:  # pragma: no cover - Python 3.10
        notes = getattr(exc, "__notes__", None) or []
        exc.__notes__ = [*notes, note]
