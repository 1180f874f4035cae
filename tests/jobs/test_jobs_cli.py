"""``paretosurf ask``, ``tell`` and ``status``: a study driven from a shell, including the
guide's bash loop whose solver is awk (docs/guide/ask-tell.md), run as printed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import paretosurf as ps
from paretosurf.jobs import Study
from paretosurf.testing import assert_same_result
from support import call_cli

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "ask-tell.md"


def lopsided(w: float) -> list[float]:
    """The guide's solver, with awk's arithmetic."""
    x = 3 * w / (1 + 2 * w)
    return [(1 - x) * (1 - x), x * x]


def test_ask_starts_a_study_and_prints_its_tasks(tmp_path: Path, capsys: Any) -> None:
    status, out, err = call_cli(
        ["ask", str(tmp_path), "--method", "surf", "--n-points", "3", "--set", "alpha=0.5"],
        capsys,
    )
    assert status == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[1] == {"phase": "round", "round": 0, "ask": 0, "slot": 1, "weight": 0.5,
                        "state": None}  # fmt: skip
    assert Study(tmp_path).arguments == {"n_points": 3, "alpha": 0.5}
    status, out, _ = call_cli(["ask", str(tmp_path), "--format", "tsv"], capsys)
    assert (status, out) == (0, "0\t0.0\t-\n1\t0.5\t-\n2\t1.0\t-\n")


def test_tell_records_a_result_and_refuses_with_status_1(tmp_path: Path, capsys: Any) -> None:
    Study(tmp_path, "surf", n_points=3, iterations=2).ask()
    tell = ["tell", str(tmp_path), "1", "--objectives", *map(str, lopsided(0.5))]
    assert call_cli([*tell, "--state", "ckpt/1", "--info", '{"steps": 3}'], capsys)[0] == 0
    status, _, err = call_cli(tell, capsys)
    assert status == 1 and "paretosurf tell: error: slot 1 of round 0 was told already" in err
    status, _, err = call_cli(["tell", str(tmp_path), "2", "--objectives", "nan", "0"], capsys)
    assert status == 1 and "tell a solve that failed with --failed MESSAGE" in err
    status, _, err = call_cli(["tell", str(tmp_path), "2", "--objectives", "1", "2", "3"], capsys)
    assert status == 1 and "slot 2 of round 0 has 2 objectives; 3 were told" in err
    status, _, err = call_cli(["tell", str(tmp_path), "2"], capsys)
    assert status == 2 and "give --objectives F1 F2 ... or --failed MESSAGE" in err
    status, _, err = call_cli(["tell", str(tmp_path), "2", "--failed", "killed"], capsys)
    assert status == 0, err


def test_tell_a_file_of_results_reports_each_refused_line(tmp_path: Path, capsys: Any) -> None:
    Study(tmp_path, "surf", n_points=3, iterations=2).ask()
    results = tmp_path / "results.jsonl"
    results.write_text(
        json.dumps({"slot": 0, "objectives": lopsided(0.0), "state": {"step": 1}})
        + "\n\n"
        + json.dumps({"slot": 9, "objectives": [1, 2]})
        + "\n"
        + json.dumps({"slot": 1, "objectives": lopsided(0.5), "weight": 0.5})
        + "\n"
        + json.dumps({"slot": 2, "failed": "preempted", "seconds": 12.5})
        + "\n"
    )
    status, _, err = call_cli(["tell", str(tmp_path), "--file", str(results)], capsys)
    assert status == 1
    assert "line 3: slot 9 was not asked in round 0" in err
    assert "line 4: unknown key(s) weight" in err
    assert Study(tmp_path).status().told == (0, 2)


def test_status_shows_the_round_the_slots_and_the_front(tmp_path: Path, capsys: Any) -> None:
    study = Study(tmp_path, "surf", n_points=3, iterations=3)
    for task in study.ask():
        study.tell(task.slot, lopsided(task.weight))
    study.ask()
    study.tell(2, lopsided(1.0))
    status, out, _ = call_cli(["status", str(tmp_path)], capsys)
    assert status == 0
    assert "asked: round 1, ask 0: 1 of 3 told; waiting for slot(s) 0, 1" in out
    assert "front after round 0: 3 point(s)" in out
    status, out, _ = call_cli(["status", str(tmp_path), "--json"], capsys)
    data = json.loads(out)
    assert (data["round"], data["told"], data["waiting"]) == (1, [2], [0, 1])


def test_ask_in_a_folder_without_a_study_says_how_to_start_one(tmp_path: Path, capsys: Any) -> None:
    status, _, err = call_cli(["ask", str(tmp_path / "none")], capsys)
    assert status == 2 and "holds no study: start one" in err
    status, _, err = call_cli(["ask", str(tmp_path), "--n-points", "5"], capsys)
    assert status == 2 and "need --method" in err
    status, _, err = call_cli(["ask", str(tmp_path), "--method", "surf", "--set", "x"], capsys)
    assert status == 2 and "must be NAME=VALUE" in err


def test_ask_retry_round_asks_a_round_failed_beyond_its_retries(
    tmp_path: Path, capsys: Any
) -> None:
    study = Study(tmp_path, "uniform", n_points=2, iterations=1, retries=0)
    for task in study.ask():
        study.tell(task.slot, failed="node lost")
    status, _, err = call_cli(["ask", str(tmp_path)], capsys)
    assert status == 1 and "node lost" in err and "--retry-round" in err
    status, out, err = call_cli(["ask", str(tmp_path), "--retry-round"], capsys)
    assert status == 0 and "set aside in" in err and len(out.splitlines()) == 2


def _guide_script() -> str:
    text = GUIDE.read_text()
    match = re.search(r"<!-- the shell example[^>]*-->\n```bash\n(.*?)\n```", text, re.DOTALL)
    assert match, f"{GUIDE} has no shell example block"
    return match.group(1)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.skipif(shutil.which("awk") is None, reason="needs awk")
def test_the_guides_bash_loop_runs_a_whole_surf_run(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "paretosurf").exists():
        pytest.skip("the paretosurf command is not installed beside this Python")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.update(LC_ALL="C", PYTHONWARNINGS="ignore")
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", _guide_script()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "finished: nothing is asked" in done.stdout
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        result = Study(tmp_path / "lopsided").result()
        expected = ps.surf(lambda w, s: ps.Solution(lopsided(w)), n_points=11)
    assert result.success and len(result.points) == 11
    assert_same_result(result, expected)  # awk's doubles are Python's
