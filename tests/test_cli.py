"""The ``paretosurf`` command: demo output checked against closed forms, arguments, registry."""

from __future__ import annotations

import contextlib
import importlib.metadata
import io
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import paretosurf as ps
from paretosurf import cli
from paretosurf.baselines import random_weights
from paretosurf.problems.base import BiObjectiveProblem

N, T, SEED = 8, 10, 1
METHODS = ("SURF", "Uniform-w", "Random-w")
ROOT_P = 3.0  # sqrt of the gear parameter p = 9


# ---------------------------------------------------------------------------- stand-in problem
def gear_x(w):
    """Exact LS minimizer of the paper's gear toy: sqrt(p) w / (1 + (sqrt(p) - 1) w)."""
    return ROOT_P * w / (1 + (ROOT_P - 1) * w)


def gear_phi(w):
    """Arc-length CDF of ((1-x)^2, x^2): antiderivative of 2 sqrt(2x^2-2x+1) with u = 2x-1."""

    def s(x):
        u = 2 * x - 1
        return (u * np.sqrt(1 + u * u) + np.arcsinh(u)) / np.sqrt(2)

    return (s(gear_x(np.asarray(w, dtype=float))) - s(0.0)) / (s(1.0) - s(0.0))


class StandInGear(BiObjectiveProblem):
    """The gear toy's front ((1-x)^2, x^2) shifted by ``shift``, with a closed-form speed."""

    def __init__(self, shift: float = 0.0) -> None:
        self.shift = shift

    def __repr__(self) -> str:
        return f"StandInGear(shift={self.shift})"

    def argmin(self, w):
        return float(gear_x(w))

    def objectives(self, x):
        return np.array([(1 - x) ** 2, x**2]) + self.shift

    def front(self, w):
        x = gear_x(np.atleast_1d(np.asarray(w, dtype=float)))
        return np.c_[(1 - x) ** 2, x**2] + self.shift

    def speed(self, w):
        w = np.asarray(w, dtype=float)
        x = gear_x(w)
        return 2 * np.sqrt((1 - x) ** 2 + x**2) * ROOT_P / (1 + (ROOT_P - 1) * w) ** 2


STANDINS = [
    cli.DemoProblem("gear", "gear stand-in", lambda: StandInGear(0.0)),
    cli.DemoProblem("shifted", "shifted gear stand-in", lambda: StandInGear(-2.0)),
]


# ---------------------------------------------------------------------------- independent truth
def arc_even_front(shift: float, n_points: int) -> np.ndarray:
    """Points of ((1-x)^2, x^2) + shift evenly spaced in arc length, from a dense polyline."""
    x = np.linspace(0.0, 1.0, 400_001)
    pts = np.c_[(1 - x) ** 2, x**2]
    s = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))])
    xs = np.interp(np.linspace(0.0, s[-1], n_points), s, x)
    return np.c_[(1 - xs) ** 2, xs**2] + shift


def hv_2d(points: np.ndarray, ref: np.ndarray) -> float:
    """Hypervolume of a mutually non-dominated 2-D set (minimization) by a sweep over f1."""
    p = points[np.argsort(points[:, 0])]
    right = np.append(p[1:, 0], ref[0])
    return float(np.sum((right - p[:, 0]) * (ref[1] - p[:, 1])))


def gaps_cv(points: np.ndarray) -> float:
    gaps = np.linalg.norm(np.diff(points, axis=0), axis=1)
    return float(np.std(gaps) / np.mean(gaps))


def run_main(argv: list[str]) -> tuple[int, str]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = cli.main(argv)
    return status, buffer.getvalue()


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cli, "DEMO_PROBLEMS", STANDINS)
        status, text = run_main(["demo", "--out", str(out), "--n", str(N), "--iterations", str(T),
                                 "--seed", str(SEED)])
    return status, text, out, json.loads((out / "results.json").read_text())


# ---------------------------------------------------------------------------- demo
def test_demo_prints_a_table_per_problem(demo) -> None:
    status, text, out, _ = demo
    assert status == 0
    for title in ("gear stand-in", "shifted gear stand-in"):
        assert f"\n{title}: StandInGear" in text
    header = [line for line in text.splitlines() if line.startswith("method")]
    assert len(header) == 2
    assert header[0].split() == ["method", "CV", "gap", "ratio", "HV", "IGD", "CDF", "err",
                                 "solver", "calls"]
    for method in METHODS:
        assert sum(line.startswith(method + " ") for line in text.splitlines()) == 2
    assert "nadir + 0.1 x (nadir - ideal)" in text
    assert text.rstrip().splitlines()[-1] == f"wrote {out.resolve()}"


def test_demo_writes_plots_and_results(demo) -> None:
    _, _, out, report = demo
    for name in ("gear", "shifted"):
        for plot in ("front.png", "cdf_history.png", "uniformity.png"):
            data = (out / name / plot).read_bytes()
            assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5000
        assert sorted(report["problems"][name]["plots"]) == sorted(
            f"{name}/{p}" for p in ("front.png", "cdf_history.png", "uniformity.png"))
        for slug in ("surf", "uniform-w", "random-w"):
            assert (out / name / f"{slug}.json").is_file()
            assert (out / name / f"{slug}.npz").is_file()
    assert report["settings"] == {"n_segments": N, "iterations": T, "alpha": 0.3, "seed": SEED}
    assert report["paretosurf_version"] == importlib.metadata.version("paretosurf")


@pytest.mark.parametrize(("name", "shift"), [("gear", 0.0), ("shifted", -2.0)])
def test_demo_numbers_match_independent_computations(demo, name, shift) -> None:
    _, text, _, report = demo
    entry = report["problems"][name]
    # exact front ends: w = 0 gives (1, 0) + shift, w = 1 gives (0, 1) + shift
    ref = np.array([1.0 + shift, 1.0 + shift]) + 0.1 * 1.0
    np.testing.assert_allclose(entry["hv_reference_point"], ref, rtol=1e-9, atol=1e-12)
    methods = entry["methods"]
    assert list(methods) == list(METHODS)
    for m in METHODS:
        assert methods[m]["n_solves"] == (N + 1) * T
        assert methods[m]["iterations"] == T
    uni = methods["Uniform-w"]
    w = np.linspace(0.0, 1.0, N + 1)
    x = gear_x(w)
    points = np.c_[(1 - x) ** 2, x**2] + shift
    assert uni["cv"] == pytest.approx(gaps_cv(points), rel=1e-12)
    gaps = np.linalg.norm(np.diff(points, axis=0), axis=1)
    assert uni["gap_ratio"] == pytest.approx(gaps.max() / gaps.min(), rel=1e-12)
    assert uni["hv"] == pytest.approx(hv_2d(points, ref), rel=1e-9)
    dense = arc_even_front(shift, 1001)
    brute_igd = np.mean([np.min(np.linalg.norm(points - r, axis=1)) for r in dense])
    assert uni["igd"] == pytest.approx(brute_igd, rel=1e-3)
    grid = np.linspace(0.0, 1.0, 200_001)
    assert uni["cdf_error"] == pytest.approx(np.max(np.abs(grid - gear_phi(grid))), rel=1e-4)
    assert entry["hv_exact_front"] == pytest.approx(hv_2d(dense, ref), rel=1e-3)
    # SURF evens out the gaps within the same budget and finds the true CDF
    assert methods["SURF"]["cv"] < uni["cv"] / 5
    assert methods["SURF"]["cdf_error"] < uni["cdf_error"] / 10
    assert f"{uni['cv']:#.4g}".rstrip(".") in text


def test_demo_saved_results_load(demo) -> None:
    _, _, out, report = demo
    path = out / report["problems"]["gear"]["methods"]["Random-w"]["result_file"]
    res = ps.SurfResult.load(path)
    np.testing.assert_array_equal(res.weights, random_weights(N, seed=SEED))
    assert res.n_solves == (N + 1) * T and len(res.history) == T
    x = gear_x(res.weights)
    np.testing.assert_allclose(res.points, np.c_[(1 - x) ** 2, x**2], rtol=1e-12)


def test_demo_tables_are_extendable_and_seeded(tmp_path, monkeypatch) -> None:
    one_shot = cli.DemoMethod(
        "Uniform-w once", lambda solver, s: ps.baselines.uniform(solver, s.n_segments,
                                                                 iterations=1))
    monkeypatch.setattr(cli, "DEMO_PROBLEMS", STANDINS[:1])
    monkeypatch.setattr(cli, "DEMO_METHODS", [*cli.DEMO_METHODS, one_shot])
    reports = []
    for seed in (3, 4):
        status, text = run_main(["demo", "--out", str(tmp_path / str(seed)), "--n", "5",
                                 "--iterations", "2", "--seed", str(seed), "--no-plots"])
        assert status == 0 and "Uniform-w once" in text
        reports.append(json.loads((tmp_path / str(seed) / "results.json").read_text()))
    assert not list(tmp_path.rglob("*.png"))
    methods = [r["problems"]["gear"]["methods"] for r in reports]
    assert methods[0]["Uniform-w once"]["n_solves"] == 6
    assert methods[0]["Uniform-w"] == methods[1]["Uniform-w"] | {
        "result_file": methods[0]["Uniform-w"]["result_file"]}
    assert methods[0]["Random-w"]["cv"] != methods[1]["Random-w"]["cv"]
    assert reports[0]["problems"]["gear"]["plots"] == []


def test_demo_on_the_real_problems(tmp_path) -> None:
    pytest.importorskip("paretosurf.problems.quadratic")
    pytest.importorskip("paretosurf.problems.bandit")
    start = time.perf_counter()
    status, _ = run_main(["demo", "--out", str(tmp_path)])
    elapsed = time.perf_counter() - start
    assert status == 0
    report = json.loads((tmp_path / "results.json").read_text())
    assert set(report["problems"]) == {"gear-toy", "bandit"}
    for entry in report["problems"].values():
        m = entry["methods"]
        assert m["SURF"]["cv"] < min(m["Uniform-w"]["cv"], m["Random-w"]["cv"]) / 10
        assert m["SURF"]["gap_ratio"] < 1.01
        assert len(entry["plots"]) == 3
    assert elapsed < 30, f"the demo took {elapsed:.1f} s"


def test_demo_unwritable_output_fails_cleanly(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(cli, "DEMO_PROBLEMS", STANDINS[:1])
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert cli.main(["demo", "--out", str(blocker), "--no-plots"]) == 1
    assert "paretosurf demo: error:" in capsys.readouterr().err


def test_hv_reference_point_rule() -> None:
    # nadir + 0.1 (nadir - ideal); a constant objective gets 0.1 max(|nadir|, 1)
    got = cli.hv_reference_point([[0.0, 5.0, -3.0], [4.0, 5.0, -1.0]])
    np.testing.assert_allclose(got, [4.4, 5.5, -0.8])
    with pytest.raises(ValueError, match="reference_front"):
        cli.hv_reference_point([[0.0, math.nan]])


# ---------------------------------------------------------------------------- arguments
def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"paretosurf {importlib.metadata.version('paretosurf')}\n"


def test_demo_help_lists_options(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["demo", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for option in ("--out", "--n", "--iterations", "--alpha", "--seed", "--no-plots"):
        assert option in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        ([], "required"),
        (["bench"], "invalid choice"),
        (["demo", "--n", "1"], "argument --n: must be an integer >= 2, got 1"),
        (["demo", "--n", "two"], "argument --n: must be an integer >= 2, got 'two'"),
        (["demo", "--iterations", "0"], "argument --iterations: must be an integer >= 1"),
        (["demo", "--alpha", "0"], "argument --alpha: must be a number in (0, 1], got 0.0"),
        (["demo", "--alpha", "1.5"], "argument --alpha: must be a number in (0, 1]"),
        (["demo", "--alpha", "nan"], "argument --alpha: must be a number in (0, 1]"),
        (["demo", "--seed", "-1"], "argument --seed: must be an integer >= 0"),
        (["demo", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_arguments_exit_2(argv, fragment, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err and fragment in err


# ---------------------------------------------------------------------------- registry
def test_registry_adds_a_subcommand(monkeypatch, capsys) -> None:
    monkeypatch.setattr(cli, "COMMANDS", dict(cli.COMMANDS))

    def configure(parser):
        parser.add_argument("--name", required=True)

    def run(args):
        print(f"hello {args.name}")
        return 3

    cli.register(cli.Command("hello", "say hello", configure, run))
    assert cli.main(["hello", "--name", "SURF"]) == 3
    assert capsys.readouterr().out == "hello SURF\n"
    with pytest.raises(ValueError, match="already registered"):
        cli.register(cli.Command("demo", "again", configure, run))
    with pytest.raises(TypeError, match="Command"):
        cli.register("bench")  # type: ignore[arg-type]
    assert list(cli.COMMANDS) == ["demo", "hello"]


def test_console_script_and_module() -> None:
    expected = f"paretosurf {importlib.metadata.version('paretosurf')}"
    out = subprocess.run([sys.executable, "-m", "paretosurf.cli", "--version"],
                         capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout.strip()) == (0, expected), out.stderr
    script = Path(sys.executable).with_name("paretosurf")
    if not script.exists():
        pytest.skip("console script not installed next to this interpreter")
    out = subprocess.run([str(script), "--version"], capture_output=True, text=True,
                         timeout=120)
    assert (out.returncode, out.stdout.strip()) == (0, expected), out.stderr
    bad = subprocess.run([str(script), "demo", "--n", "0"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "--n" in bad.stderr
