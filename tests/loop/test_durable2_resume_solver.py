"""durable-2: resuming compares the solver with the one ``run.json`` records (its qualified
name and public settings), unless ``resume="force"``; saved states that do not fit the solver
are refused naming the shapes, not left to a numpy broadcasting error inside the solve."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf import cli
from paretosurf.problems import GearToy
from paretosurf.solvers._identity import FORCE_HINT, SHAPE_FORCE_HINT, solver_settings
from support import interrupted_surf as interrupted
from support import resumed_surf as resume

N = 4


def exact(w: float, state: Any) -> ps.Solution:
    return ps.Solution([(1 - w) ** 2, w**2], state=np.array([w]))


def other_exact(w: float, state: Any) -> ps.Solution:
    return ps.Solution([(1 - w) ** 2, w**2], state=np.array([w]))


class Damped:
    """A K-step-like solver: each call moves ``x`` a share ``rate`` of the way to the weight's
    minimizer, so that a slot's state matters; ``calls`` counts its calls."""

    def __init__(self, rate: float = 0.5, device: str = "cpu") -> None:
        self.rate = rate
        self.device = device
        self.calls = 0

    def solve(self, w: float, state: Any) -> ps.Solution:
        self.calls += 1
        x = 0.5 if state is None else float(state[0])
        x += self.rate * (w - x)
        return ps.Solution([(1 - x) ** 2, x**2], state=np.array([x]))


@dataclass
class Settled:
    """A dataclass solver: its fields are its settings."""

    rate: float = 0.5
    label: str = "a"

    def solve(self, w: float, state: Any) -> ps.Solution:
        x = 0.5 if state is None else float(state[0])
        x += self.rate * (w - x)
        return ps.Solution([(1 - x) ** 2, x**2], state=np.array([x]))


# ---------------------------------------------------------------------------- another solver
def test_another_function_is_refused_naming_both(tmp_path: Path) -> None:
    interrupted(exact, tmp_path)
    with pytest.raises(ValueError) as info:
        resume(other_exact, tmp_path)
    message = str(info.value)
    assert f"{__name__}:exact" in message and f"{__name__}:other_exact" in message
    assert "resume='force'" in message and "overwrite=True" in message
    res = ps.surf(
        other_exact,
        N,
        iterations=6,
        checkpoint=tmp_path,
        resume="force",
        early_stopping=False,
    )
    assert len(res.history) == 6


def test_another_class_is_refused(tmp_path: Path) -> None:
    interrupted(Damped(), tmp_path)
    with pytest.raises(ValueError, match=r"Damped, this call passes .*Settled"):
        resume(Settled(), tmp_path)


def test_the_same_class_with_other_settings_is_refused_naming_them(tmp_path: Path) -> None:
    interrupted(Damped(rate=0.5), tmp_path)
    with pytest.raises(ValueError) as info:
        resume(Damped(rate=0.25), tmp_path)
    message = str(info.value)
    assert "rate: 0.5 in the checkpoint, 0.25 now" in message and "resume='force'" in message
    interrupted(Settled(label="a"), tmp_path / "dc")
    with pytest.raises(ValueError, match=r"label: 'a' in the checkpoint, 'b' now"):
        resume(Settled(label="b"), tmp_path / "dc")


def test_the_same_solver_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    full = ps.surf(Damped(), N, iterations=6, early_stopping=False)
    solver = Damped()
    interrupted(solver, tmp_path)
    # the same object (its call counter moved on) and a fresh one on another device both fit
    assert solver.calls > 0
    again = resume(solver, tmp_path)
    np.testing.assert_array_equal(again.points, full.points)
    interrupted(Damped(), tmp_path / "b")
    elsewhere = resume(Damped(device="cuda"), tmp_path / "b")
    np.testing.assert_array_equal(elsewhere.points, full.points)


class Unusual(Damped):
    """Settings that a JSON round trip spells otherwise: non-finite floats, and a string that
    reads like one."""

    def __init__(self, cap: float = float("inf"), tag: str = "nan", tol: float = float("nan")):
        super().__init__()
        self.cap, self.tag, self.tol = cap, tag, tol


def test_settings_survive_the_round_trip_through_run_json(tmp_path: Path) -> None:
    interrupted(Unusual(), tmp_path)
    assert len(resume(Unusual(), tmp_path).history) == 6
    interrupted(Unusual(), tmp_path / "b")
    with pytest.raises(ValueError, match=r"cap: inf in the checkpoint, 5\.0 now"):
        resume(Unusual(cap=5.0), tmp_path / "b")


def test_run_json_records_the_solver_settings(tmp_path: Path) -> None:
    ps.surf(GearToy(N).gradient_solver(steps=3), N, iterations=1, checkpoint=tmp_path)
    manifest = json.loads((tmp_path / "run.json").read_text())
    assert manifest["solver"].endswith(":GradientSolver")
    assert manifest["solver_settings"]["steps"] == 3
    assert "rule.lr" in manifest["solver_settings"]
    # a GradientSolver with another step size is another solver
    interrupted(GearToy(N).gradient_solver(steps=3), tmp_path / "g")
    with pytest.raises(ValueError, match=r"rule\.lr: "):
        resume(GearToy(N).gradient_solver(steps=3, lr=0.01), tmp_path / "g")


def test_a_folder_saved_without_solver_settings_still_resumes(tmp_path: Path) -> None:
    full = ps.surf(Damped(), N, iterations=6, early_stopping=False)
    interrupted(Damped(), tmp_path)
    path = tmp_path / "run.json"
    manifest = json.loads(path.read_text())
    del manifest["solver_settings"]  # as written before the settings were recorded
    path.write_text(json.dumps(manifest))
    # compared by name only: other settings pass, another class does not
    with pytest.raises(ValueError, match="another solver"):
        resume(Settled(), tmp_path)
    np.testing.assert_array_equal(resume(Damped(), tmp_path).points, full.points)


def test_reading_a_saved_run_takes_any_solver(tmp_path: Path) -> None:
    interrupted(exact, tmp_path)
    read = ps.surf(other_exact, N, iterations=0, checkpoint=tmp_path, resume=True)
    assert len(read.history) == 2


def test_settings_leave_out_counters_arrays_and_functions() -> None:
    class Holder:
        def __init__(self, steps: int, table: Any, fn: Any, verbose: bool = False) -> None:
            self.steps = steps
            self.table = np.asarray(table)
            self.fn = fn
            self.verbose = verbose
            self.calls = 0

        def solve(self, w: float, state: Any) -> ps.Solution:  # pragma: no cover
            raise NotImplementedError

    assert solver_settings(Holder(3, [1.0, 2.0], abs)) == {"steps": 3}
    assert solver_settings(exact) == {}


def test_the_command_line_drops_the_force_hint(tmp_path: Path) -> None:
    # the hint is data the error carries, which a front end without resume="force" leaves
    # out; Python users see it
    interrupted(exact, tmp_path / "solver")
    interrupted(quadratic_solver(3), tmp_path / "shape")
    refusals = []
    for folder, solver, hint in (
        ("solver", other_exact, FORCE_HINT),
        ("shape", quadratic_solver(5), SHAPE_FORCE_HINT),
    ):
        with pytest.raises(ValueError) as info:
            resume(solver, tmp_path / folder)
        refusals.append((info.value, hint))
    for error, hint in refusals:
        assert str(error).endswith(hint)
        shown = cli._in_cli_terms(error)
        assert "force" not in shown and hint not in shown
        assert "--overwrite" in shown and "overwrite=True" not in shown


# ---------------------------------------------------------------------------- state shapes
def quadratic_solver(size: int) -> ps.GradientSolver:
    """K gradient steps on two quadratics of ``size`` parameters."""
    return ps.GradientSolver(
        lambda x: np.array([float(np.sum(x**2)), float(np.sum((x - 1) ** 2))]),
        lambda x: np.stack([2 * x, 2 * (x - 1)]),
        init=np.zeros(size),
        steps=30,
        lr=0.2,
        optimizer="sgd",
    )


def test_states_of_another_shape_are_refused_naming_the_shapes(tmp_path: Path) -> None:
    interrupted(quadratic_solver(3), tmp_path)
    bigger = quadratic_solver(5)  # the same class and settings, parameters of another size
    assert solver_settings(bigger) == solver_settings(quadratic_solver(3))
    with pytest.raises(ValueError) as info:
        resume(bigger, tmp_path)
    message = str(info.value)
    assert "do not fit this solver" in message and "its params has shape (3,)" in message
    assert "(5,)" in message and "broadcast" not in message and "resume='force'" in message
    assert len(resume(quadratic_solver(3), tmp_path).history) == 6  # the right one resumes
