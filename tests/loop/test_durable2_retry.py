"""A solve that a retry would fail the same way (what the solver returned is refused, or the
solver cannot be called) is reported at once, saying so; a failure of the solver's own is
still retried (durable-2)."""

from __future__ import annotations

import math
from typing import Any

import pytest

import paretosurf as ps
from paretosurf.executors import SolveTask, execute
from paretosurf.loop._solving import not_retried
from paretosurf.solvers import as_solver
from paretosurf.storage._run_folder import RunFolder

N = 4
SLOTS = N + 1


def curve(w: float) -> list[float]:
    return [(1 - w) ** 2, w * w]


class Recording:
    """A solver returning ``reply(w)``, recording its calls."""

    def __init__(self, reply: Any) -> None:
        self.reply, self.calls = reply, 0

    def solve(self, w: float, state: Any) -> Any:
        self.calls += 1
        return self.reply(w)


REFUSED = {
    "objectives as strings": (
        lambda w: ps.Solution([str(v) for v in curve(w)]),
        "Solution.objectives must be numbers",
        "the solver's Solution is malformed",
    ),
    "a tuple of strings": (
        lambda w: ([str(v) for v in curve(w)], None),
        "inner solver returned a tuple that is not (objectives, state[, info])",
        "what the solver returned is not a solution",
    ),
    "a string": (
        lambda w: "done",
        "inner solver returned str",
        "what the solver returned is not a solution",
    ),
    "objectives as a matrix": (
        lambda w: ps.Solution([curve(w), curve(w)]),
        "must be a 1-D vector",
        "the solver's Solution is malformed",
    ),
    "info of another type": (
        lambda w: ps.Solution(curve(w), info=[("steps", 3)]),
        "Solution.info must be a dict",
        "the solver's Solution is malformed",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_return_value_the_library_refuses_is_reported_without_a_retry(tmp_path, case) -> None:
    reply, error, why = REFUSED[case]
    solver = Recording(reply)
    with pytest.raises(ps.InnerSolverError) as caught:
        ps.surf(solver, N, iterations=2, retries=3, checkpoint=tmp_path / "run")
    message = str(caught.value)
    assert solver.calls == SLOTS  # the first round's solves, each once
    assert "on attempt 1:" in message and error in message
    assert f"not retried, as a retry would fail the same way: {why}" in message
    assert caught.value.slot == 0
    log = RunFolder(tmp_path / "run").solves()
    assert len(log) == SLOTS and {e["attempt"] for e in log} == {1}


def test_a_solver_that_cannot_be_called_with_weight_and_state_is_not_retried() -> None:
    calls = []

    def one_argument(w: float) -> list[float]:
        calls.append(w)
        return curve(w)

    with pytest.raises(ps.InnerSolverError) as caught:
        ps.surf(one_argument, N, iterations=2, retries=3)
    message = str(caught.value)
    assert "on attempt 1: TypeError: " in message and "positional argument" in message
    assert "cannot be called as solve(weight, state)" in message
    assert calls == []


class NeedsAnInstance:
    def solve(self, w: float, state: Any) -> ps.Solution:
        return ps.Solution(curve(w))


def test_a_solver_class_instead_of_an_instance_is_named_and_not_retried() -> None:
    class Other(NeedsAnInstance):
        pass

    def why_of(cls: type) -> str:
        (outcome,) = execute(as_solver(cls), [SolveTask(0, 0.5)])
        assert outcome.error is not None and outcome.error.startswith("TypeError: ")
        why = not_retried(outcome, cls)
        assert why is not None
        return why

    # the reason names the class given, says that a class is not an instance, and what to
    # pass instead: an instance, made by calling that class
    for cls in (NeedsAnInstance, Other):
        why = why_of(cls)
        assert f"class {cls.__qualname__}, not an instance" in why
        assert why.endswith(f": pass {cls.__qualname__}(...)")
    why = why_of(NeedsAnInstance)
    # the whole run: refused up front, or at its first solve (never after a retry)
    with pytest.raises((TypeError, ValueError, ps.InnerSolverError)) as caught:
        ps.surf(NeedsAnInstance, N, iterations=2, retries=3)
    if isinstance(caught.value, ps.InnerSolverError):
        assert "on attempt 1:" in str(caught.value) and why in str(caught.value)


class FailsOnce:
    """A solver whose first call at ``at`` fails by ``fail(w)``."""

    def __init__(self, fail: Any, at: float = 0.5) -> None:
        self.fail, self.at, self.calls, self.failed = fail, at, 0, False

    def solve(self, w: float, state: Any) -> Any:
        self.calls += 1
        if not self.failed and math.isclose(w, self.at):
            self.failed = True
            return self.fail(w)
        return ps.Solution(curve(w))


def raise_type_error(w: float) -> Any:
    raise TypeError("unsupported operand type(s) in the solver's own code")


def raise_value_error(w: float) -> Any:
    raise ValueError("the solver's own check failed")


@pytest.mark.parametrize(
    "fail",
    [
        raise_type_error,
        raise_value_error,
        lambda w: ps.Solution([math.nan, 1.0]),  # non-finite: may be a passing divergence
    ],
    ids=["its-own-TypeError", "its-own-ValueError", "non-finite-objectives"],
)
def test_a_failure_of_the_solvers_own_is_still_retried(fail: Any) -> None:
    solver = FailsOnce(fail)
    res = ps.surf(solver, N, iterations=2, retries=1, probes=False)
    assert solver.failed and solver.calls == 2 * SLOTS + 1  # one retry
    assert res.n_solves == 2 * SLOTS


class StringsInAWorker:
    def solve(self, w: float, state: Any) -> ps.Solution:
        return ps.Solution(["0.5", "0.5"])


def test_a_refused_return_value_in_a_worker_process_is_not_retried() -> None:
    with pytest.raises(ps.InnerSolverError) as caught:
        ps.surf(StringsInAWorker(), N, iterations=2, retries=3, executor=ps.ProcessExecutor(2))
    message = str(caught.value)
    assert "on attempt 1:" in message and "the solver's Solution is malformed" in message


def test_not_retried_reads_only_failures_it_can_tell() -> None:
    from paretosurf.executors import SolveOutcome

    assert not_retried(SolveOutcome(0, 0.5, ps.Solution([1.0, 2.0]))) is None
    killed = SolveOutcome(0, 0.5, None, "BrokenProcessPool: the worker died", killed=True)
    assert not_retried(killed) is None
    non_finite = SolveOutcome(
        0, 0.5, None, "InnerSolverError: inner solver returned non-finite objectives [nan, 1.0]"
    )
    assert not_retried(non_finite) is None
    no_traceback = SolveOutcome(0, 0.5, None, "TypeError: something")
    assert not_retried(no_traceback) is None
