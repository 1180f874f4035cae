"""The README's example runs as printed and does what its comments say."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs(tmp_path, monkeypatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    res = namespace["res"]
    ps = namespace["ps"]
    assert res.weights.shape == (21,) and res.weights[0] == 0 and res.weights[-1] == 1
    assert ps.metrics.cv(res.points) < 0.01 and ps.metrics.gap_ratio(res.points) < 1.05
    assert (tmp_path / "my-run.json").exists() and (tmp_path / "my-run.npz").exists()
    back = ps.SurfResult.load("my-run")
    np.testing.assert_array_equal(back.points, res.points)
