"""Adapters as solver states: PEFT-format files, exact round trips, linear interpolation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("peft")
pytest.importorskip("safetensors")

from paretosurf.llm import AdapterState, interpolate_adapters, load_adapter, save_adapter
from paretosurf.llm.adapter_state import (
    ADAPTER_CONFIG,
    ADAPTER_WEIGHTS,
    adapter_from_model,
    load_adapter_into,
)

from .tiny import random_adapter_model as peft_model


@pytest.fixture(scope="module", params=[False, True], ids=["lora", "dora"])
def adapters(request: pytest.FixtureRequest, lm_dir: Path) -> tuple[AdapterState, AdapterState]:
    """Two random adapters of one configuration (LoRA, then DoRA)."""
    dora = bool(request.param)
    return (
        adapter_from_model(peft_model(lm_dir, dora=dora, seed=1), calls=2, steps=30),
        adapter_from_model(peft_model(lm_dir, dora=dora, seed=2), calls=3, steps=45),
    )


def test_an_adapter_holds_the_peft_tensors_and_config(adapters: Any) -> None:
    a, _ = adapters
    magnitudes = [k for k in a.weights if k.endswith("lora_magnitude_vector")]
    assert len(magnitudes) == (14 if a.dora else 0)  # 7 linear layers x 2 blocks
    assert sum(k.endswith("lora_A.weight") for k in a.weights) == 14
    assert all(v.dtype == np.float32 for v in a.weights.values())
    assert a.config["r"] == 4 and a.config["use_dora"] is a.dora
    assert "AdapterState(DoRA" in repr(a) if a.dora else "AdapterState(LoRA" in repr(a)


def test_save_and_load_round_trip_exactly(adapters: Any, tmp_path: Path) -> None:
    a, _ = adapters
    folder = save_adapter(a, tmp_path / "adapter")
    assert sorted(p.name for p in folder.iterdir()) == [ADAPTER_CONFIG, ADAPTER_WEIGHTS]
    back = load_adapter(folder)
    assert set(back.weights) == set(a.weights)
    for key, value in a.weights.items():
        assert back.weights[key].dtype == value.dtype
        assert np.array_equal(back.weights[key], value), key
    assert back.config == a.config and (back.calls, back.steps) == (2, 30)
    # the arrays are copies: the folder can go
    for file in folder.iterdir():
        file.unlink()
    assert np.array_equal(back.weights[next(iter(a.weights))], a.weights[next(iter(a.weights))])


def test_a_saved_state_is_a_peft_adapter_folder(
    adapters: Any, lm_dir: Path, tmp_path: Path
) -> None:
    """PEFT itself loads the folder, to the same tensors."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    a, _ = adapters
    save_adapter(a, tmp_path / "adapter")
    model = PeftModel.from_pretrained(
        AutoModelForCausalLM.from_pretrained(lm_dir), tmp_path / "adapter"
    )
    again = adapter_from_model(model)
    for key, value in a.weights.items():
        assert np.array_equal(again.weights[key], value), key


def test_interpolation_is_exact_at_the_endpoints_and_linear_between(adapters: Any) -> None:
    a, b = adapters
    for t, want in ((0.0, a), (1.0, b)):
        mixed = interpolate_adapters(a, b, t)
        assert set(mixed.weights) == set(want.weights)
        for key, value in want.weights.items():
            assert np.array_equal(mixed.weights[key], value), (t, key)
        assert (mixed.calls, mixed.steps) == (want.calls, want.steps)
        assert mixed.weights[key] is not value  # a copy
    mid = interpolate_adapters(a, b, 0.25)
    for key in a.weights:  # DoRA's magnitude vectors too
        want64 = 0.75 * a.weights[key].astype(np.float64) + 0.25 * b.weights[key]
        np.testing.assert_allclose(mid.weights[key], want64, rtol=1e-6, atol=1e-7)
    assert (mid.calls, mid.steps) == (3, 45)


def test_interpolation_refuses_mismatched_adapters(lm_dir: Path) -> None:
    lora = adapter_from_model(peft_model(lm_dir, dora=False))
    dora = adapter_from_model(peft_model(lm_dir, dora=True))
    rank8 = adapter_from_model(peft_model(lm_dir, dora=False, rank=8))
    with pytest.raises(ValueError, match="use_dora"):
        interpolate_adapters(lora, dora, 0.5)
    with pytest.raises(ValueError, match="r 4 != 8"):
        interpolate_adapters(lora, rank8, 0.5)
    with pytest.raises(ValueError, match=r"t must lie in \[0, 1\]"):
        interpolate_adapters(lora, lora, 1.5)
    with pytest.raises(TypeError, match="state1 must be an AdapterState"):
        interpolate_adapters(lora, "folder", 0.5)  # type: ignore[arg-type]


def test_loading_into_a_model_sets_trainable_parameters(adapters: Any, lm_dir: Path) -> None:
    a, _ = adapters
    model = peft_model(lm_dir, dora=a.dora, seed=7)
    load_adapter_into(model, a)
    params = {n: p for n, p in model.named_parameters() if "lora_" in n}
    assert params and all(p.requires_grad for p in params.values())
    assert all(not p.requires_grad for n, p in model.named_parameters() if "lora_" not in n)
    again = adapter_from_model(model)
    for key, value in a.weights.items():
        assert np.array_equal(again.weights[key], value), key


def test_loading_an_adapter_of_another_rank_is_refused(lm_dir: Path) -> None:
    model = peft_model(lm_dir, dora=False, rank=4)
    with pytest.raises(ValueError, match=r"does not fit the solver's adapter.*r 8 != 4"):
        load_adapter_into(model, adapter_from_model(peft_model(lm_dir, dora=False, rank=8)))


def test_bad_states_and_folders_are_reported(tmp_path: Path) -> None:
    cfg = json.dumps({"peft_type": "LORA", "r": 1})
    with pytest.raises(TypeError, match="must hold floats"):
        AdapterState({"a": np.arange(3)}, cfg)
    with pytest.raises(ValueError, match="non-empty dict"):
        AdapterState({}, cfg)
    with pytest.raises(ValueError, match="not valid JSON"):
        AdapterState({"a": np.ones(2)}, "{r: 1")
    with pytest.raises(ValueError, match="calls must be an integer >= 0"):
        AdapterState({"a": np.ones(2)}, cfg, calls=-1)
    with pytest.raises(FileNotFoundError, match=r"has no adapter_model\.safetensors"):
        load_adapter(tmp_path)
