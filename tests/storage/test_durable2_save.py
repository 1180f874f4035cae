"""durable-2: ``Result.save`` writes over no existing file unless told to (``overwrite=True``):
neither a user's ``report.json``/``report.npz`` nor a result saved there before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.methods import uniform


def solver(w: float, state: object) -> ps.Solution:
    return ps.Solution([(1 - w) ** 2, w**2])


@pytest.fixture(scope="module")
def result() -> ps.Result:
    return uniform(solver, 4, iterations=1)


@pytest.mark.parametrize("mine", [("report.json",), ("report.npz",), ("report.json", "report.npz")])
def test_save_refuses_to_write_over_a_users_files(
    result: ps.Result, tmp_path: Path, mine: tuple[str, ...]
) -> None:
    for name in mine:
        (tmp_path / name).write_text(f"my {name}")
    for path in (tmp_path / "report", tmp_path / "report.json", str(tmp_path / "report.npz")):
        with pytest.raises(FileExistsError) as info:
            result.save(path)
        message = str(info.value)
        assert all(str(tmp_path / name) in message for name in mine)
        assert "paretosurf did not write" in message and "overwrite=True" in message
    for name in mine:
        assert (tmp_path / name).read_text() == f"my {name}"  # untouched
    assert {p.name for p in tmp_path.iterdir()} == set(mine)  # nothing else written


def test_save_refuses_to_write_over_a_result_saved_before(
    result: ps.Result, tmp_path: Path
) -> None:
    first = uniform(solver, 6, iterations=1)
    first.save(tmp_path / "r")
    before = (tmp_path / "r.json").read_bytes(), (tmp_path / "r.npz").read_bytes()
    with pytest.raises(FileExistsError, match=r"holds a result saved there before.*overwrite=True"):
        result.save(tmp_path / "r")
    assert ((tmp_path / "r.json").read_bytes(), (tmp_path / "r.npz").read_bytes()) == before
    np.testing.assert_array_equal(ps.Result.load(tmp_path / "r").points, first.points)


def test_overwrite_true_replaces_them(result: ps.Result, tmp_path: Path) -> None:
    (tmp_path / "report.json").write_text("{}")
    (tmp_path / "report.npz").write_text("not an archive")
    assert result.save(tmp_path / "report", overwrite=True) == (
        tmp_path / "report.json",
        tmp_path / "report.npz",
    )
    np.testing.assert_array_equal(ps.Result.load(tmp_path / "report").points, result.points)
    result.save(tmp_path / "report", overwrite=True)  # and again
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        result.save(tmp_path / "report", overwrite="yes")  # type: ignore[arg-type]


def test_a_new_name_saves_as_before(result: ps.Result, tmp_path: Path) -> None:
    json_path, npz_path = result.save(tmp_path / "fresh")
    assert json_path.is_file() and npz_path.is_file()


def test_a_run_manifest_is_never_written_over_even_with_overwrite(tmp_path: Path) -> None:
    folder = tmp_path / "e"
    ps.surf(solver, 4, iterations=2, checkpoint=folder)
    manifest = (folder / "run.json").read_text()
    res = uniform(solver, 4, iterations=1)
    with pytest.raises(ValueError, match="manifest of the run"):
        res.save(folder / "run", overwrite=True)
    assert (folder / "run.json").read_text() == manifest
