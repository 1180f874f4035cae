"""Solves as jobs: runs of any method driven from outside, by asking for their solves and
telling their results, through the run folder.

:class:`Study` (also ``paretosurf.Study``) is a run folder and a method's arguments:
:meth:`Study.ask` returns the solves the run waits for (:class:`AskedTask`: slot, weight,
warm start), :meth:`Study.tell` records one result, from any process, at once, and
:meth:`Study.result` is the run's :class:`~paretosurf.Result`, the one the method's entry
function gives with a solver that returns the same results. The ``paretosurf ask``,
``paretosurf tell`` and ``paretosurf status`` commands drive a study from a shell.

Inside, a study's run is the loop every method runs in (:func:`paretosurf.loop.run`), resumed
from its folder at each ask with :class:`ToldExecutor` as its executor and
:class:`ToldResults` as its solver, which answer its solves from the told results and stop
it (:class:`Asked`) where some are missing.
"""

from paretosurf.jobs._answers import (
    FAILED,
    Answers,
    Asked,
    AskedTask,
    ToldExecutor,
    ToldResults,
)
from paretosurf.jobs._files import (
    ASKED,
    STUDY_FILE,
    TELLS,
    as_json_value,
)
from paretosurf.jobs._study import (
    LIVE_OPTIONS,
    OWN_OPTIONS,
    Study,
    StudyStatus,
    TellError,
)

__all__ = [
    "ASKED",
    "FAILED",
    "LIVE_OPTIONS",
    "OWN_OPTIONS",
    "STUDY_FILE",
    "TELLS",
    "Answers",
    "Asked",
    "AskedTask",
    "Study",
    "StudyStatus",
    "TellError",
    "ToldExecutor",
    "ToldResults",
    "as_json_value",
]
