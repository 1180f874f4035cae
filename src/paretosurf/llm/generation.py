"""Sampling with the adapter merged into the base weights, for TRL's RLOO trainer.

With an unmerged LoRA or DoRA adapter every linear layer runs twice per generated token (the
base weight, then the adapter's low-rank path). Generation is most of an RL step's time, and
TRL generates with the adapter unmerged. :func:`merged_adapter` merges the adapter into the
base weights for the length of a ``with`` block and gives the base weights back bit for bit
afterwards: PEFT's ``unmerge_adapter`` subtracts the update again, which in bfloat16 does not
give back the weights it started from (every step would move the base model a little), so
the weights it overwrites are copied first and restored.

The policy sampled is the same; only its dropout differs: TRL samples in training mode, so an
unmerged adapter with ``lora_dropout > 0`` samples from a dropped-out adapter, while a merged
one samples from the adapter itself, the policy that is evaluated.

:func:`rloo_trainer_class` gives ``trl.RLOOTrainer`` or its subclass that generates this way,
and :func:`samples_merged` says whether a solver samples merged (training and evaluation alike).
TRL is imported only when it is called.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from paretosurf.llm.model_loading import is_quantized

__all__ = ["merged_adapter", "rloo_trainer_class", "samples_merged"]


@contextlib.contextmanager
def merged_adapter(peft_model: Any) -> Iterator[Any]:
    """Merge ``peft_model``'s active adapter into its base weights inside the block.

    On leaving (also on an exception) the adapter is unmerged and every base weight it changed
    is restored to the exact tensor it held before.

    Parameters
    ----------
    peft_model : peft.PeftModel
        A model with LoRA or DoRA adapters (any PEFT tuner whose layers merge).

    Yields
    ------
    peft.PeftModel
        The same model, its adapter merged.

    Examples
    --------
    ::

        with merged_adapter(model), torch.no_grad():
            ids = model.generate(**batch)   # one matmul per linear layer
    """
    from peft.tuners.tuners_utils import BaseTunerLayer

    layers: list[Any] = [
        m for m in peft_model.modules() if isinstance(m, BaseTunerLayer) and not m.merged
    ]
    saved = [m.get_base_layer().weight.detach().clone() for m in layers]
    peft_model.merge_adapter()
    try:
        yield peft_model
    finally:
        peft_model.unmerge_adapter()  # PEFT's bookkeeping (merged flags, DoRA norm caches)
        for layer, weight in zip(layers, saved, strict=True):
            layer.get_base_layer().weight.data.copy_(weight)


def samples_merged(merged_generation: bool, base_model: Any) -> bool:
    """Whether to sample with the adapter merged: as ``merged_generation`` (the solver's
    setting) says, but never into the quantized weights of ``base_model``."""
    return merged_generation and not is_quantized(base_model)


_CLASSES: dict[bool, type] = {}


def rloo_trainer_class(merged_generation: bool) -> type:
    """``trl.RLOOTrainer``, or (``merged_generation``) its subclass that generates with the
    adapter merged (:func:`merged_adapter`) when it generates with ``transformers``' own
    ``generate`` (not with vLLM, which has its own weights)."""
    from trl import RLOOTrainer

    if not merged_generation:
        return RLOOTrainer
    if True not in _CLASSES:

        class MergedGenerationRLOOTrainer(RLOOTrainer):
            """RLOO that samples with the adapter merged into the base weights."""

            def _generate_single_turn(
                self, prompt_ids: Any, images: Any, multimodal_fields: Any
            ) -> Any:
                model = self.accelerator.unwrap_model(self.model)
                if self.use_vllm or not hasattr(model, "merge_adapter"):
                    return super()._generate_single_turn(prompt_ids, images, multimodal_fields)
                with merged_adapter(model):
                    return super()._generate_single_turn(prompt_ids, images, multimodal_fields)

        _CLASSES[True] = MergedGenerationRLOOTrainer
    return _CLASSES[True]
