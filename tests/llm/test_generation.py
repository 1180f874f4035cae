"""Sampling with the adapter merged: the same policy as the unmerged adapter, and the base
weights given back bit for bit (also in bfloat16, where PEFT's unmerge alone does not)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

from paretosurf.llm.generation import merged_adapter, rloo_trainer_class  # noqa: E402

from .tiny import random_adapter_model  # noqa: E402

IDS = torch.tensor([[3, 7, 11, 5, 9, 2], [4, 4, 8, 15, 6, 1]])


def base_weights(model: Any) -> dict[str, Any]:
    return {
        k: v.clone() for k, v in model.get_base_model().state_dict().items() if "lora_" not in k
    }


def logits(model: Any) -> Any:
    with torch.no_grad():
        return model(input_ids=IDS).logits.double()


@pytest.mark.parametrize("dora", [False, True], ids=["lora", "dora"])
def test_merged_logits_equal_the_adapters_and_the_base_comes_back(lm_dir: Path, dora: bool) -> None:
    model = random_adapter_model(lm_dir, dora=dora).eval()
    before, expected = base_weights(model), logits(model)
    with model.disable_adapter():
        bare = logits(model)
    assert not torch.allclose(expected, bare, atol=1e-3)  # the adapter matters
    with merged_adapter(model):
        assert all(layer.merged for layer in model.modules() if hasattr(layer, "merged"))
        torch.testing.assert_close(logits(model), expected, rtol=1e-5, atol=1e-5)
    after = base_weights(model)
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert not any(getattr(layer, "merged", False) for layer in model.modules())
    torch.testing.assert_close(logits(model), expected, rtol=0, atol=0)


def test_bfloat16_weights_come_back_exactly_where_unmerging_drifts(lm_dir: Path) -> None:
    model = random_adapter_model(lm_dir, dora=False, dtype=torch.bfloat16).eval()
    before = base_weights(model)
    model.merge_adapter()
    model.unmerge_adapter()
    drifted = base_weights(model)
    assert any(not torch.equal(before[k], drifted[k]) for k in before)  # why we restore
    for k, v in before.items():
        model.get_base_model().state_dict()[k].copy_(v)
    with merged_adapter(model):
        pass
    after = base_weights(model)
    assert all(torch.equal(before[k], after[k]) for k in before)


def test_the_base_comes_back_when_generation_fails(lm_dir: Path) -> None:
    model = random_adapter_model(lm_dir, dora=True).eval()
    before = base_weights(model)
    with pytest.raises(RuntimeError, match="stop"), merged_adapter(model):
        raise RuntimeError("stop")
    assert all(torch.equal(before[k], v) for k, v in base_weights(model).items())


def test_trainer_classes() -> None:
    from trl import RLOOTrainer

    assert rloo_trainer_class(False) is RLOOTrainer
    merged = rloo_trainer_class(True)
    assert issubclass(merged, RLOOTrainer) and merged is rloo_trainer_class(True)


def test_merged_and_unmerged_generation_estimate_the_same_policy(fast_solver: Any) -> None:
    """The evaluation samples with the same seeds: merged or not, an adapter's completions,
    rewards and KL are the same (up to float rounding in the log-probabilities)."""
    solver = fast_solver(steps=2)
    state = solver.solve(1.0, None).state
    merged = solver.assess(state)
    unmerged = fast_solver(steps=2, merged_generation=False).assess(state)
    np.testing.assert_allclose(merged["objectives_no_kl"], unmerged["objectives_no_kl"])
    np.testing.assert_allclose(merged["objectives"], unmerged["objectives"], atol=1e-4)


def test_unmerged_generation_trains_too(fast_solver: Any) -> None:
    solution = fast_solver(steps=2, merged_generation=False).solve(0.5, None)
    assert solution.info["steps"] == 2 and np.all(np.isfinite(solution.objectives))


def test_training_samples_with_the_adapter_merged(
    fast_solver: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every generation round of the trainer runs inside :func:`merged_adapter` (4 steps of
    mini-batch 4 from rounds of 8 completions: 2 rounds)."""
    from paretosurf.llm import generation

    entered: list[bool] = []
    real = generation.merged_adapter

    def counting(model: Any) -> Any:
        entered.append(model.training)
        return real(model)

    monkeypatch.setattr(generation, "merged_adapter", counting)
    assert fast_solver(steps=4).solve(0.5, None).info["steps"] == 4
    assert entered == [True, True]
