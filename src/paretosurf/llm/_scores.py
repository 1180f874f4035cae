"""The front scores of a protocol run as its tables and figures show them: HV, CV and gap
ratio per method, with and without the KL term (``table.md``, ``front.png``, and the table of
``paretosurf llm assess``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["KINDS", "SCORES", "score_cell", "score_rows"]

#: The kinds of objective a run's fronts are scored in.
KINDS = ("with KL", "without KL")
#: The scores of a front, by key, with their titles.
SCORES = (("hv", "HV"), ("cv", "CV"), ("gap_ratio", "gap ratio"))


def score_cell(score: Mapping[str, float]) -> str:
    """A score as ``table.md`` writes it: ``"mean +- std"`` over the evaluation batches where
    the score has them, else its value.

    Examples
    --------
    >>> score_cell({"value": 0.8, "mean": 0.79051, "std": 0.0704}), score_cell({"value": 1.25})
    ('0.7905 +- 0.07', '1.25')
    """
    mean = score.get("mean")
    if mean is not None and math.isfinite(mean):
        return f"{mean:.4g} +- {score['std']:.2g}"
    return f"{score['value']:.4g}"


def score_rows(
    labels: Sequence[str],
    scores_of: Callable[[str, str], Mapping[str, Any] | None],
    cell: Callable[[Any], str] = score_cell,
) -> list[str]:
    """The Markdown rows of the front scores: one per score and kind, one column per method of
    ``labels``; ``scores_of(method, kind)`` gives the method's scores of that kind (``None``
    where it has none: the cell is ``-``), and a row without any score is left out.

    Examples
    --------
    >>> scores = {"SURF": {"with KL": {"hv": {"value": 1.5}, "cv": {"value": 0.1}}}}
    >>> for row in score_rows(["SURF"], lambda m, kind: scores[m].get(kind)):
    ...     print(row)
    | HV (with KL) | 1.5 |
    | CV (with KL) | 0.1 |
    """
    rows = []
    for kind in KINDS:
        for name, title in SCORES:
            cells = []
            for method in labels:
                score = (scores_of(method, kind) or {}).get(name)
                cells.append("-" if score is None else cell(score))
            if all(c == "-" for c in cells):
                continue
            rows.append(f"| {title} ({kind}) | " + " | ".join(cells) + " |")
    return rows
