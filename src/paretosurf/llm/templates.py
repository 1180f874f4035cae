"""Format-string templates: the names their placeholders use.

Prompt templates (``"...{post}..."``) and reward-model input templates
(``"{completion} {bos_token} {post}"``) are plain ``str.format`` strings whose placeholders
name dataset columns; both are checked here, the same way.
"""

from __future__ import annotations

import re
import string

__all__ = ["template_fields"]


def template_fields(template: object, *, name: str, hint: str) -> tuple[str, ...]:
    """The top-level names a format string uses, in order of first use.

    Parameters
    ----------
    template : str
        A ``str.format`` string.
    name : str
        What the template is, for error messages (``"template"``).
    hint : str
        Appended to the error for a placeholder without a name (``{}`` or ``{0}``).

    Raises
    ------
    TypeError
        If ``template`` is not a string.
    ValueError
        If it is not a valid format string, or has a positional placeholder.

    Examples
    --------
    >>> template_fields("{completion} {info[post]} {completion}", name="template", hint="")
    ('completion', 'info')
    >>> template_fields("{}", name="template", hint="name it")
    Traceback (most recent call last):
    ...
    ValueError: template '{}' has a placeholder {} without a name; name it
    """
    if not isinstance(template, str):
        raise TypeError(f"{name} must be a format string, got {template!r}")
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"{name} {template!r} is not a valid format string: {exc}") from None
    out: list[str] = []
    for _, field, _, _ in parsed:
        if field is None:
            continue
        root = re.split(r"[.\[]", field, maxsplit=1)[0]
        if not root.isidentifier():
            raise ValueError(
                f"{name} {template!r} has a placeholder {{{field}}} without a name; {hint}"
            )
        if root not in out:
            out.append(root)
    return tuple(out)
