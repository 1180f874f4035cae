"""The paper's protocol (warm start, Uniform-w, SURF from epoch-5 adapters with reused
endpoints, Soup) on a stand-in solver whose "adapters" are saved as folders: stages, budgets,
resuming, and the Table 2 block."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.llm.protocol import (
    KnownSolve,
    Protocol,
    ReuseEndpoints,
    ReuseSolves,
    format_table,
    run_protocol,
    same_state,
)
from paretosurf.storage._states import StateFolder


class Stop(Exception):
    """A crash of the solver."""


class AdapterStandIn:
    """A K-step solver of the gear toy whose state is an "adapter" saved as a folder; one call
    is one "epoch". ``calls`` lists the weights of the training calls (a private counter: the
    public attributes are the solver's settings, see ``solver_settings``)."""

    def __init__(self, *, crash_at: int | None = None, lr: float = 0.3) -> None:
        self._calls: list[float] = []
        self._crash_at = crash_at  # raise on this call (0-based), as a kill would stop it
        self.lr = lr  # a setting: part of the solver's settings fingerprint

    @property
    def calls(self) -> list[float]:
        return self._calls

    def _objectives(self, x: float) -> np.ndarray:
        return np.array([(1 - x) ** 2, x**2])

    def solve(self, w: float, state: dict[str, float] | None) -> ps.Solution:
        if self._crash_at is not None and len(self._calls) == self._crash_at:
            raise Stop
        self.calls.append(w)
        x = 0.5 if state is None else state["x"]
        for _ in range(5):
            x -= self.lr * (w * 3 * (x - 1) + (1 - w) * x)
        return ps.Solution(self._objectives(x), {"x": x}, {"steps": 5})

    def save_state(self, state: dict[str, float], folder: Path) -> None:
        (folder / "adapter.json").write_text(json.dumps(state))

    def load_state(self, folder: Path) -> dict[str, float]:
        return json.loads((folder / "adapter.json").read_text())

    def evaluate(self, state: dict[str, float]) -> np.ndarray:
        return self._objectives(state["x"])

    def interpolate(self, a: dict[str, float], b: dict[str, float], t: float) -> dict[str, float]:
        return {"x": (1 - t) * a["x"] + t * b["x"]}

    def assess(self, state: dict[str, float]) -> dict[str, Any]:
        h = self.evaluate(state)
        batches = h + 0.001 * np.array([[1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]])
        return {
            "objectives": h,
            "objectives_no_kl": h - 0.01,
            "batch_objectives": batches,
            "batch_objectives_no_kl": batches - 0.01,
        }


SMALL = Protocol(n_segments=4, warm_epochs=2, uniform_epochs=5, surf_init_epoch=2, surf_rounds=3)


def test_stages_budgets_and_outputs(tmp_path) -> None:
    solver = AdapterStandIn()
    report = run_protocol(solver, tmp_path, protocol=SMALL)
    n = SMALL.n_segments + 1
    # warm start at 0.5, every Uniform-w slot trained 5 epochs, SURF's interior slots 3 more,
    # the first of which is Uniform-w's epoch 3, reused
    warm, rest = solver.calls[:2], solver.calls[2:]
    assert warm == [0.5, 0.5]
    assert len(rest) == n * 5 + (n - 2) * 2
    assert sum(c in (0.0, 1.0) for c in rest) == 2 * 5  # endpoints never retrained
    assert report.gpu_epochs == {"warm start": 2, "Uniform-w": 25, "SURF": 6, "Soup": 0}
    assert report.reused_epochs == {"SURF": 3} and report.reused_from == 3
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["gpu_epochs"]["SURF"] == 6 and saved["reused_epochs"] == {"SURF": 3}
    assert "SURF 6 (+ 3 reused from Uniform-w's epoch 3)" in format_table(report)
    assert "(total 33 trained)" in format_table(report)
    assert set(report.methods) == {"Uniform-w", "SURF", "Soup"}
    for label, entry in report.methods.items():
        assert len(entry["points"]) == n and entry["weights"][0] == 0.0
        assert {"with KL", "without KL"} <= set(entry["scores"]), label
        assert set(entry["scores"]["with KL"]["cv"]) == {"value", "mean", "std"}
    uni, surf_, soup_ = (report.methods[m] for m in ("Uniform-w", "SURF", "Soup"))
    # SURF reuses Uniform-w's finished endpoints, and Soup mixes them
    np.testing.assert_allclose(surf_["points"][0], uni["points"][0])
    np.testing.assert_allclose(surf_["points"][-1], uni["points"][-1])
    np.testing.assert_allclose(soup_["points"][0], uni["points"][0])
    assert surf_["scores"]["with KL"]["cv"]["value"] < uni["scores"]["with KL"]["cv"]["value"]
    for name in ("table.md", "results.json", "front.png"):
        assert (tmp_path / name).exists()
    assert (tmp_path / "adapters" / "SURF" / "slot-04" / "adapter.json").exists()
    assert "| CV (without KL) |" in format_table(report)


def test_running_again_resumes_without_training(tmp_path) -> None:
    first = run_protocol(AdapterStandIn(), tmp_path, protocol=SMALL)
    again_solver = AdapterStandIn()
    again = run_protocol(again_solver, tmp_path, protocol=SMALL)
    assert again_solver.calls == []
    assert again.methods["SURF"]["points"] == first.methods["SURF"]["points"]


def _same_reports(a: Any, b: Any) -> None:
    for label in ("Uniform-w", "SURF", "Soup"):
        assert a.methods[label]["weights"] == b.methods[label]["weights"], label
        assert a.methods[label]["points"] == b.methods[label]["points"], label


@pytest.mark.parametrize(
    ("crash_at", "left"),
    [
        (2 + 5 * 3, 2 * 5 + 3 * 2),  # in Uniform-w's 4th round: rounds 4-5 and SURF remain
        (2 + 5 * 5 + 1, 3 + 3),  # in SURF's 2nd round (after its reused first): the rest
    ],
)
def test_an_interrupted_protocol_continues_where_it_stopped(
    tmp_path, crash_at: int, left: int
) -> None:
    with pytest.raises(ps.InnerSolverError):
        run_protocol(AdapterStandIn(crash_at=crash_at), tmp_path, protocol=SMALL)
    done = AdapterStandIn()
    resumed = run_protocol(done, tmp_path, protocol=SMALL)
    fresh = run_protocol(AdapterStandIn(), tmp_path / "fresh", protocol=SMALL)
    _same_reports(resumed, fresh)
    assert len(done.calls) == left
    assert resumed.gpu_epochs == fresh.gpu_epochs and resumed.reused_epochs == {"SURF": 3}


def test_reusing_uniform_w_gives_the_recomputed_results(tmp_path) -> None:
    reusing, recomputing = AdapterStandIn(), AdapterStandIn()
    reused = run_protocol(reusing, tmp_path / "reuse", protocol=SMALL)
    recomputed = run_protocol(
        recomputing, tmp_path / "again", protocol=dataclasses.replace(SMALL, reuse_uniform=False)
    )
    _same_reports(reused, recomputed)
    for slot in range(SMALL.n_segments + 1):
        name = Path("adapters", "SURF", f"slot-{slot:02d}", "adapter.json")
        assert (tmp_path / "reuse" / name).read_text() == (tmp_path / "again" / name).read_text()
    # the recomputed run trained SURF's first round at the interior weights 1/4, 1/2, 3/4
    assert len(recomputing.calls) - len(reusing.calls) == SMALL.n_segments - 1
    assert recomputed.gpu_epochs["SURF"] == 9 and recomputed.reused_epochs == {"SURF": 0}
    assert not (tmp_path / "again" / "uniform-epoch-3").exists()


def test_changed_solver_settings_are_trained_not_reused(tmp_path) -> None:
    with pytest.raises(ps.InnerSolverError):  # in Uniform-w's last round, epoch 3 kept
        run_protocol(AdapterStandIn(crash_at=2 + 5 * 4), tmp_path, protocol=SMALL)
    other = AdapterStandIn(lr=0.31)
    lines: list[str] = []
    report = run_protocol(other, tmp_path, protocol=SMALL, log=lines.append)
    # Uniform-w's last round, then SURF's three rounds, the first at 1/4, 1/2, 3/4
    assert len(other.calls) == 5 + 3 * 3 and other.calls[5:8] == [0.25, 0.5, 0.75]
    assert report.reused_epochs == {"SURF": 0} and report.gpu_epochs["SURF"] == 9
    assert any("other solver settings" in line for line in lines)


def test_a_run_folder_without_the_kept_epoch_is_resumed_by_training(tmp_path) -> None:
    """A folder of a run that did not keep Uniform-w's epoch 3 (made without reuse, or by an
    older version) and is further on: SURF trains its first round, and the counts say so."""
    with pytest.raises(ps.InnerSolverError):
        run_protocol(
            AdapterStandIn(crash_at=2 + 5 * 5),
            tmp_path,
            protocol=dataclasses.replace(SMALL, reuse_uniform=False),
        )
    done = AdapterStandIn()
    resumed = run_protocol(done, tmp_path, protocol=SMALL)
    assert len(done.calls) == 3 * 3 and done.calls[:3] == [0.25, 0.5, 0.75]
    assert resumed.reused_epochs == {"SURF": 0} and resumed.gpu_epochs["SURF"] == 9
    _same_reports(resumed, run_protocol(AdapterStandIn(), tmp_path / "fresh", protocol=SMALL))


def test_reuse_solves_needs_the_same_weight_and_start(tmp_path) -> None:
    solver = AdapterStandIn()
    start, result = tmp_path / "start", tmp_path / "result"
    for folder, x in ((start, 0.1), (result, 0.7)):
        folder.mkdir()
        solver.save_state({"x": x}, folder)
    known = KnownSolve(
        0.25,
        StateFolder(start),
        StateFolder(result),
        (0.09, 0.49),
        "kept",
        str(tmp_path / "marks" / "slot-01.json"),
    )
    reuse = ReuseSolves(solver, [known])
    sol = reuse.solve(0.25, {"x": 0.1})
    assert sol.state == {"x": 0.7} and sol.objectives.tolist() == [0.09, 0.49]
    assert sol.info == {"steps": 0, "reused": "kept"} and solver.calls == []
    assert (tmp_path / "marks" / "slot-01.json").exists()
    assert reuse.solve(0.25, {"x": 0.2}).info["steps"] == 5  # another start: trained
    assert reuse.solve(0.5, {"x": 0.1}).info["steps"] == 5  # another weight: trained
    assert reuse.solve(0.25, None).info["steps"] == 5
    assert solver.calls == [0.25, 0.5, 0.25]


def test_same_state_compares_values_conservatively() -> None:
    from paretosurf.llm import AdapterState

    def adapter(scale: float, calls: int = 3) -> AdapterState:
        return AdapterState({"a": np.full((2, 2), scale, dtype=np.float32)}, "{}", calls=calls)

    assert same_state(adapter(1.0), adapter(1.0))
    assert not same_state(adapter(1.0), adapter(1.5))
    assert not same_state(adapter(1.0), adapter(1.0, calls=4))  # another seed stream
    assert not same_state({"x": 1.0}, {"x": 1.0, "y": 2.0})
    assert not same_state([1, 2], (1, 2))
    assert not same_state(object(), object())


def test_reuse_endpoints_trains_only_the_interior() -> None:
    solver = AdapterStandIn()
    reuse = ReuseEndpoints(solver, {0.0: {"x": 0.0}, 1.0: {"x": 1.0}})
    assert reuse.solve(1.0, None).objectives.tolist() == [0.0, 1.0]
    assert reuse.solve(0.3, None).info["steps"] == 5 and solver.calls == [0.3]


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        ({"surf_init_epoch": 5, "surf_rounds": 8}, "exceeds Uniform-w's"),
        ({"surf_init_epoch": 12}, "must be below"),
        ({"n_segments": 0}, "n_segments"),
    ],
)
def test_a_protocol_over_budget_is_refused(settings: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Protocol(**settings)


def test_the_papers_protocol_budget() -> None:
    # the paper's protocol: 6 slots (4 interior), a 10-epoch warm start, 12 Uniform-w epochs
    # at every slot, 7 SURF rounds at the interior slots from the epoch-5 adapters; SURF's
    # first round is Uniform-w's epoch 6 at those slots (reused, not trained)
    slots, interior, warm, uniform, rounds, first = 6, 4, 10, 12, 7, 6
    trained = {
        "warm start": warm,
        "Uniform-w": slots * uniform,
        "SURF": interior * rounds - interior,
        "Soup": 0,
    }
    assert Protocol().gpu_epochs() == trained
    assert Protocol().reused_epochs() == {"SURF": interior}
    # the one-line budget carries those facts: each stage's count, in order; SURF's reused
    # epochs and where from; the total trained
    text = Protocol().budget_text()
    stages = re.findall(r"(warm start|Uniform-w|SURF|Soup) (\d+)", text)
    assert [(stage, int(n)) for stage, n in stages] == list(trained.items())
    reused = re.findall(r"SURF \d+ \(\+ (\d+) reused from Uniform-w's epoch (\d+)\)", text)
    assert [(int(n), int(epoch)) for n, epoch in reused] == [(interior, first)]
    assert "reused" not in text.replace(f"(+ {interior} reused", "", 1)  # and nowhere else
    (total,) = re.findall(r"\(total (\d+) trained\)", text)
    assert int(total) == warm + slots * uniform + interior * (rounds - 1)
    assert Protocol(reuse_uniform=False).gpu_epochs()["SURF"] == 28
    assert Protocol(reuse_uniform=False).reused_epochs() == {"SURF": 0}
    with pytest.raises(TypeError, match="reuse_uniform"):
        Protocol(reuse_uniform=1)  # type: ignore[arg-type]


@pytest.mark.filterwarnings("ignore::paretosurf.ParetoWarning")  # random policies: any front
def test_reuse_on_the_tiny_llm_equals_training_again(tmp_path, fast_solver) -> None:
    """LLMSolver on the tiny offline model (deterministic on the CPU): SURF's first round
    taken from Uniform-w gives the adapters and points that training it again gives."""
    tiny = Protocol(n_segments=2, warm_epochs=1, uniform_epochs=3, surf_init_epoch=1, surf_rounds=2)
    reused = run_protocol(fast_solver(), tmp_path / "reuse", protocol=tiny)
    again = run_protocol(
        fast_solver(), tmp_path / "again", protocol=dataclasses.replace(tiny, reuse_uniform=False)
    )
    _same_reports(reused, again)
    from paretosurf.llm import load_adapter

    for slot in range(3):
        name = Path("adapters", "SURF", f"slot-{slot:02d}")
        a, b = load_adapter(tmp_path / "reuse" / name), load_adapter(tmp_path / "again" / name)
        assert a.weights.keys() == b.weights.keys() and (a.calls, a.steps) == (b.calls, b.steps)
        for key in a.weights:
            np.testing.assert_array_equal(a.weights[key], b.weights[key])
    assert reused.gpu_epochs == {"warm start": 1, "Uniform-w": 9, "SURF": 1, "Soup": 0}
    assert reused.reused_epochs == {"SURF": 1}
    assert again.gpu_epochs["SURF"] == 2 and again.reused_epochs == {"SURF": 0}
    # a second run of the finished protocol trains nothing and reports the same counts
    rerun = run_protocol(fast_solver(), tmp_path / "reuse", protocol=tiny)
    assert rerun.reused_epochs == {"SURF": 1}
    _same_reports(rerun, reused)
