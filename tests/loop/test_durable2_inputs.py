"""durable-2: boolean options are booleans, and careless inputs are refused up front with the
option named (before any solve, and before a run folder is touched)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf._utils.validation import check_objective_sizes
from paretosurf.loop._checkpointing import Checkpointer
from paretosurf.methods import uniform
from paretosurf.storage._files import CheckpointError
from support import call_cli as call


class Counting:
    """A two-objective solver that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def solve(self, w: float, state: Any) -> ps.Solution:
        self.calls += 1
        return ps.Solution([(1 - w) ** 2, w**2], state=np.array([w]))


# ---------------------------------------------------------------------------- booleans
FLAGS = [
    ("allow_pickle", "False"),
    ("allow_pickle", "no"),
    ("allow_pickle", 0),
    ("early_stopping", "no"),
    ("early_stopping", "False"),
    ("overwrite", "False"),
    ("overwrite", 1),
    ("resume", "yes"),
    ("resume", "True"),
    ("resume", 1),
]


@pytest.mark.parametrize(("name", "value"), FLAGS)
@pytest.mark.parametrize("entry", ["surf", "uniform", "run"])
def test_a_boolean_option_given_a_non_boolean_is_refused_naming_it(
    name: str, value: object, entry: str, tmp_path: Path
) -> None:
    solver = Counting()
    options: dict[str, Any] = {name: value, "checkpoint": tmp_path / "run"}
    with pytest.raises((TypeError, ValueError), match=rf"^{name} must be True"):
        if entry == "surf":
            ps.surf(solver, 4, iterations=2, **options)
        elif entry == "uniform":
            uniform(solver, 4, iterations=2, **options)
        else:
            from paretosurf.methods import FixedWeightsMethod

            ps.run(FixedWeightsMethod(4), solver, iterations=2, **options)
    assert solver.calls == 0
    assert not (tmp_path / "run").exists()


def test_numpy_booleans_and_resume_force_are_taken(tmp_path: Path) -> None:
    res = ps.surf(Counting(), 4, iterations=2, early_stopping=np.bool_(False))
    assert len(res.history) == 2
    first = ps.surf(Counting(), 4, iterations=2, checkpoint=tmp_path / "run")
    again = ps.surf(Counting(), 4, iterations=2, checkpoint=tmp_path / "run", resume="force")
    np.testing.assert_array_equal(first.points, again.points)


def test_load_refuses_allow_pickle_as_a_string_and_never_unpickles(tmp_path: Path) -> None:
    res = uniform(Counting(), 4, iterations=1)
    res.save(tmp_path / "res")
    for value in ("False", "no", "0", 1):
        with pytest.raises(TypeError, match="allow_pickle must be True or False"):
            ps.Result.load(tmp_path / "res", allow_pickle=value)  # type: ignore[arg-type]
    meta, arrays = res.to_parts()
    with pytest.raises(TypeError, match="allow_pickle"):
        ps.Result.from_parts(meta, arrays, allow_pickle="False")  # type: ignore[arg-type]


def _touch(path: str) -> None:
    Path(path).touch()


class Mark:
    """Unpickling it runs code: it creates the file ``path`` (the test's witness)."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_touch, (self.path,))


def test_a_pickled_state_is_not_run_with_allow_pickle_false_as_a_string(tmp_path: Path) -> None:
    witness = tmp_path / "unpickled"
    res = uniform(Counting(), 2, iterations=1)
    res.states = [Mark(witness), None, None]
    res.save(tmp_path / "untrusted")
    with pytest.raises(CheckpointError, match="allow_pickle=True"):
        ps.Result.load(tmp_path / "untrusted", allow_pickle=False)
    for value in ("False", "no"):
        with pytest.raises(TypeError, match="allow_pickle must be True or False"):
            ps.Result.load(tmp_path / "untrusted", allow_pickle=value)  # type: ignore[arg-type]
    assert not witness.exists()  # the pickle never ran


# ---------------------------------------------------------------------------- checkpoint
@pytest.mark.parametrize(
    ("checkpoint", "error", "match"),
    [
        ("", ValueError, r"checkpoint='' names no folder"),
        ("   ", ValueError, r"names no folder"),
        (123, TypeError, r"checkpoint must be the path of the run folder.*got 123"),
        (b"run", TypeError, r"checkpoint must be the path"),
    ],
)
def test_a_checkpoint_that_names_no_folder_is_refused(
    checkpoint: object, error: type[Exception], match: str, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    solver = Counting()
    with pytest.raises(error, match=match):
        ps.surf(solver, 4, iterations=2, checkpoint=checkpoint)  # type: ignore[arg-type]
    assert solver.calls == 0
    assert list(tmp_path.iterdir()) == []  # the working directory was not made a run folder


@pytest.mark.parametrize("period", [0, 5.0, Checkpointer(every=2)])
def test_checkpoint_period_without_checkpoint_is_refused(period: object) -> None:
    solver = Counting()
    with pytest.raises(ValueError, match=r"checkpoint_period=.*needs|no checkpoint folder"):
        ps.surf(solver, 4, iterations=2, checkpoint_period=period)  # type: ignore[arg-type]
    assert solver.calls == 0
    ps.surf(solver, 4, iterations=1, checkpoint_period="auto")  # the default: fine


# ---------------------------------------------------------------------------- classes
def test_an_executor_class_is_refused_with_the_call_that_makes_one() -> None:
    solver = Counting()
    with pytest.raises(TypeError, match=r"executor=ProcessExecutor\(\)"):
        ps.surf(solver, 4, iterations=2, executor=ps.ProcessExecutor)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"executor=LocalExecutor\(\)"):
        uniform(solver, 4, iterations=2, executor=ps.LocalExecutor)  # type: ignore[arg-type]
    assert solver.calls == 0


def test_a_solver_class_is_refused_before_any_solve() -> None:
    with pytest.raises(TypeError, match=r"solver is the class Counting.*solver=Counting\(\)"):
        ps.surf(Counting, 4, iterations=2)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"solver=Counting\(\)"):
        uniform(Counting, 4, iterations=2)  # type: ignore[arg-type]


def test_a_class_of_static_solve_still_works() -> None:
    class Static:
        @staticmethod
        def solve(w: float, state: Any) -> ps.Solution:
            return ps.Solution([(1 - w) ** 2, w**2])

    assert ps.surf(Static, 4, iterations=2).points.shape == (5, 2)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- objectives
def test_a_slot_with_another_number_of_objectives_is_named() -> None:
    def outcome(slot: int, weight: Any, m: int) -> SimpleNamespace:
        return SimpleNamespace(
            slot=slot, weight=weight, solution=ps.Solution(np.arange(m, dtype=float))
        )

    outcomes = [outcome(s, [0.2, 0.3, 0.5], 3) for s in range(5)]
    outcomes[3] = outcome(3, [0.6, 0.2, 0.2], 2)
    with pytest.raises(ValueError) as info:
        check_objective_sizes(outcomes, expected=3, label="SURF-simplex", index=4)
    message = str(info.value)
    assert "slot 3" in message and "[0.6, 0.2, 0.2]" in message and "round 4" in message
    assert "2 objectives" in message and "expects 3" in message
    # a curve: the odd one out is the slot that returned three
    curve = [outcome(s, s / 4, 2) for s in range(5)]
    curve[2] = outcome(2, 0.5, 3)
    with pytest.raises(ValueError, match=r"3 objectives for slot 2 \(weight 0\.5\).*expects 2"):
        check_objective_sizes(curve, expected=None, label="SURF", index=0)
    check_objective_sizes(curve[:2], expected=2, label="SURF", index=0)  # all the same: fine


# ---------------------------------------------------------------------------- command line
@pytest.mark.parametrize("option", ["--checkpoint", "--out"])
def test_run_refuses_an_empty_folder_option(option: str, capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, err = call(["run", "gear", "--iterations", "1", "--no-plots", option, ""], capsys)
    assert status == 2 and f"argument {option}" in err and "names no folder" in err
    assert list(tmp_path.iterdir()) == []


def test_ray_client_address_without_ray_client_is_a_usage_error(
    capsys, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr("paretosurf.cli._options._installed", lambda module: module != "grpc")
    argv = ["run", "gear", "--iterations", "1", "--no-plots", "--out", str(tmp_path / "o")]
    status, _, err = call([*argv, "--executor", "ray", "--address", "ray://head:10001"], capsys)
    assert status == 2 and "Traceback" not in err
    assert "--address ray://head:10001" in err and "pip install 'ray[client]'" in err
    monkeypatch.setattr("paretosurf.cli._options._installed", lambda module: False)
    status, _, err = call([*argv, "--executor", "ray"], capsys)
    assert status == 2 and "--executor ray needs Ray" in err and "paretosurf[ray]" in err
    assert not (tmp_path / "o").exists()
