"""The base models and tokenizers a process has loaded, lent to one solve at a time.

Every :class:`~paretosurf.llm.LLMSolver` of a process reuses them: a call borrows the base
model (a ``_Base``), wraps it in PEFT and TRL, and afterwards ``_strip`` removes what they
added and checks that the model is as it was lent; only then does it go back into the cache.
:func:`clear_model_cache` forgets them.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from typing import Any

from paretosurf.llm import model_loading

__all__ = ["clear_model_cache"]


@dataclass
class _Base:
    """A base model loaded in this process, with what lending it must leave unchanged."""

    model: Any
    keys: tuple[str, ...]
    hooks: int


#: Base models loaded in this process, by (model, dtype, device, trust_remote_code,
#: attn_implementation, quantization): every solver of the process reuses them (each call
#: borrows one and hands it back unchanged).
_BASES: dict[tuple[Any, ...], _Base] = {}
_TOKENIZERS: dict[tuple[str, bool], Any] = {}


def clear_model_cache() -> None:
    """Forget the base models and tokenizers this process has loaded (the next solve loads
    them again)."""
    _BASES.clear()
    _TOKENIZERS.clear()
    gc.collect()


def _count_hooks(model: Any) -> int:
    return sum(
        len(m._forward_hooks) + len(m._forward_pre_hooks) + len(m._backward_hooks)
        for m in model.modules()
    )


def _strip(base: _Base, peft_model: Any) -> bool:
    """Undo what wrapping ``base.model`` in PEFT and training it with TRL changed: remove the
    adapter layers, TRL's fused-LM-head forward, input-gradient hooks and gradient
    checkpointing. Returns whether the model is as it was lent (else it is not reused)."""
    from peft.tuners.tuners_utils import BaseTunerLayer

    model = base.model
    if peft_model is not None:
        model = peft_model.unload()
    if model is not base.model:
        return False
    model.__dict__.pop("forward", None)  # TRL's add_fused_lm_head patches the instance
    for module in model.modules():
        for hooks in (module._forward_hooks, module._forward_pre_hooks):
            for key, fn in list(hooks.items()):
                if getattr(fn, "__name__", "") == "make_inputs_require_grads":
                    del hooks[key]
    if hasattr(model, "_require_grads_hooks"):
        model._require_grads_hooks = []
    model.__dict__.pop("_require_grads_hook", None)
    if hasattr(model, "is_activation_checkpointing"):  # transformers >= 5.x
        if model.is_activation_checkpointing:
            model.activation_checkpointing_disable()
    elif getattr(model, "is_gradient_checkpointing", False):
        model.gradient_checkpointing_disable()
    model.eval()
    for param in model.parameters():
        param.requires_grad_(False)
        param.grad = None
    return (
        not any(isinstance(m, BaseTunerLayer) for m in model.modules())
        and tuple(model.state_dict()) == base.keys
        and _count_hooks(model) == base.hooks
    )


def _adopt(model: Any) -> _Base:
    """A caller's model object as a base model to lend: frozen, in eval mode."""
    model_loading.freeze(model)
    return _Base(model, tuple(model.state_dict()), _count_hooks(model))


@dataclass
class _Session:
    """The base model and tokenizer lent to one call; ``peft`` is the PEFT model built on it."""

    base: _Base
    tokenizer: Any
    device: str
    peft: Any = None
    notes: dict[str, float] = field(default_factory=dict)
