"""The contract every method keeps, shipped as a pytest suite to run on your own method.

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
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paretosurf.driver import run
from paretosurf.executors import ProcessExecutor
from paretosurf.findings import DEFAULT_TARGETS
from paretosurf.method import Method
from paretosurf.result import IterationRecord, Result
from paretosurf.run_folder import RunFolder
from paretosurf.solvers import Solution

__all__ = [
    "BowlKStep",
    "Candidate",
    "FailingSolver",
    "GearKStep",
    "Interrupt",
    "MethodContract",
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
