"""The loop options: the keywords every method's entry function passes on to the driver.

Every entry function (:func:`paretosurf.surf`, :func:`paretosurf.surf_simplex` and each
baseline) takes its method's own arguments and ``**options`` (typed
``Unpack[RunOptions]``, see :class:`paretosurf.loop.RunOptions`), which it hands to
:func:`paretosurf.loop.run` unchanged. This module holds what they share, and imports
nothing of the package at run time, so that the driver itself documents
:func:`~paretosurf.loop.run` with it:

- :class:`RunOptions`, the loop options as a ``TypedDict`` for ``Unpack[RunOptions]``, and
  :data:`Callback` (both importable from :mod:`paretosurf.loop` too);

- :data:`LOOP_OPTION_DOCS`, the one description of each loop option, which
  :func:`document_loop_options` writes into an entry function's docstring (and into
  :func:`~paretosurf.loop.run`'s);
- :func:`check_options`, which refuses an unknown keyword naming the entry function that got
  it (rather than ``run() got an unexpected keyword argument``), and a boolean option that is
  not a boolean (``allow_pickle="False"``, which Python would read as true).
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar

from paretosurf._utils.validation import FORCE, check_flag, check_resume

if TYPE_CHECKING:  # pragma: no cover - typing only
    from paretosurf.executors import Executor
    from paretosurf.loop._basin_probes import BasinProbes
    from paretosurf.loop._checkpointing import Checkpointer
    from paretosurf.result import IterationRecord

__all__ = [
    "FLAG_OPTIONS",
    "FORCE",
    "LOOP_OPTIONS",
    "LOOP_OPTION_DOCS",
    "Callback",
    "RunOptions",
    "check_flag",
    "check_options",
    "check_resume",
    "document_loop_options",
]

#: ``callback(record)``: called after every round; returning ``True`` stops the run.
Callback = Callable[["IterationRecord"], "bool | None"]


class RunOptions(TypedDict, total=False):
    """The keywords of :func:`paretosurf.loop.run` that every method's entry point passes
    on (see :data:`LOOP_OPTION_DOCS` for their meaning): ``executor``, ``checkpoint``,
    ``resume``, ``overwrite``, ``callback``, ``progress``, ``normalize``, ``moving_average``,
    ``weight_bounds``, ``retries``, ``allow_pickle``, ``checkpoint_period``, ``report``,
    ``target``, ``early_stopping``, ``probes``."""

    executor: Executor | None
    checkpoint: str | Path | None
    resume: bool | Literal["force"]
    overwrite: bool
    callback: Callback | None
    progress: bool
    normalize: Any
    moving_average: float | None
    weight_bounds: tuple[float, float] | str | None
    retries: int
    allow_pickle: bool
    checkpoint_period: float | str | Checkpointer
    report: str
    target: float | None
    early_stopping: bool
    probes: BasinProbes | str | bool | None


F = TypeVar("F", bound=Callable[..., Any])

#: The line of an entry function's docstring that :func:`document_loop_options` replaces.
PLACEHOLDER = "<loop options>"

#: Each loop option's numpydoc entry: ``(type, description)``; the defaults are those of
#: :func:`paretosurf.loop.run`.
LOOP_OPTION_DOCS: dict[str, tuple[str, str]] = {
    "executor": (
        "Executor, optional",
        """
        Runs each round's solves. Default :class:`~paretosurf.executors.LocalExecutor` (in
        this process); :class:`~paretosurf.executors.ProcessExecutor` and
        :class:`~paretosurf.executors.RayExecutor` spread them over processes or a cluster.
        Any object implementing the :class:`~paretosurf.executors.Executor` protocol works.
        """,
    ),
    "checkpoint": (
        "path, optional",
        """
        Run folder. The run is saved there atomically, after the rounds that
        ``checkpoint_period`` picks and always after the last, with the method and its
        settings. A folder that already holds a run is refused unless ``resume`` or
        ``overwrite`` is given.
        """,
    ),
    "resume": (
        'bool or "force", default False',
        """
        Continue the run saved in ``checkpoint`` (a fresh run if the folder holds none).
        Resuming as another method or with other settings is refused, naming each
        difference, and so is resuming with another solver than the run was saved with
        (another class or function, by qualified name, or the same class with other public
        settings: the scalar arguments it was made with), and with a solver whose
        ``initial_state(weight)`` has arrays of other shapes than the saved states.
        ``"force"`` resumes all the same, skipping both checks (your call: the run's rounds
        then come from two solvers; ``run.json`` keeps naming the first, so each later
        resume needs ``"force"`` too); the method and its settings must still match. A run
        that converged, finished or was stopped by its callback is returned without solving
        again; one that reached its round limit continues up to ``iterations``. Only
        ``True``, ``False`` and ``"force"`` are taken (``"yes"`` is refused).
        """,
    ),
    "overwrite": (
        "bool, default False",
        """
        Replace the run saved in ``checkpoint`` (its own files only; other files in the
        folder are left alone). ``True`` or ``False`` only.
        """,
    ),
    "callback": (
        "callable, optional",
        """
        Called with each round's :class:`~paretosurf.IterationRecord` after the round (and
        its checkpoint, if one is due); returning ``True`` stops the run.
        """,
    ),
    "progress": (
        "bool, default False",
        """
        Show a progress bar with the current CV and gap ratio.
        """,
    ),
    "normalize": (
        '{"endpoints", "none"}, (ideal, nadir) or callable, default "endpoints"',
        """
        The coordinates distances are measured in, by the method (SURF's chords, UMOD's
        surrogate) and by the records' CV and gap ratio. ``"endpoints"``: each objective
        shifted and scaled by the ideal and nadir of the current endpoint (corner)
        solutions, so that an objective's units do not change the result; ``"none"``: the
        raw objectives, as in the paper; ``(ideal, nadir)``: a fixed normalization; a
        callable ``f(points) -> coordinates``: any other. See :mod:`paretosurf.loop`.
        """,
    ),
    "moving_average": (
        "float, optional",
        """
        For noisy objective estimates (stochastic evaluation, RL returns, LLM rewards): the
        rate in (0, 1] of an exponential moving average of each slot's objectives across
        rounds, ``avg = rate * new + (1 - rate) * avg`` while the slot's weight stays put (a
        slot whose weight moves by one average gap starts afresh). The method updates its
        weights from the averages; the history keeps the raw estimates. 0.2 to 0.5 are good
        starts.
        """,
    ),
    "weight_bounds": (
        '(lo, hi), "auto" or None, optional',
        """
        Keep the solves off the ends: solve at ``u = lo + (hi - lo) * w`` instead of ``w``,
        where ``u`` is the weight in the run's units (objective 1's weight once each
        objective is divided by its range between the front's ends, with
        ``normalize="endpoints"``), so that a bound clips the same share of the front
        whatever the objectives' units. At exactly ``w = 0`` or ``1`` the scalarized
        problem ignores one objective, and a solver may stop anywhere on the flat face it
        leaves, or the problem may have no minimizer. ``"auto"``: the smallest bounds at
        which the end solves still have minimizers, found before the first round by
        approaching each end (the distance shrinking tenfold while the end still moves; see
        :mod:`paretosurf.findings`); ``(0, 1)`` for a solver that poses its ends itself
        (``solve_end``). With two objectives the run checks its points against the front's
        ends (the ``coverage`` finding). Weight vectors (three or more objectives) are
        bounded on the raw weights, as ``(lo, 1 - (M - 1) * lo)``. The result's and
        records' weights are those solved at (raw).
        """,
    ),
    "retries": (
        "int, default 1",
        """
        How many more times a failed solve (an exception, non-finite objectives, a killed
        worker) is tried, on its own, before the run stops with an error naming the slot,
        the weight, the attempt and the original error; the last checkpoint stays as it was.
        """,
    ),
    "allow_pickle": (
        "bool, default False",
        """
        Let ``resume`` unpickle solver states that nothing else could store (see
        :mod:`paretosurf.storage`). Unpickling runs code: only for folders you trust. ``True``
        or ``False`` only: a string such as ``"False"`` is refused, not read as true.
        """,
    ),
    "checkpoint_period": (
        '"auto", float or Checkpointer, default "auto"',
        """
        Seconds of solving between checkpoints of the ``checkpoint`` folder (anything but
        ``"auto"`` without ``checkpoint`` is refused); 0 saves after every round. ``"auto"`` keeps
        checkpoints to about 1% of the run: every round when solves take a second or more,
        every few rounds when they take milliseconds (see
        :data:`paretosurf.loop.CHECKPOINT_SHARE`; the first comes half a second into
        the run, see :data:`~paretosurf.loop.FIRST_CHECKPOINT_SECONDS`), so that a
        killed run loses about that share of its solving. A
        :class:`~paretosurf.loop.Checkpointer` sets the schedule in full (period,
        share, every k rounds, clock). The last round is always saved.
        """,
    ),
    "report": (
        '{"auto", "last", "most-even"}, default "auto"',
        """
        Which round the result reports: the last, or the most even of the last
        :data:`~paretosurf.loop._kept_rounds.KEEP_ROUNDS` (the lowest largest over smallest gap, in
        the run's coordinates, of the round's own points rather than their
        ``moving_average``; the candidate rounds' states are kept until the end).
        ``"auto"``: the most even with three or more objectives, the last with two.
        ``"most-even"`` suits solvers whose solutions swing from call to call (deep RL), not
        exact solutions with noisy evaluations, where it would choose on the noise. Only
        methods whose points are their last round's, one per slot, report an earlier round;
        ``reported_round`` says which round the result holds.
        """,
    ),
    "target": (
        "float, optional",
        """
        The spacing ``success`` requires, on the reported round and in the run's
        coordinates: the largest gap over the smallest between consecutive points (two
        objectives, default 2) or between nearest neighbours (a surface, default 3). A
        method that aims at even spacing (SURF) fails above it with the finding
        ``"uneven"``, naming how many more rounds its recent progress suggests; for the
        others unevenness is advice. Resuming may change it.
        """,
    ),
    "early_stopping": (
        "bool, default True",
        """
        End the run, before ``iterations``, after the first round whose points meet
        ``target`` while the method's weights have settled (SURF: a full step would move
        each by less than 2% of its distance to its nearest other weight), every solve of
        the round succeeded, and at least three rounds ran; ``stop_reason`` is then
        ``"done"``. ``iterations``
        is then a cap, not a schedule. Only methods that aim at even spacing (SURF,
        SURF-simplex) stop early; ``False`` runs every round (the paper's protocol). Every
        method also ends, with ``stop_reason="one_point"``, once its points have been one
        and the same point for :data:`~paretosurf.loop._driver.ONE_POINT_ROUNDS` rounds in a row
        (a constant objective, a solver that ignores the weight, a flat start that the basin
        probes could not leave): more rounds would not find a front, and the findings say
        why. A run of weighted sums with two objectives also ends, with
        ``stop_reason="stuck"``, once none of its points changed for
        :data:`~paretosurf.loop._driver.STUCK_STOP_ROUNDS` rounds in a row while its weights
        moved and some point is beaten at its own weight (solves that return where they
        started, or local minima the probes did not leave).
        Resuming a run that stopped early with ``early_stopping=False`` continues it.
        ``True`` or ``False`` only.
        """,
    ),
    "probes": (
        '"auto", bool, None or BasinProbes, default "auto"',
        """
        Basin-escape probes for local inner solvers (:mod:`paretosurf.loop`): each
        round a few slots (two; every slot in a first round whose points collapsed onto a
        few, a flat start) are solved again at their weights from fresh starts that
        the solver draws, ``probe_start(rng) -> state``, and a probe whose point scores lower
        at the slot's weight under the solver's scalarization replaces the slot's solution
        (point, state and info). Probes cost at most about 10% more objective evaluations
        than the run without them; their solves count in ``n_solves`` and the records'
        ``evaluations``, and the result's advice finding ``"probed"`` names the slots they
        moved and the rounds.
        ``"auto"``: on when the solver offers probe starts (``from_scipy`` with finite
        bounds on every variable, ``from_pymoo``, or a solver of your own whose
        ``probe_start(rng)`` method returns a state), off otherwise, and off for a run
        resumed from a folder saved without probes. ``False`` or ``None``: off; ``True``:
        on, refused for a solver without probe starts; a
        :class:`~paretosurf.loop.BasinProbes` sets ``per_round``, ``share``,
        ``seed`` and ``margin``. Resuming with other probe settings is refused.
        """,
    ),
}

#: The loop options an entry function passes on to :func:`paretosurf.loop.run` (the keys
#: of :class:`RunOptions`, which the tests hold to these).
LOOP_OPTIONS: frozenset[str] = frozenset(LOOP_OPTION_DOCS)


def _entry(name: str) -> str:
    kind, text = LOOP_OPTION_DOCS[name]
    body = "\n".join("        " + line.strip() for line in text.strip().splitlines())
    return f"    {name} : {kind}\n{body}\n"


def _documented(doc: str) -> set[str]:
    """The parameters a numpydoc docstring documents itself (``name : ...`` or
    ``a, b :`` lines indented by four spaces)."""
    found: set[str] = set()
    for match in re.finditer(r"^    ([\w*][\w, *]*?)\s*:(?:\s|$)", doc, flags=re.MULTILINE):
        found |= {part.strip() for part in match.group(1).split(",")}
    return found


def document_loop_options(function: F) -> F:
    """Write the loop options into ``function``'s docstring, at its ``<loop options>`` line.

    The options the docstring documents itself (an entry of its own, say SURF-simplex's
    ``report``) are left out; the others get the shared text of :data:`LOOP_OPTION_DOCS`.

    Examples
    --------
    >>> from paretosurf.loop._options import document_loop_options
    >>> @document_loop_options
    ... def entry(solver, **options):
    ...     '''Run.
    ...
    ...     Parameters
    ...     ----------
    ...     report : str
    ...         Mine.
    ...     <loop options>
    ...     '''
    >>> "    executor : Executor, optional" in entry.__doc__, entry.__doc__.count("report :")
    (True, 1)
    """
    doc = function.__doc__
    if doc is None:  # python -OO
        return function
    line = f"    {PLACEHOLDER}\n"
    if line not in doc:
        raise ValueError(f"{function.__name__}'s docstring has no {PLACEHOLDER!r} line")
    own = _documented(doc)
    shared = "".join(_entry(name) for name in LOOP_OPTION_DOCS if name not in own)
    function.__doc__ = doc.replace(line, shared)
    return function


#: Why an entry function takes no such keyword, for the keywords of SURF's that users carry
#: over to the baselines.
_NOT_HERE = {
    "alpha": "the method has no damping (alpha belongs to SURF: ps.surf, or ps.surf_simplex "
    "for three or more objectives)",
}


#: The loop options that take ``True`` or ``False`` only (``resume`` also ``"force"``).
FLAG_OPTIONS = ("overwrite", "allow_pickle", "early_stopping")


def check_options(
    entry: Callable[..., Any], options: Mapping[str, Any], *, hints: Mapping[str, str] | None = None
) -> None:
    """Refuse the keywords in ``options`` that are not loop options, naming ``entry``, and
    the boolean options (:data:`FLAG_OPTIONS`, and ``resume``) given anything but a boolean
    (``resume`` also takes ``"force"``).

    Parameters
    ----------
    entry : callable
        The entry function (``uniform``, ``ols``, ...): its name and its own keywords go
        into the message.
    options : mapping
        The keywords ``entry`` collected in ``**options``.
    hints : mapping, optional
        Per keyword, why ``entry`` takes no such keyword (added to the built-in ones).

    Raises
    ------
    TypeError
        On the first keyword that is not a loop option: ``"uniform() takes no alpha: ..."``
        for a keyword with a hint, else the keyword, the closest known ones and the keywords
        ``entry`` takes; on a boolean option that is not a boolean (a string such as
        ``"False"`` included), naming it.
    ValueError
        On ``resume`` given a string other than ``"force"``.

    Examples
    --------
    >>> from paretosurf.methods import uniform
    >>> from paretosurf.loop._options import check_options
    >>> check_options(uniform, {"progress": True})
    >>> check_options(uniform, {"alpha": 0.3})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: uniform() takes no alpha: the method has no damping (alpha belongs to SURF: ...)
    >>> check_options(uniform, {"allow_pickle": "False"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: allow_pickle must be True or False, got 'False' (a string, ...
    """
    unknown = [key for key in options if key not in LOOP_OPTIONS]
    if not unknown:
        for key in FLAG_OPTIONS:
            if key in options:
                check_flag(options[key], name=key)
        if "resume" in options:
            check_resume(options["resume"])
        return
    key = unknown[0]
    name = getattr(entry, "__name__", "the method")
    why = {**_NOT_HERE, **(hints or {})}
    if key in why:
        raise TypeError(f"{name}() takes no {key}: {why[key]}")
    own = [
        p.name
        for p in inspect.signature(entry).parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    close = difflib.get_close_matches(key, [*own, *sorted(LOOP_OPTIONS)], n=2)
    maybe = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
    raise TypeError(
        f"{name}() got an unexpected keyword argument {key!r}{maybe}; it takes "
        f"{', '.join(own)} and the loop options {', '.join(sorted(LOOP_OPTIONS))}"
    )
