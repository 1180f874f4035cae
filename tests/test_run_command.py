"""``paretosurf run``: a run killed with SIGKILL or Ctrl-C resumes to the uninterrupted result,
and the solve log shows no round lost or solved twice but the interrupted one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import paretosurf as ps
from paretosurf import cli
from paretosurf.checkpoint import RunFolder

pytest.importorskip("mo_gymnasium")

ROUNDS = 12


def command(folder: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "paretosurf", "run", "dst", "--solver", "gradient",
            "--iterations", str(ROUNDS), "--checkpoint", str(folder), "--no-plots", *extra]


def rounds_saved(folder: Path) -> int:
    history = folder / "history.jsonl"
    return len(history.read_text().splitlines()) if history.exists() else 0


def start_and_stop(folder: Path, after: int, sig: int,
                   *extra: str) -> subprocess.CompletedProcess[str]:
    """Start a run and send it ``sig`` once ``after`` rounds are saved (the run not done)."""
    proc = subprocess.Popen(command(folder, *extra), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while rounds_saved(folder) < after:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run did not get going"
        time.sleep(0.005)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert rounds_saved(folder) < ROUNDS, "the run finished before it was stopped"
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> ps.SurfResult:
    folder = tmp_path_factory.mktemp("full")
    assert cli.main(command(folder)[3:]) == 0
    return ps.SurfResult.load(folder)


def check_log(folder: Path, stopped_round: int) -> None:
    """Every round's slots were solved successfully exactly once, except the stopped round,
    which may have been solved again after the resume."""
    n = ps.SurfResult.load(folder).n_segments + 1
    solved = Counter((e["round"], e["slot"]) for e in RunFolder(folder).solves()
                     if e["error"] is None)
    for r in range(ROUNDS):
        counts = {solved[(r, s)] for s in range(n)}
        assert counts == {1} or (r == stopped_round and counts <= {1, 2}), (r, counts)


def test_a_run_killed_with_sigkill_resumes_to_the_same_result(tmp_path, uninterrupted,
                                                              capsys) -> None:
    folder = tmp_path / "run"
    # a checkpoint after every round (the default may save two short rounds together, and a
    # kill during that save would leave both to solve again)
    stopped = start_and_stop(folder, 4, signal.SIGKILL, "--checkpoint-period", "0")
    assert stopped.returncode == -signal.SIGKILL
    at = RunFolder(folder).n_rounds()      # the round being solved when it was killed
    assert cli.main(command(folder, "--resume")[3:]) == 0
    resumed = ps.SurfResult.load(folder)
    np.testing.assert_array_equal(resumed.weights, uninterrupted.weights)
    np.testing.assert_array_equal(resumed.points, uninterrupted.points)
    assert resumed.n_solves == uninterrupted.n_solves
    check_log(folder, stopped_round=at)
    assert json.loads((folder / "results.json").read_text())["methods"]["surf"]["cv"]


def test_ctrl_c_leaves_a_checkpoint_and_prints_the_resume_command(tmp_path,
                                                                 uninterrupted) -> None:
    folder = tmp_path / "run"
    stopped = start_and_stop(folder, after=3, sig=signal.SIGINT)
    assert stopped.returncode == 130
    assert "Resume it with:" in stopped.stderr and "--resume" in stopped.stderr
    resume = stopped.stderr.split("Resume it with:")[1].split()
    assert resume[:2] == ["paretosurf", "run"] and resume[-1] == "--resume"
    assert cli.main([*resume[1:], "--no-plots"]) == 0
    resumed = ps.SurfResult.load(folder)
    np.testing.assert_array_equal(resumed.points, uninterrupted.points)


def test_run_writes_table_results_and_figures(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    assert cli.main(["run", "fishwood", "--solver", "exact", "--iterations", "5", "--out",
                     str(out)]) == 0
    text = capsys.readouterr()
    assert "| CV |" in text.out and "SURF: 12 points" in text.err
    assert (out / "results.json").exists() and (out / "front.png").exists()
    assert "round 5:" in text.err                      # plain progress lines off a terminal


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "dst", "--resume"], "--resume needs --checkpoint"),
    (["run", "dst", "--address", "auto"], "--address needs --executor ray"),
    (["run", "dst", "--method", "ols", "--report", "most-even"],
     "--report most-even: ols's points are not one round's"),
    (["run", "dst", "--report", "best"], "argument --report: invalid choice"),
])
def test_run_refuses_options_that_do_not_fit(argv: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_run_reports_the_round_it_is_asked_for(tmp_path) -> None:
    for report in ("most-even", "last"):
        folder = tmp_path / report
        assert cli.main(["run", "fishwood", "--iterations", "6", "--report", report,
                         "--checkpoint", str(folder), "--no-plots"]) == 0
        res = ps.SurfResult.load(folder)
        assert res.settings["report"] == report
        ratios = [r.gap_ratio for r in res.history]
        best = min(range(1, 6), key=lambda i: (ratios[i], -i))
        shown = len(ratios) - 1 if res.reported_round is None else res.reported_round
        assert shown == (best if report == "most-even" else 5)
        np.testing.assert_array_equal(res.points, res.history[shown].points)
    # the task's own setting without the option: MountainCar's slot methods report most-even
    args = cli.build_parser().parse_args(["run", "mountaincar"])
    assert cli._with_options(ps.bench.get_task("mountaincar"), args).report == "most-even"


def test_run_on_worker_processes_matches_the_local_run(tmp_path) -> None:
    local, pool = tmp_path / "local", tmp_path / "pool"
    base = ["run", "fishwood", "--iterations", "4", "--no-plots"]
    assert cli.main([*base, "--checkpoint", str(local)]) == 0
    assert cli.main([*base, "--checkpoint", str(pool), "--executor", "processes"]) == 0
    a, b = ps.SurfResult.load(local), ps.SurfResult.load(pool)
    np.testing.assert_array_equal(a.points, b.points)
    pids = {e["pid"] for e in RunFolder(pool).solves()}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
