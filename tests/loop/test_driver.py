"""The driver on its own: a method written from scratch, rounds, state copies, guards, and
the run folder's files."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.loop import Method, Round, RoundOutcome, RunOptions, run
from paretosurf.loop import _method as method
from paretosurf.loop._checkpointing import Checkpointer
from paretosurf.loop._options import LOOP_OPTION_DOCS, LOOP_OPTIONS
from paretosurf.methods import uniform
from paretosurf.storage import StatePool
from paretosurf.storage._files import CheckpointError
from paretosurf.storage._run_folder import RunFolder
from paretosurf.testing import GearKStep, Interrupt, interrupt_after
from support import gear_solver


class Bisection(Method):
    """A made-up method: endpoints first, then each round the midpoint of the widest gap of
    the points found so far, each solved twice in a row (``repeats``)."""

    name = "bisection"
    label = "Bisection"

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.w: list[float] = []
        self.p: list[np.ndarray] = []
        self.k: list[int | None] = []

    def settings(self) -> dict[str, Any]:
        return {"rounds": self.rounds}

    def start(self, init_keys: list[int | None] | None) -> None:
        self.init = init_keys or [None, None]

    def propose(self) -> Round | None:
        if not self.w:
            return Round(np.array([0.0, 1.0]), self.init, repeats=2)
        if len(self.w) >= self.rounds + 1:
            return None
        w, p, _ = self.front()
        i = int(np.argmax(np.linalg.norm(np.diff(p, axis=0), axis=1)))
        return Round(np.array([(w[i] + w[i + 1]) / 2]), [self.front()[2][i]], repeats=2)

    def tell(self, outcome: RoundOutcome, pool: StatePool) -> None:
        self.w += outcome.weights.tolist()
        self.p += list(outcome.points)
        self.k += outcome.keys

    def front(self) -> tuple[np.ndarray, np.ndarray, list[int | None]]:
        if not self.w:
            return np.array([0.0, 1.0]), np.empty((2, 0)), [None, None]
        order = np.argsort(self.w)
        return (np.asarray(self.w)[order], np.stack(self.p)[order], [self.k[i] for i in order])

    def state_dict(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        return {"w": self.w, "k": self.k}, {"p": np.array(self.p)}

    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, np.ndarray],
        history: Sequence[ps.IterationRecord],
    ) -> None:
        self.w, self.k, self.p = list(meta["w"]), list(meta["k"]), list(arrays["p"])


def test_a_method_written_from_scratch_gets_the_whole_loop(tmp_path) -> None:
    solver = GearKStep()
    res = run(Bisection(4), solver, iterations=None, checkpoint=tmp_path, progress=True)
    # endpoints, then 3 midpoints; every weight solved twice (repeats=2)
    assert len(res.history) == 4 and res.n_solves == solver.calls == 2 * (2 + 3)
    assert res.n_steps == solver.steps * res.n_solves
    assert res.weights.tolist()[0] == 0.0 and res.weights.tolist()[-1] == 1.0
    assert res.stop_reason == "method" and res.method == "bisection" and res.cdf is None
    # each state is the one its point came from, after two warm-started calls
    np.testing.assert_allclose([solver.evaluate(s) for s in res.states], res.points, atol=0)
    manifest = json.loads((tmp_path / "run.json").read_text())
    assert manifest["method"] == "bisection" and manifest["settings"]["rounds"] == 4
    assert manifest["settings"]["normalize"] == "endpoints"
    back = run(Bisection(4), GearKStep(), iterations=None, checkpoint=tmp_path, resume=True)
    np.testing.assert_array_equal(back.points, res.points)


def test_state_pool_copies_a_state_used_by_two_slots() -> None:
    pool = StatePool()
    a = pool.add(np.zeros(2))
    first, second = pool.take([a, a])
    assert first is pool.get(a) and second is not first
    second += 1.0
    assert pool.get(a).tolist() == [0.0, 0.0]
    pool.keep([])
    with pytest.raises(KeyError, match="released"):
        pool.get(a)


class Wild(Bisection):
    def propose(self) -> Round | None:
        return Round(np.array([0.0, 1.5]), [None, None])


def test_weights_outside_the_unit_interval_are_refused() -> None:
    with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
        run(Wild(2), gear_solver, iterations=3)


def test_a_solver_that_changes_its_number_of_objectives_is_refused() -> None:
    calls = []

    def solver(w: float, state: Any) -> ps.Solution:
        calls.append(w)
        return ps.Solution([1 - w, w] if len(calls) <= 5 else [1 - w, w, 0.0])

    with pytest.raises(ValueError, match="front of 2 objectives; the solver returned 3"):
        uniform(solver, 4, iterations=3)
    assert len(calls) == 10  # refused in the round that changed


def test_a_method_for_any_number_of_objectives_keeps_the_first_rounds() -> None:
    anyhow: Any = SimpleNamespace(n_objectives=None, label="Any")
    simplex = np.eye(3)
    assert method.check_points(np.zeros((3, 4)), simplex, anyhow, 0, None) == 4
    with pytest.raises(ValueError, match="returned 4 objectives in round 1, but 3 before"):
        method.check_points(np.zeros((3, 4)), simplex, anyhow, 1, 3)
    # a scalar weight trades off exactly two
    with pytest.raises(ValueError, match="front of 2 objectives; the solver returned 3"):
        method.check_points(np.zeros((2, 3)), np.array([0.0, 1.0]), anyhow, 0, None)


def test_the_loop_options_described_once_are_runs_and_its_docstring_holds_them() -> None:
    assert LOOP_OPTIONS == RunOptions.__required_keys__ | RunOptions.__optional_keys__
    doc = run.__doc__ or ""
    documented = {k for k in LOOP_OPTIONS if f"\n    {k} : {LOOP_OPTION_DOCS[k][0]}\n" in doc}
    assert documented == LOOP_OPTIONS and "<loop options>" not in doc
    # the method interface lives in paretosurf.loop._method, and the driver still offers it
    assert (Method, Round, RoundOutcome) == (method.Method, method.Round, method.RoundOutcome)


@pytest.mark.parametrize("m", [1, 3])
def test_surf_refuses_other_than_two_objectives(m: int) -> None:
    def solver(w: float, state: Any) -> ps.Solution:
        return ps.Solution(np.full(m, w))

    with pytest.raises(ValueError, match=f"front of 2 objectives; the solver returned {m}"):
        ps.surf(solver, 4, iterations=2)


def test_init_states_must_be_a_sequence() -> None:
    with pytest.raises(TypeError, match="init_states"):
        ps.surf(gear_solver, 4, init_states="abcde")


def test_endpoints_are_exactly_zero_and_one_when_the_cdf_is_flat_at_an_end() -> None:
    # coincident points at w = 0 and w = 0.25 make Phi flat at 0 (zero slope there)
    w = np.linspace(0, 1, 5)
    cdf = ps.ArcLengthCDF.from_front(w, [[0, 1], [0, 1], [0.5, 0.5], [0.8, 0.2], [1, 0]])
    q = cdf.quantile_weights(4)
    assert q[0] == 0.0 and q[-1] == 1.0 and np.all(np.diff(q) > 0)

    def flat_start(w: float, state: Any) -> ps.Solution:  # the front does not move below 0.3
        x = max(w - 0.3, 0.0) / 0.7
        return ps.Solution([(1 - x) ** 2, x])

    res = ps.surf(flat_start, 6, iterations=10, alpha=1.0)
    assert all(r.weights[0] == 0.0 and r.weights[-1] == 1.0 for r in res.history)


# ------------------------------------------------------------------------------ run folders
def test_clear_removes_only_the_runs_files(tmp_path) -> None:
    ps.surf(gear_solver, 4, iterations=3, checkpoint=tmp_path)
    (tmp_path / "mine.txt").write_text("keep me")
    (tmp_path / "state-notes.md").write_text("keep me too")
    RunFolder(tmp_path).clear()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt", "state-notes.md"]


# ------------------------------------------------------------------------ checkpoint cadence
def rounds_on_disk(tmp_path, solver: Any = None, iterations: int = 6, **options: Any) -> list[int]:
    """The rounds the run folder holds as each round ends (seen by the callback)."""
    seen: list[int] = []
    ps.surf(
        GearKStep() if solver is None else solver,
        4,
        iterations=iterations,
        checkpoint=tmp_path,
        callback=lambda r: seen.append(RunFolder(tmp_path).n_rounds()),
        **options,
    )
    return seen


class Ticks:
    """A clock that moves ``step`` seconds at every reading (two readings a round: each round
    takes ``step``, and so does each checkpoint)."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_auto_checkpoints_every_round_that_outlasts_the_checkpoints(tmp_path) -> None:
    # rounds and checkpoints of one tick each: every round outlasts 1e-9 of a checkpoint
    every = Checkpointer(share=1e9, clock=Ticks(1.0))
    assert rounds_on_disk(tmp_path, checkpoint_period=every) == [1, 2, 3, 4, 5, 6]


def test_auto_checkpoints_are_amortized_over_short_rounds(tmp_path) -> None:
    never = Checkpointer(share=1e-9, clock=Ticks(1.0))  # no round outlasts 1e9 of them
    assert rounds_on_disk(tmp_path, checkpoint_period=never) == [0, 0, 0, 0, 0, 0]
    folder = RunFolder(tmp_path)  # only the end is saved
    assert folder.n_rounds() == 6 and len(folder.load().records) == 6
    solved = sorted((e["round"], e["slot"]) for e in folder.solves())
    assert solved == [(r, s) for r in range(6) for s in range(5)]


def test_the_first_auto_checkpoint_waits_for_its_expected_cost(tmp_path) -> None:
    # expected to cost nothing, the first checkpoint is due after the first round; it then
    # measures a real cost, which no round outlasts 1e9 times
    free = Checkpointer(share=1e-9, first_seconds=0.0, clock=Ticks(1.0))
    assert rounds_on_disk(tmp_path / "free", checkpoint_period=free) == [1, 1, 1, 1, 1, 1]
    # expected to cost 0.5 s, at share=0.5 it waits for 1 s of rounds of 0.25 s (the fourth
    # round); the checkpoints then cost 0.25 s, and each next one waits for 0.5 s of rounds
    timed = Checkpointer(share=0.5, first_seconds=0.5, clock=Ticks(0.25))
    seen = rounds_on_disk(tmp_path / "timed", checkpoint_period=timed, iterations=9)
    assert seen == [0, 0, 0, 4, 4, 6, 6, 8, 8]


def test_a_checkpointer_every_few_rounds(tmp_path) -> None:
    assert rounds_on_disk(tmp_path, checkpoint_period=Checkpointer(every=4)) == [0, 0, 0, 4, 4, 4]
    with pytest.raises(ValueError, match="every must be an integer >= 1"):
        Checkpointer(every=0)


def test_a_checkpoint_period_in_seconds(tmp_path) -> None:
    assert rounds_on_disk(tmp_path / "every", checkpoint_period=0) == [1, 2, 3, 4, 5, 6]
    assert rounds_on_disk(tmp_path / "never", checkpoint_period=1e9) == [0] * 6
    assert RunFolder(tmp_path / "never").n_rounds() == 6  # the end is always saved


@pytest.mark.parametrize("period", [-1, float("nan"), "often", True])
def test_a_bad_checkpoint_period_is_refused(period: Any) -> None:
    with pytest.raises(ValueError, match="checkpoint_period must be 'auto' or a number"):
        ps.surf(gear_solver, 4, iterations=1, checkpoint_period=period)


def test_a_run_stopped_between_amortized_checkpoints_resumes_from_the_last(tmp_path) -> None:
    # the first round saved, then none: no round outlasts 1e9 checkpoints of one tick
    first = Checkpointer(share=1e-9, first_seconds=0.0, clock=Ticks(1.0))
    full = ps.surf(GearKStep(), 4, iterations=6)
    with pytest.raises(Interrupt):
        ps.surf(
            GearKStep(),
            4,
            iterations=6,
            checkpoint=tmp_path,
            callback=interrupt_after(4),
            checkpoint_period=first,
        )
    folder = RunFolder(tmp_path)
    assert folder.n_rounds() == 1
    # every attempt made is in the log, those of the rounds after the checkpoint too
    assert sorted({e["round"] for e in folder.solves()}) == [0, 1, 2, 3]
    again = GearKStep()
    resumed = ps.surf(
        again, 4, iterations=6, checkpoint=tmp_path, resume=True, checkpoint_period=first
    )
    assert again.calls == 5 * 5  # rounds 1 to 5, solved again from round 1
    np.testing.assert_array_equal(resumed.points, full.points)
    np.testing.assert_array_equal(ps.Result.load(tmp_path).points, full.points)


def test_a_run_stopped_before_its_first_checkpoint_starts_again_on_resume(tmp_path, capsys) -> None:
    never = Checkpointer(share=1e-9, clock=Ticks(1.0))  # nothing saved before the end
    full = ps.surf(GearKStep(), 4, iterations=6)

    def ctrl_c(record: ps.IterationRecord) -> None:
        if record.iteration == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ps.surf(
            GearKStep(),
            4,
            iterations=6,
            checkpoint=tmp_path,
            callback=ctrl_c,
            checkpoint_period=never,
        )
    assert "stopped before its first checkpoint" in capsys.readouterr().err
    folder = RunFolder(tmp_path)
    assert folder.holds_run() and not folder.has_state() and folder.n_rounds() == 0
    with pytest.raises(ValueError, match="differing: alpha"):
        ps.surf(GearKStep(), 4, iterations=6, alpha=0.5, checkpoint=tmp_path, resume=True)
    again = GearKStep()
    resumed = ps.surf(
        again, 4, iterations=6, checkpoint=tmp_path, resume=True, checkpoint_period=never
    )
    assert again.calls == 6 * 5  # every round solved again
    np.testing.assert_array_equal(resumed.points, full.points)
    np.testing.assert_array_equal(ps.Result.load(tmp_path).points, full.points)
    # the log keeps the stopped run's attempts (rounds 0-2) before the resumed run's
    assert [e["round"] for e in folder.solves()] == [
        r for r in [0, 1, 2, *range(6)] for _ in range(5)
    ]


def test_two_state_files_take_turns_and_the_newest_is_read(tmp_path) -> None:
    seen = []

    def check(record: ps.IterationRecord) -> None:
        files = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("state"))
        assert files == (["state.0"] if record.iteration == 0 else ["state.0", "state.1"])
        seen.append(RunFolder(tmp_path).n_rounds())

    ps.surf(
        gear_solver,
        4,
        iterations=5,
        checkpoint=tmp_path,
        callback=check,
        checkpoint_period=0,
        early_stopping=False,  # all five rounds
    )
    assert seen == [1, 2, 3, 4, 5]


def test_a_checkpoint_of_the_previous_format_is_recognised(tmp_path) -> None:
    (tmp_path / "iter-000003.json").write_text("{}")
    (tmp_path / "LATEST").write_text("iter-000003")
    with pytest.raises(FileExistsError, match=r"paretosurf 0\.1"):
        ps.surf(gear_solver, 4, iterations=2, checkpoint=tmp_path)
    with pytest.raises(CheckpointError, match=r"paretosurf 0\.1"):
        ps.surf(gear_solver, 4, iterations=2, checkpoint=tmp_path, resume=True)


def test_a_corrupt_history_line_is_reported(tmp_path) -> None:
    ps.surf(gear_solver, 4, iterations=3, checkpoint=tmp_path)
    history = tmp_path / "history.jsonl"
    lines = history.read_text().splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]  # (line 1 is the header)
    history.write_text("\n".join(lines) + "\n")
    with pytest.raises(CheckpointError, match=r"history\.jsonl line 3 is corrupt"):
        ps.Result.load(tmp_path)


def test_checkpoint_must_be_a_folder(tmp_path) -> None:
    target = tmp_path / "file"
    target.write_text("")
    with pytest.raises(NotADirectoryError, match="folder"):
        ps.surf(gear_solver, 4, iterations=1, checkpoint=target)


# ----------------------------------------------------------------- warm starts given by the user
def test_one_init_state_object_for_every_slot_is_copied_per_slot():
    def in_place(w: float, state: Any) -> ps.Solution:  # updates its state in place
        x = np.array([0.5]) if state is None else state
        for _ in range(20):
            x -= 0.2 * (w * 2 * x - (1 - w) * 2 * (1 - x))
        return ps.Solution([float(x[0] ** 2), float((1 - x[0]) ** 2)], x)

    x0 = np.array([0.5])
    shared = ps.surf(in_place, 6, iterations=6, init_states=[x0] * 7)
    separate = ps.surf(in_place, 6, iterations=6, init_states=[np.array([0.5]) for _ in range(7)])
    np.testing.assert_array_equal(shared.points, separate.points)
    # each slot's state is its own, and matches its point (x = sqrt(f1))
    assert len({id(s) for s in shared.states}) == 7
    np.testing.assert_allclose([s[0] for s in shared.states], np.sqrt(shared.points[:, 0]))


def test_a_callable_object_keeps_its_states_on_disk(tmp_path: Any):
    class CallableDisk:
        saved = 0

        def __call__(self, w: float, state: Any) -> ps.Solution:
            x = 0.5 if state is None else float(state)
            x += 0.5 * ((1 - w) - x)
            return ps.Solution([x**2, (1 - x) ** 2], x)

        def save_state(self, state: Any, folder: Any) -> None:
            CallableDisk.saved += 1
            np.save(folder / "x.npy", np.array(state))

        def load_state(self, folder: Any) -> Any:
            return float(np.load(folder / "x.npy"))

    ps.surf(CallableDisk(), 4, iterations=3, checkpoint=tmp_path / "run")
    assert CallableDisk.saved > 0
    assert any((tmp_path / "run" / "states").rglob("x.npy"))


def test_resuming_with_fewer_iterations_than_saved_says_so(tmp_path: Any) -> None:
    folder = tmp_path / "run"
    every = {"early_stopping": False}  # all five rounds are saved
    full = ps.surf(gear_solver, 4, iterations=5, checkpoint=folder, checkpoint_period=0, **every)
    with pytest.warns(ps.ParetoWarning, match="already holds 5 rounds, more than iterations=3"):
        again = ps.surf(gear_solver, 4, iterations=3, checkpoint=folder, resume=True, **every)
    assert len(again.history) == 5
    np.testing.assert_array_equal(again.points, full.points)


def test_the_warning_is_named_pareto_warning_and_the_old_name_is_the_same_class() -> None:
    assert ps.ParetoWarning.__name__ == "ParetoWarning"
    with pytest.warns(DeprecationWarning):
        old = ps.SurfWarning
    assert old is ps.ParetoWarning and issubclass(ps.ParetoWarning, UserWarning)
    with pytest.warns(old) as caught:  # the old name still catches it
        ps.methods.uniform(lambda w, s: ps.Solution([0.0, 0.0]), 2, iterations=1)
    assert {type(w.message).__name__ for w in caught} == {"ParetoWarning"}
