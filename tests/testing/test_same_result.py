""":func:`paretosurf.testing.assert_same_result`, the check behind every "the same result, to
the last bit" of the contracts and the suite, given results that differ in one thing each
(everything a result and its records hold, by one bit where it is a float) and expected to
fail, and given equal results (a rerun, a result saved and loaded, a run folder's result)
and expected to pass."""

from __future__ import annotations

import copy
import dataclasses
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.testing import BowlKStep, GearKStep, assert_same_result
from paretosurf.testing._same_result import RECORD_FIELDS, RESULT_FIELDS


def zdt3(x: np.ndarray) -> np.ndarray:
    """ZDT3 (a front in five pieces) of three variables."""
    g = 1.0 + 9.0 * np.mean(x[1:])
    f1 = x[0]
    return np.array([f1, g * (1.0 - np.sqrt(f1 / g) - f1 / g * np.sin(10 * np.pi * f1))])


def rich_run(**options: Any) -> ps.Result:
    """A SURF run that fills every attribute a result can hold: pieces, front ends, findings,
    solver states, a CDF and its estimates, and records with an ideal point and objective
    evaluations (Tchebycheff solves with SciPy on ZDT3)."""
    solver = ps.adapters.from_scipy(
        zdt3, np.full(3, 0.5), bounds=[(0.0, 1.0)] * 3, scalarization="tchebycheff"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return ps.surf(solver, n_points=11, iterations=4, warm_start="best", **options)


@pytest.fixture(scope="module")
def rich() -> ps.Result:
    res = rich_run()
    last = res.history[-1]
    assert res.pieces and res.front_ends is not None and res.findings and res.cdf is not None
    assert last.pieces and last.ideal is not None and last.evaluations is not None
    assert last.cdf_estimate is not None and isinstance(res.states[1], np.ndarray)
    return res


def simplex_run() -> ps.Result:
    """A run of three objectives (weight vectors), with a reported round of its own."""
    return ps.surf_simplex(BowlKStep(), 6, 3, iterations=3)


# ---------------------------------------------------------------------------- changed by one bit
def up(value: Any) -> Any:
    """``value`` changed by the least step: one bit of a float's last digit, one of an int's,
    in its element 1 for an array (flat)."""
    if isinstance(value, np.ndarray):
        out = value.copy()
        flat = out.reshape(-1)
        flat[1] = np.nextafter(flat[1], np.inf) if out.dtype.kind == "f" else flat[1] + 1
        return out
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    return float(np.nextafter(value, np.inf))


def one_state_up(states: list[Any]) -> list[Any]:
    return [up(s) if i == 1 else s for i, s in enumerate(states)]


Change = Callable[[Any], Any]

#: attribute of a result -> ways to change it (from the rich run's value)
RESULT_CHANGES: dict[str, list[Change]] = {
    "method": [lambda v: "uniform"],
    "label": [lambda v: v + " "],
    "settings": [
        lambda v: {**v, "n_segments": up(v["n_segments"])},
        lambda v: {**v, "probes": {**v["probes"], "margin": up(v["probes"]["margin"])}},
        lambda v: {**v, "extra": None},
    ],
    "weights": [up, lambda v: v[:-1]],
    "points": [up],
    "states": [one_state_up, lambda v: v[:-1]],
    "cdf": [lambda v: ps.ArcLengthCDF.identity(), lambda v: None],
    "n_solves": [up],
    "n_steps": [up],
    "converged": [up],
    "stop_reason": [lambda v: "callback"],
    "success": [up],
    "message": [lambda v: v + "."],
    "findings": [
        lambda v: v[:-1],
        lambda v: [dataclasses.replace(v[0], message=v[0].message + "."), *v[1:]],
        lambda v: [dataclasses.replace(v[0], slots=(*v[0].slots, 99)), *v[1:]],
    ],
    "reported_round": [lambda v: 2],
    "pieces": [
        lambda v: None,
        lambda v: [dataclasses.replace(v[0], length=up(v[0].length)), *v[1:]],
        lambda v: [dataclasses.replace(v[0], share=v[0].share + 1), *v[1:]],
    ],
    "front_ends": [
        lambda v: None,
        lambda v: dataclasses.replace(v, points=up(v.points)),
        lambda v: dataclasses.replace(v, how=("approach", v.how[1])),
        lambda v: dataclasses.replace(v, distances=(v.distances[0], up(v.distances[1]))),
    ],
}

#: field of a round's record -> ways to change it
RECORD_CHANGES: dict[str, list[Change]] = {
    "iteration": [up],
    "weights": [up],
    "points": [up],
    "cv": [up],
    "gap_ratio": [up],
    "weight_change": [up],
    "n_solves": [up],
    "n_steps": [up],
    "cdf": [lambda v: ps.ArcLengthCDF.identity()],
    "cdf_estimate": [lambda v: None],
    "alpha": [up],
    "ideal": [up, lambda v: None],
    "evaluations": [up, lambda v: None],
    "pieces": [
        lambda v: [ps.Piece(0, 10, 1.0, 11)] if v is None else None,
        lambda v: (
            [ps.Piece(0, 4, 1.0, 5), ps.Piece(5, 10, 1.0, 6)]
            if v is None
            else [dataclasses.replace(v[0], first=1), *v[1:]]
        ),
    ],
}


def changed(res: ps.Result, name: str, change: Change) -> ps.Result:
    """A copy of ``res`` with attribute ``name`` changed (``res`` is left as it is)."""
    other = copy.copy(res)
    setattr(other, name, change(getattr(res, name)))
    return other


def changed_record(res: ps.Result, round_: int, name: str, change: Change) -> ps.Result:
    """A copy of ``res`` with field ``name`` of round ``round_``'s record changed."""
    other = copy.copy(res)
    other.history = list(res.history)
    record = res.history[round_]
    other.history[round_] = dataclasses.replace(record, **{name: change(getattr(record, name))})
    return other


def test_every_attribute_of_a_result_and_a_record_is_compared(rich: ps.Result) -> None:
    """What the check compares is all a result and a record hold (the wall times aside): a
    new attribute is compared, or this fails."""
    assert {*RESULT_FIELDS, "history"} == set(vars(rich))
    fields = {f.name for f in dataclasses.fields(ps.IterationRecord)}
    assert set(RECORD_FIELDS) == fields - {"seconds", "solve_seconds"}
    assert set(RESULT_CHANGES) == set(RESULT_FIELDS)  # and each is changed below
    assert set(RECORD_CHANGES) == set(RECORD_FIELDS)


@pytest.mark.parametrize(
    ("name", "change"),
    [
        pytest.param(name, change, id=f"{name}-{i}")
        for name, changes in RESULT_CHANGES.items()
        for i, change in enumerate(changes)
    ],
)
def test_results_that_differ_in_one_attribute_fail(
    rich: ps.Result, name: str, change: Change
) -> None:
    other = changed(rich, name, change)
    with pytest.raises(AssertionError, match=f"the results differ in {name}: "):
        assert_same_result(rich, other)
    with pytest.raises(AssertionError, match=f"the results differ in {name}: "):
        assert_same_result(other, rich)  # either way round
    with pytest.raises(AssertionError, match=f"the results differ in {name}: "):
        assert_same_result(rich, other, history=False)  # the history is not all it skips


@pytest.mark.parametrize("round_", [0, -1])
@pytest.mark.parametrize(
    ("name", "change"),
    [
        pytest.param(name, change, id=f"{name}-{i}")
        for name, changes in RECORD_CHANGES.items()
        for i, change in enumerate(changes)
    ],
)
def test_results_whose_records_differ_in_one_field_fail(
    rich: ps.Result, name: str, change: Change, round_: int
) -> None:
    other = changed_record(rich, round_, name, change)
    index = len(rich.history) - 1 if round_ == -1 else round_
    with pytest.raises(AssertionError, match=rf"differ in history\[{index}\]\.{name}: "):
        assert_same_result(rich, other)
    assert_same_result(rich, other, history=False)  # what history=False leaves out


def test_results_with_another_number_of_rounds_fail(rich: ps.Result) -> None:
    other = changed(rich, "history", lambda h: h[:-1])
    with pytest.raises(AssertionError, match="differ in history: 4 rounds != 3"):
        assert_same_result(rich, other)


def test_the_wall_times_are_not_compared(rich: ps.Result) -> None:
    other = changed_record(rich, 0, "seconds", lambda s: s + 1.0)
    other = changed_record(other, 1, "solve_seconds", lambda s: s + 1.0)
    assert_same_result(rich, other)


def test_a_float_differs_by_its_last_bit_and_nan_equals_nan(rich: ps.Result) -> None:
    with pytest.raises(AssertionError, match=r"differ in weights: at \[1\]: "):
        assert_same_result(rich, changed(rich, "weights", up))
    nan = changed_record(rich, 0, "weight_change", lambda v: float("nan"))
    assert_same_result(nan, changed_record(rich, 0, "weight_change", lambda v: math.nan))
    with pytest.raises(AssertionError, match=r"history\[0\]\.weight_change: nan != "):
        assert_same_result(nan, rich)


def test_a_result_is_the_same_as_itself_its_copy_and_a_rerun(rich: ps.Result) -> None:
    assert_same_result(rich, rich)
    assert_same_result(rich, copy.deepcopy(rich))
    assert_same_result(rich, rich_run())


@pytest.mark.parametrize("make", [rich_run, simplex_run], ids=["zdt3", "simplex"])
def test_a_saved_and_loaded_result_is_the_same(
    make: Callable[[], ps.Result], tmp_path: Path
) -> None:
    res = make()
    res.save(tmp_path / "res")
    loaded = ps.Result.load(tmp_path / "res")
    assert loaded is not res and loaded.states is not res.states
    assert_same_result(loaded, res)
    assert_same_result(res, loaded)


def test_a_run_folders_result_is_the_run_result(tmp_path: Path) -> None:
    res = ps.surf(GearKStep(), 5, iterations=3, checkpoint=tmp_path)
    assert_same_result(ps.Result.load(tmp_path), res)
    assert_same_result(ps.surf(GearKStep(), 5, iterations=3), res)


def test_a_run_folders_result_keeps_its_pieces(tmp_path: Path) -> None:
    res = rich_run(checkpoint=tmp_path)
    assert res.pieces
    assert_same_result(ps.Result.load(tmp_path), res)


def test_a_tuple_equals_the_list_it_was_saved_as(rich: ps.Result) -> None:
    listed = changed(rich, "settings", lambda v: {**v, "pair": [0.0, 1.0]})
    assert_same_result(listed, changed(rich, "settings", lambda v: {**v, "pair": (0.0, 1.0)}))
    with pytest.raises(AssertionError, match=r"settings: \['pair'\]: \[1\]: 1.0 != 2.0"):
        assert_same_result(listed, changed(rich, "settings", lambda v: {**v, "pair": (0.0, 2.0)}))


def test_states_holding_arrays_in_containers_compare_by_value() -> None:
    def with_states(states: list[Any]) -> ps.Result:
        res = ps.surf(GearKStep(), 2, iterations=1)
        res.states = states
        return res

    state = [("slot", np.array([1.0, 2.0])), {"x": np.array([3.0])}, None]
    same = [("slot", np.array([1.0, 2.0])), {"x": np.array([3.0])}, None]
    assert_same_result(with_states(state), with_states(same))
    other = [("slot", np.array([1.0, 2.0])), {"x": np.array([3.5])}, None]
    with pytest.raises(AssertionError, match=r"states: \[1\]: \['x'\]: at \[0\]: 3.0 != 3.5"):
        assert_same_result(with_states(state), with_states(other))
    with pytest.raises(AssertionError, match=r"states: \[0\]: \[1\]: shape \(2,\) != \(3,\)"):
        assert_same_result(with_states(state), with_states([("slot", np.zeros(3)), *state[1:]]))
