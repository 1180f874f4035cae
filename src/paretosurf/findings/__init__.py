"""What a result says about itself: its findings, whether it succeeded, and its message.

A :class:`Finding` is one thing a run's result found not as asked, with its cause and remedy;
:class:`ParetoWarning` is the warning every method raises with it, and
:func:`success_and_message` the one definition of a result's success (no fatal finding) and of
its message.

:func:`diagnose` finds them in a run's final points: an ordered list of checks, one module
per family of findings, over one evidence object that computes what several checks share
once (the points' ranges and gaps, the ends that left the front, the slots in local minima).
The families:

- the objectives' ranges (``constant``, ``scale``);
- a stuck solver (``stuck``: one point whatever the weight, slots that never left their start,
  points unchanged while the weights move; :func:`frozen_and_beaten`);
- the order weighted sums guarantee (``reversed``, ``noisy``);
- points that are not distinct (``collapsed``, ``precision``; :func:`coincident_pairs`);
- the front's ends (``endpoint``, ``no_minimizer``);
- jumps of the front (``jump``, ``unconverged``; :func:`jump_gaps`, the criterion
  :mod:`paretosurf.curves` splits a front by);
- local minima of the solver's problem (``local_minima``; :func:`local_minimum_slots`);
- dominated points (``dominated``);
- fronts of lower dimension than M - 1 (``degenerate``; :func:`degenerate_finding`).

:func:`diagnose_run` adds the findings of the whole run: the solver's
(:func:`solver_findings`: NaN inside solves, local minima under other scalarizations) and the
spacing's (:func:`uneven_finding`, :func:`oscillating_finding`, :func:`unsettled_finding`).

``paretosurf.diagnostics``, ``paretosurf.solver_findings`` and ``paretosurf.degenerate``, the
earlier homes of these names, still import with a :class:`DeprecationWarning` until
paretosurf 0.2; ``SurfWarning``, the earlier name of :class:`ParetoWarning`, too.
"""

from paretosurf._utils.renamed import renamed_attributes
from paretosurf._utils.validation import python_spelling
from paretosurf.curves import JUMP_GAP, jump_gaps
from paretosurf.findings._collapse import WEIGHT_TOL, coincident_pairs
from paretosurf.findings._degenerate import (
    CURVE_ROUNDS,
    conflict_free_pairs,
    curve_coverage_finding,
    curve_share,
    degenerate_finding,
    lies_on_curve,
)
from paretosurf.findings._diagnose import diagnose, diagnose_surface
from paretosurf.findings._dominated import EARLIER_MARGIN, dominated_in_local_minima
from paretosurf.findings._extremes import (
    extreme_slots,
    extremes_finding,
    solves_local_ends,
    verify_extremes,
)
from paretosurf.findings._finding import (
    LINE_LIMIT,
    MESSAGE_LIMIT,
    QUIET_FINDINGS,
    STRUCTURAL,
    TITLES,
    Finding,
    ParetoWarning,
    is_quiet,
    success_and_message,
)
from paretosurf.findings._front_ends import FrontEnds, coverage_finding, find_ends
from paretosurf.findings._local_minima import (
    LOCAL_ROUNDS,
    local_minima_finding,
    local_minimum_slots,
)
from paretosurf.findings._solver import (
    declared_scalarization,
    diagnose_run,
    ideal_beaten_finding,
    pieces_jump,
    revise,
    solver_findings,
    unsuccessful_finding,
)
from paretosurf.findings._spacing import (
    CONTRACTION_CONFIDENCE,
    CONTRACTION_MAX,
    CONTRACTION_ROUNDS,
    DEFAULT_TARGETS,
    OSCILLATION_ROUNDS,
    OSCILLATION_SPREAD,
    OSCILLATION_TURNS,
    UNSETTLED_OWN_SHARE,
    UNSETTLED_SHARE,
    check_target,
    contraction_rate,
    oscillating_finding,
    spacing_target,
    uneven_finding,
    unsettled_finding,
)
from paretosurf.findings._stuck import frozen_and_beaten

__all__ = [
    "CONTRACTION_CONFIDENCE",
    "CONTRACTION_MAX",
    "CONTRACTION_ROUNDS",
    "CURVE_ROUNDS",
    "DEFAULT_TARGETS",
    "EARLIER_MARGIN",
    "JUMP_GAP",
    "LINE_LIMIT",
    "LOCAL_ROUNDS",
    "MESSAGE_LIMIT",
    "OSCILLATION_ROUNDS",
    "OSCILLATION_SPREAD",
    "OSCILLATION_TURNS",
    "QUIET_FINDINGS",
    "STRUCTURAL",
    "TITLES",
    "UNSETTLED_OWN_SHARE",
    "UNSETTLED_SHARE",
    "WEIGHT_TOL",
    "Finding",
    "FrontEnds",
    "ParetoWarning",
    "check_target",
    "coincident_pairs",
    "conflict_free_pairs",
    "contraction_rate",
    "coverage_finding",
    "curve_coverage_finding",
    "curve_share",
    "declared_scalarization",
    "degenerate_finding",
    "diagnose",
    "diagnose_run",
    "diagnose_surface",
    "dominated_in_local_minima",
    "extreme_slots",
    "extremes_finding",
    "find_ends",
    "frozen_and_beaten",
    "ideal_beaten_finding",
    "is_quiet",
    "jump_gaps",
    "lies_on_curve",
    "local_minima_finding",
    "local_minimum_slots",
    "oscillating_finding",
    "pieces_jump",
    "python_spelling",
    "revise",
    "solver_findings",
    "solves_local_ends",
    "spacing_target",
    "success_and_message",
    "uneven_finding",
    "unsettled_finding",
    "unsuccessful_finding",
    "verify_extremes",
]

#: ``SurfWarning``: the earlier name of :class:`ParetoWarning` (the same class), with a warning.
__getattr__ = renamed_attributes(
    __name__, {"SurfWarning": ("ParetoWarning", lambda: ParetoWarning)}
)
