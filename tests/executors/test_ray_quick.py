"""One quick Ray test in the default run (the others start bigger instances and are marked
``slow``, see ``conftest.py``): a tiny SURF run on a local one-CPU Ray instance gives the
sequential run's result, bit for bit, and its solves run in Ray's worker processes.

Not named ``ray_instance`` and without a ``use_ray`` parameter on purpose: those are what
``conftest.py`` marks slow. Skipped without the ``ray`` extra.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.executors import SolveTask, execute
from paretosurf.testing import GearKStep, assert_same_result

ray = pytest.importorskip("ray")

N = 3
ROUNDS = 2


def test_surf_on_a_local_ray_instance_gives_the_sequential_result() -> None:
    alone = ps.surf(GearKStep(), N, iterations=ROUNDS)
    started = not ray.is_initialized()
    if started:
        # the workers import this paretosurf (the source tree the tests run on)
        src = str(Path(ps.__file__).resolve().parents[1])
        ray.init(
            num_cpus=1,
            include_dashboard=False,
            logging_level=logging.ERROR,
            runtime_env={"env_vars": {"PYTHONPATH": src}},
        )
    try:
        executor = ps.RayExecutor(num_cpus=1)
        on_ray = ps.surf(GearKStep(), N, iterations=ROUNDS, executor=executor)
        # the same round's tasks, each an outcome of a Ray worker process, as solved here
        tasks = [SolveTask(i, w, None) for i, w in enumerate(alone.weights.tolist())]
        outcomes = executor.solve(GearKStep(), tasks)
    finally:
        if started:
            ray.shutdown()
    assert_same_result(on_ray, alone)
    assert on_ray.n_solves == alone.n_solves > 0
    here = execute(GearKStep(), tasks)
    assert [o.slot for o in outcomes] == [o.slot for o in here] == list(range(N + 1))
    for remote, local in zip(outcomes, here, strict=True):
        assert remote.ok and remote.solution is not None and local.solution is not None
        assert remote.pid > 0 and remote.pid != os.getpid()  # solved by a Ray worker
        np.testing.assert_array_equal(remote.solution.objectives, local.solution.objectives)
