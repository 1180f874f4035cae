"""The findings guide's table (``docs/guide/findings.md``) lists exactly the registry's codes
(``paretosurf.findings.TITLES``), each with the registry's one-line title, its meaning, its
remedy and whether it fails a run: a code added to the registry, or a title changed there,
fails this test until the guide says the same."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paretosurf.findings import TITLES

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "findings.md"
HEADER = ["kind", "title", "what it means", "remedy", "error?"]


def cells(line: str) -> list[str]:
    """The cells of a Markdown table row (``|`` escaped as ``\\|`` stays in its cell)."""
    inner = line.strip()
    assert inner.startswith("|") and inner.endswith("|"), line
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner[1:-1])]


def guide_table(text: str) -> list[list[str]]:
    """The rows of the table whose header is :data:`HEADER` (the only one in the guide)."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("|") and cells(line) == HEADER]
    assert len(starts) == 1, f"one table headed {HEADER} in {GUIDE}"
    first = starts[0]
    assert set(lines[first + 1].replace("|", "")) <= {"-", ":", " "}, "a separator row"
    rows = []
    for line in lines[first + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(cells(line))
    return rows


def code_of(cell: str) -> str:
    match = re.fullmatch(r"`([a-z_]+)`", cell)
    assert match, f"the kind cell {cell!r} is one code in backticks"
    return match.group(1)


@pytest.fixture(scope="module")
def rows() -> list[list[str]]:
    return guide_table(GUIDE.read_text(encoding="utf-8"))


def test_the_guide_lists_every_registry_code_once_with_its_title(rows: list[list[str]]) -> None:
    assert all(len(row) == len(HEADER) for row in rows), [r for r in rows if len(r) != 5]
    listed = [code_of(row[0]) for row in rows]
    assert len(listed) == len(set(listed)), "a code listed twice"
    assert {code_of(row[0]): row[1] for row in rows} == TITLES


def test_every_row_says_what_it_means_what_to_do_and_whether_it_fails(
    rows: list[list[str]],
) -> None:
    for row in rows:
        kind, title, meaning, remedy, error = row
        assert meaning and remedy and error, f"{kind}: an empty cell"
        assert meaning != title, f"{kind}: the meaning says more than the title"
        assert error.startswith(("yes", "advice", "SURF")), f"{kind}: {error!r}"


def test_the_parser_sees_a_dropped_row_and_a_changed_title() -> None:
    """The check has teeth: the guide with the ``ideal`` row removed, or with its title
    edited, no longer matches the registry."""
    text = GUIDE.read_text(encoding="utf-8")
    (row,) = [line for line in text.splitlines() if line.startswith("| `ideal` |")]
    dropped = guide_table(text.replace(row + "\n", ""))
    assert {code_of(r[0]) for r in dropped} == set(TITLES) - {"ideal"}
    edited = guide_table(text.replace(row, row.replace(TITLES["ideal"], "points below zero")))
    assert {code_of(r[0]): r[1] for r in edited} != TITLES
