"""The run's pictures and the data that feeds them: training curves per method and slot, each
slot labelled with its weight's path (read back from a protocol run folder by following the
adapters' digests), and the front figure whose CVs are the table's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("safetensors")

from paretosurf.llm import AdapterState
from paretosurf.llm._figures import front_series, plot_front, score_cell
from paretosurf.llm.adapter_state import adapter_digest, save_adapter
from paretosurf.llm.protocol import run_protocol
from paretosurf.llm.training_log import (
    TRAIN_LOG,
    default_metrics,
    plot_training_curves,
    read_training_logs,
    slot_curves,
    weight_path,
)

from .test_protocol import SMALL, AdapterStandIn

CONFIG = '{"peft_type": "LORA", "r": 2}'


class FakeRun:
    """Solve folders and a protocol run folder's adapters, as the protocol leaves them, with
    tiny random adapters (no model): their digests chain the solves as real ones do."""

    def __init__(self, root: Path, *, rewards: tuple[str, str] = ("count_apple", "count_berry")):
        self.root, self.rewards = root, rewards
        self.rng = np.random.default_rng(0)
        self.work = root / "work" / "solves"

    def state(self, calls: int) -> AdapterState:
        weights = {"q.lora_A.weight": self.rng.standard_normal((2, 3)).astype(np.float32)}
        return AdapterState(weights, CONFIG, calls, 2 * calls)

    def solve(
        self, parent: AdapterState | None, weight: float, trained: AdapterState | None = None
    ) -> AdapterState:
        calls = 0 if parent is None else parent.calls
        trained = self.state(calls + 1) if trained is None else trained
        digest = adapter_digest(trained)
        folder = self.work / f"e{calls:03d}-w{weight:.4f}-{digest[:12]}"
        folder.mkdir(parents=True)
        info = {
            "weight": weight,
            "call": calls,
            "start_steps": 2 * calls,
            "parent": None if parent is None else adapter_digest(parent),
            "digest": digest,
            "key": digest,
            "status": "done",
            "rewards": list(self.rewards),
        }
        (folder / "solve.json").write_text(json.dumps(info))
        rows = [
            {
                "step": step,
                "total_step": 2 * calls + step,
                "loss": 0.1 * step,
                "reward": weight,
                f"rewards/{self.rewards[0]}/mean": 1.0,
                f"rewards/{self.rewards[1]}/mean": 2.0,
                "kl": 0.01,
                "weight": weight,
                "call": calls,
            }
            for step in (1, 2)
        ]
        (folder / TRAIN_LOG).write_text("".join(json.dumps(r) + "\n" for r in rows))
        return trained

    def keep(self, state: AdapterState, *parts: str) -> None:
        save_adapter(state, self.root.joinpath(*parts))


@pytest.fixture
def protocol_folder(tmp_path: Path) -> Path:
    """A protocol run of 3 slots: a warm start of 1 epoch, Uniform-w 4 epochs, SURF from
    Uniform-w's epoch 1 for 3 rounds (its first Uniform-w's epoch 2, reused; its endpoints
    Uniform-w's), Soup (mixtures: the endpoints are Uniform-w's); one stray solve."""
    run = FakeRun(tmp_path / "run")
    warm = run.solve(None, 0.5)
    run.keep(warm, "warm", "epoch-001")
    uni = []
    for slot in range(3):
        chain, state = [], warm
        for _ in range(4):
            state = run.solve(state, slot / 2)
            chain.append(state)
        uni.append(chain)
    for epoch in (1, 2):
        for slot in range(3):
            run.keep(uni[slot][epoch - 1], f"uniform-epoch-{epoch}", f"slot-{slot:02d}")
        (run.root / f"uniform-epoch-{epoch}" / "done").write_text("")
    second = run.solve(uni[1][1], 0.42)
    third = run.solve(second, 0.45)
    # a solve of no method's lineage (a run since abandoned), and one that trained the same
    # adapter as SURF's last (rewards that do not tell the weights apart)
    run.solve(uni[1][3], 0.7)
    run.solve(second, 0.43, trained=third)
    finals = {
        "Uniform-w": [c[-1] for c in uni],
        "SURF": [uni[0][-1], third, uni[2][-1]],
        "Soup": [uni[0][-1], run.state(4), uni[2][-1]],
    }
    for label, states in finals.items():
        for slot, state in enumerate(states):
            run.keep(state, "adapters", label, f"slot-{slot:02d}")
    methods: dict[str, Any] = {m: {} for m in finals}
    methods["SURF"]["weights"] = [0.0, 0.45, 1.0]  # which of the two solves made SURF's last
    (run.root / "results.json").write_text(json.dumps({"methods": methods}))
    return run.root


def test_solves_are_read_back_per_method_and_slot(protocol_folder: Path) -> None:
    curves = slot_curves(protocol_folder)
    assert [(c.method, c.slot) for c in curves] == [
        ("warm start", 0),
        ("Uniform-w", 0),
        ("Uniform-w", 1),
        ("Uniform-w", 2),
        ("SURF", 1),  # SURF's endpoints are Uniform-w's; Soup trains nothing
    ]
    assert [c.label for c in curves] == [
        "slot 0: w 0.50",
        "slot 0: w 0.00 (4 rounds)",
        "slot 1: w 0.50 (4 rounds)",
        "slot 2: w 1.00 (4 rounds)",
        "slot 1: w 0.50 -> 0.42 -> 0.45",  # its first round: Uniform-w's epoch 2, reused
    ]
    surf, uniform = curves[-1], curves[2]
    assert surf.solves[0] is not None and surf.solves[0].folder == uniform.solves[1].folder
    assert [s.call for s in uniform.solves] == [1, 2, 3, 4]
    # a solver workdir named "work" is read with the run folder around it
    from_work = slot_curves(protocol_folder / "work")
    assert [(c.method, c.slot, c.weights) for c in from_work] == [
        (c.method, c.slot, c.weights) for c in curves
    ]


def test_training_png_has_a_row_per_method_and_weight_paths(protocol_folder: Path) -> None:
    out = protocol_folder / "training.png"
    fig = plot_training_curves(protocol_folder / "work", path=out)
    assert out.stat().st_size > 10_000
    titles = [ax.get_title() for ax in fig.axes]
    metrics = ["reward", "rewards/count_apple/mean", "rewards/count_berry/mean", "kl", "loss"]
    assert titles == [f"{m}: {k}" for m in ("warm start", "Uniform-w", "SURF") for k in metrics]
    legends = {ax.get_legend().get_title().get_text(): ax.get_legend() for ax in fig.axes[4::5]}
    surf = [t.get_text() for t in legends["SURF"].get_texts()]
    assert surf == ["slot 1: w 0.50 -> 0.42 -> 0.45"]
    assert "2 solves outside them not drawn" in fig._suptitle.get_text()
    import matplotlib.pyplot as plt

    plt.close("all")


def test_logs_kept_outside_the_run_folder_are_drawn_by_method(
    protocol_folder: Path, tmp_path: Path
) -> None:
    """A solver ``workdir`` kept elsewhere (as a Python caller of ``run_protocol`` may give):
    its logs drawn with the methods read from the run folder, as from ``work`` inside it."""
    import shutil

    elsewhere = Path(shutil.move(protocol_folder / "work", tmp_path / "scratch"))
    logs = read_training_logs(elsewhere)
    fig = plot_training_curves(protocol_folder, logs=logs)
    titles = [ax.get_title() for ax in fig.axes]
    assert [t.split(":")[0] for t in titles[::5]] == ["warm start", "Uniform-w", "SURF"]
    with pytest.raises(FileNotFoundError, match="holds no training log"):
        plot_training_curves(protocol_folder)  # nothing under the run folder now
    import matplotlib.pyplot as plt

    plt.close("all")


def test_logs_without_a_run_folder_and_old_reward_names(tmp_path: Path) -> None:
    """Solves with nothing around them are drawn as chains; logs written when the rewards
    were logged as r1 and r2 are still read, with their metrics."""
    run = FakeRun(tmp_path, rewards=("r1", "r2"))
    first = run.solve(None, 0.3)
    run.solve(first, 0.3)
    logs = read_training_logs(tmp_path)
    for log in logs:  # a solve.json of those days did not name the rewards
        del log.info["rewards"]
    assert default_metrics(logs) == [
        "reward",
        "rewards/r1/mean",
        "rewards/r2/mean",
        "kl",
        "loss",
    ]
    (curve,) = slot_curves(tmp_path, logs)
    assert (curve.method, curve.label) == ("solves", "slot 0: w 0.30 (2 rounds)")
    fig = plot_training_curves(tmp_path)
    assert fig.axes[1].get_title() == "solves: rewards/r1/mean"
    import matplotlib.pyplot as plt

    plt.close("all")


def test_weight_paths() -> None:
    assert weight_path([0.3, 0.42, 0.45]) == "w 0.30 -> 0.42 -> 0.45"
    assert weight_path([0.6, 0.6, 0.55]) == "w 0.60 x2 -> 0.55"
    assert weight_path([0.5, 0.4991]) == "w 0.500 -> 0.499"  # told apart
    many = weight_path([k / 20 for k in range(12)])
    assert many.startswith("w 0.00 -> 0.05 -> 0.10 -> ...") and many.endswith("0.55")


def _table_cvs(table: str) -> dict[str, dict[str, str]]:
    """The CV cells of table.md, by kind and method."""
    lines = table.splitlines()
    methods = [c.strip() for c in lines[0].strip("|").split("|")[1:]]
    out: dict[str, dict[str, str]] = {}
    for line in lines:
        match = re.match(r"\| CV \((with KL|without KL)\) \|(.*)\|$", line)
        if match:
            cells = [c.strip() for c in match.group(2).split("|")]
            out[match.group(1)] = dict(zip(methods, cells, strict=True))
    return out


def test_front_png_overlays_the_methods_with_the_tables_cvs(tmp_path: Path) -> None:
    report = run_protocol(AdapterStandIn(), tmp_path, protocol=SMALL)
    assert (tmp_path / "front.png").stat().st_size > 10_000
    table = (tmp_path / "table.md").read_text()
    cvs = _table_cvs(table)
    assert set(cvs) == {"with KL", "without KL"}
    series = front_series(report, cell=score_cell)
    assert [(s.kind, s.method) for s in series] == [
        (kind, m) for kind in ("with KL", "without KL") for m in ("Uniform-w", "SURF", "Soup")
    ]
    for s in series:
        assert s.cv == cvs[s.kind][s.method], (s.kind, s.method)
        assert s.errors is not None and s.spread == "evaluation batches"
        assert s.points.shape == s.errors.shape == (SMALL.n_segments + 1, 2)
    # results.json read back gives the same: the default cell formats as the table does
    back = json.loads((tmp_path / "results.json").read_text())
    assert [s.cv for s in front_series(back)] == [s.cv for s in series]
    assert back["objective_names"] == ["-(reward 1 - beta KL)", "-(reward 2 - beta KL)"]
    assert "Objectives (minimized): 1 = -(reward 1 - beta KL)" in table
    fig = plot_front(back, back["objective_names"], cell=score_cell)
    legends = [[t.get_text() for t in ax.get_legend().get_texts()] for ax in fig.axes]
    assert legends[0] == [f"{m} (CV {cvs['with KL'][m]})" for m in ("Uniform-w", "SURF", "Soup")]
    # every point is labelled with its weight
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert len(texts) == 3 * (SMALL.n_segments + 1) and "0.25" in texts
    assert fig.axes[1].get_xlabel() == "-reward 1"  # the panel without the KL term
    import matplotlib.pyplot as plt

    plt.close("all")


def test_several_seeds_give_error_bars_over_the_seeds() -> None:
    def run(shift: float) -> dict[str, Any]:
        entry = {
            "weights": [0.0, 1.0],
            "points": [[1.0 + shift, 0.0], [0.0, 1.0 - shift]],
            "scores": {"with KL": {"cv": {"value": 0.1 + shift}}},
        }
        return {"methods": {"SURF": entry}}

    (series,) = front_series([run(0.0), run(0.2)])
    np.testing.assert_allclose(series.points, [[1.1, 0.0], [0.0, 0.9]])
    np.testing.assert_allclose(series.errors, [[0.1, 0.0], [0.0, 0.1]])
    assert (series.spread, series.cv) == ("seeds", "0.2 +- 0.1")
    with pytest.raises(TypeError, match=r"results\.json"):
        front_series({"no": "methods"})


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::paretosurf.findings.ParetoWarning")
def test_a_tiny_llm_protocols_pictures(tmp_path: Path, fast_solver: Any) -> None:
    """The protocol on the tiny model (its workdir inside the run folder, as ``paretosurf
    llm`` lays it out): every solve drawn under its method and slot, SURF's first round
    Uniform-w's, and the front's CVs the table's."""
    from paretosurf.llm.protocol import Protocol

    tiny = Protocol(n_segments=2, warm_epochs=1, uniform_epochs=3, surf_init_epoch=1, surf_rounds=2)
    report = run_protocol(fast_solver(), tmp_path, protocol=tiny)
    curves = slot_curves(tmp_path / "work")
    assert [(c.method, c.slot, len(c.solves)) for c in curves] == [
        ("warm start", 0, 1),
        ("Uniform-w", 0, 3),
        ("Uniform-w", 1, 3),
        ("Uniform-w", 2, 3),
        ("SURF", 1, 2),
    ]
    uniform, surf = curves[2], curves[-1]
    assert surf.solves[0].folder == uniform.solves[1].folder  # reused: Uniform-w's epoch 2
    assert surf.weights[0] == 0.5 and surf.label.startswith("slot 1: w 0.50 -> ")
    fig = plot_training_curves(tmp_path / "work", path=tmp_path / "training.png")
    assert "rewards/count_apple/mean" in fig.axes[1].get_title()
    cvs = _table_cvs((tmp_path / "table.md").read_text())
    assert {s.cv for s in front_series(report, cell=score_cell) if s.kind == "with KL"} == set(
        cvs["with KL"].values()
    )
    names = json.loads((tmp_path / "results.json").read_text())["objective_names"]
    assert names == ["-(count_apple - 0.05 KL)", "-(count_berry - 0.05 KL)"]
    import matplotlib.pyplot as plt

    plt.close("all")
