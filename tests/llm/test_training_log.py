"""Training logs: every TRL log entry of a solve as a JSON line in its solve folder, read back
per slot and round, and plotted."""

from __future__ import annotations

import importlib.util
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("trl")

import paretosurf as ps
from paretosurf.findings import ParetoWarning
from paretosurf.llm.training_log import (
    TRAIN_LOG,
    plot_training_curves,
    read_training_logs,
)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_solve_logs_every_step_as_json_lines(fast_solver: Any) -> None:
    sol = fast_solver(steps=4).solve(0.25, None)
    folder = Path(sol.info["solve_dir"])
    entries = lines(folder / TRAIN_LOG)
    steps = [e for e in entries if "loss" in e]
    assert [e["step"] for e in steps] == [1, 2, 3, 4]
    assert all(e["weight"] == 0.25 and e["call"] == 0 for e in entries)
    # TRL's own metrics: the loss, each reward, the KL, the learning rate...
    for key in ("loss", "learning_rate", "grad_norm", "entropy"):
        assert all(np.isfinite(e[key]) for e in steps), key
    generated = steps[::2]  # 2 optimizer steps per generation round
    for key in (
        "reward",
        "rewards/count_apple/mean",  # the rewards' own names
        "rewards/count_berry/mean",
        "kl",
        "completions/mean_length",
    ):
        assert all(key in e for e in generated), key
    assert all(e["learning_rate"] == 0.05 for e in steps)
    # ... the same numbers as Solution.info["train_log"]
    for logged, kept in zip(steps, sol.info["train_log"], strict=True):
        assert logged["loss"] == pytest.approx(kept["loss"], rel=1e-12)
        assert logged.get("kl") == kept.get("kl")
    assert "train_runtime" in entries[-1]  # and the trainer's summary at the end
    info = json.loads((folder / "solve.json").read_text())
    assert info["status"] == "done" and info["weight"] == 0.25 and info["parent"] is None
    assert info["steps"] == 4 and len(info["digest"]) == 64


def test_logs_are_read_back_per_slot_and_round_and_plotted(
    fast_solver: Any, tmp_path: Path
) -> None:
    """A SURF run of 3 slots x 2 rounds: six solve folders, chained into three slots whose
    second round continues the first's step count."""
    solver = fast_solver(steps=2, workdir=tmp_path / "run" / "work")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParetoWarning)
        ps.surf(solver, 2, iterations=2, checkpoint=tmp_path / "run" / "surf")
    logs = read_training_logs(tmp_path / "run")
    assert [(s.slot, s.round) for s in logs] == [(k, r) for k in range(3) for r in range(2)]
    assert [s.call for s in logs] == [0, 1] * 3
    assert [s.weight for s in logs if s.round == 0] == [0.0, 0.5, 1.0]  # slots in w order
    for log in logs:
        assert log.status == "done"
        xs, ys = log.series("loss")
        assert xs == [2 * log.round + 1, 2 * log.round + 2] and np.all(np.isfinite(ys))
    # a slot's second round started from its first round's adapter
    for first, second in zip(logs[::2], logs[1::2], strict=True):
        assert second.info["parent"] == first.info["digest"]

    out = tmp_path / "curves.png"
    fig = plot_training_curves(tmp_path / "run", path=out)
    assert out.stat().st_size > 10_000
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible() and ax.get_title()]
    metrics = ["reward", "rewards/count_apple/mean", "rewards/count_berry/mean", "kl", "loss"]
    assert titles == [f"SURF: {m}" for m in metrics]  # the run folder's method
    kl_axes = fig.axes[titles.index("SURF: loss")]
    assert len([ln for ln in kl_axes.get_lines() if len(ln.get_xdata()) > 1]) == 6
    legend = [t.get_text() for t in fig.axes[-1].get_legend().get_texts()]
    assert legend == [
        "slot 0: w 0.00 (2 rounds)",
        "slot 1: w 0.50 -> 0.68",  # SURF moved it
        "slot 2: w 1.00 (2 rounds)",
    ]
    fig2 = plot_training_curves(tmp_path / "run", metrics=["learning_rate"])
    assert [ax.get_title() for ax in fig2.axes if ax.get_visible()] == ["SURF: learning_rate"]
    import matplotlib.pyplot as plt

    plt.close("all")


def test_plotting_errors_are_named(tmp_path: Path, fast_solver: Any) -> None:
    with pytest.raises(FileNotFoundError, match="is not a folder"):
        plot_training_curves(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="holds no training log"):
        plot_training_curves(tmp_path / "empty")
    fast_solver(steps=1).solve(0.5, None)
    with pytest.raises(ValueError, match=r"metrics \['no/such'\] were never logged"):
        plot_training_curves(tmp_path / "work", metrics=["no/such"])
    with pytest.raises(TypeError, match="not a string"):
        plot_training_curves(tmp_path / "work", metrics="loss")


def test_a_killed_solves_partial_log_is_read(tmp_path: Path) -> None:
    """A log cut mid-line by a kill, and a folder without solve.json, still read."""
    folder = tmp_path / "solves" / "e000-w0.5000-abc"
    folder.mkdir(parents=True)
    good = {"step": 1, "loss": 0.5, "weight": 0.5, "call": 0, "total_step": 1}
    (folder / TRAIN_LOG).write_text(json.dumps(good) + '\n{"step": 2, "lo')
    (log,) = read_training_logs(tmp_path)
    assert log.status == "running" and log.weight == 0.5 and log.series("loss") == ([1], [0.5])


def test_report_to_passes_through_to_trl(fast_solver: Any) -> None:
    with pytest.raises(ValueError, match="no_such_tracker"):
        fast_solver(steps=1, report_to="no_such_tracker").solve(0.5, None)
    with pytest.raises(TypeError, match="report_to must be a name"):
        fast_solver(report_to=3)
    with pytest.raises(ValueError, match="trainer_args sets report_to"):
        fast_solver(trainer_args={"report_to": "tensorboard"})


@pytest.mark.skipif(
    importlib.util.find_spec("tensorboard") is None
    and importlib.util.find_spec("tensorboardX") is None,
    reason="needs tensorboard",
)
def test_tensorboard_events_are_written_into_the_solve_folder(fast_solver: Any) -> None:
    sol = fast_solver(steps=2, report_to="tensorboard").solve(0.5, None)
    assert list(Path(sol.info["solve_dir"]).glob("runs/**/events.out.tfevents.*"))
