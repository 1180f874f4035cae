"""The README's examples run as printed and do what their comments say.

The tutorial's and the user guide's examples run in ``test_docs_examples.py``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def examples() -> list[str]:
    blocks = python_blocks(README)
    assert len(blocks) >= 2, "README lost its python examples"
    return blocks


def other_doc_pages() -> list[Path]:
    """The pages whose blocks ``test_docs_examples.py`` does not run (all but the tutorial's
    and the user guide's)."""
    ran = {DOCS / "tutorial", DOCS / "guide"}
    return sorted(p for p in DOCS.rglob("*.md") if p.parent not in ran)


def run(block: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    return namespace


def test_quick_start_with_from_scipy_runs_as_printed() -> None:
    block = examples()[0]
    namespace = run(block)
    res, ps = namespace["res"], namespace["ps"]
    assert res.success and res.weights.shape == (21,)
    printed = re.search(r"print\(res.message\)\s+# (.*)", block)
    assert printed is not None and res.message == printed.group(1)
    f1, f2 = res.points.T  # on ZDT1's front, evenly spaced along it
    np.testing.assert_allclose(f2, 1 - np.sqrt(f1), atol=1e-6)
    assert ps.metrics.cv(res.points) < 0.01


def test_own_solver_example_runs(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace = run(examples()[1])
    res = namespace["res"]
    ps = namespace["ps"]
    assert res.weights.shape == (21,) and res.weights[0] == 0 and res.weights[-1] == 1
    assert res.success
    assert ps.metrics.cv(res.points) < 0.01 and ps.metrics.gap_ratio(res.points) < 1.05
    assert (tmp_path / "my-run.json").exists() and (tmp_path / "my-run.npz").exists()
    back = ps.Result.load("my-run")
    np.testing.assert_array_equal(back.points, res.points)


def test_every_other_example_is_python() -> None:
    """The README's blocks and those of pages outside the tutorial and the guide parse."""
    for path in [README, *other_doc_pages()]:
        for block in python_blocks(path):
            compile(block, str(path), "exec")


def test_readme_is_short_and_its_links_resolve() -> None:
    text = README.read_text()
    # The README is what a newcomer reads first: detail goes to docs/.
    assert len(text.splitlines()) < 250
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), f"README links to {target}, which does not exist"
