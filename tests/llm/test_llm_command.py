"""``paretosurf llm --config FILE`` end to end on the CPU: a tiny random policy loaded by folder
name with ``HF_HUB_OFFLINE=1``, two learnable word-count rewards, prompts from a JSONL file;
the warm start, Uniform-w, SURF (N = 2, 2 rounds, endpoints reused) and Soup, then a resume."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paretosurf.storage._run_folder import RunFolder

from .tiny import synthetic_texts

CONFIG = """
model = "{model}"
out = "{out}"
torch_threads = 1

[[rewards]]
kind = "word_count"
word = "apple"

[[rewards]]
kind = "word_count"
word = "berry"

[prompts]
source = "{prompts}"
n = 16
eval_n = 16
min_chars = 0
template = "{{post}}"

[solver]
epochs = 1
beta = 0.05
rank = 8
lora_alpha = 16
lora_dropout = 0.0
learning_rate = 0.05
batch_size = 16
mini_batch_size = 8
num_generations = 4
min_new_tokens = 6
max_new_tokens = 12
eval_batches = 2
eval_batch_size = 8
device = "cpu"

[protocol]
n_segments = 2
warm_epochs = 1
uniform_epochs = 3
surf_init_epoch = 1
surf_rounds = 2
"""


def paretosurf_llm(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    return subprocess.run(
        [sys.executable, "-m", "paretosurf.cli", "llm", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def finished_run(
    learnable_lm_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("llm-command")
    prompts = root / "posts.jsonl"
    with prompts.open("w") as f:
        for text in synthetic_texts(64, seed=3):
            f.write(json.dumps({"post": " ".join(text.split()[:6])}) + "\n")
    config = root / "tiny.toml"
    config.write_text(CONFIG.format(model=learnable_lm_dir, out=root / "run", prompts=prompts))
    return root, config, paretosurf_llm("--config", str(config), cwd=root)


def solves_logged(run: Path, stage: str) -> list[float]:
    """The weights of the stage's logged solves."""
    return [entry["weight"] for entry in RunFolder(run / stage).solves()]


def test_the_protocol_runs_from_a_config(finished_run) -> None:
    root, _, done = finished_run
    assert done.returncode == 0, done.stderr[-3000:]
    run = root / "run"
    for name in ("table.md", "results.json", "front.png", "training.png"):
        assert (run / name).is_file(), name
    assert done.stdout.strip() == (run / "table.md").read_text().strip()
    # each solve's plan is said at its start (the solver's INFO lines, shown by the command)
    assert re.search(
        r"solve \S+: \d+ optimizer steps, (no checkpoints|a checkpoint every)", done.stderr
    ), done.stderr[-2000:]
    assert "training curves: " in done.stderr
    results = json.loads((run / "results.json").read_text())
    methods = results["methods"]
    assert set(methods) == {"Uniform-w", "SURF", "Soup"}
    for label, entry in methods.items():
        assert entry["weights"][0] == 0.0 and entry["weights"][-1] == 1.0, label
        assert np.asarray(entry["points"]).shape == (3, 2), label
        for slot in range(3):  # every final adapter is kept, in PEFT's format
            folder = run / "adapters" / label / f"slot-{slot:02d}"
            assert (folder / "adapter_config.json").is_file(), folder
            assert (folder / "adapter_model.safetensors").is_file(), folder
        scores = entry["scores"]["with KL"]["cv"]
        assert scores["std"] >= 0 and np.isfinite(scores["mean"])
    # one warm epoch, Uniform-w's 3 weights x 3 epochs, SURF's interior slot x 2 rounds (its
    # endpoints are Uniform-w's, evaluated but not trained again)
    assert (run / "warm" / "epoch-001").is_dir()
    assert solves_logged(run, "uniform") == [0.0, 0.5, 1.0] * 3
    assert sum(0 < w < 1 for w in solves_logged(run, "surf")) == 2
    # SURF and Soup share Uniform-w's finished endpoints
    uniform, surf, soup = (np.asarray(methods[m]["points"]) for m in ("Uniform-w", "SURF", "Soup"))
    np.testing.assert_allclose(surf[[0, -1]], uniform[[0, -1]])
    np.testing.assert_allclose(soup[[0, -1]], uniform[[0, -1]])
    # objectives are negated rewards: the w = 1 policy says "apple" more than the w = 0 one
    assert uniform[-1, 0] < uniform[0, 0] and uniform[0, 1] < uniform[-1, 1]


def test_running_again_resumes_without_training(finished_run) -> None:
    root, config, done = finished_run
    assert done.returncode == 0, done.stderr[-3000:]
    run = root / "run"
    before = (
        [solves_logged(run, stage) for stage in ("uniform", "surf")],
        (run / "results.json").read_text(),
    )
    again = paretosurf_llm("--config", str(config), cwd=root)
    assert again.returncode == 0, again.stderr[-3000:]
    assert (
        [solves_logged(run, stage) for stage in ("uniform", "surf")],
        (run / "results.json").read_text(),
    ) == before


def test_plan_prints_the_budget_and_bad_configs_are_usage_errors(finished_run) -> None:
    root, config, _ = finished_run
    plan = paretosurf_llm("--config", str(config), "--plan", cwd=root)
    assert plan.returncode == 0
    assert (
        "warm start 1, Uniform-w 9, SURF 1 (+ 1 reused from Uniform-w's epoch 2), Soup 0 "
        "(total 11 trained)"
    ) in plan.stderr
    bad = root / "bad.toml"
    bad.write_text(config.read_text().replace('source = "', 'source = "missing-'))
    failed = paretosurf_llm("--config", str(bad), cwd=root)
    assert failed.returncode == 2
    assert "paretosurf llm: error:" in failed.stderr and "missing-" in failed.stderr
