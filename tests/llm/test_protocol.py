"""The paper's protocol (warm start, Uniform-w, SURF from epoch-5 adapters with reused
endpoints, Soup) on a stand-in solver whose "adapters" are saved as folders: stages, budgets,
resuming, and the Table 2 block."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.llm.protocol import Protocol, ReuseEndpoints, format_table, run_protocol


class AdapterStandIn:
    """A K-step solver of the gear toy whose state is an "adapter" saved as a folder; one call
    is one "epoch". ``calls`` counts training calls per weight."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def _objectives(self, x: float) -> np.ndarray:
        return np.array([(1 - x) ** 2, x**2])

    def solve(self, w: float, state: dict[str, float] | None) -> ps.Solution:
        self.calls.append(w)
        x = 0.5 if state is None else state["x"]
        for _ in range(5):
            x -= 0.3 * (w * 3 * (x - 1) + (1 - w) * x)
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
        return {"objectives": h, "objectives_no_kl": h - 0.01,
                "batch_objectives": batches, "batch_objectives_no_kl": batches - 0.01}


SMALL = Protocol(n_segments=4, warm_epochs=2, uniform_epochs=5, surf_init_epoch=2,
                 surf_rounds=3)


def test_stages_budgets_and_outputs(tmp_path) -> None:
    solver = AdapterStandIn()
    report = run_protocol(solver, tmp_path, protocol=SMALL)
    n = SMALL.n_segments + 1
    # warm start at 0.5, every Uniform-w slot trained 5 epochs, SURF's interior slots 3 more
    warm, rest = solver.calls[:2], solver.calls[2:]
    assert warm == [0.5, 0.5]
    assert len(rest) == n * 5 + (n - 2) * 3
    assert sum(c in (0.0, 1.0) for c in rest) == 2 * 5        # endpoints never retrained
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


def test_an_interrupted_protocol_continues_where_it_stopped(tmp_path) -> None:
    class Stop(Exception):
        pass

    class Crashing(AdapterStandIn):
        def solve(self, w: float, state: Any) -> ps.Solution:
            if len(self.calls) == 2 + 5 * 3:              # in Uniform-w's 4th round
                raise Stop
            return super().solve(w, state)

    with pytest.raises(ps.InnerSolverError):
        run_protocol(Crashing(), tmp_path, protocol=SMALL)
    done = AdapterStandIn()
    resumed = run_protocol(done, tmp_path, protocol=SMALL)
    fresh = run_protocol(AdapterStandIn(), tmp_path / "fresh", protocol=SMALL)
    assert resumed.methods["SURF"]["points"] == fresh.methods["SURF"]["points"]
    # the warm start and Uniform-w's first three rounds were kept: rounds 4-5 and SURF remain
    assert len(done.calls) == 2 * 5 + 3 * 3


def test_reuse_endpoints_trains_only_the_interior() -> None:
    solver = AdapterStandIn()
    reuse = ReuseEndpoints(solver, {0.0: {"x": 0.0}, 1.0: {"x": 1.0}})
    assert reuse.solve(1.0, None).objectives.tolist() == [0.0, 1.0]
    assert reuse.solve(0.3, None).info["steps"] == 5 and solver.calls == [0.3]


@pytest.mark.parametrize(("settings", "match"), [
    ({"surf_init_epoch": 5, "surf_rounds": 8}, "exceeds Uniform-w's"),
    ({"surf_init_epoch": 12}, "must be below"),
    ({"n_segments": 0}, "n_segments"),
])
def test_a_protocol_over_budget_is_refused(settings: dict[str, int], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Protocol(**settings)


def test_the_papers_protocol_budget() -> None:
    assert Protocol().gpu_epochs() == {"warm start": 10, "Uniform-w": 72, "SURF": 28,
                                       "Soup": 0}
