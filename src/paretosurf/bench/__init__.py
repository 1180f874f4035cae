"""Benchmarks: SURF against the baselines on the paper's tasks (``paretosurf bench``).

:func:`run_task` runs methods over seeds and scores them, :func:`write_report` writes the table,
``results.json`` and figures; :func:`run_ablation` and :func:`write_ablation` give the paper's
SURF ablation (CDF error against N, alpha, K, and the final error against N).

>>> from paretosurf.bench import TASKS
>>> sorted(TASKS)
['bandit', 'dst', 'dst-convex', 'fishwood', 'gear', 'mountaincar', 'quadratic']
"""

from paretosurf.bench.ablation import AblationReport, run_ablation, write_ablation
from paretosurf.bench.runner import (
    METHODS,
    TaskReport,
    format_table,
    hv_reference_point,
    run_task,
    write_report,
)
from paretosurf.bench.tasks import TASKS, Task, get_task, register_task

__all__ = [
    "METHODS",
    "TASKS",
    "AblationReport",
    "Task",
    "TaskReport",
    "format_table",
    "get_task",
    "hv_reference_point",
    "register_task",
    "run_ablation",
    "run_task",
    "write_ablation",
    "write_report",
]
