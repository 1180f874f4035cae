"""Rewards written for strings get strings, rewards written for messages get messages: the
chat template turns prompts into message lists, and each reward receives what its
annotations (or a :func:`text_inputs` mark) say it takes, in training and in evaluation."""

from __future__ import annotations

import asyncio
import copy
import functools
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from paretosurf.llm.reward_inputs import (
    AsyncTextInputs,
    TextInputs,
    adapt_reward,
    message_text,
    text_arguments,
    text_inputs,
)
from paretosurf.llm.rewards import WordCount, reward_name

PROMPT = [{"role": "user", "content": "tell me about fruit"}]
COMPLETION = [{"role": "assistant", "content": "apple berry"}]


def text_reward(prompts: list[str], completions: list[str], **kwargs: Any) -> list[float]:
    assert all(isinstance(p, str) for p in prompts), prompts
    assert all(isinstance(c, str) for c in completions), completions
    return [float(len(c.split())) for c in completions]


def sequence_reward(prompts, completions: Sequence[str], **kwargs):  # type: ignore[no-untyped-def]
    return [float(isinstance(c, str)) for c in completions]


def message_reward(
    prompts: list[list[dict[str, str]]], completions: list[list[dict[str, str]]], **kwargs: Any
) -> list[float]:
    return [float(len(c[0]["content"].split())) for c in completions]


def plain(prompts, completions, **kwargs):  # type: ignore[no-untyped-def]
    return [float(isinstance(c, str)) for c in completions]


class Shouting:
    def __call__(self, prompts: list[str], completions: list[str], **kwargs: Any) -> list[float]:
        return [float(c.isupper()) for c in completions]


# ---------------------------------------------------------------------------- detection
def test_annotations_say_which_arguments_are_text() -> None:
    # this module's annotations are strings (from __future__ import annotations): resolved
    assert text_arguments(text_reward) == ("prompts", "completions")
    assert text_arguments(sequence_reward) == ("completions",)
    assert text_arguments(message_reward) == ()
    assert text_arguments(plain) == ()
    assert text_arguments(Shouting()) == ("prompts", "completions")
    assert text_arguments(functools.partial(text_reward)) == ("prompts", "completions")
    assert text_arguments(WordCount("apple")) == ()  # list[Any]: it reads messages itself


def test_unresolvable_annotations_are_read_as_written() -> None:
    def reward(prompts: "list[Unknown]", completions: "typing.Sequence[str] | None", **kw):  # type: ignore[name-defined,no-untyped-def]  # noqa: F821, UP037
        return []

    assert text_arguments(reward) == ("completions",)


def test_a_mark_overrides_the_annotations() -> None:
    assert text_arguments(text_inputs(copy.copy(WordCount("x")))) == ("prompts", "completions")
    marked = text_inputs(functools.partial(text_reward), False)
    assert text_arguments(marked) == () and adapt_reward(marked) is marked

    @text_inputs(takes=["completions"])
    def only_completions(prompts, completions, **kwargs):  # type: ignore[no-untyped-def]
        return [
            float(isinstance(p, list) and isinstance(c, str))
            for p, c in zip(prompts, completions, strict=True)
        ]

    assert adapt_reward(only_completions)(prompts=[PROMPT], completions=[COMPLETION]) == [1.0]
    with pytest.raises(ValueError, match="only prompts, completions"):
        text_inputs(plain, ["post"])
    with pytest.raises(TypeError, match="takes must be"):
        text_inputs(plain, "completions")
    with pytest.raises(TypeError, match="takes no attributes"):
        text_inputs(len)


# ---------------------------------------------------------------------------- the wrapper
def test_the_wrapper_converts_keeps_the_name_and_pickles() -> None:
    reward = adapt_reward(text_reward)
    assert isinstance(reward, TextInputs) and reward_name(reward) == "text_reward"
    out = reward(prompts=[PROMPT], completions=[COMPLETION], completion_ids=[[1, 2]], post=["x"])
    assert out == [2.0]
    assert reward(["plain prompt"], ["already text"]) == [2.0]  # strings pass through
    assert adapt_reward(reward) is reward
    back = pickle.loads(pickle.dumps(reward))
    assert back(prompts=[PROMPT], completions=[COMPLETION]) == [2.0]
    assert adapt_reward(message_reward) is message_reward
    assert adapt_reward(Shouting())(prompts=[PROMPT], completions=[[{"content": "HI"}]]) == [1.0]


def test_async_rewards_stay_async() -> None:
    async def later(prompts: list[str], completions: list[str], **kwargs: Any) -> list[float]:
        return [float(isinstance(c, str)) for c in completions]

    reward = adapt_reward(later)
    assert isinstance(reward, AsyncTextInputs)
    assert asyncio.run(reward(prompts=[PROMPT], completions=[COMPLETION])) == [1.0]


def test_message_text() -> None:
    assert message_text("x") == "x"
    assert message_text({"role": "user", "content": 3}) == "3"
    with pytest.raises(TypeError, match="string or a list of chat messages"):
        message_text([{"role": "user"}])


# ---------------------------------------------------------------------------- in the solver
class Recorder:
    """A reward that records the types of what it receives (training or evaluation), typed
    for text or for messages."""

    def __init__(self, seen: list[tuple[str, str, str, str]], label: str) -> None:
        self.seen, self.label = seen, label
        self.__name__ = label

    def record(self, prompts: Any, completions: Any, kwargs: dict[str, Any]) -> list[float]:
        phase = "eval" if kwargs.get("trainer_state") is None else "train"
        self.seen.append(
            (self.label, phase, type(prompts[0]).__name__, type(completions[0]).__name__)
        )
        return [float(len(message_text(c).split())) for c in completions]


class TextRecorder(Recorder):
    def __call__(self, prompts: list[str], completions: list[str], **kwargs: Any) -> list[float]:
        return self.record(prompts, completions, kwargs)


class MessageRecorder(Recorder):
    def __call__(
        self,
        prompts: list[list[dict[str, str]]],
        completions: list[list[dict[str, str]]],
        **kwargs: Any,
    ) -> list[float]:
        return self.record(prompts, completions, kwargs)


def test_under_a_chat_template_each_reward_gets_what_it_was_written_for(
    lm_dir: Path, tokenizer: Any, prompts: list[str], fast_options: dict[str, Any], tmp_path: Path
) -> None:
    from paretosurf.llm import LLMSolver

    chat = copy.deepcopy(tokenizer)
    chat.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}"
    seen: list[tuple[str, str, str, str]] = []
    solver = LLMSolver(
        str(lm_dir),
        [TextRecorder(seen, "text"), MessageRecorder(seen, "messages")],
        prompts,
        **{**fast_options, "steps": 1, "tokenizer": chat, "workdir": tmp_path / "work"},
    )
    assert [reward_name(r) for r in solver.rewards] == ["text", "messages"]
    solver.solve(0.5, None)
    assert sorted(set(seen)) == [
        ("messages", "eval", "list", "list"),
        ("messages", "train", "list", "list"),
        ("text", "eval", "str", "str"),
        ("text", "train", "str", "str"),
    ]
