"""``benchmarks/bench_authors.py``: the parts that need no clone of the authors' repository.

The notebook loader is checked on a small synthetic notebook built here (cells that import,
define, set constants, run experiments, plot, and one that does not parse); the side-by-side
itself needs the clone and is run by hand (see the module's docstring).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.delenv("PARETOSURF_AUTHORS", raising=False)
    import bench_authors

    return bench_authors


def _cell(source: str, kind: str = "code") -> dict[str, Any]:
    lines = source.strip("\n").splitlines(keepends=True)
    cell: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": lines}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


#: A notebook shaped like a research notebook: imports, settings with a plot style, model
#: functions, an experiment run, a plot, a redefinition, a cell that is not Python.
CELLS = [
    _cell("# A synthetic notebook", "markdown"),
    _cell(
        """
%matplotlib inline
import math
import numpy as np
import a_module_that_is_not_installed as gone
from collections import OrderedDict as OD
"""
    ),
    _cell(
        """
DEVICE = "cpu"
SCALE = 2.0
LABELS = {"a": 1, "b": SCALE * 2}
plt.rcParams.update({"font.size": 18})
"""
    ),
    _cell(
        """
def helper(x):
    return SCALE * np.sqrt(x)


def solve(x, device=DEVICE):
    return helper(x) + OFFSET


def plot_front(points):
    plt.plot(points)
    plt.show()


def uses_gone():
    return gone.thing()


class Model:
    def value(self):
        return math.pi
"""
    ),
    _cell(
        """
OFFSET = 1.0
result = solve(4.0)
raise RuntimeError("an experiment cell ran")
"""
    ),
    _cell(
        """
plot_front([1, 2, 3])
for k in range(3):
    print(k)
"""
    ),
    _cell(
        """
def helper(x):
    return SCALE * x
"""
    ),
    _cell("this cell is not python ("),
]


@pytest.fixture
def notebook(tmp_path: Path) -> Path:
    path = tmp_path / "synthetic.ipynb"
    path.write_text(json.dumps({"cells": CELLS, "nbformat": 4, "nbformat_minor": 5}))
    return path


def test_statements_are_sorted_by_what_they_do(bench: ModuleType, notebook: Path) -> None:
    statements = bench.parse_notebook(json.loads(notebook.read_text()))
    kinds = {(s.cell, s.binds): s.kind for s in statements}
    assert kinds[(1, ("np",))] == "import" and kinds[(1, ("OD",))] == "import"
    assert kinds[(2, ("DEVICE",))] == "const" and kinds[(2, ("LABELS",))] == "const"
    assert kinds[(2, ())] == "action"  # the plot style
    assert kinds[(3, ("solve",))] == "def" and kinds[(3, ("Model",))] == "def"
    assert kinds[(4, ("OFFSET",))] == "const"
    assert kinds[(4, ("result",))] == "action"  # an experiment's result
    assert all(s.cell != 7 for s in statements)  # not Python: left out
    solve = next(s for s in statements if s.binds == ("solve",))
    assert {"helper", "OFFSET", "DEVICE"} <= solve.reads  # body and default value
    assert "x" not in solve.reads and "device" not in solve.reads


def test_only_what_the_names_need_is_chosen(bench: ModuleType, notebook: Path) -> None:
    statements = bench.parse_notebook(json.loads(notebook.read_text()))
    chosen = bench.select_statements(statements, ["solve"])
    bound = [(s.cell, s.binds) for s in chosen]
    # the last definition of helper wins (cell 6), which reads SCALE, not np
    assert bound == [
        (2, ("DEVICE",)),
        (2, ("SCALE",)),
        (3, ("solve",)),
        (4, ("OFFSET",)),
        (6, ("helper",)),
    ]
    assert all(s.kind != "action" for s in chosen)


def test_loading_runs_no_experiment_and_no_plot(bench: ModuleType, notebook: Path) -> None:
    loaded = bench.load_notebook(notebook, ["solve", "Model", "LABELS"])
    assert loaded.cells == [1, 2, 3, 4, 6]
    assert loaded["solve"](4.0) == 2.0 * 4.0 + 1.0
    assert loaded["Model"]().value() == pytest.approx(3.141592653589793)
    assert loaded["LABELS"] == {"a": 1, "b": 4.0}
    for name in ("result", "plot_front", "gone", "k", "uses_gone"):
        assert name not in loaded.namespace
    assert "np" not in loaded.namespace  # the last helper does not need numpy
    assert loaded.skipped_imports == []  # the missing module was never needed
    assert "cell 3: solve, Model" in bench.describe(loaded)


def test_names_the_notebook_does_not_define(bench: ModuleType, notebook: Path) -> None:
    statements = bench.parse_notebook(json.loads(notebook.read_text()))
    with pytest.raises(ValueError, match="'result' only by running code \\(cell 4\\)"):
        bench.select_statements(statements, ["result"])
    with pytest.raises(ValueError, match="'nothing_here' nowhere"):
        bench.select_statements(statements, ["nothing_here"])


def test_a_missing_module_that_is_needed_is_named(bench: ModuleType, notebook: Path) -> None:
    with pytest.raises(ImportError, match=r"a_module_that_is_not_installed.*pip install"):
        bench.load_notebook(notebook, ["uses_gone"])


def test_magics_are_blanked_and_lines_kept(bench: ModuleType) -> None:
    cells = bench.code_cells({"cells": [_cell("%time x = 1\n!ls\ny = 2")]})
    assert cells == [(0, "\n\ny = 2")]
    with pytest.raises(ValueError, match="not a Jupyter notebook"):
        bench.code_cells({"worksheets": []})


def _main(bench: ModuleType, argv: list[str]) -> tuple[int, str]:
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors), pytest.raises(SystemExit) as stop:
        bench.main(argv)
    return int(stop.value.code or 0), errors.getvalue()


def test_without_a_clone_the_error_names_the_repository(bench: ModuleType, tmp_path: Path) -> None:
    code, text = _main(bench, ["--out", str(tmp_path / "out")])
    assert code == 2
    assert "--authors PATH is required" in text and bench.REPOSITORY in text
    assert "git clone" in text
    assert not (tmp_path / "out").exists()  # stopped before writing anything

    code, text = _main(bench, ["--authors", str(tmp_path), "--out", str(tmp_path / "out")])
    assert code == 2
    assert "is not a clone of" in text and bench.REPOSITORY in text
    assert "Policy_update_DST_with_baseline.ipynb" in text


def test_unknown_tasks_are_refused(bench: ModuleType, tmp_path: Path) -> None:
    code, text = _main(bench, ["--smoke", "--tasks", "dst-kstep,nope", "--out", str(tmp_path)])
    assert code == 2 and "unknown nope" in text


def test_no_authors_code_in_this_repository() -> None:
    """The authors' code is read from the user's clone at run time, never kept here."""
    text = (BENCHMARKS / "bench_authors.py").read_text() + Path(__file__).read_text()
    for name in ("scalarized_objective_torch(", "discounted_state_dist_from_policy_torch("):
        assert f"def {name}" not in text
    assert sys.modules.get("authors_Policy_update_DST_with_baseline") is None
