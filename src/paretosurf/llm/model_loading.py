"""The policy model of :class:`~paretosurf.llm.LLMSolver`: what a user may pass, and loading it.

A solver's ``model`` is a local model folder or a hub name (loaded once per process), or a model
object the user has loaded (a ``transformers`` ``PreTrainedModel``, used as it is). Loading by
name takes the base model's ``dtype``, ``attn_implementation`` and an optional 4-bit
quantization (QLoRA, through ``transformers.BitsAndBytesConfig`` and ``bitsandbytes``). The
adapter is a LoRA/DoRA configuration: the solver's keywords (``rank``, ``lora_alpha``, ...), or a
``peft.LoraConfig`` object. Prompts that are plain strings go through the tokenizer's chat
template when it has one (``chat_template="auto"``), as TRL treats conversational data.

Everything heavy (torch, transformers, peft) is imported when a function here is called.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "QLORA_4BIT",
    "as_chat",
    "check_attn_implementation",
    "check_chat_template",
    "check_model",
    "check_peft_config",
    "check_quantization",
    "is_model_object",
    "load_base_model",
    "load_tokenizer",
    "templated_prompts",
    "uses_chat_template",
]

#: The usual QLoRA quantization (``load_in_4bit=True``): NF4 weights, double quantization,
#: bfloat16 compute (Dettmers et al., 2023).
QLORA_4BIT: dict[str, Any] = {
    "load_in_4bit": True,
    "bnb_4bit_quant_type": "nf4",
    "bnb_4bit_use_double_quant": True,
    "bnb_4bit_compute_dtype": "bfloat16",
}
#: LoraConfig fields that the solver's adapter keywords set.
ADAPTER_KEYWORDS = ("adapter", "rank", "lora_alpha", "lora_dropout", "target_modules")


# ---------------------------------------------------------------------------- the model
def is_model_object(model: object) -> bool:
    """Whether ``model`` is a loaded model object (not a name or path)."""
    return not isinstance(model, (str, os.PathLike))


def check_model(model: object) -> Any:
    """A model folder or hub name (as a string), or a loaded causal LM object.

    Raises
    ------
    TypeError
        If ``model`` is neither, or is a ``peft.PeftModel`` (pass its base model, and its
        adapter as the warm start: :func:`~paretosurf.llm.adapter_state.adapter_from_model`).
    """
    if isinstance(model, os.PathLike):
        model = os.fspath(model)
    if isinstance(model, str):
        if not model.strip():
            raise TypeError(
                "model must be a model folder or a hub name (a non-empty string "
                "or path), or a loaded transformers model, got ''"
            )
        return model
    if hasattr(model, "peft_config") and hasattr(model, "get_base_model"):
        raise TypeError(
            "model is a peft.PeftModel; pass its base model (model.get_base_model(), or the "
            "folder it was loaded from) and its adapter as the warm start "
            "(paretosurf.llm.adapter_state.adapter_from_model(model)), or merge it first "
            "(model.merge_and_unload())"
        )
    is_module = any(
        c.__module__.startswith("torch.nn") and c.__name__ == "Module" for c in type(model).__mro__
    )
    if not (is_module and hasattr(model, "config") and hasattr(model, "generate")):
        raise TypeError(
            f"model must be a model folder, a hub name or a loaded transformers "
            f"causal LM (a PreTrainedModel with generate), got "
            f"{type(model).__name__}"
        )
    return model


def model_label(model: object) -> str:
    """A short name of a model for messages and keys: the string, or an object's class and
    ``name_or_path``."""
    if isinstance(model, str):
        return model
    name = getattr(getattr(model, "config", None), "_name_or_path", "") or ""
    return f"{type(model).__name__}({name!r})" if name else type(model).__name__


def check_attn_implementation(value: object) -> str | None:
    """``None`` (transformers' default) or a non-empty attention implementation name
    (``"eager"``, ``"sdpa"``, ``"flash_attention_2"``, ...)."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise TypeError(
            f"attn_implementation must be a name such as 'eager', 'sdpa' or "
            f"'flash_attention_2' (or None), got {value!r}"
        )
    return value


def check_quantization(quantization_config: object, load_in_4bit: object) -> dict[str, Any] | None:
    """The base model's quantization as a plain dict (which pickles and goes in a config
    file), or ``None``.

    Parameters
    ----------
    quantization_config : transformers.BitsAndBytesConfig, mapping or None
        The quantization, as an object or its fields.
    load_in_4bit : bool
        Shorthand for :data:`QLORA_4BIT` (the usual QLoRA settings).

    Raises
    ------
    TypeError, ValueError
        On a bad value, or both given.
    ImportError
        If ``bitsandbytes`` is not installed.
    """
    if not isinstance(load_in_4bit, bool):
        raise TypeError(f"load_in_4bit must be a bool, got {load_in_4bit!r}")
    if quantization_config is None and not load_in_4bit:
        return None
    if quantization_config is not None and load_in_4bit:
        raise ValueError(
            "give either load_in_4bit=True (the usual QLoRA settings) or a "
            "quantization_config, not both"
        )
    if load_in_4bit:
        spec: dict[str, Any] = dict(QLORA_4BIT)
    elif isinstance(quantization_config, Mapping):
        spec = {str(k): v for k, v in quantization_config.items()}
    elif hasattr(quantization_config, "to_dict") and hasattr(quantization_config, "quant_method"):
        spec = dict(quantization_config.to_dict())
    else:
        raise TypeError(
            "quantization_config must be a transformers.BitsAndBytesConfig or a "
            f"mapping of its fields, got {type(quantization_config).__name__}"
        )
    if not (spec.get("load_in_4bit") or spec.get("load_in_8bit")):
        raise ValueError(
            f"quantization_config must set load_in_4bit (QLoRA) or load_in_8bit, got {sorted(spec)}"
        )
    if importlib.util.find_spec("bitsandbytes") is None:
        raise ImportError(
            "a quantized base model (load_in_4bit, quantization_config) needs "
            "bitsandbytes, which is not installed: pip install bitsandbytes"
        )
    for key, value in list(spec.items()):  # torch dtypes as names: JSON and pickle friendly
        if type(value).__name__ == "dtype" and type(value).__module__ == "torch":
            spec[key] = str(value).removeprefix("torch.")
    return spec


def _bnb_config(spec: Mapping[str, Any]) -> Any:
    from transformers import BitsAndBytesConfig

    return BitsAndBytesConfig.from_dict(dict(spec))


def load_base_model(
    model: str,
    *,
    device: str,
    dtype: str,
    trust_remote_code: bool,
    attn_implementation: str | None = None,
    quantization: Mapping[str, Any] | None = None,
) -> Any:
    """Load the causal LM ``model`` (a folder or hub name) onto ``device``, frozen, in eval
    mode.

    Raises
    ------
    OSError
        If it cannot be loaded (naming the model and whether the hub is offline).
    """
    import torch
    from transformers import AutoModelForCausalLM

    if device.startswith("cuda:"):
        torch.cuda.set_device(int(device.split(":")[1]))
    kwargs: dict[str, Any] = {
        "dtype": dtype if dtype == "auto" else getattr(torch, dtype),
        "trust_remote_code": trust_remote_code,
    }
    if attn_implementation is not None:
        kwargs["attn_implementation"] = attn_implementation
    if quantization is not None:
        kwargs["quantization_config"] = _bnb_config(quantization)
        kwargs["device_map"] = {"": device}  # quantized weights are placed while loading
    loader: Any = AutoModelForCausalLM
    try:
        loaded = loader.from_pretrained(model, **kwargs)
    except (OSError, ValueError) as exc:
        offline = " (HF_HUB_OFFLINE is set)" if os.environ.get("HF_HUB_OFFLINE") else ""
        raise OSError(
            f"could not load the model {model!r}: it must be a local model "
            f"folder or, online, a model name on the Hugging Face hub{offline}: "
            f"{exc}"
        ) from exc
    if quantization is None:
        loaded.to(device)
    return freeze(loaded)


def freeze(model: Any) -> Any:
    """Put ``model`` in eval mode with every parameter frozen; returns it."""
    model.eval()
    for param in model.parameters():
        param.requires_grad_(False)
    return model


def is_quantized(model: Any) -> bool:
    """Whether a loaded model's weights are quantized (bitsandbytes 4- or 8-bit)."""
    return bool(
        getattr(model, "is_loaded_in_4bit", False)
        or getattr(model, "is_loaded_in_8bit", False)
        or getattr(model, "is_quantized", False)
    )


# ---------------------------------------------------------------------------- the tokenizer
def load_tokenizer(src: str, *, trust_remote_code: bool) -> Any:
    """The tokenizer of a folder or hub name: ``PreTrainedTokenizerFast`` when the folder's
    ``tokenizer_config.json`` declares a plain fast tokenizer, else ``AutoTokenizer``.

    Raises
    ------
    OSError
        If it cannot be loaded.
    """
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    declared = None
    config = Path(src) / "tokenizer_config.json"
    if config.is_file():
        with contextlib.suppress(ValueError, OSError):
            declared = json.loads(config.read_text()).get("tokenizer_class")
    try:
        if (
            declared in ("PreTrainedTokenizerFast", "TokenizersBackend")
            and (Path(src) / "tokenizer.json").is_file()
        ):
            return PreTrainedTokenizerFast.from_pretrained(src)
        return AutoTokenizer.from_pretrained(src, trust_remote_code=trust_remote_code)
    except (OSError, ValueError) as exc:
        raise OSError(f"could not load the tokenizer {src!r}: {exc}") from exc


def tokenizer_source(model: object, tokenizer: object) -> Any:
    """Where the tokenizer comes from: ``tokenizer`` if given, else the model's name or
    folder (for a model object, its ``config._name_or_path`` when that is a folder).

    Raises
    ------
    ValueError
        For a model object without a tokenizer folder to read.
    """
    if tokenizer is not None:
        return tokenizer
    if isinstance(model, str):
        return model
    name = getattr(getattr(model, "config", None), "_name_or_path", "") or ""
    if name and Path(name).is_dir():
        return name
    raise ValueError(
        f"model is a loaded {type(model).__name__} whose tokenizer cannot be "
        f"found ({'no' if not name else repr(name) + ' is no'} local folder): "
        "pass tokenizer= (a tokenizer object or folder)"
    )


# ---------------------------------------------------------------------------- the adapter
def check_peft_config(peft_config: object) -> Any:
    """A ``peft.LoraConfig`` for a causal LM (a copy; a mapping of its fields is made one).

    Raises
    ------
    TypeError
        If it is not a LoraConfig (the solver's states are LoRA/DoRA adapters).
    ValueError
        If its ``task_type`` is not ``CAUSAL_LM``.
    """
    from peft import LoraConfig

    if isinstance(peft_config, Mapping):
        try:
            config = LoraConfig(**{str(k): v for k, v in peft_config.items()})
        except TypeError as exc:
            raise TypeError(f"peft_config: {exc}") from None
    elif isinstance(peft_config, LoraConfig):
        config = copy.deepcopy(peft_config)
    else:
        raise TypeError(
            "peft_config must be a peft.LoraConfig (or a mapping of its fields): "
            "the solver trains LoRA or DoRA adapters, got "
            f"{type(peft_config).__name__}"
        )
    task = getattr(config.task_type, "value", config.task_type)
    if task is None:
        config.task_type = "CAUSAL_LM"
    elif task != "CAUSAL_LM":
        raise ValueError(f"peft_config.task_type must be 'CAUSAL_LM' (or None), got {task!r}")
    return config


# ---------------------------------------------------------------------------- chat templates
def check_chat_template(value: object) -> bool | str:
    """``True``, ``False`` or ``"auto"``."""
    if value is True or value is False or value == "auto":
        return value if isinstance(value, bool) else "auto"
    raise ValueError(f"chat_template must be True, False or 'auto', got {value!r}")


def uses_chat_template(tokenizer: Any, option: bool | str) -> bool:
    """Whether string prompts go through ``tokenizer``'s chat template: always with ``True``
    (an error if it has none), never with ``False``, when it has one with ``"auto"``.

    Raises
    ------
    ValueError
        With ``True`` and a tokenizer without a chat template.
    """
    has = bool(getattr(tokenizer, "chat_template", None))
    if option is True and not has:
        raise ValueError(
            "chat_template=True, but the tokenizer has no chat template (set "
            "tokenizer.chat_template, or chat_template='auto' or False)"
        )
    return has and option is not False


def as_chat(prompt: Any) -> Any:
    """A string prompt as a one-message conversation (the user's turn); conversations are
    returned as they are."""
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}]
    return prompt


def templated_prompts(prompts: list[Any], tokenizer: Any, chat_template: bool | str) -> list[Any]:
    """``prompts`` (strings, conversations, or rows: dicts with a ``"prompt"``) with their
    string prompts made user turns (:func:`as_chat`) when the chat template applies
    (:func:`uses_chat_template`; never without a tokenizer), else ``prompts`` themselves.

    Examples
    --------
    >>> class Chat:
    ...     chat_template = "{{ messages }}"
    >>> templated_prompts(["hi", {"prompt": "yo", "id": 3}], Chat(), "auto")
    [[{'role': 'user', 'content': 'hi'}], {'prompt': [{'role': 'user', 'content': 'yo'}], 'id': 3}]
    >>> templated_prompts(["hi"], Chat(), False)
    ['hi']
    """
    if tokenizer is None or not uses_chat_template(tokenizer, chat_template):
        return prompts
    return [
        {**p, "prompt": as_chat(p["prompt"])} if isinstance(p, dict) else as_chat(p)
        for p in prompts
    ]
