"""Errors that name options of a call (``overwrite=True``, ``resume=True``,
``resume='force'``) carry them as fields: ``str(error)`` spells them as a Python call writes
them, and the command line (``_in_cli_terms``) as its flags, with no rewriting of text; the
hint through ``resume='force'``, which the command line lacks, is data it leaves out."""

from __future__ import annotations

import errno
import json
import os
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf._utils.validation import ExistingFileError, NamesOptions, OptionError
from paretosurf.cli._terms import _damaged, _error_spelling, _in_cli_terms
from paretosurf.executors import ExecutorLostError, SolveTask
from paretosurf.loop._interrupts import interrupt_notice, without_interrupt_notice
from paretosurf.solvers._identity import FORCE_HINT, SHAPE_FORCE_HINT
from paretosurf.storage import CheckpointError, CheckpointWriteError
from support import call_cli
from support import interrupted_surf as interrupted
from support import resumed_surf as resume

N = 4


def exact(w: float, state: Any) -> ps.Solution:
    return ps.Solution([(1 - w) ** 2, w**2], state=np.array([w]))


def other_exact(w: float, state: Any) -> ps.Solution:
    return ps.Solution([(1 - w) ** 2, w**2], state=np.array([w]))


class Damped:
    """A K-step-like solver with a setting (``rate``)."""

    def __init__(self, rate: float = 0.5) -> None:
        self.rate = rate

    def solve(self, w: float, state: Any) -> ps.Solution:
        x = 0.5 if state is None else float(state[0])
        x += self.rate * (w - x)
        return ps.Solution([(1 - x) ** 2, x**2], state=np.array([x]))


def quadratic_solver(size: int) -> ps.GradientSolver:
    return ps.GradientSolver(
        lambda x: np.array([float(np.sum(x**2)), float(np.sum((x - 1) ** 2))]),
        lambda x: np.stack([2 * x, 2 * (x - 1)]),
        init=np.zeros(size),
        steps=5,
        lr=0.2,
        optimizer="sgd",
    )


def check_spellings(err: BaseException, *, python: tuple[str, ...], cli: tuple[str, ...]) -> str:
    """``err`` names its options as fields: ``str(err)`` has each of ``python`` and none of
    ``cli``, the command line's rendering each of ``cli`` and no Python spelling (nor
    ``resume='force'``); returns that rendering."""
    assert isinstance(err, NamesOptions)
    message, shown = str(err), _in_cli_terms(err)
    assert message == err.text()  # str() is the Python spelling
    for text in python:
        assert text in message, (text, message)
    for text in cli:
        assert text in shown and text not in message, (text, shown)
    for text in ("resume=True", "overwrite=True", "resume='force'", "force"):
        assert text not in shown, (text, shown)
    return shown


# ---------------------------------------------------------------------------- run folders
def test_a_folder_holding_a_run(tmp_path: Path) -> None:
    interrupted(exact, tmp_path)
    with pytest.raises(FileExistsError) as info:
        ps.surf(exact, N, iterations=6, checkpoint=tmp_path)
    assert isinstance(info.value, ExistingFileError)
    assert "pass resume=True to continue it, overwrite=True to replace it, or use another" in (
        str(info.value)
    )
    shown = check_spellings(info.value, python=(), cli=("--resume", "--overwrite"))
    assert "pass --resume to continue it, --overwrite to replace it, or use another" in shown
    assert info.value.options == {"resume": True, "overwrite": True}


def test_resuming_with_another_solver(tmp_path: Path) -> None:
    interrupted(exact, tmp_path)
    with pytest.raises(ValueError) as info:
        resume(other_exact, tmp_path)
    message = str(info.value)
    assert message.endswith(f"start a new run with overwrite=True or in another folder{FORCE_HINT}")
    assert FORCE_HINT == " (resume='force' continues it with this solver all the same)"
    shown = check_spellings(info.value, python=("overwrite=True",), cli=("--overwrite",))
    assert shown.endswith("start a new run with --overwrite or in another folder")
    # the force hint is data, not text: the same error pickled keeps it
    back = pickle.loads(pickle.dumps(info.value))
    assert str(back) == message and _in_cli_terms(back) == shown


def test_resuming_with_the_solver_set_up_otherwise(tmp_path: Path) -> None:
    interrupted(Damped(rate=0.5), tmp_path)
    with pytest.raises(ValueError) as info:
        resume(Damped(rate=0.25), tmp_path)
    assert "rate: 0.5 in the checkpoint, 0.25 now" in str(info.value)
    assert str(info.value).endswith(FORCE_HINT)
    shown = check_spellings(info.value, python=("overwrite=True",), cli=("--overwrite",))
    assert shown.endswith("--overwrite or in another folder")


def test_resuming_with_states_of_another_shape(tmp_path: Path) -> None:
    interrupted(quadratic_solver(3), tmp_path)
    with pytest.raises(ValueError) as info:
        resume(quadratic_solver(5), tmp_path)
    assert str(info.value).endswith(f"overwrite=True or in another folder{SHAPE_FORCE_HINT}")
    assert "resume='force' skips this check" in str(info.value)
    shown = check_spellings(info.value, python=("overwrite=True",), cli=("--overwrite",))
    assert shown.endswith("--overwrite or in another folder")


def test_a_damaged_run_folder(tmp_path: Path) -> None:
    interrupted(exact, tmp_path)
    for name in ("state.0", "state.1"):
        if (tmp_path / name).exists():
            (tmp_path / name).write_bytes(b"garbage")
    with pytest.raises(CheckpointError) as info:
        resume(exact, tmp_path)
    assert "or start again with overwrite=True" in str(info.value)
    shown = check_spellings(info.value, python=(), cli=("or start again with --overwrite",))
    assert _damaged(info.value) == shown  # it names its remedy: nothing added


def test_a_run_folder_that_cannot_be_written(tmp_path: Path, monkeypatch) -> None:
    def full(*args: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "pwrite", full)
    with pytest.raises(CheckpointError) as info:
        ps.surf(exact, N, iterations=2, checkpoint=tmp_path / "run")
    monkeypatch.undo()
    err = info.value
    assert isinstance(err, CheckpointWriteError) and err.errno == errno.ENOSPC
    assert str(err).startswith(f"[Errno {errno.ENOSPC}] the disk holding the run folder")
    assert str(err).endswith("run the same call with resume=True to continue")
    shown = check_spellings(err, python=(), cli=("run the same call with --resume to continue",))
    assert shown.startswith(f"[Errno {errno.ENOSPC}] the disk holding the run folder")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is CheckpointWriteError and back.errno == errno.ENOSPC
    assert str(back) == str(err) and _in_cli_terms(back) == shown


@pytest.mark.parametrize(
    ("options", "python", "cli"),
    [
        ({"resume": True}, "resume=True needs a checkpoint folder", "--resume needs"),
        ({"overwrite": True}, "overwrite=True needs a checkpoint folder", "--overwrite needs"),
    ],
)
def test_run_options_that_need_a_folder(options, python, cli) -> None:
    with pytest.raises(ValueError) as info:
        ps.surf(exact, N, iterations=1, **options)
    assert isinstance(info.value, OptionError) and str(info.value) == python
    check_spellings(info.value, python=(), cli=(cli,))


def test_resume_force_without_a_folder_is_named_as_python_writes_it() -> None:
    # the command line has no resume='force': a message that names it shows it as it is
    with pytest.raises(ValueError) as info:
        ps.surf(exact, N, iterations=1, resume="force")
    assert str(info.value) == "resume='force' needs a checkpoint folder"
    assert _in_cli_terms(info.value) == str(info.value)
    assert _error_spelling("resume", "force") is None


# ---------------------------------------------------------------------------- result files
def test_result_save_onto_a_saved_result(tmp_path: Path) -> None:
    res = ps.surf(exact, N, iterations=1)
    res.save(tmp_path / "front")
    with pytest.raises(FileExistsError) as info:
        res.save(tmp_path / "front")
    assert str(info.value).endswith("save under another name, or pass overwrite=True to replace it")
    shown = check_spellings(info.value, python=(), cli=("or pass --overwrite to replace it",))
    assert shown.startswith(str(tmp_path / "front.json"))
    res.save(tmp_path / "front", overwrite=True)


def test_result_save_onto_files_of_yours(tmp_path: Path) -> None:
    res = ps.surf(exact, N, iterations=1)
    (tmp_path / "front.json").write_text(json.dumps({"mine": 1}))
    (tmp_path / "front.npz").write_bytes(b"mine")
    with pytest.raises(FileExistsError) as info:
        res.save(tmp_path / "front")
    assert str(info.value).endswith("or pass overwrite=True to replace them")
    check_spellings(info.value, python=(), cli=("or pass --overwrite to replace them",))


# ---------------------------------------------------------------------------- interrupts
def ctrl_c_after(rounds: int) -> Any:
    """A callback that raises ``KeyboardInterrupt`` (Ctrl-C) once ``rounds`` rounds are done."""
    done = []

    def callback(record: Any) -> None:
        done.append(record)
        if len(done) >= rounds:
            raise KeyboardInterrupt

    return callback


def run_stopped_by_ctrl_c(folder: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        ps.surf(
            exact,
            N,
            iterations=6,
            checkpoint=folder,
            checkpoint_period=0,
            callback=ctrl_c_after(2),
            early_stopping=False,
        )


def test_the_interrupt_notice_is_spelled_per_front_end(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "a"
    run_stopped_by_ctrl_c(folder)
    err = capsys.readouterr().err
    python = interrupt_notice(KeyboardInterrupt(), "SURF", str(folder), 2)
    assert python in err and f"SURF's run in {folder} is saved after round 2; " in python
    assert python.endswith("run the same call with resume=True to continue it")
    cli = interrupt_notice(KeyboardInterrupt(), "SURF", str(folder), 2, spell=_error_spelling)
    assert cli == python.replace("resume=True", "--resume")
    # a front end that prints its own resume command turns the notice off
    with without_interrupt_notice():
        run_stopped_by_ctrl_c(tmp_path / "b")
    assert "resume" not in capsys.readouterr().err


def test_a_lost_cluster_names_resume_as_a_field() -> None:
    executor = ps.RayExecutor("10.0.0.1:6379")
    task = SolveTask(2, 0.5, None)
    err = executor._lost_error(["ref"], [task], {"ref": 0}, "its GCS has not answered")
    assert isinstance(err, ExecutorLostError) and err.slots == (2,)
    assert str(err).endswith("the same call with resume=True continues it")
    check_spellings(err, python=(), cli=("the same call with --resume continues it",))
    back = pickle.loads(pickle.dumps(err))
    assert str(back) == str(err) and back.address == err.address and back.slots == err.slots


# ---------------------------------------------------------------------------- the command line
GEAR = ["run", "gear", "--no-plots"]


def forget_command_settings(folder: Path) -> None:
    """Drop the command line's record of its settings (as a run of Python code has none), so
    that the library's own resume checks answer."""
    manifest = json.loads((folder / "run.json").read_text())
    del manifest["notes"]
    (folder / "run.json").write_text(json.dumps(manifest))


def test_paretosurf_run_spells_the_librarys_errors_in_its_flags(tmp_path: Path, capsys) -> None:
    folder, out = tmp_path / "run", tmp_path / "out"
    where = ["--checkpoint", str(folder), "--out", str(out)]
    assert call_cli([*GEAR, "--iterations", "2", *where], capsys)[0] == 0
    forget_command_settings(folder)
    # another inner solver: the library refuses it, with a force hint the command line lacks
    status, _, err = call_cli([*GEAR, "--solver", "exact", "--resume", *where], capsys)
    assert status == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("paretosurf run: error: cannot resume the SURF run")
    assert last.endswith("start a new run with --overwrite or in another folder")
    assert "overwrite=True" not in err and "force" not in err
    # a damaged folder: the library's remedy, in the command's flags
    for name in ("state.0", "state.1"):
        if (folder / name).exists():
            (folder / name).write_bytes(b"garbage")
    status, _, err = call_cli([*GEAR, "--iterations", "3", "--resume", *where], capsys)
    assert status == 2 and "Traceback" not in err
    assert "or start again with --overwrite" in err and "overwrite=True" not in err
    assert "(start a new run there with --overwrite" not in err  # named by the error itself
