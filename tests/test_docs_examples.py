"""Every python block of the tutorial and of the user guide runs as printed.

Each page runs in a fresh namespace, its blocks in order (a later block uses the names an
earlier one defined), in a temporary working directory, with matplotlib drawing off screen.
What a page shows as output is checked against what its blocks print:

- a ```text block right after a python block (blank lines between them only) is that block's
  whole output;
- a comment on the line of a top-level ``print(...)`` shows what it prints: the output, which
  words may follow (``print(res.success)  # True: ...``), or its beginning followed by
  ``...``.

Numbers with a decimal point are compared within 2% or one unit of their last shown digit,
so that output measured with one BLAS build reads true with another; integers and words
exactly.

A block that cannot run here for a reason of its own (hours of training, a GPU, a model
fetched by name, a cluster's address) carries the reason in an HTML comment on the line
before its fence, ``<!-- not run: REASON -->``: it is compiled and skipped with that reason.
A page whose blocks import an optional extra that is not installed is skipped.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: The pages whose python blocks run: the tutorial's and the user guide's.
PAGES = sorted([*(DOCS / "tutorial").glob("*.md"), *(DOCS / "guide").glob("*.md")])
#: The optional extras' modules: a page importing one that is missing is skipped.
EXTRAS = ("torch", "gymnasium", "mo_gymnasium", "ray", "transformers", "trl", "peft", "pymoo")

NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>.*?)\s*-->\s*$")
NUMBER = re.compile(r"([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)")
EXTRA_IMPORT = re.compile(
    r"^\s*(?:import|from)\s+(" + "|".join(EXTRAS) + r")\b", flags=re.MULTILINE
)


@dataclass(frozen=True)
class Block:
    """A python block of a page: its code, where it starts, why it is not run (if it is
    not), and the output shown right after it (if any)."""

    page: Path
    line: int  # of the opening fence, 1-based
    code: str
    not_run: str | None
    output: str | None

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def fences(lines: list[str]) -> list[tuple[int, int, str]]:
    """The fenced blocks of a page: (opening line index, closing line index, info string)."""
    out = []
    i = 0
    while i < len(lines):
        match = re.match(r"^\s*```(\S*)", lines[i])
        if match:
            j = i + 1
            while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
                j += 1
            out.append((i, j, match.group(1)))
            i = j
        i += 1
    return out


def blocks(page: Path) -> list[Block]:
    lines = page.read_text().splitlines()
    found = fences(lines)
    out = []
    for k, (start, end, info) in enumerate(found):
        if info != "python":
            continue
        marker = NOT_RUN.match(lines[start - 1]) if start > 0 else None
        output = None
        if k + 1 < len(found) and found[k + 1][2] == "text":
            nxt_start, nxt_end, _ = found[k + 1]
            if all(not line.strip() for line in lines[end + 1 : nxt_start]):
                output = "\n".join(lines[nxt_start + 1 : nxt_end])
        code = "\n".join(lines[start + 1 : end]) + "\n"
        out.append(Block(page, start + 1, code, marker and marker.group("reason"), output))
    return out


def run_pages() -> list[Path]:
    return [page for page in PAGES if any(b.not_run is None for b in blocks(page))]


def not_run_blocks() -> list[Block]:
    return [b for page in PAGES for b in blocks(page) if b.not_run is not None]


# -- output checks


def items(text: str) -> list[str]:
    """Text and numbers, alternating (text first; whitespace runs read as one space)."""
    return NUMBER.split(" ".join(text.split()))


def unit(number: str) -> float:
    """One unit of the last digit shown."""
    mantissa, _, exponent = number.lower().partition("e")
    return 10.0 ** (int(exponent or 0) - len(mantissa.partition(".")[2]))


def same_number(a: str, b: str) -> bool:
    """Integers exactly; decimals within 2% or one unit of the last digit either shows."""
    if not (re.search(r"[.eE]", a) and re.search(r"[.eE]", b)):
        return a == b
    x, y = float(a), float(b)
    return abs(x - y) <= max(0.02 * max(abs(x), abs(y)), unit(a), unit(b)) * (1 + 1e-9)


def starts_with(longer: str, shorter: str) -> bool:
    """Whether ``longer`` begins with ``shorter``, numbers within tolerance."""
    a, b = items(longer), items(shorter)
    if len(b) > len(a):
        return False
    for i, y in enumerate(b):
        x, last = a[i], i == len(b) - 1
        if i % 2:  # numbers
            if not same_number(x, y):
                return False
        elif not (x.startswith(y) if last else x == y):
            return False
    return True


def same_output(got: str, shown: str) -> bool:
    return len(items(got)) == len(items(shown)) and starts_with(got, shown)


def print_comments(code: str) -> dict[int, str]:
    """Line -> the comment ending it, for the lines of ``code`` that have one."""
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return {t.start[0]: t.string[1:].strip() for t in tokens if t.type == tokenize.COMMENT}


def is_print(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
        and stmt.value.func.id == "print"
    )


def run_block(block: Block, namespace: dict[str, Any]) -> None:
    """Run ``block`` statement by statement in ``namespace``; check what it prints against
    the comments of its print lines and against the output shown after it."""
    tree = ast.parse(block.code, filename=str(block.page))
    ast.increment_lineno(tree, block.line)  # tracebacks then name the page's own lines
    comments = {block.line + k: text for k, text in print_comments(block.code).items()}
    printed = []
    for stmt in tree.body:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            module = ast.Module(body=[stmt], type_ignores=[])
            exec(compile(module, str(block.page), "exec"), namespace)
        printed.append(out.getvalue())
        line = stmt.end_lineno or stmt.lineno
        comment = comments.get(line)
        if is_print(stmt) and comment is not None:
            got = out.getvalue().strip()
            if "..." in comment:
                head = comment.partition("...")[0].rstrip()
                assert starts_with(got, head), (
                    f"{block.page.name}:{line} prints {got!r}, the comment shows {comment!r}"
                )
            else:
                assert starts_with(comment, got), (
                    f"{block.page.name}:{line} prints {got!r}, the comment shows {comment!r}"
                )
    if block.output is not None:
        got = "".join(printed).rstrip()
        assert same_output(got, block.output), (
            f"{block.name} prints\n{got}\nbut the page shows\n{block.output}"
        )


# -- the tests


@pytest.mark.usefixtures("close_figures")
@pytest.mark.parametrize("page", run_pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_page_runs_as_printed(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runnable = [b for b in blocks(page) if b.not_run is None]
    for extra in sorted(set(EXTRA_IMPORT.findall("".join(b.code for b in runnable)))):
        pytest.importorskip(extra)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__main__"}
    for block in runnable:
        run_block(block, namespace)


@pytest.mark.parametrize("block", not_run_blocks(), ids=lambda b: b.name)
def test_block_not_run_says_why(block: Block) -> None:
    compile(block.code, block.name, "exec")  # it is still Python
    pytest.skip(f"{block.name}: not run: {block.not_run}")


def test_every_block_not_run_carries_its_reason() -> None:
    """A block is skipped only where the page says why, on the line before its fence; a
    marker elsewhere, or one without a reason, is an error."""
    for page in PAGES:
        lines = page.read_text().splitlines()
        openings = {start for start, _, info in fences(lines) if info == "python"}
        for i, line in enumerate(lines):
            if "not run" in line and line.lstrip().startswith("<!--"):
                marker = NOT_RUN.match(line)
                assert marker is not None, f"{page}:{i + 1}: write <!-- not run: REASON -->"
                assert i + 1 in openings, f"{page}:{i + 1}: the marker must precede ```python"
                assert len(marker.group("reason").split()) >= 3, (
                    f"{page}:{i + 1}: say why the block cannot run as a test"
                )
    assert run_pages(), "no page with blocks to run"


def test_the_tutorial_runs_every_block() -> None:
    for page in sorted((DOCS / "tutorial").glob("*.md")):
        found = blocks(page)
        assert found, f"{page.name} has no python block"
        assert all(b.not_run is None for b in found), f"{page.name}: the tutorial runs all"


def test_output_checks_can_fail() -> None:
    """The comparisons used above: numbers within tolerance, words exactly."""
    assert same_output("CV 0.00611, gap ratio 1.02", "CV 0.0061, gap ratio 1.02")
    assert same_output("[0.    0.015\n 0.031]", "[0. 0.015 0.031]")
    assert not same_output("CV 0.0070, gap ratio 1.02", "CV 0.0061, gap ratio 1.02")
    assert not same_output("4 rounds", "5 rounds")
    assert not same_output("True", "False")
    assert not same_output("SURF: 21 points", "SURF: 21 points, CV 0.1")
    assert starts_with("5: the most even round", "5")
    assert not starts_with("15: the most even round", "5")
    assert starts_with("auto: tchebycheff (the weighted sum at w = 0.5)", "auto: tchebycheff (the")
