"""Which round a run reports: the candidates' bookkeeping against a brute-force minimum, and
runs with noisy points whose result must be the most even recent round, with its states."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.loop._kept_rounds import KEEP_ROUNDS, RoundKeeper, check_report
from paretosurf.methods import ols, uniform
from paretosurf.storage._states import StateFolder


# ---------------------------------------------------------------------- the keeper alone
@pytest.mark.parametrize("seed", range(6))
def test_the_keeper_reports_the_minimum_of_its_window(seed: int) -> None:
    rng = np.random.default_rng(seed)
    window = int(rng.integers(1, 7))
    # few distinct values, so that ties occur (the later round wins a tie), and some nan
    spreads = rng.integers(1, 5, size=40).astype(float)
    spreads[rng.random(40) < 0.1] = np.nan
    keeper = RoundKeeper(window)
    for i, s in enumerate(spreads):
        keeper.tell(np.array([0.0, 1.0]), np.full((2, 2), float(i)), [2 * i, 2 * i + 1], s)
        lo = max(0, i - window + 1)
        values = np.where(np.isnan(spreads[lo : i + 1]), np.inf, spreads[lo : i + 1])
        best = lo + max(j for j in range(len(values)) if values[j] == values.min())
        front = keeper.reported()
        if best == i:
            assert front is None
        else:
            assert front is not None and front.round == best
            assert front.keys == [2 * best, 2 * best + 1]
            np.testing.assert_array_equal(front.points, np.full((2, 2), float(best)))
        # the candidates: rounds of the window more even than every later one, oldest first
        held = [k.round_index for k in keeper.kept]
        assert held == [
            j for j in range(lo, i + 1) if all(values[j - lo] < v for v in values[j - lo + 1 :])
        ]
        assert keeper.keys() == [key for j in held for key in (2 * j, 2 * j + 1)]


def test_the_keeper_survives_its_state_dict() -> None:
    keeper = RoundKeeper()
    for i, s in enumerate([3.0, 1.0, 2.0, 4.0]):
        keeper.tell(np.array([0.0, 0.5, 1.0]), np.full((3, 2), i / 10), [i, None, 9], s)
    meta, arrays = keeper.state_dict()
    back = RoundKeeper()
    back.load_state_dict(json.loads(json.dumps(meta)), arrays)
    assert back.rounds == 4 and back.keys() == keeper.keys() == [1, None, 9, 2, None, 9, 3, None, 9]
    a, b = keeper.reported(), back.reported()
    assert a is not None and b is not None and a.round == b.round == 1
    np.testing.assert_array_equal(a.points, b.points)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="report must be one of"):
        check_report("best")
    with pytest.raises(ValueError, match="window"):
        RoundKeeper(0)
    with pytest.raises(ValueError, match="report must be one of"):
        ps.surf(lambda w, s: ps.Solution([w, 1 - w]), 2, iterations=1, report="first")


# ---------------------------------------------------------------------- runs
class NoisyArc:
    """Points on the quarter circle at angle w * pi / 2, plus noise drawn from the weight and
    the call count (the state), as a stochastic solver's estimates; the state records the
    weight and the call."""

    def __init__(self, noise: float = 0.05) -> None:
        self.noise = noise

    def solve(self, w: float, state: Any) -> ps.Solution:
        calls = 0 if state is None else int(state[1]) + 1
        rng = np.random.default_rng([calls, round(w * 1e9)])
        exact = np.array([np.sin(w * np.pi / 2), np.cos(w * np.pi / 2)])
        return ps.Solution(exact + self.noise * rng.normal(size=2), np.array([w, float(calls)]))


def check_reports_most_even(res: ps.Result) -> None:
    """The result is the round of the lowest recorded gap ratio among the last rounds (the
    later one on a tie), with its weights, points and states."""
    n = len(res.history)
    window = list(range(max(0, n - KEEP_ROUNDS), n))
    best = min(window, key=lambda i: (res.history[i].gap_ratio, -i))
    assert (res.reported_round is None) == (best == n - 1)
    shown = res.history[best]
    np.testing.assert_array_equal(res.weights, shown.weights)
    np.testing.assert_array_equal(res.points, shown.points)
    assert res.gap_ratio == shown.gap_ratio and res.cv == shown.cv
    if res.reported_round is not None:  # the message names the rounds compared
        assert f"the most even of the last {len(window)} rounds" in res.message
    # each state is the one that produced its point: solved in that round, at that weight
    states = np.array(
        [
            np.load(Path(s.path) / "state.npy") if isinstance(s, StateFolder) else np.asarray(s)
            for s in res.states
        ]
    )
    np.testing.assert_array_equal(states[:, 0], res.weights)
    assert np.all(states[:, 1] == best)


def quiet(run: Any, *args: Any, **kwargs: Any) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return run(*args, **kwargs)


def test_noisy_runs_report_their_most_even_recent_round() -> None:
    picked = 0
    for seed_noise in (0.03, 0.05, 0.08):
        res = quiet(
            ps.surf, NoisyArc(seed_noise), 6, iterations=12, moving_average=0.5, report="most-even"
        )
        check_reports_most_even(res)
        picked += res.reported_round is not None
        last = quiet(
            ps.surf, NoisyArc(seed_noise), 6, iterations=12, moving_average=0.5, report="last"
        )
        assert last.reported_round is None
        np.testing.assert_array_equal(last.points, last.history[-1].points)
        # the same rounds were run: only the report differs
        assert [r.gap_ratio for r in last.history] == [r.gap_ratio for r in res.history]
        assert res.gap_ratio <= last.gap_ratio
        assert res.settings["report"] == "most-even" and last.settings["report"] == "last"
    assert picked >= 1  # not a test that only ever sees the last round win


def test_report_auto_keeps_the_last_round_with_two_objectives() -> None:
    # noisy estimates of exact solutions: choosing a round would choose on the noise
    res = quiet(ps.surf, NoisyArc(0.05), 6, iterations=12, moving_average=0.5)
    assert res.reported_round is None and res.settings["report"] == "auto"
    np.testing.assert_array_equal(res.points, res.history[-1].points)
    forced = quiet(ps.surf, NoisyArc(0.05), 6, iterations=12, report="most-even")
    check_reports_most_even(forced)


def test_every_slot_method_reports_alike_and_others_refuse() -> None:
    res = quiet(uniform, NoisyArc(0.05), 6, iterations=10, moving_average=0.5, report="most-even")
    check_reports_most_even(res)
    assert res.reported_round is not None  # the uniform weights' noise alone decides
    with pytest.raises(ValueError, match="report='most-even' needs a method"):
        ols(NoisyArc(0.05), 4, report="most-even")
    # "auto" leaves a method without slots alone
    assert quiet(ols, NoisyArc(0.0), 4, report="auto").reported_round is None


def test_resuming_keeps_the_candidates(tmp_path: Path) -> None:
    straight = quiet(
        ps.surf, NoisyArc(0.08), 6, iterations=12, moving_average=0.5, report="most-even"
    )
    quiet(
        ps.surf,
        NoisyArc(0.08),
        6,
        iterations=7,
        moving_average=0.5,
        report="most-even",
        checkpoint=tmp_path / "run",
        checkpoint_period=0,
    )
    resumed = quiet(
        ps.surf,
        NoisyArc(0.08),
        6,
        iterations=12,
        moving_average=0.5,
        report="most-even",
        checkpoint=tmp_path / "run",
        resume=True,
    )
    check_reports_most_even(resumed)
    assert resumed.reported_round == straight.reported_round
    np.testing.assert_array_equal(resumed.points, straight.points)
    loaded = ps.Result.load(tmp_path / "run")
    assert loaded.reported_round == straight.reported_round
    np.testing.assert_array_equal(loaded.points, straight.points)
    with pytest.raises(ValueError, match="report"):
        quiet(
            ps.surf,
            NoisyArc(0.08),
            6,
            iterations=13,
            moving_average=0.5,
            report="last",
            checkpoint=tmp_path / "run",
            resume=True,
        )


class FolderArc(NoisyArc):
    """:class:`NoisyArc` whose states are kept as folders."""

    def save_state(self, state: np.ndarray, folder: Path) -> None:
        np.save(folder / "state.npy", state)

    def load_state(self, folder: Path) -> np.ndarray:
        return np.load(folder / "state.npy")


def test_the_reported_rounds_state_folders_are_kept(tmp_path: Path) -> None:
    res = quiet(
        ps.surf,
        FolderArc(0.08),
        6,
        iterations=12,
        moving_average=0.5,
        report="most-even",
        checkpoint=tmp_path / "run",
        checkpoint_period=0,
    )
    assert all(isinstance(s, StateFolder) and Path(s.path).is_dir() for s in res.states)
    shown = res.reported_round
    assert shown is not None  # an earlier round's folders outlived later rounds'
    check_reports_most_even(res)
    loaded = [FolderArc().load_state(Path(s.path)) for s in res.states]
    assert all(s[1] == shown for s in loaded)
    np.testing.assert_array_equal([s[0] for s in loaded], res.weights)
    # only the candidates' folders are left: none from rounds that can no longer be reported
    rounds = sorted(p.name for p in (tmp_path / "run" / "states").iterdir())
    assert len(rounds) <= KEEP_ROUNDS
    # without a run folder the states come back loaded
    free = quiet(ps.surf, FolderArc(0.08), 6, iterations=12, moving_average=0.5, report="most-even")
    assert free.reported_round == res.reported_round
    np.testing.assert_array_equal(np.array([np.asarray(s) for s in free.states]), np.array(loaded))


def test_runs_saved_without_the_report_setting_resume_as_auto(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    quiet(ps.surf, NoisyArc(0.05), 4, iterations=3, checkpoint=folder, checkpoint_period=0)
    manifest = json.loads((folder / "run.json").read_text())
    del manifest["settings"]["report"]
    (folder / "run.json").write_text(json.dumps(manifest))
    res = quiet(ps.surf, NoisyArc(0.05), 4, iterations=5, checkpoint=folder, resume=True)
    assert len(res.history) == 5
    with pytest.raises(ValueError, match="report: 'auto' in the checkpoint, 'last' now"):
        quiet(
            ps.surf, NoisyArc(0.05), 4, iterations=6, checkpoint=folder, resume=True, report="last"
        )


def test_a_checkpoint_without_candidates_numbers_later_rounds_by_the_history(
    tmp_path: Path,
) -> None:
    # a run saved while it reported its last round (no candidates in its state), resumed with
    # its folder's setting changed by hand to the most even of the later rounds
    folder = tmp_path / "run"
    quiet(
        ps.surf,
        NoisyArc(0.08),
        6,
        iterations=6,
        moving_average=0.5,
        report="last",
        checkpoint=folder,
        checkpoint_period=0,
    )
    manifest = json.loads((folder / "run.json").read_text())
    manifest["settings"]["report"] = "most-even"
    (folder / "run.json").write_text(json.dumps(manifest))
    res = quiet(
        ps.surf,
        NoisyArc(0.08),
        6,
        iterations=12,
        moving_average=0.5,
        report="most-even",
        checkpoint=folder,
        resume=True,
    )
    check_reports_most_even(res)  # the window, rounds 7-11, all solved after the resume


def test_an_in_place_solver_leaves_the_reported_rounds_states_as_solved() -> None:
    # the solver trains its warm start in place: a candidate round's states must not be
    # trained on by the rounds after it
    def in_place(w: float, state: Any) -> ps.Solution:
        x = state if state is not None else np.array([0.5])
        for _ in range(3):
            x -= 0.2 * (w * 3 * (x - 1) + (1 - w) * x)
        return ps.Solution([float((1 - x[0]) ** 2), float(x[0] ** 2)], state=x)

    reported = 0
    for iterations in range(4, 12):
        res = ps.surf(in_place, 8, iterations=iterations, alpha=1.0, report="most-even")
        reported += res.reported_round is not None
        for state, point in zip(res.states, res.points, strict=True):
            np.testing.assert_allclose([(1 - state[0]) ** 2, state[0] ** 2], point)
    assert reported >= 2  # earlier rounds were reported, and checked
