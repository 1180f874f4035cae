"""Either driver continues the other's run: ``ps.surf`` finishes a study's run (stopped
between rounds or within one), and a study drives a run that ``ps.surf`` started; the result
is the uninterrupted run's, to the last bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import paretosurf as ps
from paretosurf.jobs import Study, ToldResults
from paretosurf.solvers import TOLD_SOLVER, check_same_solver, solver_name
from paretosurf.storage import RunFolder
from paretosurf.testing import assert_same_result


class Lopsided:
    """The exact solver of a lopsided problem: x = 3w / (1 + 2w) on ((1 - x)^2, x^2)."""

    def solve(self, w: float, state: object) -> ps.Solution:
        x = 3 * w / (1 + 2 * w)
        return ps.Solution([(1 - x) ** 2, x**2], state=np.array([x]), info={"steps": 1})


def tell_round(study: Study, solver: Lopsided, *, only: int | None = None) -> None:
    for task in study.ask() if only is None else study.ask()[:only]:
        study.tell(task.slot, solver.solve(task.weight, task.state))


ARGS = {"n_points": 7, "iterations": 5, "early_stopping": False}


def test_a_study_records_told_results_which_any_solver_continues(tmp_path: Path) -> None:
    study = Study(tmp_path, "surf", **ARGS)
    tell_round(study, Lopsided())
    assert RunFolder(tmp_path).manifest()["solver"] == TOLD_SOLVER
    assert solver_name(ToldResults(None)) == TOLD_SOLVER  # type: ignore[arg-type]
    for saved, now in ((TOLD_SOLVER, "mine:Solver"), ("mine:Solver", TOLD_SOLVER)):
        check_same_solver({"solver": saved}, {"solver": now}, label="SURF", where="here")


def test_ps_surf_finishes_a_study_stopped_between_rounds(tmp_path: Path) -> None:
    study = Study(tmp_path, "surf", **ARGS)
    for _ in range(2):
        tell_round(study, Lopsided())
    assert study.ask() and study.status().rounds == 2  # round 2 asked
    resumed = ps.surf(Lopsided(), **ARGS, checkpoint=tmp_path, resume=True)
    assert_same_result(resumed, ps.surf(Lopsided(), **ARGS))
    assert study.ask() == [] and study.status().finished
    assert_same_result(study.result(), resumed)


def test_ps_surf_finishes_a_study_stopped_within_a_round(tmp_path: Path) -> None:
    study = Study(tmp_path, "surf", **ARGS)
    tell_round(study, Lopsided())
    tell_round(study, Lopsided(), only=3)  # round 1 half told: redone from its start
    resumed = ps.surf(Lopsided(), **ARGS, checkpoint=tmp_path, resume=True)
    assert_same_result(resumed, ps.surf(Lopsided(), **ARGS))


def test_a_study_drives_a_run_that_ps_surf_started(tmp_path: Path) -> None:
    ps.surf(Lopsided(), **{**ARGS, "iterations": 2}, checkpoint=tmp_path)
    study = Study(tmp_path, "surf", **ARGS)
    tasks = study.ask()
    assert {t.round for t in tasks} == {2}
    np.testing.assert_array_equal(  # the warm starts are the states ps.surf's solves left
        np.concatenate([t.state for t in tasks]),
        [Lopsided().solve(float(w), None).state[0] for w in ps.Result.load(tmp_path).weights],
    )
    while tasks:
        for task in tasks:
            study.tell(task.slot, Lopsided().solve(task.weight, task.state))
        tasks = study.ask()
    assert_same_result(study.result(), ps.surf(Lopsided(), **ARGS))
