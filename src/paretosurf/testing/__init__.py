"""The contracts every method and every executor keep, shipped as pytest suites to run on
your own.

Every method the library ships (:data:`paretosurf.methods.METHODS`) passes
:class:`MethodContract`; a method of yours passes it too if it keeps the driver's promises:
budget counts, a consistent result, an early stop only at the spacing target, the same
result from the same input, the callback, refused bad input, a killed run that resumes to
the uninterrupted result, run folders that never lose data, save and load, and the same
result from a process pool as in process. A check that does not apply to a method skips it
with the reason. The suite runs each method on tiny
problems with inexact, history-dependent K-step solvers (:class:`GearKStep` for two
objectives, :class:`BowlKStep` for three), so it takes seconds per method.

It needs pytest (the ``dev`` extra); ``import paretosurf`` does not import it.

Use it in a test module by subclassing :class:`MethodContract` and giving the fixture
``method`` (as optuna's ``BasicSamplerTestCase`` takes a ``sampler_class``):

.. code-block:: python

    import pytest
    from paretosurf.testing import Candidate, MethodContract
    from mypackage import MyMethod          # a subclass of paretosurf.Method

    class TestMyMethod(MethodContract):
        @pytest.fixture
        def method(self):
            return Candidate.of(lambda n_points, n_objectives: MyMethod(n_points - 1))

The library's own methods run it through the same class (``tests/methods/test_methods.py``), with
``method`` parametrized over the registry. :func:`assert_same_result` (two results equal in
everything they hold, to the last bit) and the solvers are the fixtures the library's tests
share. The library's tests show each check of both contracts failing on a method or an
executor built to break it (``tests/testing/``, ``tests/executors/test_executor_contract.py``).

:class:`ExecutorContract` is the same for an executor (an object with
``solve(solver, tasks, on_done=None)``, :class:`paretosurf.executors.Executor`): one outcome
per task in task order, each what the solver gives for its task in this process; a failed
solve returned as an outcome with its error, the round's other solves done; ``on_done``
once per task; ``[]`` for an empty round; ``start``/``close``/``solves_in`` of a
:class:`~paretosurf.executors.ManagedExecutor`; and a whole run giving the in-process
result, to the last bit. Subclass it and give the fixture ``executor``:

.. code-block:: python

    import pytest
    from paretosurf.testing import ExecutorContract
    from mypackage import MyExecutor

    class TestMyExecutor(ExecutorContract):
        @pytest.fixture
        def executor(self):
            return MyExecutor()

The library's executors run it in ``tests/executors/test_executor_contract.py``; it solves with
:class:`QuadraticSolver` (closed form) and :class:`GearKStep`, so it takes a second or two
for an executor that starts quickly.
"""

from __future__ import annotations

from paretosurf.testing._executor_contract import ExecutorContract
from paretosurf.testing._method_contract import Candidate, MethodContract
from paretosurf.testing._same_result import assert_same_result
from paretosurf.testing._solvers import GEAR as GEAR
from paretosurf.testing._solvers import (
    BowlKStep,
    DiskGearKStep,
    FailingSolver,
    GearKStep,
    Interrupt,
    QuadraticSolver,
    gear_curve,
    interrupt_after,
)

__all__ = [
    "BowlKStep",
    "Candidate",
    "DiskGearKStep",
    "ExecutorContract",
    "FailingSolver",
    "GearKStep",
    "Interrupt",
    "MethodContract",
    "QuadraticSolver",
    "assert_same_result",
    "gear_curve",
    "interrupt_after",
]

# The public path of each name is paretosurf.testing (reprs, pickles, and the solver names a
# run folder records), wherever it is defined.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
