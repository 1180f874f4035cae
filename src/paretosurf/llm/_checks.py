"""Checks of :class:`~paretosurf.llm.LLMSolver`'s inputs: numbers in a range, prompts, the two
reward functions, the device and the dtype."""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from paretosurf.llm.reward_inputs import adapt_reward

#: The base model's dtypes the solver accepts (by name, or as a torch dtype).
_DTYPES = ("float32", "bfloat16", "float16", "auto")


def _check_real(
    value: object,
    *,
    name: str,
    low: float,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    out = float(value)
    ok = math.isfinite(out) and (out > low if low_open else out >= low)
    if high is not None:
        ok = ok and (out < high if high_open else out <= high)
    if not ok:
        lo = "(" if low_open else "["
        hi = "inf)" if high is None else (f"{high})" if high_open else f"{high}]")
        raise ValueError(f"{name} must lie in {lo}{low}, {hi}, got {out}")
    return out


def _is_conversation(prompt: object) -> bool:
    return (
        isinstance(prompt, Sequence)
        and not isinstance(prompt, str)
        and len(prompt) > 0
        and all(isinstance(m, Mapping) and "role" in m and "content" in m for m in prompt)
    )


def _check_prompts(prompts: object, *, name: str) -> Any:
    """Prompts as a list of strings (or conversations), or a ``datasets.Dataset`` with a
    "prompt" column; returns a list: of the strings, or of the dataset's rows as plain dicts
    (a live Arrow dataset does not unpickle in a worker process)."""
    if hasattr(prompts, "column_names") and hasattr(prompts, "select"):
        from paretosurf.llm.prompts import prompt_records

        data: Any = prompts
        columns = list(data.column_names)
        if "prompt" not in columns:
            raise ValueError(f"{name} is a dataset without a 'prompt' column (columns: {columns})")
        if len(data) == 0:
            raise ValueError(f"{name} holds no prompts")
        return prompt_records(data)
    if isinstance(prompts, (str, bytes)) or not isinstance(prompts, Sequence):
        raise TypeError(
            f"{name} must be a list of strings or a datasets.Dataset with a "
            f"'prompt' column, got {type(prompts).__name__}"
        )
    out = list(prompts)
    if not out:
        raise ValueError(f"{name} holds no prompts")
    for i, p in enumerate(out):
        if isinstance(p, str):
            if not p.strip():
                raise ValueError(f"{name}[{i}] is an empty prompt")
        elif not _is_conversation(p):
            raise TypeError(
                f"{name}[{i}] must be a string (or a conversation: a list of "
                f"{{'role', 'content'}} messages), got {type(p).__name__}"
            )
    return out


def _check_rewards(rewards: object) -> tuple[Callable[..., Any], Callable[..., Any]]:
    if isinstance(rewards, (str, bytes)) or not isinstance(rewards, Sequence):
        raise TypeError(
            "rewards must be a sequence of two reward functions "
            "f(prompts, completions, **kwargs) -> list[float], got "
            f"{type(rewards).__name__}"
        )
    funcs = list(rewards)
    if len(funcs) != 2:
        raise ValueError(
            f"rewards must hold exactly two reward functions (r1, r2), got {len(funcs)}"
        )
    for i, f in enumerate(funcs):
        if isinstance(f, (str, os.PathLike)) or not callable(f):
            raise TypeError(
                f"rewards[{i}] must be a callable f(prompts, completions, **kwargs) -> "
                f"list[float], got {type(f).__name__}; wrap a reward model in a function or "
                "a reward-model object"
            )
        if any(
            c.__module__.startswith("torch.nn") and c.__name__ == "Module" for c in type(f).__mro__
        ):
            raise TypeError(
                f"rewards[{i}] is a torch module ({type(f).__name__}); pass a callable with "
                "TRL's reward signature f(prompts, completions, **kwargs) -> list[float] that "
                "scores texts with it"
            )
    # a reward written for strings gets strings under a chat template (reward_inputs)
    return adapt_reward(funcs[0]), adapt_reward(funcs[1])


def _check_device(device: object) -> str | None:
    if device is None:
        return None
    text = str(device)
    kind, _, index = text.partition(":")
    if kind not in ("cpu", "cuda", "mps", "xpu") or (index and not index.isdigit()):
        raise ValueError(
            f"device must be 'cpu', 'cuda', 'cuda:N', 'mps' or 'xpu' (or None: "
            f"CUDA when available), got {device!r}"
        )
    return text


def _check_dtype(dtype: object) -> str:
    if dtype is None:
        return "float32"
    text = str(dtype).removeprefix("torch.")
    if text not in _DTYPES:
        raise ValueError(
            f"dtype must be one of {', '.join(_DTYPES)} (or a torch dtype), got {dtype!r}"
        )
    return text
