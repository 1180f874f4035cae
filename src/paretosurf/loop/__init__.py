"""The loop every method runs in: :func:`run`, the :class:`Method` interface and its rounds.

A method only proposes (:meth:`Method.propose` returns a :class:`Round`) and learns
(:meth:`Method.tell` receives a :class:`RoundOutcome`); the loop owns the rest: the run's
start from its options or its folder, solving each round, retries and budgets, the records,
checkpoints, interrupts, basin probes, the reported round and early stopping.
"""

from paretosurf.loop._basin_probes import (
    DEFAULT_MARGIN,
    DEFAULT_PER_ROUND,
    DEFAULT_SHARE,
    PROBED,
    BasinProbes,
    ProbeTally,
    RoundProbes,
    check_probes,
    gap_pairs,
    offers_probe_starts,
    probe_finding,
    probe_hook,
    resolve_probes,
)
from paretosurf.loop._checkpointing import (
    CHECKPOINT_SHARE,
    DURABLE_ROUND_SECONDS,
    FIRST_CHECKPOINT_SECONDS,
    Checkpointer,
)
from paretosurf.loop._driver import (
    Callback,
    Method,
    ReportedFront,
    Round,
    RoundOutcome,
    RunOptions,
    run,
    run_notes,
    without_interrupt_notice,
)
from paretosurf.loop._fixed_points import (
    FIXED_POINTS,
    FixedPoints,
    reuses_fixed_points,
)
from paretosurf.loop._interrupts import (
    Terminated,
    exit_status,
    note_interruption,
    sigterm_interrupts,
)
from paretosurf.loop._kept_rounds import (
    REPORT_CHOICES,
)
from paretosurf.loop._method import (
    check_points,
    check_round,
)
from paretosurf.loop._options import (
    FLAG_OPTIONS,
    FORCE,
    LOOP_OPTION_DOCS,
    LOOP_OPTIONS,
    check_flag,
    check_options,
    check_resume,
    document_loop_options,
)
from paretosurf.loop._reporting import (
    RunReporting,
)
from paretosurf.loop._solving import (
    RoundSolver,
    SolvedRound,
    not_retried,
)
from paretosurf.loop._spacing import (
    NORMALIZE_OPTIONS,
    Spacing,
)
from paretosurf.loop._spacing_options import (
    MovingAverage,
    WeightMap,
    anchor_rows,
    moving_average_step,
    solved_weights,
    solver_weights,
)
from paretosurf.loop._start import (
    RunStart,
)
from paretosurf.loop._state import (
    Progress,
    check_same_run,
    load_method_state,
    manifest,
    part,
    run_parts,
    run_result,
)

__all__ = [
    "CHECKPOINT_SHARE",
    "DEFAULT_MARGIN",
    "DEFAULT_PER_ROUND",
    "DEFAULT_SHARE",
    "DURABLE_ROUND_SECONDS",
    "FIRST_CHECKPOINT_SECONDS",
    "FIXED_POINTS",
    "FLAG_OPTIONS",
    "FORCE",
    "LOOP_OPTIONS",
    "LOOP_OPTION_DOCS",
    "NORMALIZE_OPTIONS",
    "PROBED",
    "REPORT_CHOICES",
    "BasinProbes",
    "Callback",
    "Checkpointer",
    "FixedPoints",
    "Method",
    "MovingAverage",
    "ProbeTally",
    "Progress",
    "ReportedFront",
    "Round",
    "RoundOutcome",
    "RoundProbes",
    "RoundSolver",
    "RunOptions",
    "RunReporting",
    "RunStart",
    "SolvedRound",
    "Spacing",
    "Terminated",
    "WeightMap",
    "anchor_rows",
    "check_flag",
    "check_options",
    "check_points",
    "check_probes",
    "check_resume",
    "check_round",
    "check_same_run",
    "document_loop_options",
    "exit_status",
    "gap_pairs",
    "load_method_state",
    "manifest",
    "moving_average_step",
    "not_retried",
    "note_interruption",
    "offers_probe_starts",
    "part",
    "probe_finding",
    "probe_hook",
    "resolve_probes",
    "reuses_fixed_points",
    "run",
    "run_notes",
    "run_parts",
    "run_result",
    "sigterm_interrupts",
    "solved_weights",
    "solver_weights",
    "without_interrupt_notice",
]
