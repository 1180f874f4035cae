"""Adapter files are byte-stable: equal adapters give equal files, whatever order safetensors
writes its metadata in, and two identical solves (same seed) write identical adapter folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paretosurf.llm.adapter_state import (
    ADAPTER_CONFIG,
    ADAPTER_WEIGHTS,
    AdapterState,
    canonical_safetensors,
    load_adapter,
    save_adapter,
)

CONFIG = json.dumps({"peft_type": "LORA", "r": 2, "lora_alpha": 4}, indent=2, sort_keys=True)


def state() -> AdapterState:
    rng = np.random.default_rng(0)
    return AdapterState(
        {
            f"layers.{i}.q_proj.lora_{ab}.weight": rng.normal(size=(2, 3))
            for i in range(3)
            for ab in "AB"
        },
        CONFIG,
        calls=4,
        steps=64,
    )


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_saving_the_same_adapter_twenty_times_writes_the_same_bytes(tmp_path: Path) -> None:
    # safetensors' metadata comes from a hash map: unsorted, its order changed between calls
    # (3 keys: 6 orders); before the fix 20 saves gave several different files
    st = state()
    saved = {
        tuple(folder_bytes(save_adapter(st, tmp_path / f"copy-{i}")).items()) for i in range(20)
    }
    assert len(saved) == 1
    files = dict(saved.pop())
    assert set(files) == {ADAPTER_WEIGHTS, ADAPTER_CONFIG}
    size = int.from_bytes(files[ADAPTER_WEIGHTS][:8], "little")
    header = json.loads(files[ADAPTER_WEIGHTS][8 : 8 + size])
    assert list(header["__metadata__"]) == sorted(header["__metadata__"])
    assert (8 + size) % 8 == 0  # the data stays aligned as safetensors aligns it


def test_the_canonical_file_reads_back_exactly(tmp_path: Path) -> None:
    st = state()
    back = load_adapter(save_adapter(st, tmp_path / "a"))
    assert back.calls == 4 and back.steps == 64 and back.config_json == CONFIG
    assert all(np.array_equal(back.weights[k], v) for k, v in st.weights.items())
    from safetensors import safe_open

    with safe_open(str(tmp_path / "a" / ADAPTER_WEIGHTS), framework="numpy") as f:
        assert f.metadata()["format"] == "pt"  # what transformers and PEFT look for


def test_canonical_bytes_are_a_fixed_point_and_bad_files_are_refused() -> None:
    import safetensors.numpy

    data = safetensors.numpy.save({"w": np.ones(3, np.float32)}, metadata={"z": "1", "a": "2"})
    once = canonical_safetensors(data)
    assert canonical_safetensors(once) == once
    assert canonical_safetensors(safetensors.numpy.save({"w": np.ones(3, np.float32)})) == (
        canonical_safetensors(safetensors.numpy.save({"w": np.ones(3, np.float32)}))
    )
    with pytest.raises(ValueError, match="not a safetensors file"):
        canonical_safetensors(b"\x02\x00\x00\x00\x00\x00\x00\x00[]")
    with pytest.raises(ValueError, match="not a safetensors file"):
        canonical_safetensors(b"abc")


def test_peft_loads_the_canonical_file(lm_dir: Path, tmp_path: Path) -> None:
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from paretosurf.llm.adapter_state import adapter_from_model

    from .tiny import random_adapter_model

    st = adapter_from_model(random_adapter_model(lm_dir, dora=False))
    save_adapter(st, tmp_path / "adapter")
    model = PeftModel.from_pretrained(
        AutoModelForCausalLM.from_pretrained(lm_dir), tmp_path / "adapter"
    )
    back = adapter_from_model(model)
    assert all(np.array_equal(back.weights[k], v) for k, v in st.weights.items())


def test_two_identical_solves_write_identical_adapter_folders(
    fast_solver: Any, tmp_path: Path
) -> None:
    folders = []
    for run in ("first", "second"):
        solver = fast_solver(steps=1, workdir=tmp_path / run / "work")
        sol = solver.solve(0.5, None)
        solver.save_state(sol.state, tmp_path / run / "adapter")
        folders.append(folder_bytes(tmp_path / run / "adapter"))
    assert folders[0] == folders[1]
