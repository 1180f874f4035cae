"""The types of ``paretosurf``'s options: parsers of an option's text into its value, which
refuse a bad value with an :class:`argparse.ArgumentTypeError` naming what it must be."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from pathlib import Path


def _int_at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {minimum}, got {text!r}"
            ) from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {value}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def _number_or_auto(what: str, valid: Callable[[float], bool]) -> Callable[[str], float | str]:
    """Parse ``'auto'`` or a number for which ``valid`` holds (``what`` names the range)."""

    def parse(text: str) -> float | str:
        if text == "auto":
            return text
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what} or 'auto', got {text!r}") from None
        if not valid(value):
            raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
        return value

    parse.__name__ = f"{what} or 'auto'"
    return parse


_alpha = _number_or_auto("a number in (0, 1]", lambda v: 0.0 < v <= 1.0)
_checkpoint_period = _number_or_auto(
    "a number of seconds >= 0", lambda v: math.isfinite(v) and v >= 0.0
)


def _number(
    what: str, valid: Callable[[float], bool], *, whole_as_int: bool = False
) -> Callable[[str], float]:
    """A parser of finite numbers that satisfy ``valid`` (``what`` names them in errors);
    with ``whole_as_int`` a whole number comes back as an int."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if not (math.isfinite(value) and valid(value)):
            raise argparse.ArgumentTypeError(f"must be {what}, got {value:g}")
        return int(value) if whole_as_int and value.is_integer() else value

    parse.__name__ = what
    return parse


_ratio_above_one = _number("a number > 1", lambda v: v > 1)
_positive_seconds = _number("a number of seconds > 0", lambda v: v > 0)
#: A number of GPUs >= 0 (an int when whole).
_gpu_count = _number("a number of GPUs >= 0", lambda v: v >= 0, whole_as_int=True)


def _folder_path(text: str) -> Path:
    """A folder option's path; an empty (or blank) one is refused: ``Path("")`` is the
    working directory, which a run would then fill (pass ``.`` to mean it)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r} names no folder (it would be the working directory; pass . if you mean it)"
        )
    return Path(text)


_folder_path.__name__ = "folder"


def _name_list(
    what: str,
    valid: Callable[[], Sequence[str]],
    resolve: Callable[[str], str] = str,
) -> Callable[[str], list[str]]:
    """Parse ``a,b,c`` into names from ``valid()``, each after ``resolve`` (an alias to its
    name); unknown, repeated or no names are errors."""

    def parse(text: str) -> list[str]:
        known = list(valid())
        names = [resolve(part.strip()) for part in text.split(",")]
        if not text.strip() or any(not name for name in names):
            raise argparse.ArgumentTypeError(
                f"must be a comma-separated list of {what}s from {', '.join(known)}; got {text!r}"
            )
        unknown = [name for name in names if name not in known]
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown {what}(s) {', '.join(map(repr, unknown))}; choose from {', '.join(known)}"
            )
        if len(set(names)) != len(names):
            raise argparse.ArgumentTypeError(f"repeated {what} in {text!r}")
        return names

    parse.__name__ = f"list of {what}s"
    return parse


def _task_names() -> list[str]:
    from paretosurf.bench.tasks import TASKS

    return list(TASKS)


def _method_names() -> list[str]:
    from paretosurf.bench.runner import METHODS

    return list(METHODS)


def _method_name(text: str) -> str:
    """The benchmark method ``text`` names: its own name, or an alias the registry knows it
    by (``uniform_random``, the entry function of ``random``). Any other text is returned
    as it is, for the caller's choices to refuse.

    Examples
    --------
    >>> from paretosurf.cli._types import _method_name
    >>> _method_name("uniform_random"), _method_name("ols"), _method_name("nope")
    ('random', 'ols', 'nope')
    """
    from paretosurf.methods import get_method

    try:
        name = get_method(text).name
    except KeyError:
        return text
    return name if name in _method_names() else text


_method_name.__name__ = "method"
