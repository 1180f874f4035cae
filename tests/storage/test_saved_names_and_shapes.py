"""Saved files keep what they were given: a result's name with dots in it, and the shape of
every array of a state (0-d arrays included) through a checkpoint and a resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.problems import GearToy


def test_names_with_dots_keep_their_files_apart(tmp_path: Path) -> None:
    solver = GearToy(4).solver()
    low = ps.surf(solver, 4, iterations=3, alpha=0.3)
    high = ps.surf(solver, 4, iterations=5, alpha=0.5)
    paths = [low.save(tmp_path / "alpha0.3"), high.save(tmp_path / "alpha0.5")]
    assert [p.name for pair in paths for p in pair] == [
        "alpha0.3.json",
        "alpha0.3.npz",
        "alpha0.5.json",
        "alpha0.5.npz",
    ]
    assert ps.Result.load(tmp_path / "alpha0.3").settings["alpha"] == 0.3
    assert len(ps.Result.load(tmp_path / "alpha0.5.json").history) == 5
    # an extension of its own is still dropped first
    assert [p.name for p in low.save(tmp_path / "v1.2.json")] == ["v1.2.json", "v1.2.npz"]


class ScalarStates:
    """A gear-toy solver whose state is a dict holding a 0-d array and a (1,) array."""

    def __init__(self) -> None:
        self.inner = GearToy(4).solver()

    def solve(self, w: float, state: Any) -> ps.Solution:
        if state is not None:
            assert state["count"].shape == () and state["last"].shape == (1,)
        count = np.array(0 if state is None else int(state["count"]) + 1)
        sol = self.inner.solve(w, None)
        return ps.Solution(sol.objectives, {"count": count, "last": np.array([w])})


@pytest.mark.parametrize("period", [0.0, "auto"])
def test_a_0d_array_in_a_state_keeps_its_shape_through_a_resume(
    tmp_path: Path, period: Any
) -> None:
    whole = ps.surf(ScalarStates(), 4, iterations=5)
    ps.surf(ScalarStates(), 4, iterations=2, checkpoint=tmp_path, checkpoint_period=period)
    resumed = ps.surf(ScalarStates(), 4, iterations=5, checkpoint=tmp_path, resume=True)
    assert [s["count"].shape for s in resumed.states] == [()] * 5
    assert [int(s["count"]) for s in resumed.states] == [int(s["count"]) for s in whole.states]
    loaded = ps.Result.load(tmp_path)
    assert [s["count"].shape for s in loaded.states] == [()] * 5


def test_a_torch_model_with_batch_norm_resumes(tmp_path: Path) -> None:
    """BatchNorm's ``num_batches_tracked`` is a 0-d tensor: its saved copy must stay 0-d."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)

    def make() -> Any:
        torch.manual_seed(0)
        model = torch.nn.Sequential(
            torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2)
        )
        x = torch.randn(32, 3, generator=torch.Generator().manual_seed(1))

        def losses(m: Any) -> Any:
            out = m(x)
            return torch.stack([(out[:, 0] - 1).pow(2).mean(), (out[:, 1] + 1).pow(2).mean()])

        return ps.adapters.from_torch(model, losses, steps=3, lr=1e-2)

    whole = ps.surf(make(), 3, iterations=4)
    ps.surf(make(), 3, iterations=2, checkpoint=tmp_path, checkpoint_period=0.0)
    resumed = ps.surf(make(), 3, iterations=4, checkpoint=tmp_path, resume=True)
    np.testing.assert_array_equal(resumed.points, whole.points)


class InPlace:
    """A gear-toy solver that updates its state (a counter array) in place."""

    def __init__(self) -> None:
        self.inner = GearToy(4).solver()

    def solve(self, w: float, state: Any) -> ps.Solution:
        if state is None:
            state = np.zeros(3)
        else:
            state += 1.0
        return ps.Solution(self.inner.solve(w, None).objectives, state)


def test_resumed_states_can_be_updated_in_place(tmp_path: Path) -> None:
    whole = ps.surf(InPlace(), 4, iterations=4)
    ps.surf(InPlace(), 4, iterations=2, checkpoint=tmp_path, checkpoint_period=0.0)
    resumed = ps.surf(InPlace(), 4, iterations=4, checkpoint=tmp_path, resume=True)
    assert [s.tolist() for s in resumed.states] == [s.tolist() for s in whole.states]
    assert all(s.flags.writeable for s in ps.Result.load(tmp_path).states)
