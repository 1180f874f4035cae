"""One quick Ray test in the default run (the others start bigger instances and are marked
``slow``, see ``conftest.py``): a tiny SURF run on a local one-CPU Ray instance gives the
sequential run's result, bit for bit, and its solves run in Ray's worker processes.

The Ray driver runs in a process of its own: Ray leaves threads and signal handling behind in
the process that called ``ray.init``, and a later test of the same pytest worker that sends
itself SIGTERM would then end that worker. Not named ``ray_instance`` and without a
``use_ray`` parameter on purpose: those are what ``conftest.py`` marks slow. Skipped without
the ``ray`` extra.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import paretosurf as ps

pytest.importorskip("ray")

#: The driver: the run on Ray against the sequential run, and one round's tasks solved
#: through the executor against the same tasks solved in the driver.
DRIVER = """
import logging, os
import numpy as np
import ray
import paretosurf as ps
from paretosurf.executors import SolveTask, execute
from paretosurf.testing import GearKStep, assert_same_result

N, ROUNDS = 3, 2
alone = ps.surf(GearKStep(), N, iterations=ROUNDS)
ray.init(num_cpus=1, include_dashboard=False, logging_level=logging.ERROR,
         runtime_env={"env_vars": {"PYTHONPATH": os.environ["PARETOSURF_SRC"]}})
try:
    executor = ps.RayExecutor(num_cpus=1)
    on_ray = ps.surf(GearKStep(), N, iterations=ROUNDS, executor=executor)
    tasks = [SolveTask(i, w, None) for i, w in enumerate(alone.weights.tolist())]
    outcomes = executor.solve(GearKStep(), tasks)
finally:
    ray.shutdown()
assert_same_result(on_ray, alone)
assert on_ray.n_solves == alone.n_solves > 0
here = execute(GearKStep(), tasks)
assert [o.slot for o in outcomes] == [o.slot for o in here] == list(range(N + 1))
for remote, local in zip(outcomes, here, strict=True):
    assert remote.ok and remote.solution is not None and local.solution is not None
    assert remote.pid > 0 and remote.pid != os.getpid()  # solved by a Ray worker
    np.testing.assert_array_equal(remote.solution.objectives, local.solution.objectives)
print("same result on", len({o.pid for o in outcomes}), "Ray worker(s)")
"""


def test_surf_on_a_local_ray_instance_gives_the_sequential_result() -> None:
    # the workers import this paretosurf (the source tree the tests run on)
    src = str(Path(ps.__file__).resolve().parents[1])
    env = {**os.environ, "PARETOSURF_SRC": src}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    out = subprocess.run(
        [sys.executable, "-c", DRIVER], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "same result on 1 Ray worker(s)" in out.stdout
