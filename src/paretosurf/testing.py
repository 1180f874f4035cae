"""The contracts every method and every executor keep, shipped as pytest suites to run on
your own.

Every method the library ships (:data:`paretosurf.methods.METHODS`) passes
:class:`MethodContract`; a method of yours passes it too if it keeps the driver's promises:
budget counts, a consistent result, the callback, refused bad input, a killed run that
resumes to the uninterrupted result, run folders that never lose data, save and load, and
the same result from a process pool as in process. The suite runs each method on tiny
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

The library's own methods run it through the same class (``tests/test_methods.py``), with
``method`` parametrized over the registry. :func:`assert_same_result` and the solvers are
the fixtures the library's tests share.

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

The library's executors run it in ``tests/test_executor_contract.py``; it solves with
:class:`QuadraticSolver` (closed form) and :class:`GearKStep`, so it takes a second or two
for an executor that starts quickly.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paretosurf.driver import run
from paretosurf.executors import (
    SOLVES_IN,
    Executor,
    ManagedExecutor,
    ProcessExecutor,
    SolveOutcome,
    SolveTask,
)
from paretosurf.findings import DEFAULT_TARGETS
from paretosurf.method import Method
from paretosurf.result import IterationRecord, Result
from paretosurf.run_folder import RunFolder
from paretosurf.solvers import Solution
from paretosurf.surf import surf

__all__ = [
    "BowlKStep",
    "Candidate",
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

#: Gear of the two-objective toy: front ``((1 - x)^2, x^2)`` at ``x = gear_x(w)``.
GEAR = 9.0


def gear_curve(x: Any) -> np.ndarray:
    """The gear toy's objectives ``((1 - x)^2, x^2)`` (points of shape ``(..., 2)``).

    Examples
    --------
    >>> from paretosurf.testing import gear_curve
    >>> gear_curve(0.5).tolist()
    [0.25, 0.25]
    """
    x = np.asarray(x, dtype=np.float64)
    return np.stack([(1 - x) ** 2, x**2], axis=-1)


class GearKStep:
    """K plain gradient steps on the gear toy's scalarization, warm-started from ``x``.

    Inexact and history-dependent: a slot's result depends on every call it received, so a
    resumed run equals an uninterrupted one only if every warm start was restored. Picklable
    (for process executors), with ``interpolate``/``evaluate`` for Soup. ``calls`` counts the
    calls made in this process.

    Examples
    --------
    >>> from paretosurf.testing import GearKStep
    >>> solver = GearKStep()
    >>> sol = solver.solve(0.5, None)
    >>> sol.objectives.shape, solver.calls, sol.info["steps"]
    ((2,), 1, 3)
    """

    def __init__(self, steps: int = 3, lr: float = 0.15, p: float = GEAR) -> None:
        self.steps, self.lr, self.root = steps, lr, math.sqrt(p)
        self.calls = 0

    def solve(self, w: float, state: float | None) -> Solution:
        self.calls += 1
        x = 0.5 if state is None else float(state)
        for _ in range(self.steps):
            x -= self.lr * (w * self.root * (x - 1) + (1 - w) * x)
        return Solution(gear_curve(x), state=x, info={"steps": self.steps})

    def evaluate(self, state: float) -> np.ndarray:
        return gear_curve(float(state))

    def interpolate(self, state0: float, state1: float, t: float) -> float:
        return (1 - t) * float(state0) + t * float(state1)


class BowlKStep:
    """K gradient steps on ``sum_m w_m h_m(x)``, ``h_m(x) = s_m |x - e_m|^2 / 2`` in R^M,
    warm-started from ``x``: the three-objective counterpart of :class:`GearKStep`.

    Examples
    --------
    >>> from paretosurf.testing import BowlKStep
    >>> sol = BowlKStep().solve([1.0, 0.0, 0.0], None)
    >>> sol.objectives.shape, sol.state.shape
    ((3,), (3,))
    """

    def __init__(self, n_objectives: int = 3, steps: int = 3, lr: float = 0.3) -> None:
        self.m, self.steps, self.lr = n_objectives, steps, lr
        self.scale = 1.0 + np.arange(n_objectives, dtype=np.float64)  # uneven units
        self.calls = 0

    def solve(self, w: Any, state: np.ndarray | None) -> Solution:
        self.calls += 1
        w = np.asarray(w, dtype=np.float64)
        x = np.full(self.m, 1.0 / self.m) if state is None else np.array(state, dtype=float)
        sw = w * self.scale
        for _ in range(self.steps):
            x = x - self.lr * (sw.sum() * x - sw) / max(float(sw.max()), 1e-12)
        return Solution(self.evaluate(x), state=x, info={"steps": self.steps})

    def evaluate(self, state: Any) -> np.ndarray:
        x = np.asarray(state, dtype=np.float64)
        return np.asarray(0.5 * self.scale * ((x[None, :] - np.eye(self.m)) ** 2).sum(axis=1))

    def interpolate(self, state0: Any, state1: Any, t: float) -> np.ndarray:
        return np.asarray((1 - t) * np.asarray(state0) + t * np.asarray(state1))


class FailingSolver:
    """Raises on every call (a finished run must not solve again); evaluates and
    interpolates gear-toy states, for Soup."""

    def solve(self, w: Any, state: object) -> Solution:
        raise AssertionError(f"unexpected solve at weight {w}")

    def evaluate(self, state: float) -> np.ndarray:
        return gear_curve(float(state))

    def interpolate(self, state0: float, state1: float, t: float) -> float:
        return (1 - t) * float(state0) + t * float(state1)


class Interrupt(Exception):
    """Raised by :func:`interrupt_after` to simulate a run killed between two rounds."""


def interrupt_after(rounds: int) -> Callable[[IterationRecord], None]:
    """A callback that raises :class:`Interrupt` once ``rounds`` rounds are done (and saved).

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.testing import GearKStep, Interrupt, interrupt_after
    >>> try:
    ...     ps.surf(GearKStep(), 4, iterations=5, callback=interrupt_after(2))
    ... except Interrupt:
    ...     print("killed after round 2")
    killed after round 2
    """

    def callback(record: IterationRecord) -> None:
        if record.iteration == rounds - 1:
            raise Interrupt

    return callback


def _same_states(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    return bool(a == b)


def assert_same_result(a: Result, b: Result, *, history: bool = True) -> None:
    """Assert that two results are identical, to the last bit: weights, points, states,
    counts, method, CDF and (``history=True``) every record.

    Examples
    --------
    >>> import paretosurf as ps
    >>> from paretosurf.testing import GearKStep, assert_same_result
    >>> assert_same_result(ps.surf(GearKStep(), 4, iterations=3),
    ...                    ps.surf(GearKStep(), 4, iterations=3))
    """
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.points, b.points)
    assert len(a.states) == len(b.states)
    assert all(_same_states(x, y) for x, y in zip(a.states, b.states, strict=True)), (
        "the states differ"
    )
    assert (a.n_solves, a.n_steps, a.converged, a.method) == (
        b.n_solves,
        b.n_steps,
        b.converged,
        b.method,
    )
    assert a.cdf == b.cdf
    if not history:
        return
    assert len(a.history) == len(b.history)
    for ra, rb in zip(a.history, b.history, strict=True):
        np.testing.assert_array_equal(ra.weights, rb.weights)
        np.testing.assert_array_equal(ra.points, rb.points)
        assert (ra.cv, ra.n_solves, ra.n_steps) == (rb.cv, rb.n_solves, rb.n_steps)
        assert ra.cdf == rb.cdf


@dataclass(frozen=True)
class Candidate:
    """A method under test: how to run it with the budget of some rounds.

    Attributes
    ----------
    name : str
        The name its results record (``Method.name``).
    run : callable
        ``run(solver, n_points, n_objectives, *, rounds, **keywords) -> Result``: a run of
        ``n_points`` points (at most) with the budget of ``rounds`` rounds; ``keywords`` are
        loop options and ``init_states``. Every :class:`paretosurf.methods.MethodInfo` is
        such a callable.
    simplex : bool
        Whether it handles three objectives (weights on the simplex); else two.
    keywords : mapping
        Keywords of every run (a ``seed``, so that two runs give the same result).
    """

    name: str
    run: Callable[..., Result]
    simplex: bool = False
    keywords: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, make: Callable[[int, int], Method], *, simplex: bool = False) -> Candidate:
        """The candidate of a :class:`~paretosurf.Method` subclass: ``make(n_points,
        n_objectives)`` builds a fresh instance, run by :func:`paretosurf.run`."""

        def run_it(
            solver: Any, n_points: int, n_objectives: int = 2, *, rounds: int, **keywords: Any
        ) -> Result:
            return run(make(n_points, n_objectives), solver, iterations=rounds, **keywords)

        return cls(make(2 if not simplex else 3, 2 if not simplex else 3).name, run_it, simplex)

    @classmethod
    def from_registry(cls, name: str) -> Candidate:
        """The registry's method ``name`` (:func:`paretosurf.methods.get_method`)."""
        from paretosurf.methods import get_method

        info = get_method(name)
        return cls(info.name, info, info.simplex, {"seed": 0} if info.takes("seed") else {})


class MethodContract:
    """The contract suite: subclass it in a test module and define the fixture ``method``
    (a :class:`Candidate`). Tiny problems, a few rounds each.

    Class attributes tune it: :attr:`n_points` and :attr:`rounds` for the runs,
    :attr:`check_processes` to skip the process-pool test (it starts two processes).
    """

    #: Points of the runs with two objectives, and with three.
    n_points: tuple[int, int] = (5, 6)
    #: Other numbers of points, which resuming a run of :attr:`n_points` must refuse (10:
    #: a lattice size for three objectives, as Das-Dennis needs).
    other_n_points: tuple[int, int] = (6, 10)
    #: Rounds of budget of each run.
    rounds: int = 3
    #: Whether to compare a run in a pool of two processes with one in this process.
    check_processes: bool = True

    @pytest.fixture
    def method(self) -> Candidate:
        """The method under test; override it."""
        raise NotImplementedError("define the fixture `method` returning a Candidate")

    # -- helpers
    def solver(self, method: Candidate) -> Any:
        return BowlKStep() if method.simplex else GearKStep()

    def size(self, method: Candidate) -> tuple[int, int]:
        return (self.n_points[1], 3) if method.simplex else (self.n_points[0], 2)

    def go(self, method: Candidate, solver: Any = None, **keywords: Any) -> Result:
        n, m = self.size(method)
        keywords = {"rounds": self.rounds, **method.keywords, **keywords}
        return method.run(self.solver(method) if solver is None else solver, n, m, **keywords)

    # -- the contract
    def test_budget_counts_every_solver_call(self, method: Candidate) -> None:
        solver = self.solver(method)
        res = self.go(method, solver)
        assert res.n_solves == solver.calls > 0
        assert res.n_steps == solver.steps * solver.calls
        assert solver.calls <= self.rounds * self.size(method)[0]
        counts = [r.n_solves for r in res.history]
        assert counts == sorted(counts) and counts[-1] == res.n_solves
        assert [r.iteration for r in res.history] == list(range(len(res.history)))

    def test_result_is_consistent(self, method: Candidate) -> None:
        solver = self.solver(method)
        res = self.go(method, solver)
        n, m = self.size(method)
        w, pts = res.weights, res.points
        assert res.method == method.name
        assert pts.shape == (len(w), m) and len(res.states) == len(w) <= n
        assert np.isfinite(pts).all()
        # independent check: the objectives of each returned state are the returned point
        np.testing.assert_allclose(
            np.stack([solver.evaluate(s) for s in res.states]), pts, rtol=0, atol=1e-12
        )
        if m == 2:
            assert w[0] == 0.0 and w[-1] == 1.0 and np.all(np.diff(w) > 0)
        else:
            np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)
            assert (w >= 0).all()
        reported = res.history[-1 if res.reported_round is None else res.reported_round]
        assert res.stop_reason in (
            "iterations",
            "method",
            "converged",
            "done",
            "one_point",
            "stuck",
        )
        if res.stop_reason == "done":  # early_stopping: the last round met the target
            target = DEFAULT_TARGETS["curve" if m == 2 else "surface"]
            assert res.history[-1].gap_ratio <= target
        if len(reported.points) == len(pts):
            np.testing.assert_array_equal(reported.points, pts)

    def test_same_input_same_result(self, method: Candidate) -> None:
        assert_same_result(self.go(method), self.go(method))

    def test_callback_returning_true_stops_after_that_round(self, method: Candidate) -> None:
        seen: list[int] = []

        def stop_second(record: IterationRecord) -> bool:
            seen.append(record.iteration)
            return record.iteration == 1

        res = self.go(method, callback=stop_second)
        assert seen == [0, 1] and len(res.history) == 2 and res.stop_reason == "callback"

    @pytest.mark.parametrize(
        ("keywords", "error", "match"),
        [
            ({"callback": 3}, TypeError, "callback"),
            ({"resume": True}, ValueError, "checkpoint"),
            ({"overwrite": True}, ValueError, "checkpoint"),
            ({"executor": object()}, TypeError, "executor"),
            ({"init_states": [None] * 3}, ValueError, "init_states"),
            ({"retries": -1}, ValueError, "retries"),
        ],
    )
    def test_bad_loop_keywords_are_refused(
        self, method: Candidate, keywords: dict[str, Any], error: type[Exception], match: str
    ) -> None:
        solver = self.solver(method)
        with pytest.raises(error, match=match):
            self.go(method, solver, **keywords)
        assert solver.calls == 0

    def test_killed_run_resumes_to_the_uninterrupted_result(
        self, method: Candidate, tmp_path: Path
    ) -> None:
        full = self.go(method)
        killed = self.solver(method)
        with pytest.raises(Interrupt):
            self.go(
                method,
                killed,
                checkpoint=tmp_path,
                callback=interrupt_after(2),
                checkpoint_period=0,
            )
        again = self.solver(method)
        resumed = self.go(method, again, checkpoint=tmp_path, resume=True)
        assert_same_result(resumed, full)
        assert killed.calls + again.calls == full.n_solves  # no round solved twice
        assert_same_result(Result.load(tmp_path), full)  # the folder holds the result

    def test_resuming_a_finished_run_solves_nothing(
        self, method: Candidate, tmp_path: Path
    ) -> None:
        done = self.go(method, checkpoint=tmp_path)
        never = self.solver(method)  # the run's solver (another would be refused), made to fail
        never.solve = FailingSolver().solve
        assert_same_result(self.go(method, never, checkpoint=tmp_path, resume=True), done)

    def test_resuming_with_other_settings_is_refused(
        self, method: Candidate, tmp_path: Path
    ) -> None:
        self.go(method, checkpoint=tmp_path, callback=lambda r: True)
        m = self.size(method)[1]
        other = self.other_n_points[1 if method.simplex else 0]
        with pytest.raises(ValueError, match="in the checkpoint"):
            method.run(
                self.solver(method),
                other,
                m,
                rounds=self.rounds,
                checkpoint=tmp_path,
                resume=True,
                **method.keywords,
            )

    def test_a_folder_holding_a_run_is_never_overwritten_by_accident(
        self, method: Candidate, tmp_path: Path
    ) -> None:
        first = self.go(method, checkpoint=tmp_path)
        (tmp_path / "notes.txt").write_text("mine")
        with pytest.raises(FileExistsError, match=str(tmp_path)):
            self.go(method, checkpoint=tmp_path)
        assert_same_result(Result.load(tmp_path), first)  # untouched
        short = self.go(
            method, checkpoint=tmp_path, overwrite=True, callback=lambda r: r.iteration == 0
        )
        assert (tmp_path / "notes.txt").read_text() == "mine"  # not a file of the run
        assert len(short.history) == 1
        assert_same_result(Result.load(tmp_path), short)
        assert RunFolder(tmp_path).n_rounds() == 1

    def test_save_and_load_round_trip(self, method: Candidate, tmp_path: Path) -> None:
        res = self.go(method)
        json_path, _ = res.save(tmp_path / "run")
        meta = json.loads(json_path.read_text())  # strict JSON, no NaN
        assert meta["method"] == method.name and meta["settings"] == res.settings
        assert_same_result(Result.load(tmp_path / "run"), res)

    def test_process_executor_gives_the_local_result(self, method: Candidate) -> None:
        if not self.check_processes:
            pytest.skip("check_processes is False")
        assert_same_result(self.go(method, executor=ProcessExecutor(2)), self.go(method))


class QuadraticSolver:
    """The exact minimizer of the gear toy's plain scalarization with a pull towards its warm
    start, in closed form: deterministic, cheap and picklable, for
    :class:`ExecutorContract`.

    At weight ``w`` and warm start ``s`` (``0.5`` for a cold start) it returns
    ``x = (w + pull * s) / (1 + pull)``, the minimizer of
    ``w (x - 1)^2 + (1 - w) x^2 + pull (x - s)^2``, with objectives ``((1 - x)^2, x^2)`` and
    state ``x``: an executor that loses a task's warm start or weight gives another
    solution. A weight in ``fail_at`` raises ``ValueError``. ``calls`` counts the calls
    made in this process.

    Examples
    --------
    >>> from paretosurf.testing import QuadraticSolver
    >>> sol = QuadraticSolver().solve(0.5, 0.2)
    >>> sol.state, sol.objectives.tolist()
    (0.35, [0.42250000000000004, 0.12249999999999998])
    >>> QuadraticSolver(fail_at=(0.5,)).solve(0.5, None)
    Traceback (most recent call last):
        ...
    ValueError: no solution at weight 0.5
    """

    def __init__(self, pull: float = 1.0, fail_at: tuple[float, ...] = ()) -> None:
        self.pull, self.fail_at = float(pull), tuple(float(w) for w in fail_at)
        self.calls = 0

    def solve(self, w: float, state: float | None) -> Solution:
        self.calls += 1
        w = float(w)
        if w in self.fail_at:
            raise ValueError(f"no solution at weight {w:g}")
        s = 0.5 if state is None else float(state)
        x = (w + self.pull * s) / (1 + self.pull)
        return Solution(gear_curve(x), state=x, info={"weight": w})


class ExecutorContract:
    """The contract suite of an executor: subclass it in a test module and define the
    fixture ``executor`` (an :class:`~paretosurf.executors.Executor`, a fresh one for each
    test). Every check compares with an independent truth: the solver called directly in
    this process, and a run in :class:`~paretosurf.executors.LocalExecutor`.

    It checks that ``solve`` returns one outcome per task, in task order, each holding what
    the solver gives for that task's weight and warm start; that a solve that raises comes
    back as a failed outcome with its error while the other tasks of the round succeed; that
    ``on_done`` is called exactly once per task; that an empty round returns ``[]``; that a
    :class:`~paretosurf.executors.ManagedExecutor` says where its solves run, starts
    (returning a bool), closes (twice, too) and starts again; and that a whole
    :func:`paretosurf.surf` run through it equals the run in this process, to the last bit.
    The solvers (:class:`QuadraticSolver`, :class:`GearKStep`) are defined in this module,
    so they pickle for executors that run solves in other processes or on other machines.

    Class attributes tune the run: :attr:`n_points` and :attr:`rounds`.

    Examples
    --------
    In a test module (the executor's class must be importable by its workers, if it has any):

    .. code-block:: python

        import pytest
        from paretosurf.testing import ExecutorContract
        from mypackage import MyExecutor

        class TestMyExecutor(ExecutorContract):
            @pytest.fixture
            def executor(self):
                return MyExecutor(workers=2)

    The library's executors run it so (``tests/test_executor_contract.py``). A check can
    also be called directly, outside pytest (it raises ``AssertionError`` on a breach):

    >>> from paretosurf.executors import LocalExecutor
    >>> from paretosurf.testing import ExecutorContract
    >>> ExecutorContract().test_one_outcome_per_task_in_task_order(LocalExecutor())
    """

    #: Points of the whole run, and its rounds.
    n_points: int = 5
    rounds: int = 3

    @pytest.fixture
    def executor(self) -> Executor:
        """The executor under test; override it."""
        raise NotImplementedError("define the fixture `executor` returning the executor")

    # -- helpers
    @contextlib.contextmanager
    def in_use(self, executor: Executor) -> Iterator[Executor]:
        """``executor`` started as a run starts it: a
        :class:`~paretosurf.executors.ManagedExecutor` is started, and closed at the end when
        that start acquired its resources."""
        started = executor.start() if isinstance(executor, ManagedExecutor) else False
        try:
            yield executor
        finally:
            if started and isinstance(executor, ManagedExecutor):
                executor.close()

    def tasks(self) -> list[SolveTask]:
        """A round whose slots, weights and warm starts all differ, slots out of order: an
        outcome in the wrong place or solved from the wrong task shows."""
        return [
            SolveTask(3, 0.9, state=0.2),
            SolveTask(0, 0.1),
            SolveTask(2, 0.6, state=0.75),
            SolveTask(1, 0.3, state=0.05),
        ]

    def solve(
        self,
        executor: Executor,
        solver: Any,
        tasks: list[SolveTask],
        on_done: Callable[[SolveOutcome], None] | None = None,
    ) -> list[SolveOutcome]:
        """``executor.solve`` of a started executor; raising is a breach of the contract."""
        with self.in_use(executor):
            try:
                outcomes = executor.solve(solver, tasks, on_done)
            except Exception as exc:
                raise AssertionError(
                    f"{type(executor).__name__}.solve raised {type(exc).__name__}: {exc} "
                    "(a failed solve must come back as an outcome with its error)"
                ) from exc
        assert isinstance(outcomes, list), (
            f"{type(executor).__name__}.solve returned {type(outcomes).__name__}, not a list"
        )
        return outcomes

    def assert_solved(self, outcome: SolveOutcome, task: SolveTask, solver: Any) -> None:
        """``outcome`` is ``task``'s, holding what ``solver`` gives for it here."""
        assert isinstance(outcome, SolveOutcome), f"not a SolveOutcome: {outcome!r}"
        assert (outcome.slot, outcome.weight) == (task.slot, task.weight), (
            f"the outcome of slot {outcome.slot} (weight {outcome.weight}) where slot "
            f"{task.slot} (weight {task.weight}) belongs"
        )
        assert outcome.ok and outcome.error is None, (
            f"the solve of slot {task.slot} failed: {outcome.error}"
        )
        assert outcome.solution is not None
        truth = solver.solve(task.weight, task.state)
        np.testing.assert_array_equal(
            outcome.solution.objectives,
            truth.objectives,
            err_msg=f"slot {task.slot}: not the objectives the solver gives for this task",
        )
        assert outcome.solution.state == truth.state, (
            f"slot {task.slot}: state {outcome.solution.state!r}, the solver gives {truth.state!r}"
        )

    # -- the contract
    def test_one_outcome_per_task_in_task_order(self, executor: Executor) -> None:
        tasks = self.tasks()
        outcomes = self.solve(executor, QuadraticSolver(), tasks)
        assert len(outcomes) == len(tasks), f"{len(outcomes)} outcomes for {len(tasks)} tasks"
        for outcome, task in zip(outcomes, tasks, strict=True):
            self.assert_solved(outcome, task, QuadraticSolver())

    def test_a_failed_solve_is_an_outcome_and_the_others_succeed(self, executor: Executor) -> None:
        solver = QuadraticSolver(fail_at=(0.5,))
        tasks = [SolveTask(0, 0.2), SolveTask(1, 0.5, state=0.3), SolveTask(2, 0.8)]
        outcomes = self.solve(executor, solver, tasks)
        assert len(outcomes) == len(tasks), f"{len(outcomes)} outcomes for {len(tasks)} tasks"
        failed = outcomes[1]
        assert isinstance(failed, SolveOutcome) and (failed.slot, failed.weight) == (1, 0.5)
        assert not failed.ok and failed.solution is None, "the failing solve came back solved"
        assert isinstance(failed.error, str) and failed.error.startswith("ValueError"), (
            f"the error of the failed solve: {failed.error!r}"
        )
        assert "no solution at weight 0.5" in failed.error
        for i in (0, 2):
            self.assert_solved(outcomes[i], tasks[i], QuadraticSolver())

    def test_on_done_is_called_once_per_task(self, executor: Executor) -> None:
        solver = QuadraticSolver(fail_at=(0.6,))  # a failed task finishes too
        tasks = self.tasks()
        seen: list[SolveOutcome] = []
        outcomes = self.solve(executor, solver, tasks, seen.append)
        assert all(isinstance(o, SolveOutcome) for o in seen), "on_done got a non-outcome"
        assert sorted(o.slot for o in seen) == sorted(t.slot for t in tasks), (
            f"on_done was called for slots {[o.slot for o in seen]}, the tasks' are "
            f"{[t.slot for t in tasks]}"
        )
        assert [o.ok for o in outcomes] == [t.weight != 0.6 for t in tasks]
        assert {o.slot: o.ok for o in seen} == {o.slot: o.ok for o in outcomes}

    def test_an_empty_round_returns_an_empty_list(self, executor: Executor) -> None:
        seen: list[SolveOutcome] = []
        solver = QuadraticSolver()
        assert self.solve(executor, solver, [], seen.append) == []
        assert seen == [] and solver.calls == 0

    def test_where_the_solves_run_is_known(self, executor: Executor) -> None:
        where = getattr(executor, "solves_in", "machine")  # an executor with only solve
        assert where in SOLVES_IN, f"solves_in is {where!r}, not one of {SOLVES_IN}"

    def test_a_managed_executor_starts_and_closes(self, executor: Executor) -> None:
        if not isinstance(executor, ManagedExecutor):
            pytest.skip("not a ManagedExecutor: nothing to start or close")
        assert executor.solves_in in SOLVES_IN, (
            f"solves_in is {executor.solves_in!r}, not one of {SOLVES_IN}"
        )

        def close(what: str) -> None:
            try:
                executor.close()
            except Exception as exc:
                raise AssertionError(
                    f"{what} of {type(executor).__name__} raised {type(exc).__name__}: {exc}"
                ) from exc

        tasks = self.tasks()[:2]
        for _ in range(2):  # a second run starts it again
            started = executor.start()
            try:
                assert isinstance(started, bool), f"start() returned {started!r}, not a bool"
                outcomes = executor.solve(QuadraticSolver(), tasks)
                assert len(outcomes) == len(tasks)
                for outcome, task in zip(outcomes, tasks, strict=True):
                    self.assert_solved(outcome, task, QuadraticSolver())
            finally:
                close("close() after start()")
            close("a second close()")  # closing again does nothing

    def test_a_run_gives_the_local_result(self, executor: Executor) -> None:
        local = surf(GearKStep(), n_points=self.n_points, iterations=self.rounds)
        res = surf(GearKStep(), n_points=self.n_points, iterations=self.rounds, executor=executor)
        assert_same_result(res, local)
