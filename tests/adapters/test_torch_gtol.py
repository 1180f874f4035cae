"""``from_torch(..., gtol=)``: a call ends once the scalarized loss's gradient is small, so a
warm start at the minimizer costs one evaluation, and a small move of the weight few steps."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import paretosurf as ps  # noqa: E402

torch.set_num_threads(1)


def _solver(gtol: float | None, steps: int = 400) -> ps.adapters.TorchSolver:
    theta = torch.zeros(1, dtype=torch.float64, requires_grad=True)

    def losses(params: list[torch.Tensor]) -> torch.Tensor:
        (p,) = params
        return torch.stack([(p[0] - 1.0) ** 2, (p[0] + 1.0) ** 2])

    return ps.adapters.from_torch([theta], losses, steps=steps, optimizer="sgd", lr=0.1, gtol=gtol)


def test_a_call_stops_at_the_minimizer_and_counts_what_it_spent() -> None:
    solver = _solver(gtol=1e-9)
    cold = solver.solve(0.75, None)
    # the minimizer of w (p - 1)^2 + (1 - w) (p + 1)^2 is p = 2 w - 1 = 0.5; the gradient
    # 2 (p - 0.5) is 1 in size at p = 0 and shrinks by 1 - 2 * lr = 0.8 a step: below 1e-9
    # after ceil(log(1e9) / log(1.25)) = 93 steps
    p = float(cold.state["tensors"][0][0])
    assert abs(p - 0.5) <= 1e-9
    assert cold.info["steps"] == int(np.ceil(np.log(1e9) / np.log(1.25)))
    assert cold.info["objective_calls"] == cold.info["steps"] + 2  # the stopping one, the result
    again = solver.solve(0.75, cold.state)
    assert again.info["steps"] == 0 and again.info["objective_calls"] == 2
    moved = solver.solve(0.75 + 1e-4, cold.state)
    # the minimizer moves by 2e-4: a gradient of 4e-4 to shrink below 1e-9
    assert moved.info["steps"] == int(np.ceil(np.log(4e5) / np.log(1.25))) < cold.info["steps"]
    assert abs(float(moved.state["tensors"][0][0]) - (2 * (0.75 + 1e-4) - 1)) <= 1e-9


def test_without_gtol_every_call_takes_its_steps() -> None:
    solver = _solver(gtol=None, steps=30)
    sol = solver.solve(0.75, solver.solve(0.75, None).state)
    assert sol.info["steps"] == 30 and sol.info["objective_calls"] == 31


def test_surf_records_the_evaluations_of_each_slot() -> None:
    res = ps.surf(_solver(gtol=1e-9), n_points=6, iterations=4)
    for record in res.history:
        assert record.evaluations is not None and record.evaluations.shape == (6,)
        assert np.all(record.evaluations >= 2)
    assert res.n_evaluations == sum(int(r.evaluations.sum()) for r in res.history)
    # later rounds start near their minimizers: cheaper than the cold first round
    assert res.history[-1].evaluations.sum() < res.history[0].evaluations.sum()


@pytest.mark.parametrize("gtol", [0.0, -1.0, float("nan")])
def test_a_bad_gtol_is_refused(gtol: float) -> None:
    with pytest.raises(ValueError, match="gtol"):
        _solver(gtol=gtol)
