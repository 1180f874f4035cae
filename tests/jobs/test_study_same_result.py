"""A run driven by ask and tell is the run the method's entry function makes with a solver
returning the same results, to the last bit: every method of the registry, the solves
before round 0 (the front's ends), basin probes, retries of failed solves and a declared
Tchebycheff scalarization."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.methods import METHODS
from paretosurf.testing import assert_same_result


class Line:
    """An exact solver of the front ((1 - w)^2, w^2); its state is the weight (Soup
    interpolates and evaluates it)."""

    def solve(self, w: float, state: object) -> ps.Solution:
        return ps.Solution(self.evaluate(np.array([w])), state=np.array([w]), info={"steps": 1})

    def evaluate(self, state: np.ndarray) -> np.ndarray:
        w = float(state[0])
        return np.array([(1.0 - w) ** 2, w**2])


def drive(study: ps.Study, solver: Any, *, fail: Any = None) -> tuple[ps.Result, list[Any]]:
    """Answer every task ``study`` asks with ``solver`` (``fail(task)``: tell it failed
    instead) until the run finishes; the result and every task asked."""
    asked = []
    tasks = study.ask()
    while tasks:
        for task in tasks:
            asked.append(task)
            if fail is not None and fail(task):
                study.tell(task.slot, failed="diverged")
            else:
                study.tell(task.slot, solver.solve(task.weight, task.state))
        tasks = study.ask()
    return study.result(), asked


#: What each method needs besides its size, to draw the same on every call.
SEEDED = {
    "random": {"seed": 0},
    "umod": {"seed": 0, "surrogate_steps": 50},
    "random_simplex": {"seed": 0},
}


def _method_params() -> list[Any]:
    out = []
    for name in METHODS:
        marks = []
        if name == "energy":  # pymoo's Riesz energy takes seconds: the slow job runs it
            marks = [
                pytest.mark.slow,
                pytest.mark.skipif(
                    importlib.util.find_spec("pymoo") is None, reason="needs pymoo (many extra)"
                ),
            ]
        out.append(pytest.param(name, marks=marks))
    return out


@pytest.mark.parametrize("name", _method_params())
def test_every_method_asked_and_told_is_its_entry_functions_run(name: str, tmp_path: Path) -> None:
    info = METHODS[name]
    if info.simplex:
        solver: Any = ps.problems.InvertedDTLZ2(3).solver()
        size: dict[str, Any] = (
            {"weights": info.layout(6, 3)[0].tolist()}
            if info.layout is not None
            else {"n_points": 6, "n_objectives": 3}
        )
    else:
        solver, size = Line(), {"n_points": 5}
    arguments = {**size, **info.budget(3, 5), **SEEDED.get(name, {})}
    if name == "soup":
        arguments["evaluate"] = solver.evaluate
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        expected = info.entry(solver, **arguments)
        result, asked = drive(ps.Study(tmp_path, name, **arguments), solver)
    assert_same_result(result, expected)
    assert asked and {t.phase for t in asked} == {"round"}


def test_a_tchebycheff_solver_declared_to_the_study(tmp_path: Path) -> None:
    solver = ps.problems.DTLZ2(3).solver()  # the achievement scalarization, ideal point 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        expected = ps.surf_simplex(solver, 6, 3, iterations=3)
        study = ps.Study(
            tmp_path, "surf_simplex", 6, n_objectives=3, iterations=3,
            scalarization=solver.scalarization,
        )  # fmt: skip
        result, _ = drive(study, solver)
    assert_same_result(result, expected)
    assert ps.Study(tmp_path).status().finished


def test_the_front_ends_are_asked_one_solve_at_a_time_before_round_0(tmp_path: Path) -> None:
    solver = ps.problems.GearToy(4).solver()
    expected = ps.surf(solver, n_points=6, iterations=4, weight_bounds="auto")
    result, asked = drive(
        ps.Study(tmp_path, "surf", n_points=6, iterations=4, weight_bounds="auto"), solver
    )
    assert_same_result(result, expected)
    ends = [t for t in asked if t.phase == "ends"]
    assert len(ends) == expected.front_ends.solves >= 2
    assert [t.ask for t in ends] == list(range(len(ends)))  # one solve per ask
    assert {t.round for t in ends} == {None} and {t.slot for t in ends} == {0, 1}
    assert asked[: len(ends)] == ends  # all before round 0


class Probed:
    """An exact solver that offers fresh starts for basin probes."""

    def solve(self, w: float, state: object) -> ps.Solution:
        return ps.Solution([(1.0 - w) ** 2, w**2], state=np.array([w]))

    def probe_start(self, rng: np.random.Generator) -> np.ndarray:
        return rng.uniform(0.0, 1.0, size=1)


def test_basin_probes_are_asked_as_a_further_batch_of_the_round(tmp_path: Path) -> None:
    solver = Probed()
    expected = ps.surf(solver, n_points=6, iterations=3)
    assert expected.settings.get("probes")  # the run probes
    study = ps.Study(tmp_path, "surf", n_points=6, iterations=3, probe_start=solver.probe_start)
    result, asked = drive(study, solver)
    assert_same_result(result, expected)
    probes = [t for t in asked if t.ask == 1]
    assert probes and all(isinstance(t.state, np.ndarray) for t in probes)  # the fresh starts


class Flaky(Line):
    """Fails its eighth solve, slot 2 of round 1 (rounds of five solves, in slot order), as a
    job that crashed once."""

    def __init__(self) -> None:
        self.calls = 0

    def solve(self, w: float, state: object) -> ps.Solution:
        self.calls += 1
        if self.calls == 8:  # round 1 (5 solves a round), slot 2: the solves go in slot order
            raise RuntimeError("diverged")
        return super().solve(w, state)


def test_a_failed_solve_told_is_retried_by_the_runs_rules(tmp_path: Path) -> None:
    expected = ps.surf(Flaky(), n_points=5, iterations=3)
    result, asked = drive(
        ps.Study(tmp_path, "surf", n_points=5, iterations=3),
        Line(),
        fail=lambda t: (t.round, t.slot, t.ask) == (1, 2, 0),
    )
    assert_same_result(result, expected)
    retried = [t for t in asked if t.ask == 1]
    assert [(t.round, t.slot) for t in retried] == [(1, 2)]
    log = (tmp_path / "solves.jsonl").read_text()
    assert '"error":"SolveFailed: diverged"' in log


def test_the_solve_log_holds_each_attempt_once_as_in_process(tmp_path: Path) -> None:
    """The retry's ask replays round 1's first batch, told in the ask before: the study's
    solve log holds each attempt once, as the solve log of the same run in one process."""
    keys = ("round", "call", "attempt", "slot", "weight", "objectives", "error")

    def attempts(folder: Path) -> list[tuple[Any, ...]]:
        from paretosurf.storage import RunFolder

        return [tuple(str(line.get(k)) for k in keys) for line in RunFolder(folder).solves()]

    ps.surf(Flaky(), n_points=5, iterations=3, checkpoint=tmp_path / "surf", progress=False)
    drive(
        ps.Study(tmp_path / "study", "surf", n_points=5, iterations=3),
        Line(),
        fail=lambda t: (t.round, t.slot, t.ask) == (1, 2, 0),
    )
    told = attempts(tmp_path / "study")
    assert len(told) == 3 * 5 + 1 and len(set(told)) == len(told)
    in_process = attempts(tmp_path / "surf")
    assert [t[:5] for t in told] == [t[:5] for t in in_process]
    assert (tmp_path / "study" / "tells" / "round-000001" / "ask-0" / ".logged").is_file()


def test_a_solve_told_failed_beyond_its_retries_stops_the_run(tmp_path: Path) -> None:
    study = ps.Study(tmp_path, "uniform", n_points=3, iterations=2, retries=0)
    for task in study.ask():
        if task.slot == 1:
            study.tell(task.slot, failed="out of memory")
        else:
            study.tell(task.slot, Line().solve(task.weight, None))
    with pytest.raises(ps.InnerSolverError, match="out of memory") as caught:
        study.ask()
    assert any("retry_round" in note for note in caught.value.__notes__)
    moved = study.retry_round()
    assert moved is not None and moved.name == "round-000000.retried-1"
    assert [t.slot for t in study.ask()] == [0, 1, 2]  # the round asked again, every slot
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        result, _ = drive(study, Line())
        assert_same_result(result, ps.methods.uniform(Line(), n_points=3, iterations=2))
