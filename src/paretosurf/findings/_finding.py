"""What a result says about itself: its findings, whether it succeeded, and its message.

A :class:`Finding` is one thing that is not as asked: its ``kind`` (``code``), whether it fails
the result (``fatal``: severity ``"error"``) or only advises (``"advice"``), the slots it
concerns, a one-line ``summary``, the details (``message``) and the ``remedy``. A remedy that
names options of the run is written as a template, ``"run more rounds ({resume} with more
{iterations})"``, with the options' values in ``options``: Python front ends render it as
``resume=True``, the command line as ``--resume``, with no rewriting of text.

:func:`success_and_message` is the one definition of success every method's result uses:
``success`` is True exactly when no finding is fatal, and the checks make a finding fatal when
the points are not distinct, when one is dominated, when a solve reported failure, or when a
method that aims at even spacing (SURF, SURF-simplex) missed its spacing target
(:func:`~paretosurf.findings.uneven_finding`). The message is the method, the points and their
spacing on a line, then one short line per finding: under :data:`MESSAGE_LIMIT` characters in
all; the details are in ``res.findings``.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paretosurf._utils.validation import python_spelling

#: The longest message a result carries (its findings' details are in ``res.findings``), and
#: the longest line a finding takes in it.
MESSAGE_LIMIT = 300
LINE_LIMIT = 90

#: The registry of finding codes: every code a result can carry, with its one-line
#: description (the line of a finding that gives none of its own). The findings guide's
#: table lists the same codes and lines (``tests/findings`` checks both).
TITLES = {
    "constant": "an objective does not vary: no trade-off",
    "scale": "objective ranges differ by over 1e3",
    "collapsed": "points have collapsed onto one another",
    "jump": "the front jumps: a stretch no weight reaches",
    "endpoint": "an end point is only weakly Pareto-optimal",
    "dominated": "points are dominated by others",
    "noisy": "objectives out of order: noisy or unconverged",
    "unconverged": "points are not optimal at their own weights",
    "reversed": "objectives in the reverse order: a maximizing solver?",
    "precision": "weights at the limit of floating-point resolution",
    "fewer": "fewer points than asked for",
    "unsuccessful": "solves reported failure",
    "unsettled": "the weights were still moving",
    "uneven": "the points are less even than the target",
    "ideal": "points below the ideal point given to the solver",
    "stuck": "the solver returns one point whatever the weight",
    "no_minimizer": "an end's scalarized problem has no minimizer",
    "non_finite": "objectives were NaN or inf inside solves",
    "local_minima": "solves stopped in local minima",
    "oscillating": "the spacing swings from round to round",
    "degenerate": "the front has fewer dimensions than the objectives allow",
    "coverage": "the points do not reach an end of the front",
    "probed": "basin probes moved slots to lower-scoring solutions",
}


class ParetoWarning(UserWarning):
    """A result is not what was asked for (dominated or collapsed points, a front that
    weighted sums cannot cross, noisy estimates, badly scaled objectives); the message names
    the remedy. Every method warns with it."""


@dataclass(frozen=True)
class Finding:
    """One thing a result found not as asked, with its cause and remedy.

    Attributes
    ----------
    code : str
        The kind of finding (also :attr:`kind`): ``"constant"``, ``"scale"``, ``"collapsed"``,
        ``"jump"``, ``"endpoint"``, ``"dominated"``, ``"noisy"``, ``"reversed"``,
        ``"unconverged"``, ``"precision"``, ``"unsuccessful"``, ``"unsettled"``,
        ``"uneven"``, ``"ideal"``, ``"stuck"``, ``"no_minimizer"``, ``"non_finite"``,
        ``"local_minima"``, ``"coverage"``, ``"degenerate"`` (a front of lower dimension
        than M - 1: :func:`~paretosurf.findings.degenerate_finding`),
        ``"oscillating"`` (the spacing swings from round to round instead of settling:
        :func:`~paretosurf.findings.oscillating_finding`), ``"probed"`` (basin probes moved
        slots), or one a method adds itself (OLS's ``"fewer"``); :data:`TITLES` lists them.
    message : str
        The details: what was found, where, and why it matters.
    fatal : bool
        Whether the result fails (``success=False``; severity ``"error"``); otherwise the
        finding only advises (``"advice"``).
    remedy : str
        What to do, as a template whose ``{name}`` fields are options of the run, valued in
        ``options`` (render it with :meth:`remedy_text`).
    options : dict
        The options the remedy names, with their values (``None``: the name alone).
    slots : tuple of int
        The slots concerned (empty when the finding is about the whole front).
    summary : str
        A short line for the result's message (default: the kind's title).

    Examples
    --------
    >>> from paretosurf.findings import Finding
    >>> f = Finding("unsettled", "the weights were still moving", fatal=False,
    ...             remedy="run more rounds ({resume} with more {iterations})",
    ...             options={"resume": True, "iterations": None})
    >>> f.severity, f.remedy_text()
    ('advice', 'run more rounds (resume=True with more iterations)')
    >>> f.remedy_text(lambda name, value: "--" + name)
    'run more rounds (--resume with more --iterations)'
    """

    code: str
    message: str
    fatal: bool = True
    remedy: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    slots: tuple[int, ...] = ()
    summary: str = ""

    @property
    def kind(self) -> str:
        """The kind of finding (the same as :attr:`code`)."""
        return self.code

    @property
    def severity(self) -> str:
        """``"error"`` (the result fails) or ``"advice"``."""
        return "error" if self.fatal else "advice"

    def remedy_text(self, spell: Callable[[str, Any], str] = python_spelling) -> str:
        """The remedy with its options spelled by ``spell(name, value)`` (default: as a
        Python call writes them)."""
        out = []
        for literal, name, _, _ in string.Formatter().parse(self.remedy):
            out.append(literal)
            if name is not None:
                out.append(spell(name, self.options.get(name)))
        return "".join(out)

    def line(self) -> str:
        """``"kind: summary"``, the finding's line in a result's message."""
        return f"{self.code}: {self.summary or TITLES.get(self.code, self.code)}"

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON-able values (:meth:`from_dict` reads them back)."""
        return {
            "code": self.code,
            "message": self.message,
            "fatal": self.fatal,
            "remedy": self.remedy,
            "options": dict(self.options),
            "slots": list(self.slots),
            "summary": self.summary,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        """Inverse of :meth:`to_dict` (files of earlier versions hold only code, message and
        fatal)."""
        return cls(
            str(data["code"]),
            str(data["message"]),
            bool(data.get("fatal", True)),
            str(data.get("remedy", "")),
            dict(data.get("options") or {}),
            tuple(int(s) for s in data.get("slots", ())),
            str(data.get("summary", "")),
        )

    def __str__(self) -> str:
        remedy = self.remedy_text()
        return f"{self.message}" + (f" (remedy: {remedy})" if remedy else "")


def success_and_message(
    label: str,
    n_points: int,
    cv: float,
    gap_ratio: float,
    findings: Sequence[Finding],
    *,
    notes: Sequence[str] = (),
    limit: int = MESSAGE_LIMIT,
) -> tuple[bool, str]:
    """``(success, message)`` of a result: success unless a finding is fatal; the message a
    line on the points, then ``notes`` (which round is reported, say), then one line per
    finding (``kind: summary``), fatal ones first, in at most ``limit`` characters.

    Examples
    --------
    >>> from paretosurf.findings import Finding, success_and_message
    >>> ok, text = success_and_message("SURF", 5, 0.1, 1.3, [Finding("dominated", "...")])
    >>> ok
    False
    >>> print(text)
    SURF: 5 points, CV 0.1, gap ratio 1.3
    dominated: points are dominated by others
    """
    success = not any(f.fatal for f in findings)
    head = (
        f"{label}: {n_points} points, CV {cv:.3g}, gap ratio {gap_ratio:.3g}"
        if math.isfinite(cv)
        else f"{label}: {n_points} points"
    )
    lines = [f.line() for f in sorted(findings, key=lambda f: not f.fatal)]
    text = "\n".join([head, *notes])
    for i, line in enumerate(lines):
        line = line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 3] + "..."
        left = len(lines) - i - 1
        reserve = len(f"\n(and {left} more in res.findings)") if left else 0
        if len(text) + 1 + len(line) + reserve > limit:
            text += f"\n(and {len(lines) - i} more in res.findings)"
            break
        text += "\n" + line
    return success, text


#: Findings that say why a front's points cannot be even (no ``uneven`` finding beside them).
STRUCTURAL = frozenset(
    {
        "constant",
        "reversed",
        "collapsed",
        "jump",
        "unconverged",
        "stuck",
        "no_minimizer",
        "local_minima",
    }
)
#: Findings said in the result's message and findings only, not warned: a short budget
#: is often chosen on purpose (a first look, a test), and the message says what it cost.
QUIET_FINDINGS = frozenset({"unsettled"})


def is_quiet(finding: Finding, stop_reason: str) -> bool:
    """Whether ``finding`` is said in the result's message and findings only, not warned: a
    budget that ran out (``unsettled``, and ``uneven`` after the iterations ran out: a short
    run is often chosen on purpose), a baseline's unevenness (it does not aim at it), and an
    ``oscillating`` spacing as an ``uneven`` one (in whose place it stands): advice, or after
    the iterations ran out."""
    return finding.code in QUIET_FINDINGS or (
        finding.code in ("uneven", "oscillating")
        and (not finding.fatal or stop_reason in ("iterations", "callback"))
    )
