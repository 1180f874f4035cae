"""``benchmarks/bench_llm.py``'s summary of interleaved turns: the ratio to plain TRL at its
best is the median over the repeats of each repeat's own ratio (turns of one repeat compared
with each other, never the pooled medians), failed turns are counted and left out, and TRL's
levers name what this machine cannot use."""

from __future__ import annotations

import importlib
import statistics
import sys
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def bench_llm(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    module = importlib.import_module("bench_llm")
    yield module
    sys.modules.pop("bench_llm", None)


def turn(variant: str, repeat: int, s_per_step: float, **extra: Any) -> dict[str, Any]:
    return {
        "variant": variant,
        "adapter": "lora",
        "repeat": repeat,
        "device": "cpu",
        "s_per_step": s_per_step,
        "setup_s": 10.0 + repeat,
        "warmup_s": 1.0,
        "eval_s": 0.5,
        "peak_gib": 1.0,
        "levers": ["its defaults"],
        **extra,
    }


def test_the_ratio_is_the_median_of_the_repeats_ratios(bench_llm: Any) -> None:
    # a machine that slows down over the run: the pooled medians would say 1.5 / 1.0 = 1.5,
    # each repeat says 2.0 (ours is twice as fast within every repeat)
    best = [1.0, 1.5, 3.0]
    ours = [0.5, 0.75, 1.5]
    rows = [turn("trl-best", r, best[r]) for r in range(3)]
    rows += [turn("paretosurf", r, ours[r]) for r in range(3)]
    summary = {s["variant"]: s for s in bench_llm.summarize(rows)}
    assert summary["trl-best"]["ratio"] == pytest.approx(1.0)
    assert summary["paretosurf"]["ratio"] == pytest.approx(2.0)
    assert summary["paretosurf"]["s_per_step"] == statistics.median(ours)
    assert summary["paretosurf"]["s_per_step_range"] == [0.5, 1.5]
    assert summary["paretosurf"]["setup_s"] == statistics.median([10.0, 11.0, 12.0])


def test_failed_turns_are_counted_and_left_out(bench_llm: Any) -> None:
    rows = [turn("trl-best", r, 1.0) for r in range(3)]
    rows += [
        turn("paretosurf", 0, 0.5),
        {"variant": "paretosurf", "adapter": "lora", "repeat": 1, "error": "boom"},
    ]
    rows += [{"variant": "trl-defaults", "adapter": "lora", "repeat": 0, "error": "out of memory"}]
    summary = {s["variant"]: s for s in bench_llm.summarize(rows)}
    assert summary["paretosurf"]["turns"] == 1 and summary["paretosurf"]["failed_turns"] == 1
    assert summary["paretosurf"]["ratio"] == pytest.approx(2.0)
    assert summary["trl-defaults"]["error"] == "out of memory"


def test_trl_levers_on_a_cpu_say_why_they_are_off(bench_llm: Any) -> None:
    pytest.importorskip("torch")
    fields, notes = bench_llm.best_levers("cpu")
    assert fields["gradient_checkpointing"] is False and fields["bf16"] is False
    assert "use_vllm" not in fields and "use_liger_kernel" not in fields
    assert any("vLLM off" in n for n in notes) and any("Liger kernels off" in n for n in notes)
