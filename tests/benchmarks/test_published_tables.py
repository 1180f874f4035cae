"""The figures the README and the docs publish are those of the files the benchmarks write
under ``docs/results`` (with ``--write-docs``), so that a stale figure fails here:

- the README's and the guide's Table 1 summary is ``docs/results/table1.md``, and that file is
  what ``benchmarks/bench_table1.py`` writes from the tasks' published ``results.json``;
- each task's ``table.md`` holds its ``results.json``'s means and spreads, under a header that
  names the run's protocol;
- the tables of ``docs/results/many/README.md`` hold the figures of ``table.csv`` and
  ``units.csv`` to their printed digits, and its timing paragraph those of ``timing.csv``;
- the warm-start guide's table is ``docs/results/warm-start/table.md``, and that file is what
  ``benchmarks/bench_warm_start.py`` builds from its ``results.json``.
"""

from __future__ import annotations

import csv
import importlib
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
#: The folder of ``bench_warm_start.py``'s published files (not a ``paretosurf bench`` run).
WARM_START = RESULTS / "warm-start"
TASK_FOLDERS = sorted(
    p.parent.name
    for p in RESULTS.glob("*/results.json")
    if (p.parent / "table.md").exists() and p.parent != WARM_START
)


def _benchmark(name: str) -> Iterator[ModuleType]:
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(ROOT / "benchmarks"))
        yield importlib.import_module(name)


@pytest.fixture(scope="module")
def table1() -> Iterator[ModuleType]:
    yield from _benchmark("bench_table1")


@pytest.fixture(scope="module")
def warm_start() -> Iterator[ModuleType]:
    yield from _benchmark("bench_warm_start")


def tables(text: str) -> list[list[str]]:
    """The Markdown tables of ``text``, each as its lines."""
    found: list[list[str]] = []
    previous = False
    for line in text.splitlines():
        row = line.strip().startswith("|")
        if row and not previous:
            found.append([])
        if row:
            found[-1].append(line.strip())
        previous = row
    return found


def table_after(path: Path, heading: str) -> list[str]:
    """The first table after the line ``heading`` of ``path``."""
    text = path.read_text()
    assert heading in text.splitlines(), f"{path.name}: no heading {heading!r}"
    return tables(text[text.index(heading) :])[0]


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def within_print(printed: str, value: float) -> bool:
    """Whether ``value`` rounds to ``printed`` (a plain decimal or ``1.5e4``)."""
    number = float(printed)
    mantissa = printed.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(printed.lower().split("e")[1]) if "e" in printed.lower() else 0
    half = 0.5 * 10.0 ** (exponent - decimals)
    return abs(number - value) <= half * (1 + 1e-9) + 1e-15


# ---------------------------------------------------------------------------- Table 1
@pytest.mark.parametrize(
    ("page", "heading"),
    [
        ("README.md", "## Results on the paper's benchmarks"),
        ("docs/guide/benchmarks.md", "# Results on the paper's benchmarks"),
    ],
)
def test_summary_table_is_the_published_file(page: str, heading: str) -> None:
    published = (RESULTS / "table1.md").read_text().strip().splitlines()
    assert table_after(ROOT / page, heading) == published, (
        f"{page}'s Table 1 is not docs/results/table1.md: copy the file's table into it "
        "(python benchmarks/bench_table1.py --write-docs writes the file)"
    )


def test_published_summary_is_what_the_benchmark_writes(table1: ModuleType) -> None:
    """``table1.md`` is the summary of the tasks' published ``results.json`` (a task rerun
    without its summary rewritten fails here)."""
    results = {
        name: json.loads((RESULTS / folder / "results.json").read_text())
        for name, (_, folder, _) in table1.TASKS.items()
    }
    assert (RESULTS / "table1.md").read_text() == table1.table(results)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([1.0, 1.0], ("1.00", "")),  # no spread: 3 significant digits
        ([0.01827, 0.01829], ("0.0183", "")),  # a spread below the printed digits
        ([2.0, 7.24], ("4.6", "± 2.6")),  # the mean to the std's precision
        ([0.0, 187.2], ("94", "± 94")),
        ([1839.0, 1844.4], ("1842", "± 2.7")),
        ([5000.0, 25000.0], ("1.5e4", "± 1.0e4")),
        ([1.0, math.inf], ("inf/nan in 1", "")),
    ],
)
def test_summary_cells(table1: ModuleType, values: list[float], expected: tuple) -> None:
    assert table1.cell(values, 3) == expected


# ---------------------------------------------------------------------------- tasks
def _stat_cell(cell: str) -> tuple[str, str | None]:
    mean, _, std = cell.partition(" +- ")
    return mean, (std or None)


@pytest.mark.parametrize("folder", TASK_FOLDERS)
def test_task_table_holds_its_results(folder: str) -> None:
    """The header names the run's protocol and every cell holds ``results.json``'s mean (to
    its 4 printed digits) and std (to its 2; ``+- 0``: none beyond rounding)."""
    data = json.loads((RESULTS / folder / "results.json").read_text())
    lines = (RESULTS / folder / "table.md").read_text().splitlines()
    header = lines[0]
    facts = [
        f"**{data['title']}**",
        f"N = {data['n_segments']}",
        f"{data['iterations']} outer iterations",
        f"{data['solver']} inner solver",
        f"{len(data['seeds'])} seed(s)",
        f"CV and gap ratio in {data['coordinates']}",
    ]
    if "surf" in data["methods"]:
        facts.append(f"SURF alpha {data['alpha']}")
    missing = [f for f in facts if f not in header]
    assert not missing, f"{folder}/table.md's header is stale: it lacks {missing}"
    rows = {cells(line)[0]: cells(line)[1:] for line in tables("\n".join(lines))[0][2:]}
    labels = next(cells(line) for line in lines if line.startswith("| metric"))[1:]
    keys = {m["label"]: k for k, m in data["methods"].items()}
    assert [keys[label] for label in labels] == list(data["methods"])
    metrics = {
        "HV": "hv",
        "IGD": "igd",
        "CV": "cv",
        "gap ratio": "gap_ratio",
        "distance to front (mean)": "front_distance_mean",
        "seconds": "seconds",
    }
    for title, key in metrics.items():
        for label, cell in zip(labels, rows[title], strict=True):
            stat = data["methods"][keys[label]][key]
            mean, std = _stat_cell(cell)
            assert within_print(mean, stat["mean"]), (folder, title, label, cell, stat)
            if std == "0":
                assert stat["std"] <= max(1e-9 * abs(stat["mean"]), 1e-13), (folder, title)
            elif std is not None:
                assert math.isclose(float(std), stat["std"], rel_tol=0.05), (folder, title, cell)
    calls = [str(data["methods"][keys[label]]["n_solves"]) for label in labels]
    assert rows["solver calls"] == calls


# ---------------------------------------------------------------------------- many
def _csv(name: str) -> list[dict[str, str]]:
    with open(RESULTS / "many" / name, newline="") as fh:
        return list(csv.DictReader(fh))


def test_many_objectives_table_is_table_csv() -> None:
    rows = table_after(
        RESULTS / "many" / "README.md",
        "# Three objectives: SURF-simplex against evenly spaced, random and energy weights",
    )
    head = cells(rows[0])
    assert head == ["problem", "method", "nn CV", "max/min", "min/mean", "covering", "HV"]
    keys = ["nn_cv", "nn_ratio", "nn_min_ratio", "covering", "hv"]
    published = {(r["problem"], r["method"]): r for r in _csv("table.csv")}
    seen = set()
    problem = ""
    for line in rows[2:]:
        row = [c.strip("*") for c in cells(line)]
        problem = row[0] or problem
        record = published[(problem, row[1])]
        for printed, key in zip(row[2:], keys, strict=True):
            assert within_print(printed, float(record[key])), (problem, row[1], key, printed)
        seen.add((problem, row[1]))
    assert seen == set(published), "the table and table.csv hold different runs"


def test_units_table_is_units_csv() -> None:
    text = (RESULTS / "many" / "README.md").read_text()
    rows = next(t for t in tables(text) if "nn CV, mean" in t[0])
    units = _csv("units.csv")
    for line in rows[2:4]:
        row = cells(line)
        mode = re.search(r'normalize="(\w+)"', row[0]).group(1)  # type: ignore[union-attr]
        cv = np.array([float(r[f"{mode}_cv"]) for r in units])
        ratio = np.array([float(r[f"{mode}_ratio"]) for r in units])
        for printed, value in zip(
            row[1:], (cv.mean(), ratio.mean(), cv.max(), ratio.max()), strict=True
        ):
            assert within_print(printed, float(value)), (mode, printed, value)


def test_timing_prose_is_timing_csv() -> None:
    """The figures of the timing paragraph (own time per round and over 12ae654's, over
    N log N, the baseline's swings, the solves' time and the own share) are ``timing.csv``'s."""
    text = (RESULTS / "many" / "README.md").read_text()
    start = text.index("`--timing` prints")
    paragraph = " ".join(text[start : text.index("\n\n", start)].split())
    rows = {int(r["n_points"]): {k: float(v) for k, v in r.items()} for r in _csv("timing.csv")}
    quoted = re.findall(r"(\d+) points (\S+) ms \(([\d.]+)x\)", paragraph)
    assert sorted(int(n) for n, _, _ in quoted) == sorted(rows), quoted
    for n, own, ratio in quoted:
        assert within_print(own, rows[int(n)]["own_ms"]), (n, own)
        assert within_print(ratio, rows[int(n)]["own_ratio"]), (n, ratio)
    per = re.search(r"over N log N: ([\d, and]+) us", paragraph)
    assert per is not None
    printed = re.split(r",? and |, ", per.group(1))
    for value, n in zip(printed, sorted(rows), strict=True):
        assert within_print(value, rows[n]["own_per_nlogn_us"]), (n, value)
    base = re.search(r"own time is (\S+) ms at (\d+) points and (\S+) ms at (\d+)", paragraph)
    assert base is not None
    for value, n in (base.group(1, 2), base.group(3, 4)):
        assert within_print(value, rows[int(n)]["baseline_own_ms"]), (n, value)
    solves = re.search(r"solves take (\S+) ms \((\d+) points\) to (\S+) ms \((\d+)", paragraph)
    assert solves is not None
    for value, n in (solves.group(1, 2), solves.group(3, 4)):
        assert within_print(value, rows[int(n)]["solves_ms"]), (n, value)
    share = re.search(r"own share of the loop of (\S+) to (\S+);", paragraph)
    assert share is not None
    shares = [r["own_share"] for r in rows.values()]
    assert within_print(share.group(1), min(shares)) and within_print(share.group(2), max(shares))


# ---------------------------------------------------------------------------- warm starts
def test_warm_start_guide_table_is_the_published_file() -> None:
    published = tables((WARM_START / "table.md").read_text())[0]
    guide = table_after(
        ROOT / "docs" / "guide" / "warm-starts.md",
        '# Warm starts: "slot", "nearest", "rescue" or "best"',
    )
    assert guide == published, (
        "docs/guide/warm-starts.md's table is not docs/results/warm-start/table.md's: copy the "
        "file's table into it (python benchmarks/bench_warm_start.py --write-docs writes it)"
    )


def test_warm_start_table_is_what_the_benchmark_builds(warm_start: ModuleType) -> None:
    """``table.md`` is built from ``results.json`` (a hand-edited figure fails here)."""
    results = json.loads((WARM_START / "results.json").read_text())
    assert (WARM_START / "table.md").read_text() == warm_start.table(results)
