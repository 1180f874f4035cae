"""Telling results: each is its own file, written at once and exclusively, so processes
telling at once lose none and a result is told once; the tells a study refuses, with
messages that say why; states handed back as warm starts; what a study reads from its folder
(pending tasks, status) and how it is opened again."""

from __future__ import annotations

import errno
import multiprocessing
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.jobs import Study, TellError
from paretosurf.storage import atomic_write


def objectives(w: float) -> list[float]:
    x = 3 * w / (1 + 2 * w)
    return [(1 - x) ** 2, x**2]


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _tell_slots(folder: str, tasks: list[tuple[int, float]], start: Any, results: Any) -> None:
    """In a process of its own: tell ``tasks`` (slot, weight) of the study in ``folder``
    once ``start`` is set; put (slot, "ok") or (slot, the refusal) on ``results``."""
    study = Study(folder)
    start.wait()
    for slot, weight in tasks:
        try:
            study.tell(slot, objectives(weight), state=f"job-{os.getpid()}")
            results.put((slot, "ok"))
        except TellError as exc:
            results.put((slot, str(exc)))


def _run_tellers(
    folder: Path, groups: list[list[Any]], during: Any = None
) -> list[tuple[int, str]]:
    """Tell each group of asked tasks from a process of its own, all at once (``during()``
    runs here meanwhile)."""
    ctx = _context()
    start, results = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(
            target=_tell_slots,
            args=(str(folder), [(t.slot, float(t.weight)) for t in group], start, results),
        )
        for group in groups
    ]
    for p in procs:
        p.start()
    start.set()
    if during is not None:
        during()
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return [results.get(timeout=10) for group in groups for _ in group]


def test_processes_telling_at_once_lose_no_result(tmp_path: Path) -> None:
    study = Study(tmp_path, "surf", n_points=16, iterations=2)
    asked = study.ask()
    # this process asks meanwhile, as a driver polling for the round's end would
    told = _run_tellers(tmp_path, [asked[k::4] for k in range(4)], lambda: study.ask())
    assert sorted(told) == [(t.slot, "ok") for t in asked]
    assert len(list((tmp_path / "tells" / "round-000000" / "ask-0").glob("slot-*.json"))) == 16
    following = study.ask()  # the round is complete: the next one is asked
    assert {t.round for t in following} == {1} and len(following) == 16
    assert all(str(t.state).startswith("job-") for t in following)  # each slot's own


def test_of_processes_telling_one_slot_at_once_exactly_one_succeeds(tmp_path: Path) -> None:
    study = Study(tmp_path, "uniform", n_points=3, iterations=1)
    (task,) = [t for t in study.ask() if t.slot == 1]
    told = _run_tellers(tmp_path, [[task]] * 4)
    assert [why for _, why in told].count("ok") == 1
    assert all("was told already" in why for _, why in told if why != "ok")
    assert len(list((tmp_path / "tells" / "round-000000" / "ask-0").glob("slot-*"))) == 1


def test_an_exclusive_write_without_hard_links_is_still_exclusive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(src: Any, dst: Any) -> None:
        raise OSError(errno.EPERM, "hard links not supported")

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / "once.json"
    atomic_write(target, lambda fh: fh.write("first"), "w", exclusive=True)
    with pytest.raises(FileExistsError):
        atomic_write(target, lambda fh: fh.write("second"), "w", exclusive=True)
    assert target.read_text() == "first"
    assert [p.name for p in tmp_path.iterdir()] == ["once.json"]  # no temporary file left


@pytest.fixture
def asked(tmp_path: Path) -> Study:
    study = Study(tmp_path, "surf", n_points=5, iterations=3)
    study.ask()
    return study


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.tell(7, [0.1, 0.2]), "slot 7 was not asked in round 0: the slots asked are"),
        (lambda s: s.tell(1, [0.1, 0.2, 0.3]), "slot 1 of round 0 has 2 objectives; 3 were told"),
        (lambda s: s.tell(1, [0.1]), "has 2 objectives; 1 were told"),
        (lambda s: s.tell(1, [np.nan, 0.2]), r"non-finite objectives \[nan, 0.2\]: tell a solve"),
        (lambda s: s.tell(1, [np.inf, 0.2]), "failed='message'"),
        (lambda s: s.tell(1), "tell slot 1's objectives, or failed='message'"),
        (lambda s: s.tell(1, [0.1, 0.2], failed="x"), "either the objectives or failed="),
        (lambda s: s.tell(1, failed=""), "failed must be the failure's message"),
        (lambda s: s.tell(1, [0.1, 0.2], round=3), "round 3 is not the round asked: round 0 is"),
        (lambda s: s.tell(-1, [0.1, 0.2]), "slot must be >= 0"),
        (lambda s: s.tell(True, [0.1, 0.2]), "slot must be an integer"),
        (lambda s: s.tell(1, ["a", 0.2]), "not one the run takes"),
        (lambda s: s.tell(1, [0.1, 0.2], info={"note": object()}), "info must hold JSON"),
        (lambda s: s.tell(1, [0.1, 0.2], state=object()), "can be stored only by pickle"),
        (lambda s: s.tell(1, [0.1, 0.2], seconds=-1), "seconds must be a number"),
    ],
)
def test_tells_refused_say_why_and_write_nothing(asked: Study, call: Any, message: str) -> None:
    with pytest.raises(TellError, match=message):
        call(asked)
    assert not list((asked.path / "tells").rglob("slot-*"))


def test_a_result_is_told_once(asked: Study) -> None:
    asked.tell(2, objectives(0.5))
    with pytest.raises(TellError, match=r"slot 2 of round 0 was told already .*told once"):
        asked.tell(2, objectives(0.5))
    with pytest.raises(TellError, match="told already"):
        asked.tell(2, failed="a second opinion")


def test_nothing_is_told_before_an_ask_or_after_the_end(tmp_path: Path) -> None:
    study = Study(tmp_path, "uniform", n_points=2, iterations=1)
    with pytest.raises(TellError, match=r"nothing is asked in .* yet: ask"):
        study.tell(0, [1.0, 0.0])
    for task in study.ask():
        study.tell(task.slot, objectives(task.weight))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        assert study.ask() == []
    with pytest.raises(TellError, match="has finished: nothing is asked"):
        study.tell(0, [1.0, 0.0])
    other = Study(tmp_path / "other", "surf", n_points=3, iterations=3)
    other.ask()
    _tell_round(other)
    other.ask()  # round 1
    with pytest.raises(TellError, match=r"round 0 is not the round asked \(it is complete\)"):
        other.tell(0, [1.0, 0.0], round=0)


def _tell_round(study: Study) -> None:
    for task in study.pending():
        study.tell(task.slot, objectives(float(task.weight)))


def test_told_states_come_back_as_the_slots_warm_starts(tmp_path: Path) -> None:
    study = Study(tmp_path, "surf", n_points=4, iterations=3)
    states: dict[int, Any] = {
        0: "ckpt/slot-0",
        1: np.arange(3.0),
        2: {"path": "ckpt/2", "step": 7},
        3: None,
    }
    for task in study.ask():
        study.tell(task.slot, objectives(task.weight), state=states[task.slot])
    following = {t.slot: t.state for t in study.ask()}
    assert following[0] == "ckpt/slot-0" and following[2] == {"path": "ckpt/2", "step": 7}
    np.testing.assert_array_equal(following[1], np.arange(3.0))
    assert following[3] is None
    pending = {t.slot: t for t in study.pending()}  # read from the folder, nothing runs
    np.testing.assert_array_equal(pending[1].state, np.arange(3.0))
    assert pending[1].to_json()["state"] == [0.0, 1.0, 2.0] and pending[1].round == 1


def test_a_solution_is_told_with_its_state_and_info(asked: Study) -> None:
    asked.tell(0, ps.Solution([1.0, 0.0], state=np.ones(2), info={"steps": 5}))
    with pytest.raises(TypeError, match="own state and info"):
        asked.tell(1, ps.Solution([0.5, 0.5]), state="x")


def test_the_status_reads_the_round_the_slots_told_and_the_front(tmp_path: Path) -> None:
    study = Study(tmp_path, "surf", n_points=5, iterations=4)
    assert study.status().phase is None
    study.ask()
    _tell_round(study)
    study.ask()
    study.tell(3, objectives(float(next(t for t in study.pending() if t.slot == 3).weight)))
    status = study.status()
    assert (status.rounds, status.phase, status.round, status.ask) == (1, "round", 1, 0)
    assert status.told == (3,) and status.waiting == (0, 1, 2, 4)
    assert status.front is not None and status.front.points.shape == (5, 2)
    text = str(status)
    assert "asked: round 1, ask 0: 1 of 5 told; waiting for slot(s) 0, 1, 2, 4" in text
    assert "front after round 0: 5 point(s)" in text
    data = status.to_json()
    assert data["waiting"] == [0, 1, 2, 4] and len(data["front"]["points"]) == 5


def test_a_study_is_opened_again_by_its_path_alone(asked: Study) -> None:
    again = Study(asked.path)
    assert again.method == "surf" and again.arguments == {"n_points": 5, "iterations": 3}
    assert Study(asked.path, "surf", n_points=5, iterations=3).arguments == again.arguments
    assert repr(again) == f"Study({str(asked.path)!r}, 'surf', n_points=5, iterations=3)"
    with pytest.raises(ValueError, match="other arguments; differing: iterations: 3 in the"):
        Study(asked.path, "surf", n_points=5, iterations=4)
    with pytest.raises(ValueError, match="differing: method: 'surf' in the study, 'uniform'"):
        Study(asked.path, "uniform", n_points=5, iterations=3)


def test_a_folder_without_a_study_says_how_to_start_one(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"holds no study: start one .*--n-points 11"):
        Study(tmp_path / "none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        ps.surf(lambda w, s: ps.Solution(objectives(w)), 4, iterations=1, checkpoint=tmp_path)
    with pytest.raises(ValueError, match="started without a study: open it as one with"):
        Study(tmp_path)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"executor": ps.LocalExecutor()}, TypeError, "a study sets executor itself"),
        ({"checkpoint": "x"}, TypeError, "its folder is the run folder"),
        ({"callback": print}, TypeError, "the run goes on only inside ask"),
        ({"alhpa": 0.5}, TypeError, r"surf\(\) takes no argument 'alhpa'"),
        ({"alpha": np.float32}, TypeError, "cannot be recorded in the study"),
        ({"probes": True}, ValueError, "give probe_start and keep probes='auto'"),
    ],
)
def test_options_a_study_cannot_take(
    tmp_path: Path, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        Study(tmp_path, "surf", n_points=5, **options)
    assert not (tmp_path / "study.json").exists()


def test_a_bad_argument_is_refused_by_the_first_ask_and_leaves_no_study(tmp_path: Path) -> None:
    study = Study(tmp_path, "surf", n_points=5, alpha=7.0)
    with pytest.raises(ValueError, match="alpha"):
        study.ask()
    assert not (tmp_path / "study.json").exists()
    with pytest.raises(ValueError, match="holds no study"):
        Study(tmp_path)


def test_functions_given_are_kept_in_memory_and_asked_for_again(tmp_path: Path) -> None:
    line = lambda state: np.array([(1 - state[0]) ** 2, state[0] ** 2])  # noqa: E731
    study = Study(tmp_path, "soup", n_points=5, iterations=1, evaluate=line)
    for task in study.ask():
        study.tell(task.slot, line([task.weight]), state=np.array([task.weight]))
    with pytest.raises(ValueError, match="started with evaluate, a Python function"):
        Study(tmp_path).ask()
    with pytest.raises(ValueError, match="started without normalize"):
        Study(tmp_path, normalize=lambda p: p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        assert Study(tmp_path, evaluate=line).ask() == []
    assert len(Study(tmp_path).status().front.points) == 5  # type: ignore[union-attr]
