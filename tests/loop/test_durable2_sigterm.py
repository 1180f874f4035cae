"""SIGTERM (what schedulers send) stops a run with a checkpoint as Ctrl-C does: the notice,
the checkpoint kept, the same exception path; a handler of the user's own is left alone
(durable-2)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

import faults_helpers as fh
import paretosurf as ps
import paretosurf.bench
from paretosurf.loop._checkpointing import Checkpointer
from paretosurf.loop._interrupts import Terminated, exit_status, sigterm_interrupts
from support import call_cli

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="needs SIGTERM")

TESTS = Path(__file__).resolve().parents[1]
N = 6
ROUNDS = 10
#: The round after which the child waits to be sent SIGTERM.
STOP_AT = 3

#: A run that, once round ``STOP_AT`` is over (and checkpointed), says so and waits.
CHILD = """\
import os, sys, time
sys.path.insert(0, {tests!r})
import warnings
warnings.simplefilter("ignore")
import paretosurf as ps
import faults_helpers as fh

folder, ready = sys.argv[1], sys.argv[2]

def callback(record):
    if record.iteration == {stop_at}:
        open(ready, "w").close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.01)
        raise SystemExit("no SIGTERM came")

ps.surf(fh.Steps(), {n}, iterations={rounds}, alpha=0.3, checkpoint=folder,
        checkpoint_period=0, callback=callback)
print("finished")
"""


def steps_run(folder: Path | None, **options: Any) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ps.surf(fh.Steps(), N, iterations=ROUNDS, alpha=0.3, checkpoint=folder, **options)


def test_sigterm_stops_a_run_as_ctrl_c_does_and_it_resumes_identically(tmp_path: Path) -> None:
    folder, ready = tmp_path / "run", tmp_path / "ready"
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(tests=str(TESTS), n=N, rounds=ROUNDS, stop_at=STOP_AT))
    proc = subprocess.Popen(
        [sys.executable, str(script), str(folder), str(ready)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"},
    )
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():
            assert proc.poll() is None, proc.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "the child never reached its round"
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
    assert "finished" not in out
    assert proc.returncode == 1, (proc.returncode, err[-3000:])  # an uncaught exception
    assert f"paretosurf: terminated (SIGTERM); SURF's run in {folder} is saved after round " in err
    assert f"saved after round {STOP_AT + 1}; run the same call with resume=True" in err
    assert "Terminated: SIGTERM received" in err
    assert "no SIGTERM came" not in err

    res = steps_run(folder, resume=True, checkpoint_period=0)
    truth = steps_run(None)
    assert not fh.differences(fh.fingerprint(res), fh.fingerprint(truth))


def test_sigterm_in_a_run_raises_terminated_and_keeps_the_checkpoint(tmp_path, capsys) -> None:
    folder = tmp_path / "run"

    def terminate(record: ps.IterationRecord) -> None:
        if record.iteration == 1:
            # (only once the run handles it: SIGTERM's default would end pytest)
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises here

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated):
        steps_run(folder, checkpoint_period=0, callback=terminate)
    assert signal.getsignal(signal.SIGTERM) is before
    err = capsys.readouterr().err
    assert "terminated (SIGTERM)" in err and "is saved after round 2" in err
    res = steps_run(folder, resume=True, checkpoint_period=0)
    assert not fh.differences(fh.fingerprint(res), fh.fingerprint(steps_run(None)))


def test_a_handler_of_the_users_own_is_left_in_place(tmp_path: Path) -> None:
    received: list[int] = []

    def mine(signum: int, frame: Any) -> None:
        received.append(signum)

    during: list[Any] = []

    def callback(record: ps.IterationRecord) -> None:
        during.append(signal.getsignal(signal.SIGTERM))
        if record.iteration == 0:
            os.kill(os.getpid(), signal.SIGTERM)  # the user's handler takes it; the run goes on

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        res = steps_run(tmp_path / "run", checkpoint_period=0, callback=callback)
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert len(res.history) == ROUNDS
    assert received == [signal.SIGTERM]
    assert all(h is mine for h in during)


def test_ignored_sigterm_stays_ignored(tmp_path: Path) -> None:
    during: list[Any] = []
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        steps_run(
            tmp_path / "run",
            checkpoint_period=Checkpointer(every=5),
            callback=lambda r: during.append(signal.getsignal(signal.SIGTERM)),
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert during and all(h == signal.SIG_IGN for h in during)


def test_only_a_run_with_a_checkpoint_in_the_main_thread_takes_sigterm(tmp_path: Path) -> None:
    def handler_during(folder: Path | None) -> list[Any]:
        seen: list[Any] = []
        steps_run(folder, callback=lambda r: seen.append(signal.getsignal(signal.SIGTERM)))
        return seen

    assert set(handler_during(None)) == {signal.SIG_DFL}  # nothing to save: left as it is
    assert signal.SIG_DFL not in handler_during(tmp_path / "main")
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    seen: list[list[Any]] = []
    worker = threading.Thread(target=lambda: seen.append(handler_during(tmp_path / "thread")))
    worker.start()
    worker.join(120)
    assert seen and set(seen[0]) == {signal.SIG_DFL}  # a thread cannot set signal handlers


def test_sigterm_interrupts_puts_the_previous_handler_back() -> None:
    with sigterm_interrupts():
        inside = signal.getsignal(signal.SIGTERM)
    assert inside is not signal.SIG_DFL and callable(inside)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    with sigterm_interrupts(active=False):
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_process_forked_during_a_run_ends_on_sigterm_as_before() -> None:
    """A worker forked during a run (a process pool's) gets SIGTERM's default action back:
    a pool's shutdown, which terminates its workers, does not wait for them."""
    with sigterm_interrupts():
        pid = os.fork()
        if pid == 0:  # the child
            os._exit(0 if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL else 1)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.write(write, b"x")  # (started: its handlers are the child's own by now)
            time.sleep(30)
            os._exit(0)
        os.read(read, 1)
        os.kill(pid, signal.SIGTERM)
        _, status = os.waitpid(pid, 0)
        os.close(read), os.close(write)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM


def test_the_run_command_reports_sigterm_and_exits_143(tmp_path, capsys, monkeypatch) -> None:
    def run_task(*args: Any, **kwargs: Any) -> None:
        raise Terminated("SIGTERM received")

    monkeypatch.setattr(paretosurf.bench, "run_task", run_task)
    folder = tmp_path / "run"
    argv = ["run", "gear", "--method", "uniform", "--solver", "exact", "--n", "4"]
    status, _, err = call_cli([*argv, "--iterations", "3", "--checkpoint", str(folder)], capsys)
    assert status == 143 == exit_status(Terminated())
    assert err.startswith("terminated (SIGTERM); the run in ")
    assert "Resume it with:" in err and "--resume" in err
