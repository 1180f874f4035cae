"""``paretosurf run`` and ``bench``: options that would be ignored are refused, messages speak
the command line's terms, the resume command reproduces every option, and
``Result.load`` says what it looked for."""

from __future__ import annotations

import re
import shlex
from types import SimpleNamespace

import pytest

import paretosurf as ps
from paretosurf import cli
from paretosurf.bench.tasks import TASKS, Task
from paretosurf.problems import GearToy
from paretosurf.storage._files import CheckpointError
from paretosurf.storage._run_folder import RunFolder
from support import call_cli as call

GEAR = ["run", "gear", "--no-plots"]


class Solved(Exception):
    """Raised by a stand-in ``run_task``: the command got past its checks."""


@pytest.fixture()
def no_solving(monkeypatch):
    def run_task(*args, **kwargs):
        raise Solved

    monkeypatch.setattr(ps.bench, "run_task", run_task)


# ---------------------------------------------------------------------------- ignored options
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["run", "gear", "--method", "uniform", "--alpha", "0.5"],
            "--alpha sets SURF's damping factor, and --method uniform has none; drop --alpha",
        ),
        (["run", "gear", "--method", "ols", "--alpha", "auto"], "--method ols has none"),
        (["run", "gear", "--method", "soup", "--alpha", "0.5"], "--method soup has none"),
        (
            ["run", "gear", "--workers", "5"],
            "--workers sets the size of the pool of --executor processes; it cannot be used with "
            "--executor local",
        ),
        (["run", "gear", "--executor", "ray", "--workers", "5"], "--executor ray"),
        (
            ["run", "gear", "--method", "ols", "--report", "last"],
            "--report last: ols's points are not one round's",
        ),
        (
            ["run", "gear", "--method", "soup", "--report", "auto"],
            "--report auto: soup's points are not one round's",
        ),
        (["run", "gear", "--checkpoint-period", "0"], "--checkpoint-period"),
        (
            ["bench", "gear", "--methods", "uniform,ols", "--alpha", "0.5"],
            "--methods uniform,ols has no SURF; drop --alpha, or add surf to --methods",
        ),
        (
            ["bench", "gear", "--methods", "ols,soup", "--report", "last"],
            "--report last: the points of --methods ols,soup are not one round's",
        ),
        (["bench", "gear", "--workers", "3"], "cannot be used with --executor local"),
        (
            ["bench", "gear", "--ablation", "--workers", "3"],
            "--workers cannot be used with --ablation",
        ),
        (
            ["bench", "gear", "--ablation", "--executor", "processes"],
            "--executor cannot be used with --ablation",
        ),
    ],
)
def test_ignored_options_are_refused_before_solving(
    argv, message, capsys, no_solving, tmp_path
) -> None:
    folder = tmp_path / "run"
    if argv[0] == "run" and "--checkpoint-period" not in argv:
        argv = [*argv, "--checkpoint", str(folder)]
    status, _, err = call([*argv, "--out", str(tmp_path / "out")], capsys)
    assert status == 2 and f"paretosurf {argv[0]}: error: " in err and message in err
    assert not folder.exists()  # refused before the run folder was touched
    if argv[0] == "run" and "--checkpoint-period" in argv:
        assert "it needs --checkpoint" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "gear", "--alpha", "0.5", "--report", "last"],
        ["run", "gear", "--method", "uniform", "--report", "most-even"],
        ["run", "gear", "--executor", "processes", "--workers", "1"],
        ["run", "gear", "--checkpoint", "CKPT", "--checkpoint-period", "auto"],
        ["bench", "gear", "--methods", "ols,surf", "--alpha", "auto", "--report", "last"],
        ["bench", "gear", "--executor", "processes", "--workers", "1"],
    ],
)
def test_options_that_apply_are_accepted(argv, capsys, no_solving, tmp_path) -> None:
    argv = [str(tmp_path / a) if a == "CKPT" else a for a in argv]
    with pytest.raises(Solved):
        cli.main([*argv, "--out", str(tmp_path / "out"), "--no-plots"])


# ---------------------------------------------------------------------------- messages
def test_the_result_message_names_command_line_options(tmp_path, capsys) -> None:
    # two rounds of SURF leave the points uneven: the result advises more rounds
    status, _, err = call([*GEAR, "--iterations", "2", "--out", str(tmp_path / "a")], capsys)
    assert status == 0 and "uneven: gap ratio" in err
    assert "uneven (error): run more rounds (a new run with more --iterations)" in err
    assert "=True" not in err and "more iterations" not in err
    status, _, err = call([*GEAR, "--iterations", "2", "--checkpoint", str(tmp_path / "b")], capsys)
    assert status == 0 and "(--resume with more --iterations)" in err and "=True" not in err


def test_findings_spell_their_options_as_the_command_line_does() -> None:
    from paretosurf.findings import Finding

    unsettled = Finding(
        "unsettled",
        "...",
        fatal=False,
        remedy="run more rounds ({resume} with more {iterations}) or {alpha}",
        options={"resume": True, "iterations": None, "alpha": "auto"},
    )
    ends = Finding(
        "endpoint", "...", remedy="{weight_bounds}", options={"weight_bounds": (0.001, 0.999)}
    )
    result = SimpleNamespace(message="SURF: 5 points", findings=[unsettled, ends])
    text = cli._result_lines(result, resumable=True)
    assert (
        "unsettled (advice): run more rounds (--resume with more --iterations) or "
        "--alpha auto" in text
    )
    assert "endpoint (error): weight_bounds=(0.001, 0.999) (Python API)" in text


def test_progress_lines_say_the_solve_count_is_cumulative(tmp_path, capsys) -> None:
    status, _, err = call([*GEAR, "--iterations", "2", "--out", str(tmp_path)], capsys)
    n = ps.bench.get_task("gear").n_segments + 1
    assert status == 0
    assert re.search(rf"^round 1: .*\b{n} solves so far$", err, re.MULTILINE)
    assert re.search(rf"^round 2: .*\b{2 * n} solves so far$", err, re.MULTILINE)


def failing_task(monkeypatch, fail_from_call: int) -> None:
    """Register task ``failing``: N = 2 (3 solves a round), its solver fails from the
    ``fail_from_call``-th call on."""
    calls = [0]

    def solver(weight, state):
        calls[0] += 1
        if calls[0] >= fail_from_call:
            raise RuntimeError("the solver broke down")
        return ps.Solution([1.0 - weight, weight**2])

    monkeypatch.setitem(
        TASKS,
        "failing",
        Task(
            "failing",
            "a solver that fails",
            lambda: GearToy(9),
            2,
            4,
            make_solver=lambda p, steps, seed: solver,
        ),
    )


def test_a_failure_before_any_checkpoint_does_not_claim_one(tmp_path, capsys, monkeypatch) -> None:
    failing_task(monkeypatch, fail_from_call=1)
    folder = tmp_path / "run"
    status, _, err = call(["run", "failing", "--checkpoint", str(folder), "--no-plots"], capsys)
    assert status == 1 and "the solver broke down" in err
    assert not RunFolder(folder).has_state()
    assert "last checkpoint" not in err and "no round of the run was saved" in err
    assert f"--checkpoint {folder} --resume" in err


def test_a_failure_after_a_checkpoint_names_its_round(tmp_path, capsys, monkeypatch) -> None:
    failing_task(monkeypatch, fail_from_call=8)  # in round 3 (solves 7-9)
    folder = tmp_path / "run"
    status, _, err = call(
        ["run", "failing", "--checkpoint", str(folder), "--no-plots", "--checkpoint-period", "0"],
        capsys,
    )
    rounds = RunFolder(folder).n_rounds()
    assert status == 1 and rounds == 2
    assert f"last checkpoint, after round 2, is kept in {folder}" in err
    assert "no round" not in err


# ---------------------------------------------------------------------------- resume command
def interrupt(monkeypatch) -> None:
    def run_task(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ps.bench, "run_task", run_task)


def printed_command(err: str) -> list[str]:
    return shlex.split(err.split("Resume it with:")[1].strip().splitlines()[0])


@pytest.mark.parametrize(
    ("task", "options"),
    [
        (
            "gear",
            [
                "--method",
                "uniform",
                "--solver",
                "exact",
                "--n",
                "5",
                "--iterations",
                "3",
                "--report",
                "last",
                "--seed",
                "2",
                "--executor",
                "processes",
                "--workers",
                "3",
                "--checkpoint-period",
                "0.5",
                "--no-plots",
                "--out",
                "OUT",
            ],
        ),
        ("gear", ["--alpha", "auto", "--steps", "7", "--no-plots"]),
        ("gear", ["--alpha", "0.5", "--report", "most-even"]),
        ("dst", ["--device", "cpu", "--steps", "7"]),
    ],
)
def test_the_resume_command_repeats_every_option(
    task, options, tmp_path, capsys, monkeypatch
) -> None:
    if "--device" in options:
        pytest.importorskip("torch")
    folder = tmp_path / "the run"  # a space: the command quotes it
    options = [str(tmp_path / "out dir") if o == "OUT" else o for o in options]
    argv = ["run", task, *options, "--checkpoint", str(folder)]
    interrupt(monkeypatch)
    status, _, err = call(argv, capsys)
    assert status == 130
    resume = printed_command(err)
    assert resume[:2] == ["paretosurf", "run"] and resume[-1] == "--resume"
    given = vars(cli.build_parser().parse_args(argv))
    again = vars(cli.build_parser().parse_args(resume[1:]))
    for key in ("_run", "_parser", "resume"):
        given.pop(key), again.pop(key)
    assert again == given


def test_resuming_with_the_printed_command_keeps_the_output_choices(
    tmp_path, capsys, monkeypatch
) -> None:
    folder, out = tmp_path / "run", tmp_path / "out"
    argv = [*GEAR, "--iterations", "2", "--checkpoint", str(folder), "--out", str(out)]
    with monkeypatch.context() as patch:
        interrupt(patch)
        status, _, err = call(argv, capsys)
    assert status == 130
    status, _, err = call(printed_command(err)[1:], capsys)  # passes the settings check
    assert status == 0 and "wrote results.json, table.md to" in err
    assert (out / "results.json").exists() and not list(out.glob("*.png"))


# ---------------------------------------------------------------------------- Result.load
def test_load_of_a_missing_path_says_what_it_looked_for(tmp_path) -> None:
    missing = tmp_path / "nothing" / "path"
    with pytest.raises(FileNotFoundError) as exc:
        ps.Result.load(missing)
    message = str(exc.value)
    assert message.startswith(f"no run folder or saved result at {missing}: ")
    assert f"no folder {missing}" in message and f"no file {missing}.json" in message
    with pytest.raises(FileNotFoundError, match=r"^no saved result at .*path\.json$"):
        ps.Result.load(f"{missing}.json")


def test_load_of_a_run_output_folder_says_how_to_get_a_result(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    assert call([*GEAR, "--iterations", "2", "--out", str(out)], capsys)[0] == 0
    assert (out / "results.json").exists()
    with pytest.raises(CheckpointError) as exc:
        ps.Result.load(out)
    message = str(exc.value)
    assert f"{out} holds no run" in message and "results.json" in message
    assert "--checkpoint DIR" in message
    # with --checkpoint the same folder is a run folder, which loads
    folder = tmp_path / "run"
    assert call([*GEAR, "--iterations", "2", "--checkpoint", str(folder)], capsys)[0] == 0
    assert len(ps.Result.load(folder).history) == 2


# ---------------------------------------------------------------------------- --device
def _cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "gear", "--device", "cpu"], "task 'gear''s gradient solver runs in numpy only"),
        (["bench", "quadratic", "--device", "cpu"], "applies to the MDP tasks"),
        (
            ["run", "dst", "--solver", "exact", "--device", "cpu"],
            "cannot be used with --solver exact",
        ),
        (["bench", "dst", "--ablation", "--device", "cpu"], "cannot be used with --ablation"),
        (["run", "dst", "--device", "gpu"], "--device gpu: device must be 'cpu' or 'cuda[:N]'"),
        (["bench", "mountaincar", "--device", "cuda:x"], "device must be 'cpu' or 'cuda[:N]'"),
    ],
)
def test_device_is_refused_where_it_would_not_apply(
    argv, message, capsys, no_solving, tmp_path
) -> None:
    status, _, err = call([*argv, "--out", str(tmp_path / "out")], capsys)
    assert status == 2 and f"paretosurf {argv[0]}: error: " in err and message in err


@pytest.mark.skipif(_cuda(), reason="tests the refusal on a machine without CUDA")
def test_device_cuda_is_refused_without_a_gpu_before_solving(capsys, no_solving, tmp_path) -> None:
    pytest.importorskip("torch")
    status, _, err = call(["bench", "dst", "--device", "cuda", "--out", str(tmp_path)], capsys)
    assert status == 2 and "torch sees no CUDA device" in err and "use device='cpu'" in err


def test_device_reaches_the_solver_of_each_task() -> None:
    pytest.importorskip("torch")
    import dataclasses

    from paretosurf.bench import get_task

    for name in ("dst", "fishwood", "mountaincar"):
        task = dataclasses.replace(get_task(name), device="cpu")
        solver = task.solver(task.make_problem(), "gradient", seed=3, steps=2)
        assert solver.device == "cpu", name
    plain = get_task("dst").solver(get_task("dst").make_problem(), "gradient")
    assert plain.device is None  # numpy unless a device is asked for
    gear = dataclasses.replace(get_task("gear"), device="cpu")
    with pytest.raises(ValueError, match="runs in numpy only"):
        gear.solver(gear.make_problem(), "gradient")
    with pytest.raises(ValueError, match="applies to the gradient solver"):
        dataclasses.replace(get_task("dst"), device="cpu").solver(
            get_task("dst").make_problem(), "exact"
        )


def test_bench_with_device_cpu_runs_torch_and_agrees_with_numpy(capsys, tmp_path) -> None:
    pytest.importorskip("torch")
    import json

    runs = {}
    for name, extra in (("numpy", []), ("torch", ["--device", "cpu"])):
        out = tmp_path / name
        status, _, err = call(
            [
                "bench",
                "dst",
                "--seeds",
                "1",
                "--iterations",
                "2",
                "--methods",
                "surf",
                "--no-plots",
                "--out",
                str(out),
                *extra,
            ],
            capsys,
        )
        assert status == 0, err
        runs[name] = json.loads((out / "results.json").read_text())["methods"]["surf"]
    # the torch step is the numpy step in float64 (batched LU): the scores agree to rounding
    for key in ("cv", "hv", "igd"):
        assert runs["torch"][key] == pytest.approx(runs["numpy"][key], rel=1e-6), key
