"""What a reward function takes: chat messages or plain text.

With a chat template (``chat_template="auto"``, the default, and a tokenizer that has one, as
every Instruct model's does) the solver sends TRL conversations, and TRL hands each reward
``prompts`` as lists of messages (``[{"role": "user", "content": ...}]``) and ``completions``
as ``[{"role": "assistant", "content": ...}]``. A reward written for strings
(``c.split()``, ``len(c)``) then fails, or worse, scores the wrong thing.

A reward gets plain text where it says so:

* by its annotations: a ``prompts`` or ``completions`` parameter annotated as a list (or
  sequence, tuple, iterable) of ``str``, such as ``completions: list[str]``, receives that
  argument as text;
* by a mark: :func:`text_inputs` (a decorator, or a call on any callable) marks a reward as
  taking both as text (or only the arguments it names); ``text_inputs(f, False)`` says it
  takes messages whatever its annotations say.

Everything else receives what TRL gives (messages under a chat template, strings without
one), so a reward written for messages keeps getting messages. Text is a message list's
contents joined by blank lines: the user's prompt as it was before the template made it a
message, the completion as decoded.

:func:`adapt_reward` wraps a reward that takes text in :class:`TextInputs` (which keeps its
name, so TRL logs it under the same name, and pickles where the reward does); the solver
applies it to its two rewards, for training and for evaluation alike.

Examples
--------
>>> from paretosurf.llm.reward_inputs import adapt_reward, text_arguments
>>> def brevity(prompts, completions: list[str], **kwargs) -> list[float]:
...     return [-float(len(c)) for c in completions]
>>> text_arguments(brevity)
('completions',)
>>> reward = adapt_reward(brevity)
>>> reward.__name__
'brevity'
>>> reward(prompts=[[{"role": "user", "content": "hi"}]],
...        completions=[[{"role": "assistant", "content": "hello"}]])
[-5.0]
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

__all__ = [
    "TEXT_ARGUMENTS",
    "TextInputs",
    "adapt_reward",
    "adapt_rewards",
    "message_text",
    "text_arguments",
    "text_inputs",
]

#: The reward arguments that may be turned into plain text.
TEXT_ARGUMENTS = ("prompts", "completions")
#: The attribute :func:`text_inputs` sets on a reward.
_MARK = "__paretosurf_text_inputs__"
#: Containers whose ``[str]`` annotation means "a list of strings".
_CONTAINERS = (
    list,
    tuple,
    collections.abc.Sequence,
    collections.abc.MutableSequence,
    collections.abc.Iterable,
    collections.abc.Collection,
)
#: The same, as an unresolved annotation string (``from __future__ import annotations``).
_TEXT_LIST = re.compile(
    r"(?:typing\.|t\.|collections\.abc\.|abc\.)?"
    r"(?:list|List|tuple|Tuple|Sequence|MutableSequence|Iterable|Collection)"
    r"\[\s*str\s*(?:,\s*\.\.\.\s*)?\](?:\s*\|\s*None)?"
)

R = TypeVar("R")


def message_text(value: object) -> str:
    """A prompt or completion as plain text: a string as it is, a message (a dict with a
    ``"content"``) its content, a list of messages their contents joined by blank lines.

    Raises
    ------
    TypeError
        For anything else.

    Examples
    --------
    >>> from paretosurf.llm.reward_inputs import message_text
    >>> message_text([{"role": "user", "content": "Summarize: my day."}])
    'Summarize: my day.'
    >>> message_text([{"role": "system", "content": "Be brief."},
    ...               {"role": "user", "content": "Hi"}])
    'Be brief.\\n\\nHi'
    """
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and "content" in value:
        return str(value["content"])
    if isinstance(value, Sequence) and all(
        isinstance(m, Mapping) and "content" in m for m in value
    ):
        return "\n\n".join(str(m["content"]) for m in value)
    raise TypeError(
        f"a prompt or completion must be a string or a list of chat messages with a "
        f"'content', got {value!r}"
    )


def text_inputs(
    reward: R | None = None, takes: bool | Iterable[str] = True
) -> Any:  # R, or a decorator of R
    """Mark ``reward`` as taking ``prompts`` and ``completions`` as plain text (``takes=True``),
    only the arguments ``takes`` names, or none (``takes=False``: messages, whatever its
    annotations say). Returns the reward itself, marked (a decorator without ``reward``).

    The mark is an attribute of the reward: a function, a ``functools.partial`` or a reward
    object (whose instances pickle as before).

    Raises
    ------
    TypeError
        If the reward does not take attributes (a builtin), or ``takes`` is neither a bool
        nor names.
    ValueError
        If ``takes`` names an argument other than ``prompts`` and ``completions``.

    Examples
    --------
    >>> from paretosurf.llm.reward_inputs import text_arguments, text_inputs
    >>> @text_inputs
    ... def shouting(prompts, completions, **kwargs):
    ...     return [float(c.isupper()) for c in completions]
    >>> text_arguments(shouting)
    ('prompts', 'completions')
    >>> text_arguments(text_inputs(lambda prompts, completions, **kw: [], takes=["completions"]))
    ('completions',)
    """
    names = _checked_takes(takes)
    if reward is None:
        return lambda func: text_inputs(func, takes)
    if not callable(reward):
        raise TypeError(f"text_inputs marks a reward function, got {type(reward).__name__}")
    try:
        setattr(reward, _MARK, names)
    except (AttributeError, TypeError):
        raise TypeError(
            f"cannot mark {reward!r} (it takes no attributes): wrap it in a function, or in "
            "TextInputs(reward) to give it text"
        ) from None
    return reward


def _checked_takes(takes: object) -> tuple[str, ...]:
    if takes is True:
        return TEXT_ARGUMENTS
    if takes is False:
        return ()
    if isinstance(takes, str) or not isinstance(takes, Iterable):
        raise TypeError(
            "takes must be True, False or the names of the arguments taken as text "
            f"({', '.join(TEXT_ARGUMENTS)}), got {takes!r}"
        )
    names = tuple(takes)
    unknown = [n for n in names if n not in TEXT_ARGUMENTS]
    if unknown:
        raise ValueError(
            f"takes names {unknown}; only {', '.join(TEXT_ARGUMENTS)} can be given as text"
        )
    return tuple(n for n in TEXT_ARGUMENTS if n in names)


def _is_text_list(annotation: object) -> bool:
    """Whether an annotation says "a list of strings" (``list[str]``, ``Sequence[str]``,
    ``tuple[str, ...]``, optionally ``| None``; or such a string)."""
    if isinstance(annotation, str):
        return _TEXT_LIST.fullmatch(annotation.strip()) is not None
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Union or origin is types.UnionType:
        kept = [a for a in args if a is not type(None)]
        return len(kept) == 1 and _is_text_list(kept[0])
    return origin in _CONTAINERS and args in ((str,), (str, Ellipsis))


def _signature(reward: Callable[..., Any]) -> inspect.Signature | None:
    for evaluate in (True, False):  # annotations resolved, else as written
        try:
            return inspect.signature(reward, eval_str=evaluate)
        except (NameError, SyntaxError, TypeError, AttributeError):
            continue
        except ValueError:  # no signature (some builtins)
            return None
    return None


def text_arguments(reward: Callable[..., Any]) -> tuple[str, ...]:
    """The arguments (of ``prompts`` and ``completions``) that ``reward`` takes as plain
    text: those its :func:`text_inputs` mark names, else those its annotations type as lists
    of strings, else none.

    Examples
    --------
    >>> from paretosurf.llm.reward_inputs import text_arguments
    >>> def f(prompts: list[str], completions: list[str], **kwargs): ...
    >>> def g(prompts: list[list[dict]], completions, **kwargs): ...
    >>> text_arguments(f), text_arguments(g)
    (('prompts', 'completions'), ())
    """
    seen = reward
    while True:  # a mark on the reward, or on a partial's function
        mark = getattr(seen, _MARK, None)
        if mark is not None:
            return tuple(mark)
        if not isinstance(seen, functools.partial):
            break
        seen = seen.func
    sig = _signature(reward)
    if sig is None:
        return ()
    return tuple(
        name
        for name in TEXT_ARGUMENTS
        if name in sig.parameters and _is_text_list(sig.parameters[name].annotation)
    )


def _name(reward: Any) -> str:
    """A reward's name as TRL reads it (and :func:`~paretosurf.llm.rewards.reward_name`): a
    ``functools.partial``'s function's, else its ``__name__``, else its class's name (this
    module sits below :mod:`~paretosurf.llm.rewards`, which uses it)."""
    while isinstance(reward, functools.partial):
        reward = reward.func
    return str(getattr(reward, "__name__", type(reward).__name__))


def _texts(values: Any) -> Any:
    if values is None or isinstance(values, str):
        return values
    return [message_text(v) for v in values]


class TextInputs:
    """A reward that gets ``prompts`` and/or ``completions`` (``arguments``) as plain text
    (:func:`message_text`), whatever TRL passes; the other keywords go through unchanged.

    Parameters
    ----------
    reward : callable
        The reward (TRL's signature, called with keywords).
    arguments : sequence of str, optional
        Which of ``prompts`` and ``completions`` to give as text (default: both).

    Attributes
    ----------
    reward : callable
        The wrapped reward.
    __name__ : str
        The reward's name (as :func:`~paretosurf.llm.rewards.reward_name` reads it), which
        TRL logs.

    Examples
    --------
    >>> from paretosurf.llm.reward_inputs import TextInputs
    >>> def length(prompts, completions, **kwargs):
    ...     return [float(len(c)) for c in completions]
    >>> TextInputs(length)(prompts=["x"], completions=[[{"role": "assistant", "content": "abc"}]])
    [3.0]
    """

    def __init__(
        self, reward: Callable[..., Any], arguments: Sequence[str] = TEXT_ARGUMENTS
    ) -> None:
        if not callable(reward):
            raise TypeError(f"reward must be callable, got {type(reward).__name__}")
        self.reward = reward
        self.arguments = _checked_takes(list(arguments))
        self.__name__ = _name(reward)

    def _convert(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        for name in self.arguments:
            if name in kwargs:
                kwargs[name] = _texts(kwargs[name])
        return kwargs

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.update(zip(TEXT_ARGUMENTS, args, strict=False))  # a positional call
        return self.reward(**self._convert(kwargs))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reward!r}, arguments={self.arguments!r})"


class AsyncTextInputs(TextInputs):
    """:class:`TextInputs` of an ``async`` reward (TRL awaits it, as it awaits the reward)."""

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.update(zip(TEXT_ARGUMENTS, args, strict=False))
        return await self.reward(**self._convert(kwargs))


def _is_async(reward: Any) -> bool:
    while isinstance(reward, functools.partial):
        reward = reward.func
    return inspect.iscoroutinefunction(reward) or inspect.iscoroutinefunction(
        getattr(reward, "__call__", None)  # noqa: B004 - a reward object's own __call__
    )


def adapt_reward(reward: Callable[..., Any]) -> Callable[..., Any]:
    """``reward`` as a :class:`TextInputs` if it takes text (:func:`text_arguments`), else
    ``reward`` itself.

    Examples
    --------
    >>> from paretosurf.llm.reward_inputs import adapt_reward
    >>> def messages(prompts, completions, **kwargs):
    ...     return [float(len(c)) for c in completions]
    >>> adapt_reward(messages) is messages
    True
    """
    if isinstance(reward, TextInputs):
        return reward
    arguments = text_arguments(reward)
    if not arguments:
        return reward
    return (AsyncTextInputs if _is_async(reward) else TextInputs)(reward, arguments)


def adapt_rewards(rewards: Iterable[Callable[..., Any]]) -> list[Callable[..., Any]]:
    """:func:`adapt_reward` of each reward."""
    return [adapt_reward(r) for r in rewards]
