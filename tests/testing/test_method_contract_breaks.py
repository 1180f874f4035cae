"""The shipped method contract (:class:`paretosurf.testing.MethodContract`) fails methods that
break it: each check of the contract is run, as pytest would run it, on a method built to
break what that check claims, and must fail; the same check passes on the honest method the
broken ones are made from. A check no broken method fails is a check that may pass anything,
so every check has at least one (:func:`test_every_check_is_shown_to_fail`)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import paretosurf as ps
from paretosurf.testing import Candidate, GearKStep, MethodContract

#: What a failed check raises: a failed ``assert``, or ``pytest.raises`` that saw nothing.
FAILED = (AssertionError, pytest.fail.Exception)


# ---------------------------------------------------------------------------- the honest method
class Even(ps.SlotMethod):
    """The honest method the broken ones are made from: fixed weights ``(n / N) ** power``,
    each slot warm-started from its own last solution; its state is its slots'."""

    name = "even"
    label = "Even"

    def __init__(self, n_segments: int, power: float = 1.0) -> None:
        super().__init__(n_segments, warm_start="slot")
        self.power = power
        self.weights = (np.arange(self.n_segments + 1) / self.n_segments) ** power

    def settings(self) -> dict[str, Any]:
        return {"n_segments": self.n_segments, "power": self.power}

    def next_weights(self) -> NDArray[np.float64]:
        return self.weights.copy()

    def state_dict(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        return self.slot_state()

    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        history: Sequence[ps.IterationRecord],
    ) -> None:
        self.load_slot_state(meta, arrays)


def candidate(cls: type[Even] = Even) -> Candidate:
    """``cls`` as a method under test, one slot per point."""
    return Candidate.of(lambda n_points, n_objectives: cls(n_points - 1))


def wrapped(run: Callable[..., ps.Result], base: Candidate | None = None) -> Candidate:
    """A candidate whose entry function is ``run(base.run, solver, n, m, rounds=, **kw)``:
    an entry function that gets in the way of the driver."""
    base = candidate() if base is None else base

    def entry(solver: Any, n_points: int, n_objectives: int = 2, **keywords: Any) -> ps.Result:
        return run(base.run, solver, n_points, n_objectives, **keywords)

    return Candidate(base.name, entry, base.simplex, base.keywords)


# ---------------------------------------------------------------------------- broken methods
def solves_behind_the_drivers_back() -> Candidate:
    """Solves once before the run (a probe of the solver's cold start) without counting it,
    and before its options are checked."""

    def run(inner: Callable[..., ps.Result], solver: Any, *args: Any, **kw: Any) -> ps.Result:
        solver.solve(0.5, None)
        return inner(solver, *args, **kw)

    return wrapped(run)


def goes_over_its_budget() -> Candidate:
    """Runs one round more than its budget allows."""

    def run(inner: Callable[..., ps.Result], *args: Any, rounds: int, **kw: Any) -> ps.Result:
        return inner(*args, rounds=rounds + 1, **kw)

    return wrapped(run)


class NotToTheEnd(Even):
    """Its weights stop short of 1: the front's end at ``w = 1`` is never solved."""

    def __init__(self, n_segments: int) -> None:
        super().__init__(n_segments)
        self.weights = 0.9 * self.weights


class MixesUpStates(Even):
    """Reports each point with its neighbour's solver state."""

    def front(self) -> tuple[NDArray[np.float64], NDArray[np.float64], list[int | None]]:
        weights, points, keys = super().front()
        return weights, points, keys[1:] + keys[:1]


def trims_its_result() -> Candidate:
    """Drops a middle point from its result, not from the round the result reports (an entry
    function that thins the front after the run): the result is not the reported round's."""

    def run(inner: Callable[..., ps.Result], *args: Any, **kw: Any) -> ps.Result:
        res = inner(*args, **kw)
        keep = [i for i in range(len(res.weights)) if i != len(res.weights) // 2]
        res.weights, res.points = res.weights[keep], res.points[keep]
        res.states = [res.states[i] for i in keep]
        return res

    return wrapped(run)


def claims_an_early_stop() -> Candidate:
    """Says it stopped early on meeting the target ("done") when it did not: its uneven
    weights ``(n / N) ** 3`` leave gaps far above the target."""

    def run(inner: Callable[..., ps.Result], *args: Any, **kw: Any) -> ps.Result:
        res = inner(*args, **kw)
        res.stop_reason = "done"
        return res

    uneven = Candidate.of(lambda n_points, n_objectives: Even(n_points - 1, power=3.0))
    return wrapped(run, uneven)


def ignores_its_seed() -> Candidate:
    """Takes a ``seed`` but draws its weights from an unseeded generator: two runs with the
    same seed differ."""

    def entry(
        solver: Any, n_points: int, n_objectives: int = 2, *, rounds: int, seed: int, **kw: Any
    ) -> ps.Result:
        method = Even(n_points - 1)
        inner = np.sort(np.random.default_rng().uniform(0.0, 1.0, n_points - 2))
        method.weights = np.concatenate([[0.0], inner, [1.0]])
        return ps.run(method, solver, iterations=rounds, **kw)

    return Candidate(Even.name, entry, keywords={"seed": 0})


def ignores_the_callbacks_stop() -> Candidate:
    """Calls the callback but drops what it returns: a ``True`` does not stop the run."""

    def run(
        inner: Callable[..., ps.Result], *args: Any, callback: Any = None, **kw: Any
    ) -> ps.Result:
        if callback is not None:
            user = callback

            def callback(record: ps.IterationRecord) -> None:
                user(record)

        return inner(*args, callback=callback, **kw)

    return wrapped(run)


def drops_its_loop_options() -> Candidate:
    """Passes the driver its rounds and nothing else: every loop option is ignored, a bad
    one is not refused."""

    def run(inner: Callable[..., ps.Result], *args: Any, rounds: int, **kw: Any) -> ps.Result:
        return inner(*args, rounds=rounds)

    return wrapped(run)


class ForgetsWarmStarts(Even):
    """Does not restore its slots' warm starts from a checkpoint: a resumed run starts every
    slot cold, and a finished run resumed reports no states."""

    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        history: Sequence[ps.IterationRecord],
    ) -> None:
        self.load_slot_state({**meta, "keys": [None] * len(meta["keys"])}, arrays)


class ForgetsItsRound(Even):
    """Moves its weights round by round (``(n / N) ** (1 + round / 10)``) but does not save
    which round it is at: a resumed run starts the weights over."""

    def __init__(self, n_segments: int) -> None:
        super().__init__(n_segments)
        self.round = 0

    def next_weights(self) -> NDArray[np.float64]:
        return (np.arange(self.n_segments + 1) / self.n_segments) ** (1 + self.round / 10)

    def tell(self, outcome: Any, pool: Any) -> None:
        super().tell(outcome, pool)
        self.round += 1


def goes_on_when_resumed() -> Candidate:
    """Resumed, asks for one more round than its budget: a finished run solves again."""

    def run(inner: Callable[..., ps.Result], *args: Any, rounds: int, **kw: Any) -> ps.Result:
        return inner(*args, rounds=rounds + 1 if kw.get("resume") else rounds, **kw)

    return wrapped(run)


class ForgetsItsSettings(Even):
    """Records no settings: a checkpoint cannot tell a run of another size."""

    def settings(self) -> dict[str, Any]:
        return {}


def clobbers_folders() -> Candidate:
    """Always overwrites its run folder."""

    def run(inner: Callable[..., ps.Result], *args: Any, **kw: Any) -> ps.Result:
        if kw.get("checkpoint") is not None and not kw.get("resume"):
            kw["overwrite"] = True
        return inner(*args, **kw)

    return wrapped(run)


def wipes_the_folder() -> Candidate:
    """Told to overwrite a run folder, deletes the whole folder first (files not of the run
    too)."""

    def run(inner: Callable[..., ps.Result], *args: Any, **kw: Any) -> ps.Result:
        if kw.get("overwrite"):
            shutil.rmtree(kw["checkpoint"])
        return inner(*args, **kw)

    return wrapped(run)


class TupleSettings(Even):
    """Records a setting as a tuple, which its saved file reads back as a list."""

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "range": (0.0, 1.0)}


class NanSetting(Even):
    """Records a setting of NaN, which strict JSON has no word for."""

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "spread": float("nan")}


def counts_calls_on_the_solver() -> Candidate:
    """Stops once the solver object has been called ``2 (N + 1)`` times: in a process pool
    the calls happen on copies of the solver, the count stays 0, and the run goes on."""

    def run(
        inner: Callable[..., ps.Result], solver: Any, n: int, *args: Any, **kw: Any
    ) -> ps.Result:
        return inner(solver, n, *args, callback=lambda r: solver.calls >= 2 * n, **kw)

    return wrapped(run)


# ---------------------------------------------------------------------------- the table
def made(cls: type[Even]) -> Callable[[], Candidate]:
    """The maker of ``cls``'s candidate."""

    def make() -> Candidate:
        return candidate(cls)

    make.__name__ = cls.__name__
    return make


#: (the maker of a broken method, a contract check it must fail, what the failure says)
BROKEN: list[tuple[Callable[[], Candidate], str, str]] = [
    (
        solves_behind_the_drivers_back,
        "test_budget_counts_every_solver_call",
        "counts 15 solves, the solver was called 16 times",
    ),
    (solves_behind_the_drivers_back, "test_bad_loop_keywords_are_refused", "1 solves before"),
    (goes_over_its_budget, "test_budget_counts_every_solver_call", "over the budget"),
    (made(NotToTheEnd), "test_result_is_consistent", "weights not increasing from 0 to 1"),
    (made(MixesUpStates), "test_result_is_consistent", "states are not the returned points'"),
    (trims_its_result, "test_result_is_consistent", "not the weights of the reported round"),
    (claims_an_early_stop, "test_an_early_stop_meets_the_target", "above the target"),
    (ignores_its_seed, "test_same_input_same_result", "differ in weights"),
    (
        ignores_the_callbacks_stop,
        "test_callback_returning_true_stops_after_that_round",
        "3 rounds run, stop_reason 'iterations'",
    ),
    (drops_its_loop_options, "test_bad_loop_keywords_are_refused", "DID NOT RAISE"),
    (
        made(ForgetsWarmStarts),
        "test_killed_run_resumes_to_the_uninterrupted_result",
        "differ in points",
    ),
    (
        made(ForgetsWarmStarts),
        "test_resuming_a_finished_run_solves_nothing",
        "differ in states: \\[0\\]: None",
    ),
    (
        made(ForgetsItsRound),
        "test_killed_run_resumes_to_the_uninterrupted_result",
        "differ in weights",
    ),
    (goes_on_when_resumed, "test_resuming_a_finished_run_solves_nothing", "solved again"),
    (made(ForgetsItsSettings), "test_resuming_with_other_settings_is_refused", "DID NOT RAISE"),
    (
        clobbers_folders,
        "test_a_folder_holding_a_run_is_never_overwritten_by_accident",
        "DID NOT RAISE",
    ),
    (
        wipes_the_folder,
        "test_a_folder_holding_a_run_is_never_overwritten_by_accident",
        "overwrite removed notes.txt",
    ),
    (made(TupleSettings), "test_save_and_load_round_trip", "'range': \\(0.0, 1.0\\).* saved as"),
    (made(NanSetting), "test_save_and_load_round_trip", "'spread': nan.* saved as"),
    (
        counts_calls_on_the_solver,
        "test_process_executor_gives_the_local_result",
        "differ in points",
    ),
]


def contract_checks() -> list[str]:
    """The names of the contract's checks."""
    return sorted(name for name in dir(MethodContract) if name.startswith("test_"))


def arguments(check: str) -> list[dict[str, Any]]:
    """The arguments pytest calls ``check`` with besides ``method`` and ``tmp_path``, one dict
    per parametrization."""
    marks = getattr(getattr(MethodContract, check), "pytestmark", ())
    marks = [m for m in marks if m.name == "parametrize"]
    if not marks:
        return [{}]
    names, values = marks[0].args
    names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    return [dict(zip(names, v if len(names) > 1 else (v,), strict=True)) for v in values]


def call(check: str, method: Candidate, tmp_path: Path, **params: Any) -> None:
    """``check`` of the contract on ``method``, as pytest calls it."""
    func = getattr(MethodContract(), check)
    if "tmp_path" in func.__code__.co_varnames:
        params["tmp_path"] = tmp_path
    func(method, **params)


CASES = [
    pytest.param(make, check, params, match, id=f"{make.__name__}-{check}-{i}")
    for make, check, match in BROKEN
    for i, params in enumerate(arguments(check))
]


# ---------------------------------------------------------------------------- the tests
@pytest.mark.parametrize(("make", "check", "params", "match"), CASES)
def test_the_contract_fails_a_broken_method(
    make: Callable[[], Candidate], check: str, params: dict[str, Any], match: str, tmp_path: Path
) -> None:
    with pytest.raises(FAILED, match=match):
        call(check, make(), tmp_path, **params)


def honest(check: str) -> Candidate:
    """The honest method a check is shown to pass on: :class:`Even`, or SURF for the
    early-stop check (a method that stops early; Even never does)."""
    if check == "test_an_early_stop_meets_the_target":
        return Candidate.from_registry("surf")
    return candidate()


@pytest.mark.parametrize(
    ("check", "params"),
    [
        pytest.param(check, params, id=f"{check}-{i}")
        for check in contract_checks()
        for i, params in enumerate(arguments(check))
    ],
)
def test_each_check_passes_on_the_honest_method(
    check: str, params: dict[str, Any], tmp_path: Path
) -> None:
    """The other side of the test above: the same check, called the same way, passes on the
    honest method, so it is the breakage that fails it (and it checks: a skip fails)."""
    try:
        call(check, honest(check), tmp_path, **params)
    except pytest.skip.Exception as skip:
        pytest.fail(f"{check} skipped the honest method: {skip}")


def test_every_check_is_shown_to_fail() -> None:
    """Every check of the contract, every parametrization of it, fails on some broken method
    above (a new check needs a method that breaks it)."""
    every = {(check, i) for check in contract_checks() for i in range(len(arguments(check)))}
    shown = {(check, i) for _, check, _ in BROKEN for i in range(len(arguments(check)))}
    assert every - shown == set()
    assert shown <= every


def test_a_result_with_fewer_points_than_its_reported_round_fails(tmp_path: Path) -> None:
    """The consistency check compares the result with the round it reports always: it used
    to compare the points only when their numbers matched, and so passed a result with a
    point fewer than its round (see :func:`trims_its_result`)."""
    res = trims_its_result().run(GearKStep(), 5, 2, rounds=3)
    assert len(res.points) == len(res.history[-1].points) - 1
    with pytest.raises(AssertionError, match="not the weights of the reported round"):
        call("test_result_is_consistent", trims_its_result(), tmp_path)


def test_the_early_stop_check_skips_a_run_that_did_not_stop_early(tmp_path: Path) -> None:
    """A method that never stops early is skipped with the reason, not passed unchecked."""
    with pytest.raises(pytest.skip.Exception, match="even did not stop early in 20 rounds"):
        call("test_an_early_stop_meets_the_target", candidate(), tmp_path)


def test_the_process_check_skips_when_told_to() -> None:
    class WithoutProcesses(MethodContract):
        check_processes = False

    with pytest.raises(pytest.skip.Exception, match="check_processes is False"):
        WithoutProcesses().test_process_executor_gives_the_local_result(candidate())
