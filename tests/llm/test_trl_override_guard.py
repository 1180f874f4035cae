"""A guard on the private TRL method the library overrides.

Merged generation (:func:`paretosurf.llm.generation.rloo_trainer_class`) subclasses
``trl.RLOOTrainer`` and overrides its private ``_generate_single_turn(self, prompt_ids,
images, multimodal_fields)``, reading ``self.use_vllm``. TRL may rename, remove or change it
in any release; these tests fail when it does, instead of training silently unmerged (the
override never called) or crashing mid-run.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

trl = pytest.importorskip("trl")

from paretosurf.llm import generation  # noqa: E402

#: The overridden method and the parameters it has in TRL (checked with TRL 1.16).
METHOD = "_generate_single_turn"
PARAMETERS = ("self", "prompt_ids", "images", "multimodal_fields")


def parameters(func: Any) -> list[tuple[str, Any, Any]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(func).parameters.values()]


def test_trl_still_has_the_overridden_method_with_its_signature() -> None:
    base = trl.RLOOTrainer
    assert METHOD in vars(base), (
        f"trl.RLOOTrainer no longer defines {METHOD}: update MergedGenerationRLOOTrainer "
        "in paretosurf/llm/generation.py"
    )
    found = parameters(getattr(base, METHOD))
    assert [name for name, _, _ in found] == list(PARAMETERS), found
    assert all(kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for _, kind, _ in found)
    assert all(default is inspect.Parameter.empty for _, _, default in found)


def test_the_override_has_the_signature_of_trls_method() -> None:
    merged = generation.rloo_trainer_class(True)
    assert METHOD in vars(merged)  # overridden, not inherited
    assert [(n, k) for n, k, _ in parameters(getattr(merged, METHOD))] == [
        (n, k) for n, k, _ in parameters(getattr(trl.RLOOTrainer, METHOD))
    ]


def test_trl_generates_through_the_method_and_sets_use_vllm() -> None:
    # the trainer's generation calls the method by name with these arguments, and its
    # constructor sets the flag the override reads
    generate = inspect.getsource(trl.RLOOTrainer._generate)
    assert f"self.{METHOD}(prompt_ids, images, multimodal_fields)" in generate
    assert "self.use_vllm =" in inspect.getsource(trl.RLOOTrainer.__init__)


def test_a_training_step_goes_through_the_override(
    fast_solver: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One optimizer step of one generation round: the override runs once, merged, and
    hands TRL completions it trains on."""
    calls: list[tuple[str, ...]] = []
    merged = generation.rloo_trainer_class(True)
    real = vars(merged)[METHOD]

    def spy(self: Any, prompt_ids: Any, images: Any, multimodal_fields: Any) -> Any:
        calls.append((type(self).__name__, str(self.use_vllm)))
        return real(self, prompt_ids, images, multimodal_fields)

    entered: list[bool] = []
    merging = generation.merged_adapter

    def counting(model: Any) -> Any:
        entered.append(True)
        return merging(model)

    monkeypatch.setattr(merged, METHOD, spy)
    monkeypatch.setattr(generation, "merged_adapter", counting)
    sol = fast_solver(steps=1, workdir=tmp_path / "work").solve(0.5, None)
    assert sol.info["steps"] == 1
    assert calls == [("MergedGenerationRLOOTrainer", "False")]
    assert entered == [True]
