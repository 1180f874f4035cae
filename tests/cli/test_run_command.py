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
from paretosurf.storage._run_folder import RunFolder
from support import call_cli as call

pytest.importorskip("mo_gymnasium")

ROUNDS = 12


def command(folder: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "paretosurf",
        "run",
        "dst",
        "--solver",
        "gradient",
        "--iterations",
        str(ROUNDS),
        "--checkpoint",
        str(folder),
        "--no-plots",
        *extra,
    ]


def rounds_saved(folder: Path) -> int:
    """Rounds in the history (its first line is the header naming the run)."""
    history = folder / "history.jsonl"
    return max(len(history.read_text().splitlines()) - 1, 0) if history.exists() else 0


#: ``python -c HOLD AFTER ROUNDS READY ARGS...``: ``paretosurf run ARGS...`` that, at its first
#: checkpoint holding AFTER to ROUNDS - 1 rounds, creates the file READY and waits for a signal:
#: the signal then comes at a known point of the run, however fast or slow the machine is.
HOLD = """
import signal, sys
from pathlib import Path
from paretosurf import cli
from paretosurf.loop._checkpointing import Checkpointer
after, rounds, ready = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
save = Checkpointer.save
def held(self, records, *args, **kwargs):
    save(self, records, *args, **kwargs)
    if after <= self.saved_rounds < rounds and not ready.exists():
        ready.touch()
        while True:
            signal.pause()
Checkpointer.save = held
sys.exit(cli.main(sys.argv[4:]))
"""


def start_and_stop(
    folder: Path, after: int, sig: int, *extra: str
) -> subprocess.CompletedProcess[str]:
    """Start a run and send it ``sig`` once a checkpoint holds ``after`` rounds or more (the
    run not done): the run waits there for the signal (:data:`HOLD`)."""
    ready = folder.with_name(folder.name + ".ready")
    # the run starts with Ctrl-C's default action whatever this process inherited: a shell
    # that starts a job in the background without job control ignores SIGINT in it, and a
    # Python started with SIGINT ignored keeps ignoring it
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            HOLD,
            str(after),
            str(ROUNDS),
            str(ready),
            *command(folder, *extra)[3:],
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 300  # a safety net for a hung run, not a measurement
    while not ready.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run did not reach its checkpoint"
        time.sleep(0.005)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert after <= rounds_saved(folder) < ROUNDS
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> ps.Result:
    folder = tmp_path_factory.mktemp("full")
    assert cli.main(command(folder)[3:]) == 0
    return ps.Result.load(folder)


def check_log(folder: Path, stopped_round: int) -> None:
    """Every round's slots were solved successfully exactly once, except the stopped round,
    which may have been solved again after the resume."""
    n = ps.Result.load(folder).n_segments + 1
    solved = Counter(
        (e["round"], e["slot"]) for e in RunFolder(folder).solves() if e["error"] is None
    )
    for r in range(ROUNDS):
        counts = {solved[(r, s)] for s in range(n)}
        assert counts == {1} or (r == stopped_round and counts <= {1, 2}), (r, counts)


def test_a_run_killed_with_sigkill_resumes_to_the_same_result(
    tmp_path, uninterrupted, capsys
) -> None:
    folder = tmp_path / "run"
    # a checkpoint after every round (the default may save two short rounds together, and a
    # kill during that save would leave both to solve again)
    stopped = start_and_stop(folder, 4, signal.SIGKILL, "--checkpoint-period", "0")
    assert stopped.returncode == -signal.SIGKILL
    at = RunFolder(folder).n_rounds()  # the round being solved when it was killed
    assert cli.main(command(folder, "--resume")[3:]) == 0
    resumed = ps.Result.load(folder)
    np.testing.assert_array_equal(resumed.weights, uninterrupted.weights)
    np.testing.assert_array_equal(resumed.points, uninterrupted.points)
    assert resumed.n_solves == uninterrupted.n_solves
    check_log(folder, stopped_round=at)
    assert json.loads((folder / "output" / "results.json").read_text())["methods"]["surf"]["cv"]


def test_ctrl_c_leaves_a_checkpoint_and_prints_the_resume_command(tmp_path, uninterrupted) -> None:
    folder = tmp_path / "run"
    # a checkpoint after every round: the run is stopped after round 3 whatever its speed
    stopped = start_and_stop(folder, 3, signal.SIGINT, "--checkpoint-period", "0")
    assert stopped.returncode == 130
    assert "Resume it with:" in stopped.stderr and "--resume" in stopped.stderr
    # the command's own message only, not the library's about the Python call's resume=True
    assert "resume=True" not in stopped.stderr and stopped.stderr.count("interrupted") == 1
    assert "interrupted; the run " in stopped.stderr
    resume = stopped.stderr.split("Resume it with:")[1].split()
    assert resume[:2] == ["paretosurf", "run"] and resume[-1] == "--resume"
    assert cli.main([*resume[1:], "--no-plots"]) == 0
    resumed = ps.Result.load(folder)
    np.testing.assert_array_equal(resumed.points, uninterrupted.points)


def test_run_writes_table_results_and_figures(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    assert (
        cli.main(["run", "fishwood", "--solver", "exact", "--iterations", "5", "--out", str(out)])
        == 0
    )
    text = capsys.readouterr()
    assert "| CV |" in text.out and "SURF: 12 points" in text.err
    assert (out / "results.json").exists() and (out / "front.png").exists()
    assert "round 5:" in text.err  # plain progress lines off a terminal


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "dst", "--resume"], "--resume needs --checkpoint"),
        (["run", "dst", "--address", "auto"], "--address needs --executor ray"),
        (
            ["run", "dst", "--method", "ols", "--report", "most-even"],
            "--report most-even: ols's points are not one round's",
        ),
        (["run", "dst", "--report", "best"], "argument --report: invalid choice"),
        (
            ["run", "gear", "--solver", "exact", "--steps", "5"],
            "--steps sets the gradient solver's budget per call; it cannot be used with --solver "
            "exact",
        ),
        (
            ["run", "mountaincar", "--solver", "exact"],
            "--solver exact: task 'mountaincar' has no exact solver",
        ),
    ],
)
def test_run_refuses_options_that_do_not_fit(argv: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_run_reports_the_round_it_is_asked_for(tmp_path) -> None:
    for report in ("most-even", "last"):
        folder = tmp_path / report
        assert (
            cli.main(
                [
                    "run",
                    "fishwood",
                    "--iterations",
                    "6",
                    "--report",
                    report,
                    "--checkpoint",
                    str(folder),
                    "--no-plots",
                ]
            )
            == 0
        )
        res = ps.Result.load(folder)
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
    a, b = ps.Result.load(local), ps.Result.load(pool)
    np.testing.assert_array_equal(a.points, b.points)
    pids = {e["pid"] for e in RunFolder(pool).solves()}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


# ---------------------------------------------------------------------------- resuming safely
GEAR = ["run", "gear", "--no-plots"]


def settings_file(folder: Path) -> dict:
    """The command line's settings, recorded with the run in its run.json."""
    return json.loads((folder / "run.json").read_text())["notes"][cli.RUN_NOTES_KEY]


def test_a_checkpoint_records_the_command_line_settings(tmp_path, capsys) -> None:
    folder = tmp_path / "run"
    assert call([*GEAR, "--iterations", "2", "--checkpoint", str(folder)], capsys)[0] == 0
    gear = ps.bench.get_task("gear")
    assert settings_file(folder) == {
        "task": "gear",
        "method": "surf",
        "solver": "gradient",
        "seed": 0,
        "n": gear.n_segments,
        "steps": gear.steps,
        "alpha": gear.alpha,
        "report": gear.report,
    }
    assert not (folder / cli.RUN_SETTINGS_FILE).exists()
    assert (
        call([*GEAR, "--iterations", "3", "--checkpoint", str(folder), "--resume"], capsys)[0] == 0
    )
    assert rounds_saved(folder) == 3 and len(ps.Result.load(folder).history) == 3


def test_resume_refuses_other_command_line_settings(tmp_path, capsys) -> None:
    folder = tmp_path / "run"
    assert call([*GEAR, "--iterations", "2", "--checkpoint", str(folder)], capsys)[0] == 0
    status, _, err = call(
        [
            *GEAR,
            "--iterations",
            "3",
            "--seed",
            "5",
            "--solver",
            "exact",
            "--checkpoint",
            str(folder),
            "--resume",
        ],
        capsys,
    )
    assert status == 2 and "Traceback" not in err
    assert "paretosurf run: error: --checkpoint" in err
    assert "--solver: gradient in the checkpoint, exact given" in err
    assert "--seed: 0 in the checkpoint, 5 given" in err
    assert rounds_saved(folder) == 2  # nothing was solved
    # the command it prints resumes the run with the settings it was started with
    resume = err.split("Resume it with:")[1].split("\n")[1].split()
    assert resume[:3] == ["paretosurf", "run", "gear"] and resume[-1] == "--resume"
    assert "--seed" in resume and resume[resume.index("--seed") + 1] == "0"
    assert resume[resume.index("--solver") + 1] == "gradient"
    assert call([*resume[1:], "--no-plots"], capsys)[0] == 0
    assert rounds_saved(folder) == 3
    saved = json.loads((folder / "output" / "results.json").read_text())
    assert (saved["solver"], saved["seeds"]) == ("gradient", [0])


def test_resume_refuses_another_task(tmp_path, capsys) -> None:
    folder = tmp_path / "run"
    assert call([*GEAR, "--iterations", "2", "--checkpoint", str(folder)], capsys)[0] == 0
    status, _, err = call(
        ["run", "dst", "--n", "15", "--resume", "--checkpoint", str(folder)], capsys
    )
    assert status == 2 and "Traceback" not in err
    assert "TASK: gear in the checkpoint, dst given" in err
    assert "--n: 20 in the checkpoint, 15 given" in err


def test_a_checkpoint_without_the_settings_resumes_as_before(tmp_path, capsys) -> None:
    folder = tmp_path / "run"
    assert call([*GEAR, "--iterations", "2", "--checkpoint", str(folder)], capsys)[0] == 0
    manifest = json.loads((folder / "run.json").read_text())
    del manifest["notes"]  # as a run of Python code
    (folder / "run.json").write_text(json.dumps(manifest))
    assert (
        call(
            [*GEAR, "--iterations", "3", "--seed", "5", "--checkpoint", str(folder), "--resume"],
            capsys,
        )[0]
        == 0
    )
    assert rounds_saved(folder) == 3
    # the library still checks the method's settings, reported in command-line terms
    status, _, err = call(
        [*GEAR, "--iterations", "4", "--alpha", "0.5", "--checkpoint", str(folder), "--resume"],
        capsys,
    )
    assert status == 2 and "Traceback" not in err
    assert "paretosurf run: error: cannot resume the SURF run" in err
    assert "alpha (--alpha): 0.3 in the checkpoint, 0.5 now" in err
    status, _, err = call(
        [*GEAR, "--method", "uniform", "--checkpoint", str(folder), "--resume"], capsys
    )
    assert status == 2 and "paretosurf run: error:" in err
    assert "--overwrite" in err and "overwrite=True" not in err


def test_a_folder_holding_a_run_needs_resume_or_overwrite(tmp_path, capsys) -> None:
    folder = tmp_path / "run"
    assert call([*GEAR, "--iterations", "3", "--checkpoint", str(folder)], capsys)[0] == 0
    (folder / "notes.txt").write_text("mine")
    status, _, err = call(
        [*GEAR, "--iterations", "2", "--seed", "3", "--checkpoint", str(folder)], capsys
    )
    assert status == 2 and "already holds a SURF run" in err
    assert "--resume" in err and "--overwrite" in err and "=True" not in err
    assert settings_file(folder)["seed"] == 0  # the saved run's record is kept
    assert (
        call(
            [*GEAR, "--iterations", "2", "--seed", "3", "--checkpoint", str(folder), "--overwrite"],
            capsys,
        )[0]
        == 0
    )
    assert rounds_saved(folder) == 2 and settings_file(folder)["seed"] == 3
    assert (folder / "notes.txt").read_text() == "mine"
    for argv, message in (
        ([*GEAR, "--overwrite"], "--overwrite needs --checkpoint"),
        (
            [*GEAR, "--checkpoint", str(folder), "--resume", "--overwrite"],
            "not allowed with argument",
        ),
    ):
        status, _, err = call(argv, capsys)
        assert status == 2 and message in err


def test_a_damaged_checkpoint_is_a_clean_error(tmp_path, capsys) -> None:
    folder = tmp_path / "run"
    assert call([*GEAR, "--iterations", "2", "--checkpoint", str(folder)], capsys)[0] == 0
    for name in ("state.0", "state.1"):
        if (folder / name).exists():
            (folder / name).write_bytes(b"garbage")
    status, _, err = call([*GEAR, "--checkpoint", str(folder), "--resume"], capsys)
    assert status == 2 and "Traceback" not in err
    assert err.splitlines()[-1].startswith("paretosurf run: error: ")
    assert "--overwrite" in err


def test_resuming_a_longer_run_reports_its_real_rounds(tmp_path, capsys) -> None:
    folder = tmp_path / "run"
    assert call([*GEAR, "--iterations", "4", "--checkpoint", str(folder)], capsys)[0] == 0
    status, out, err = call(
        [*GEAR, "--iterations", "2", "--checkpoint", str(folder), "--resume"], capsys
    )
    assert status == 0
    assert ", N = 20, 4 outer iterations," in out and "2 outer iterations" not in out
    assert f"{folder} already held 4 rounds, more than the 2 asked for" in err
    saved = json.loads((folder / "output" / "results.json").read_text())
    assert saved["iterations"] == 4 and saved["methods"]["surf"]["n_solves"] == 4 * 21
    # a run that continues says nothing
    status, out, err = call(
        [*GEAR, "--iterations", "5", "--checkpoint", str(folder), "--resume"], capsys
    )
    assert status == 0 and "5 outer iterations" in out and "already held" not in err


def test_a_failing_solver_is_reported_with_its_message(tmp_path, capsys, monkeypatch) -> None:
    from paretosurf.bench.tasks import TASKS, Task
    from paretosurf.problems import GearToy

    def failing(weight, state):
        raise RuntimeError("the solver broke down")

    monkeypatch.setitem(
        TASKS,
        "failing",
        Task(
            "failing",
            "a solver that fails",
            lambda: GearToy(9),
            2,
            2,
            make_solver=lambda p, steps, seed: failing,
        ),
    )
    folder = tmp_path / "run"
    status, _, err = call(["run", "failing", "--checkpoint", str(folder), "--no-plots"], capsys)
    assert status == 1 and "paretosurf run: error:" in err and "the solver broke down" in err
    assert f"--checkpoint {folder} --resume" in err


@pytest.mark.parametrize("command_name", ["run", "bench"])
def test_a_bad_out_is_refused_before_solving(tmp_path, capsys, monkeypatch, command_name) -> None:
    def run_task(*args, **kwargs):
        raise AssertionError("solved before checking --out")

    monkeypatch.setattr(ps.bench, "run_task", run_task)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    base = [command_name, "gear", "--iterations", "2", "--no-plots"]
    for out, message in (
        (blocker, "exists and is not a folder"),
        (blocker / "sub", "is not a folder"),
    ):
        status, _, err = call([*base, "--out", str(out)], capsys)
        assert status == 2 and f"paretosurf {command_name}: error: --out {out}" in err
        assert message in err
    # a folder that cannot be written (faked: the tests may run as root, who writes anyway)
    locked, access = tmp_path / "locked", os.access
    locked.mkdir()
    monkeypatch.setattr(
        os, "access", lambda p, mode, **kw: Path(p) != locked and access(p, mode, **kw)
    )
    for out in (locked, locked / "sub"):
        status, _, err = call([*base, "--out", str(out)], capsys)
        assert status == 2 and f"--out {out}:" in err and "permission denied" in err


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() == 0, reason="needs file permissions that apply (not root)"
)
def test_a_read_only_out_is_refused_before_solving(tmp_path, capsys) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        status, _, err = call([*GEAR, "--iterations", "2", "--out", str(locked)], capsys)
    finally:
        locked.chmod(0o700)
    assert status == 2 and "permission denied" in err and "round 1:" not in err


def test_results_go_beside_the_run_and_never_over_a_users_files(tmp_path, capsys) -> None:
    folder = tmp_path / "run"
    assert call([*GEAR, "--iterations", "2", "--checkpoint", str(folder)], capsys)[0] == 0
    assert (folder / "output" / "results.json").exists()
    assert not (folder / "results.json").exists() and not (folder / "table.md").exists()
    # another run in a folder whose --out holds a file of the user's: refused before solving
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "table.md").write_text("my table")
    status, _, err = call(
        [*GEAR, "--iterations", "2", "--checkpoint", str(tmp_path / "b"), "--out", str(mine)],
        capsys,
    )
    assert status == 2 and f"--out {mine} holds table.md, which paretosurf did not write" in err
    assert not (tmp_path / "b").exists() and (mine / "table.md").read_text() == "my table"
    # its own files are replaced: the same run resumed writes them again
    assert (
        call([*GEAR, "--iterations", "3", "--checkpoint", str(folder), "--resume"], capsys)[0] == 0
    )
    assert json.loads((folder / "output" / "results.json").read_text())["iterations"] == 3


def test_a_folder_in_use_is_refused_naming_the_holder(tmp_path, capsys) -> None:
    folder = tmp_path / "run"
    assert call([*GEAR, "--iterations", "2", "--checkpoint", str(folder)], capsys)[0] == 0
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom paretosurf.storage._run_folder import RunFolder\n"
            "RunFolder(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(60)",
            str(folder),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        status, _, err = call(
            [*GEAR, "--iterations", "4", "--checkpoint", str(folder), "--resume"], capsys
        )
    finally:
        holder.kill()
        holder.wait(timeout=30)
    assert status == 2 and "Traceback" not in err
    assert f"is in use by process {holder.pid} on host" in err
    assert rounds_saved(folder) == 2
