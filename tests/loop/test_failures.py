"""Failures and big states: retried solves, errors that name the attempt, a checkpoint left
intact, solver states kept as folders (never pickled), and pickle only on request."""

from __future__ import annotations

import copy
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.loop import Method, Round, RoundOutcome, run
from paretosurf.loop._checkpointing import Checkpointer
from paretosurf.storage import StatePool
from paretosurf.storage._files import CheckpointError
from paretosurf.storage._run_folder import RunFolder
from paretosurf.storage._states import StateFolder
from paretosurf.testing import GearKStep, Interrupt, gear_curve, interrupt_after
from support import gear_solver

N = 6


class Flaky(GearKStep):
    """GearKStep whose solve at ``slot_weight`` raises on its first ``failures`` calls."""

    def __init__(self, failures: int, at: float = 0.5) -> None:
        super().__init__()
        self.failures, self.at = failures, at

    def solve(self, w: float, state: float | None) -> ps.Solution:
        if abs(w - self.at) < 1e-12 and self.failures > 0:
            self.failures -= 1
            raise ValueError("boom")
        return super().solve(w, state)


def test_a_failed_solve_is_retried_on_its_own_and_logged(tmp_path) -> None:
    clean = ps.methods.uniform(GearKStep(), N, iterations=3)
    flaky = Flaky(failures=1)
    res = ps.methods.uniform(flaky, N, iterations=3, checkpoint=tmp_path)
    np.testing.assert_array_equal(res.points, clean.points)
    assert res.n_solves == clean.n_solves  # retries are not budget
    log = RunFolder(tmp_path).solves()
    failed = [e for e in log if e["error"] is not None]
    assert len(failed) == 1 and failed[0]["error"] == "ValueError: boom"
    assert failed[0]["slot"] == 3 and failed[0]["attempt"] == 1 and failed[0]["round"] == 0
    retry = [e for e in log if e["round"] == 0 and e["attempt"] == 2]
    assert [e["slot"] for e in retry] == [3] and retry[0]["objectives"] is not None
    assert all({"seconds", "host", "pid", "weight", "call", "time"} <= set(e) for e in log)


def test_when_retries_run_out_the_error_names_slot_weight_attempt_and_cause(tmp_path) -> None:
    ps.methods.uniform(GearKStep(), N, iterations=2, checkpoint=tmp_path)
    saved = {p.name: p.read_bytes() for p in tmp_path.glob("state.*")}
    with pytest.raises(ps.InnerSolverError) as info:
        ps.methods.uniform(  # (resume="force": Flaky is another class than GearKStep)
            Flaky(failures=5), N, iterations=4, checkpoint=tmp_path, resume="force", retries=2
        )
    text = str(info.value)
    assert "slot 3 (weight 0.5)" in text and "attempt 3" in text and "ValueError: boom" in text
    assert info.value.slot == 3 and info.value.weight == 0.5
    assert {p.name: p.read_bytes() for p in tmp_path.glob("state.*")} == saved  # untouched
    done = ps.methods.uniform(GearKStep(), N, iterations=4, checkpoint=tmp_path, resume=True)
    np.testing.assert_array_equal(
        done.points, ps.methods.uniform(GearKStep(), N, iterations=4).points
    )


def test_retries_zero_fails_at_once() -> None:
    with pytest.raises(ps.InnerSolverError, match="attempt 1: ValueError: boom"):
        ps.surf(Flaky(failures=1), N, iterations=2, retries=0)


# ------------------------------------------------------------------------ states on disk
class Unpicklable:
    """A state that must never be pickled (it holds a lock, and says so)."""

    def __init__(self, x: float) -> None:
        self.x = x
        self.lock = threading.Lock()

    def __reduce__(self) -> Any:
        raise TypeError("this state must never be pickled")


class DiskSolver(GearKStep):
    """GearKStep whose states live in folders (``save_state``/``load_state``)."""

    saved = 0

    def solve(self, w: float, state: Any) -> ps.Solution:
        x = None if state is None else state.x
        sol = super().solve(w, x)
        return ps.Solution(sol.objectives, Unpicklable(float(sol.state)), sol.info)

    def save_state(self, state: Unpicklable, folder: Path) -> None:
        np.save(folder / "x.npy", np.array([state.x]))
        type(self).saved += 1

    def load_state(self, folder: Path) -> Unpicklable:
        return Unpicklable(float(np.load(folder / "x.npy")[0]))

    def evaluate(self, state: Any) -> np.ndarray:
        return gear_curve(state.x if isinstance(state, Unpicklable) else float(state))


def test_states_on_disk_are_never_pickled_and_resume_from_the_folders(tmp_path) -> None:
    full = ps.surf(GearKStep(), N, iterations=6)
    with pytest.raises(RuntimeError):
        ps.surf(
            DiskSolver(),
            N,
            iterations=6,
            checkpoint=tmp_path,
            checkpoint_period=0,
            callback=lambda r: (_ for _ in ()).throw(RuntimeError) if r.iteration == 2 else None,
        )
    assert RunFolder(tmp_path).n_rounds() == 3
    resumed = ps.surf(
        DiskSolver(), N, iterations=6, checkpoint=tmp_path, resume=True, checkpoint_period=0
    )
    np.testing.assert_array_equal(resumed.points, full.points)
    assert all(isinstance(s, StateFolder) for s in resumed.states)
    # only the last round's folders are kept, named by round and slot
    kept = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "states").glob("*/*"))
    # (the state before the last, the fallback, was saved after the same round: it names
    # the same folders)
    assert kept == [f"states/round-000005/slot-{s:02d}" for s in range(N + 1)]
    loaded = [DiskSolver().load_state(Path(s.path)) for s in resumed.states]
    np.testing.assert_allclose([u.x for u in loaded], full.states)


def first_and_last() -> Checkpointer:
    """Checkpoints after the first round (expected to cost nothing) and at the end (no round
    outlasts 1e9 times the first's cost)."""
    return Checkpointer(share=1e-9, first_seconds=0.0)


def test_disk_states_of_rounds_not_checkpointed_stay_in_memory(tmp_path) -> None:
    full = ps.surf(GearKStep(), N, iterations=6)
    DiskSolver.saved = 0
    res = ps.surf(
        DiskSolver(), N, iterations=6, checkpoint=tmp_path, checkpoint_period=first_and_last()
    )
    assert DiskSolver.saved == 2 * (N + 1)  # never an unpicklable pickle
    np.testing.assert_array_equal(res.points, full.points)
    assert all(isinstance(s, StateFolder) for s in res.states)
    kept = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "states").glob("*/*"))
    # the last state names round 5's folders, the state before it (the first checkpoint's,
    # the fallback) round 0's
    assert kept == [f"states/round-{r:06d}/slot-{s:02d}" for r in (0, 5) for s in range(N + 1)]
    # a run stopped between two checkpoints resumes from the folders of the last one
    with pytest.raises(Interrupt):
        ps.surf(
            DiskSolver(),
            N,
            iterations=6,
            checkpoint=tmp_path / "b",
            callback=interrupt_after(4),
            checkpoint_period=first_and_last(),
        )
    resumed = ps.surf(
        DiskSolver(),
        N,
        iterations=6,
        checkpoint=tmp_path / "b",
        resume=True,
        checkpoint_period=first_and_last(),
    )
    np.testing.assert_array_equal(resumed.points, full.points)


class Twins(Method):
    """Solves w = 0, 0.5, 1 every round; from the second round on, slot 0's last state
    warm-starts slots 0 and 1 (one state, two slots)."""

    name = "twins"
    label = "Twins"

    def __init__(self) -> None:
        self.keys: list[int | None] = [None, None, None]
        self.points = np.empty((3, 2))

    def settings(self) -> dict[str, Any]:
        return {}

    def start(self, init_keys: list[int | None] | None) -> None:
        pass

    def propose(self) -> Round:
        return Round(np.array([0.0, 0.5, 1.0]), [self.keys[0], self.keys[0], self.keys[2]])

    def tell(self, outcome: RoundOutcome, pool: StatePool) -> None:
        self.keys, self.points = list(outcome.keys), outcome.points

    def front(self) -> tuple[np.ndarray, np.ndarray, list[int | None]]:
        return np.array([0.0, 0.5, 1.0]), self.points, self.keys

    def state_dict(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        return {"keys": self.keys}, {"points": self.points}

    def load_state_dict(self, meta: Any, arrays: Any, history: Any) -> None:
        self.keys, self.points = list(meta["keys"]), np.asarray(arrays["points"])


def test_a_disk_state_in_memory_that_starts_two_slots_is_never_copied(tmp_path) -> None:
    """Between checkpoints a disk-state solver's states stay in memory; one that warm-starts
    two slots is saved to its folder first, and the second slot reads it back (its state
    cannot be deep-copied, or pickled)."""
    with pytest.raises(TypeError):
        copy.deepcopy(Unpicklable(0.5))
    disk = run(
        Twins(), DiskSolver(), iterations=4, checkpoint=tmp_path, checkpoint_period=first_and_last()
    )
    plain = run(Twins(), GearKStep(), iterations=4)
    np.testing.assert_array_equal(disk.points, plain.points)


def test_states_on_disk_travel_to_worker_processes_as_folders(tmp_path) -> None:
    full = ps.surf(GearKStep(), N, iterations=3)
    res = ps.surf(
        DiskSolver(), N, iterations=3, checkpoint=tmp_path, executor=ps.ProcessExecutor(2)
    )
    np.testing.assert_array_equal(res.points, full.points)


def test_states_on_disk_without_a_checkpoint_end_up_in_the_result(tmp_path) -> None:
    res = ps.surf(DiskSolver(), N, iterations=3)
    assert all(isinstance(s, Unpicklable) for s in res.states)
    np.testing.assert_allclose(
        [s.x for s in res.states], ps.surf(GearKStep(), N, iterations=3).states
    )


def test_init_states_of_a_disk_solver_are_saved_as_folders(tmp_path) -> None:
    init = [Unpicklable(0.5) for _ in range(N + 1)]
    res = ps.surf(DiskSolver(), N, iterations=2, init_states=init, checkpoint=tmp_path)
    assert res.n_solves == 2 * (N + 1)
    assert not (tmp_path / "states" / "init").exists()  # pruned once replaced


# ------------------------------------------------------------------------ pickle on request
class Opaque:
    """A state only pickle can store."""

    def __init__(self, x: float) -> None:
        self.x = x

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and other.x == self.x


def opaque_solver(w: float, state: Any) -> ps.Solution:
    x = 0.5 if state is None else state.x
    x -= 0.15 * (w * 3 * (x - 1) + (1 - w) * x)
    return ps.Solution(gear_curve(x), state=Opaque(x))


def test_array_and_dataclass_states_need_no_pickle(tmp_path) -> None:
    solver = ps.problems.GearToy(4).gradient_solver(steps=3)
    res = ps.surf(solver, N, iterations=3)
    res.save(tmp_path / "res")
    back = ps.Result.load(tmp_path / "res")  # allow_pickle stays False
    for a, b in zip(back.states, res.states, strict=True):
        np.testing.assert_array_equal(a.params, b.params)
        np.testing.assert_array_equal(a.m, b.m)
        assert a.t == b.t and type(a) is type(b)
    ps.surf(solver, N, iterations=2, checkpoint=tmp_path / "run")
    ps.surf(solver, N, iterations=3, checkpoint=tmp_path / "run", resume=True)


def test_pickled_states_load_only_with_allow_pickle(tmp_path) -> None:
    res = ps.surf(opaque_solver, N, iterations=3, checkpoint=tmp_path / "run")
    res.save(tmp_path / "res")
    with pytest.raises(CheckpointError, match="allow_pickle=True"):
        ps.Result.load(tmp_path / "res")
    assert ps.Result.load(tmp_path / "res", allow_pickle=True).states == res.states
    with pytest.raises(CheckpointError, match="allow_pickle=True"):
        ps.surf(opaque_solver, N, iterations=4, checkpoint=tmp_path / "run", resume=True)
    more = ps.surf(
        opaque_solver, N, iterations=4, checkpoint=tmp_path / "run", resume=True, allow_pickle=True
    )
    assert len(more.history) == 4


class ClusterExecutor(ps.LocalExecutor):
    """A local executor that claims to be on a cluster."""

    solves_in = "cluster"


def test_states_on_disk_on_a_cluster_need_a_shared_run_folder(tmp_path) -> None:
    with pytest.raises(ValueError, match="checkpoint=DIR on a filesystem every node sees"):
        ps.surf(DiskSolver(), N, iterations=1, executor=ClusterExecutor())
    res = ps.surf(DiskSolver(), N, iterations=1, executor=ClusterExecutor(), checkpoint=tmp_path)
    assert all(isinstance(s, StateFolder) for s in res.states)


# ----------------------------------------------------------------- malformed returns
def test_a_tuple_of_two_numbers_is_explained():
    with pytest.raises(ps.InnerSolverError, match="first item must be the vector of objectives"):
        ps.surf(lambda w, s: ((1 - w) ** 2, w**2), 4, iterations=2, retries=0)


@pytest.mark.parametrize(
    "info, error",
    [
        (5, "must be a dict"),
        ({"steps": "many"}, "integer >= 0"),
        ({"steps": -5}, "integer >= 0"),
        ({"steps": 2.7}, "integer >= 0"),
        ({"steps": float("nan")}, "integer >= 0"),
    ],
)
def test_malformed_info_fails_the_solve_with_its_slot(info: Any, error: str):
    with pytest.raises(ps.InnerSolverError, match=error) as caught:
        ps.surf(
            lambda w, s: ps.Solution([(1 - w) ** 2, w**2], None, info=info),
            4,
            iterations=2,
            retries=0,
        )
    assert caught.value.slot == 0


def test_steps_are_counted_from_a_mapping_info():
    from types import MappingProxyType

    res = ps.surf(
        lambda w, s: ps.Solution([(1 - w) ** 2, w**2], None, info=MappingProxyType({"steps": 3})),
        4,
        iterations=2,
    )
    assert res.n_steps == 3 * 5 * 2


def test_one_objective_is_refused_in_the_first_round_by_every_scalar_method():
    calls = []

    def one(w: float, state: Any) -> ps.Solution:
        calls.append(w)
        return ps.Solution([w])

    for method in (ps.surf, ps.methods.uniform, ps.methods.uniform_random):
        calls.clear()
        with pytest.raises(ValueError, match="front of 2 objectives; the solver returned 1"):
            method(one, 4, iterations=5)
        assert len(calls) == 5  # one round, not five


def test_a_run_folder_without_its_manifest_names_the_missing_file(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    ps.surf(gear_solver, 4, iterations=2, checkpoint=folder)
    (folder / "run.json").unlink()
    with pytest.raises(CheckpointError, match=r"not its run\.json"):
        ps.Result.load(folder)
    with pytest.raises(CheckpointError, match=r"not its run\.json"):
        ps.surf(gear_solver, 4, iterations=3, checkpoint=folder, resume=True)


def test_solves_that_report_failure_in_their_info_are_named() -> None:
    def solver(w: float, state: Any) -> ps.Solution:
        ok = not 0.4 < w < 0.6
        return ps.Solution(
            [1 - w, w**2], None, {"success": ok, "message": "" if ok else "line search failed"}
        )

    with pytest.warns(ps.ParetoWarning, match="line search failed"):
        # alpha=0.3: the middle weight moves from 0.5 to about 0.53, still in the failing band
        res = ps.surf(solver, 4, alpha=0.3, iterations=2)
    assert 0.4 < res.weights[2] < 0.6
    (finding,) = [f for f in res.findings if f.code == "unsuccessful"]
    assert finding.message.startswith("1 of the last round's 5 solves")
    assert not res.success  # every solve must have succeeded
    clean = ps.surf(
        lambda w, s: ps.Solution([1 - w, w**2], None, {"success": True}), 4, iterations=2
    )
    assert "unsuccessful" not in [f.code for f in clean.findings]
