"""Result.save / Result.load when a run folder and a saved result share a name."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.methods import uniform
from paretosurf.storage._files import CheckpointError


def solver(w: float, state: object) -> ps.Solution:
    return ps.Solution([(1 - w) ** 2, w**2])


def same(a: ps.Result, b: ps.Result) -> None:
    assert a.method == b.method
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.points, b.points)
    assert len(a.history) == len(b.history)


@pytest.fixture
def run_and_saved(tmp_path: Path) -> tuple[Path, ps.Result, ps.Result]:
    """``e/`` holds a SURF run; ``e.json`` + ``e.npz`` hold a saved Uniform-w result."""
    e = tmp_path / "e"
    run = ps.surf(solver, 4, iterations=3, checkpoint=e)
    saved = uniform(solver, 6, iterations=1)
    json_path, npz_path = saved.save(e)
    assert (json_path, npz_path) == (tmp_path / "e.json", tmp_path / "e.npz")
    return e, run, saved


def test_load_refuses_a_name_of_both_a_run_folder_and_a_saved_result(run_and_saved) -> None:
    e, _, _ = run_and_saved
    for path in (e, str(e)):
        with pytest.raises(ValueError, match="ambiguous") as info:
            ps.Result.load(path)
        message = str(info.value)
        # names both, and says how to choose each
        assert "run folder" in message and "SURF run" in message
        assert str(e.parent / "e.json") in message and str(e.parent / "e.npz") in message
        assert str(e / "run.json") in message


def test_load_reads_either_one_when_chosen(run_and_saved) -> None:
    e, run, saved = run_and_saved
    for path in (e.parent / "e.json", e.parent / "e.npz", f"{e}.json"):
        same(ps.Result.load(path), saved)
    for path in (e / "run.json", str(e / "run.json")):
        same(ps.Result.load(path), run)


def test_load_of_a_run_folder_without_saved_result_is_unchanged(tmp_path: Path) -> None:
    run = ps.surf(solver, 4, iterations=3, checkpoint=tmp_path / "e")
    same(ps.Result.load(tmp_path / "e"), run)


def test_folder_without_a_run_does_not_hide_the_result_saved_beside_it(tmp_path: Path) -> None:
    e = tmp_path / "e"
    e.mkdir()
    (e / "notes.txt").write_text("plots go here")
    saved = uniform(solver, 6, iterations=1)
    saved.save(e)
    same(ps.Result.load(e), saved)
    same(ps.Result.load(str(e)), saved)


def test_folder_without_a_run_or_saved_result_still_says_so(tmp_path: Path) -> None:
    (tmp_path / "e").mkdir()
    with pytest.raises(CheckpointError, match="holds no run"):
        ps.Result.load(tmp_path / "e")


def test_save_refuses_to_overwrite_a_run_manifest(tmp_path: Path) -> None:
    e = tmp_path / "e"
    ps.surf(solver, 4, iterations=3, checkpoint=e)
    manifest = (e / "run.json").read_text()
    res = uniform(solver, 6, iterations=1)
    for path in (e / "run", e / "run.json"):
        with pytest.raises(ValueError, match="manifest of the run"):
            res.save(path)
    assert (e / "run.json").read_text() == manifest
    assert not (e / "run.npz").exists()
    assert ps.Result.load(e).method == "surf"


def test_a_result_saved_as_run_is_still_a_saved_result(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    res = uniform(solver, 6, iterations=1)
    json_path, _ = res.save(out / "run")
    assert "arrays" in json.loads(json_path.read_text())
    same(ps.Result.load(out / "run"), res)
    same(ps.Result.load(out / "run.json"), res)  # not taken for a manifest
    with pytest.raises(FileExistsError, match="saved there before"):
        res.save(out / "run")  # saving again writes over nothing by accident
    res.save(out / "run", overwrite=True)  # but does when told to
    same(ps.Result.load(out / "run.json"), res)
