"""The ``paretosurf`` command: the demo (run through the bench runner) checked against closed
forms, argument handling and the subcommand registry. ``bench`` is tested in test_bench.py."""

from __future__ import annotations

import contextlib
import importlib.metadata
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paretosurf import cli
from paretosurf.bench.tasks import TASKS, Task
from paretosurf.methods import random_weights
from paretosurf.problems.base import BiObjectiveProblem

N, T, SEED = 8, 25, 1
LABELS = ("SURF", "Uniform-w", "Random-w")
ROOT_P = 3.0  # sqrt of the gear parameter p = 9
PNG = b"\x89PNG\r\n\x1a\n"


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


SHIFTS = {"standin-gear": 0.0, "standin-shifted": -2.0}
STANDINS = {
    name: Task(
        name,
        f"stand-in gear, shift {shift}",
        (lambda s=shift: StandInGear(s)),
        n_segments=5,
        iterations=3,
    )
    for name, shift in SHIFTS.items()
}


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


def gaps(points: np.ndarray) -> np.ndarray:
    return np.linalg.norm(np.diff(points, axis=0), axis=1)


def run_main(argv: list[str]) -> tuple[int, str]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = cli.main(argv)
    return status, buffer.getvalue()


@pytest.fixture()
def standins(monkeypatch):
    for name, task in STANDINS.items():
        monkeypatch.setitem(TASKS, name, task)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as mp:
        for name, task in STANDINS.items():
            mp.setitem(TASKS, name, task)
        status, text = run_main(
            [
                "demo",
                "--out",
                str(out),
                "--tasks",
                ",".join(STANDINS),
                "--n",
                str(N),
                "--iterations",
                str(T),
                "--seed",
                str(SEED),
            ]
        )
    results = {name: json.loads((out / name / "results.json").read_text()) for name in STANDINS}
    return status, text, out, results


# ---------------------------------------------------------------------------- demo
def test_demo_prints_a_table_per_task_and_a_summary(demo) -> None:
    status, text, out, _ = demo
    assert status == 0
    lines = text.splitlines()
    for name, task in STANDINS.items():
        assert any(
            line.startswith(f"**{task.title}**, N = {N}, {T} outer iterations, exact")
            for line in lines
        )
        assert (out / name / "table.md").read_text().strip() in text
    assert lines.count("| metric | SURF | Uniform-w | Random-w |") == 2
    summary = (out / "summary.md").read_text().strip()
    assert summary in text
    rows = [line for line in summary.splitlines() if line.startswith("| standin-")]
    assert [row.split(" | ")[0] for row in rows] == [f"| {name}" for name in STANDINS]
    assert lines[-1] == f"wrote {out.resolve()}"


def test_demo_writes_the_bench_files_per_task(demo) -> None:
    _, _, out, results = demo
    for name in STANDINS:
        for plot in ("front.png", "cdf_convergence.png", "uniformity.png"):
            data = (out / name / plot).read_bytes()
            assert data.startswith(PNG) and len(data) > 5000
        data = results[name]
        assert data["task"] == name and data["solver"] == "exact"
        assert (data["n_segments"], data["iterations"], data["seeds"]) == (N, T, [SEED])
        assert [m["label"] for m in data["methods"].values()] == list(LABELS)


@pytest.mark.parametrize("name", list(STANDINS))
def test_demo_numbers_match_independent_computations(demo, name) -> None:
    _, text, _, results = demo
    shift = SHIFTS[name]
    data = results[name]
    # exact front ends: w = 0 gives (1, 0) + shift, w = 1 gives (0, 1) + shift
    ref = np.array([1.0 + shift, 1.0 + shift]) + 0.1 * 1.0
    np.testing.assert_allclose(data["hv_ref"], ref, rtol=1e-9, atol=1e-12)
    dense = arc_even_front(shift, 1001)
    assert data["hv_exact_front"] == pytest.approx(hv_2d(dense, ref), rel=1e-3)
    methods = data["methods"]
    for m in methods.values():
        assert m["n_solves"] == (N + 1) * T
    uni = methods["uniform"]
    w = np.linspace(0.0, 1.0, N + 1)
    x = gear_x(w)
    points = np.c_[(1 - x) ** 2, x**2] + shift
    np.testing.assert_allclose(uni["points"], points, rtol=1e-12, atol=1e-12)
    g = gaps(points)
    assert uni["cv"]["mean"] == pytest.approx(np.std(g) / np.mean(g), rel=1e-12)
    assert uni["gap_ratio"]["mean"] == pytest.approx(g.max() / g.min(), rel=1e-12)
    assert uni["hv"]["mean"] == pytest.approx(hv_2d(points, ref), rel=1e-9)
    brute_igd = np.mean([np.min(np.linalg.norm(points - r, axis=1)) for r in dense])
    assert uni["igd"]["mean"] == pytest.approx(brute_igd, rel=1e-3)
    # Random-w solves at the seeded random weights
    np.testing.assert_allclose(
        methods["random"]["weights"], random_weights(N, seed=SEED), rtol=1e-12
    )
    # SURF: Rule 1 (Phi(w_n) = n / N for the true Phi), evenly spaced points, small CDF error
    surf = methods["surf"]
    np.testing.assert_allclose(
        gear_phi(np.array(surf["weights"])), np.linspace(0, 1, N + 1), atol=2e-3
    )
    assert surf["cv"]["mean"] < uni["cv"]["mean"] / 5
    assert surf["cdf_error"]["mean"] < np.max(np.abs(w - gear_phi(w))) / 10
    # the summary line quotes the same numbers and their ratio
    row = next(line for line in text.splitlines() if line.startswith(f"| {name} |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:2] == [name, str(N)]
    assert float(cells[2]) == pytest.approx(surf["cv"]["mean"], rel=1e-3)
    assert float(cells[3]) == pytest.approx(uni["cv"]["mean"], rel=1e-3)
    assert float(cells[4]) == pytest.approx(uni["cv"]["mean"] / surf["cv"]["mean"], rel=1e-2)
    assert float(cells[7]) == pytest.approx(
        uni["gap_ratio"]["mean"] / surf["gap_ratio"]["mean"], rel=1e-2
    )


def test_demo_is_seeded_and_plots_are_optional(tmp_path, standins) -> None:
    data = []
    for seed in (3, 4):
        out = tmp_path / str(seed)
        status, _ = run_main(
            [
                "demo",
                "--out",
                str(out),
                "--tasks",
                "standin-gear",
                "--n",
                "5",
                "--iterations",
                "2",
                "--seed",
                str(seed),
                "--no-plots",
                "--alpha",
                "0.5",
            ]
        )
        assert status == 0
        data.append(json.loads((out / "standin-gear" / "results.json").read_text()))
    assert not list(tmp_path.rglob("*.png"))
    assert data[0]["alpha"] == 0.5 and data[0]["n_segments"] == 5
    a, b = (d["methods"] for d in data)
    assert a["uniform"]["points"] == b["uniform"]["points"]
    assert a["surf"]["points"] == b["surf"]["points"]  # exact solver: no randomness in SURF
    assert a["random"]["weights"] != b["random"]["weights"]
    np.testing.assert_allclose(a["random"]["weights"], random_weights(5, seed=3), rtol=1e-12)


def test_demo_on_the_default_tasks(tmp_path) -> None:
    status, text = run_main(["demo", "--out", str(tmp_path)])
    assert status == 0
    assert [p.name for p in sorted(tmp_path.iterdir()) if p.is_dir()] == sorted(cli.DEMO_TASKS)
    first = text.index("**Deep Sea Treasure")
    assert first < text.index("**quadratic gear toy") < text.index("**entropic bandit")
    for name in cli.DEMO_TASKS:
        data = json.loads((tmp_path / name / "results.json").read_text())
        m = data["methods"]
        assert m["surf"]["n_solves"] == m["uniform"]["n_solves"] == m["random"]["n_solves"]
        assert (
            m["surf"]["cv"]["mean"]
            < min(m["uniform"]["cv"]["mean"], m["random"]["cv"]["mean"]) / 10
        )
        assert m["surf"]["gap_ratio"]["mean"] < 1.2
        assert (tmp_path / name / "front.png").read_bytes().startswith(PNG)
    assert (tmp_path / "dst" / "visitation.png").is_file()


def test_demo_unwritable_output_fails_cleanly(tmp_path, capsys, standins) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert cli.main(["demo", "--out", str(blocker), "--tasks", "standin-gear", "--no-plots"]) == 1
    assert "paretosurf demo: error:" in capsys.readouterr().err


def test_run_demo_rejects_bad_input(tmp_path) -> None:
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        cli.run_demo(tmp_path, tasks=["nope"], stream=io.StringIO())
    with pytest.raises(ValueError, match="at least one task"):
        cli.run_demo(tmp_path, tasks=[], stream=io.StringIO())
    with pytest.raises(ValueError, match="alpha"):
        cli.run_demo(tmp_path, tasks=["gear"], alpha=1.5, stream=io.StringIO())
    with pytest.raises(ValueError, match="'mountaincar' have no exact solver"):
        cli.run_demo(tmp_path, tasks=["gear", "mountaincar"], stream=io.StringIO())
    assert not list(tmp_path.iterdir())  # refused before anything ran


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
    for option in ("--out", "--tasks", "--n", "--iterations", "--alpha", "--seed", "--no-plots"):
        assert option in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        ([], "required"),
        (["nope"], "invalid choice"),
        (["demo", "--n", "1"], "argument --n: must be an integer >= 2, got 1"),
        (["demo", "--n", "two"], "argument --n: must be an integer >= 2, got 'two'"),
        (["demo", "--iterations", "0"], "argument --iterations: must be an integer >= 1"),
        (["demo", "--alpha", "0"], "argument --alpha: must be a number in (0, 1], got 0.0"),
        (["demo", "--alpha", "1.5"], "argument --alpha: must be a number in (0, 1]"),
        (["demo", "--alpha", "nan"], "argument --alpha: must be a number in (0, 1]"),
        (["demo", "--seed", "-1"], "argument --seed: must be an integer >= 0"),
        (["demo", "--tasks", "gear,nope"], "unknown task(s) 'nope'; choose from dst,"),
        (["demo", "--tasks", "gear,gear"], "repeated task"),
        (["demo", "--tasks", ""], "comma-separated list of tasks"),
        (["demo", "--bogus"], "unrecognized arguments: --bogus"),
        (
            ["demo", "--tasks", "gear,mountaincar"],
            "argument --tasks: task(s) 'mountaincar' have no exact solver, which the demo runs "
            "every method with; choose from dst,",
        ),
        (
            ["bench", "gear", "--solver", "exact", "--steps", "5"],
            "paretosurf bench: error: --steps sets the gradient solver's budget per call; it "
            "cannot be used with --solver exact",
        ),
        (
            ["bench", "mountaincar", "--solver", "exact"],
            "--solver exact: task 'mountaincar' has no exact solver",
        ),
        (["bench", "gear", "--ablation", "--steps", "5"], "--steps cannot be used with --ablation"),
        (["bench", "gear", "--methods", "random,uniform_random"], "repeated method"),
        (["run", "gear", "--method", "uniform_randm"], "invalid choice: 'uniform_randm'"),
        # an alias of a method of three or more objectives is no benchmark method
        (["run", "gear", "--method", "fixed_simplex"], "invalid choice: 'fixed_simplex'"),
    ],
)
def test_bad_arguments_exit_2(argv, fragment, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err and fragment in err


def test_a_method_is_named_by_its_entry_function_too() -> None:
    from paretosurf.methods import METHODS, uniform_random

    # Random-w's runs record "random"; its entry function is uniform_random
    assert METHODS["random"].entry is uniform_random
    parser = cli.build_parser()
    assert parser.parse_args(["run", "gear", "--method", "uniform_random"]).method == "random"
    assert parser.parse_args(["run", "gear", "--method", "random"]).method == "random"
    args = parser.parse_args(["bench", "gear", "--methods", "uniform_random,ols"])
    assert args.methods == ["random", "ols"]


# ---------------------------------------------------------------------------- registry
def test_registry_adds_a_subcommand(monkeypatch, capsys) -> None:
    monkeypatch.setattr(cli, "COMMANDS", dict(cli.COMMANDS))

    def configure(parser):
        parser.add_argument("--name", required=True)

    def run(args):
        if args.name == "bad":
            raise cli.UsageError("--name cannot be 'bad'")
        print(f"hello {args.name}")
        return 3

    cli.register(cli.Command("hello", "say hello", configure, run))
    assert cli.main(["hello", "--name", "SURF"]) == 3
    assert capsys.readouterr().out == "hello SURF\n"
    with pytest.raises(SystemExit) as exc:
        cli.main(["hello", "--name", "bad"])
    assert exc.value.code == 2
    assert "paretosurf hello: error: --name cannot be 'bad'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="already registered"):
        cli.register(cli.Command("demo", "again", configure, run))
    with pytest.raises(TypeError, match="Command"):
        cli.register("bench")  # type: ignore[arg-type]
    assert list(cli.COMMANDS) == ["demo", "bench", "run", "llm", "ask", "tell", "status", "hello"]


def test_console_script_and_module() -> None:
    expected = f"paretosurf {importlib.metadata.version('paretosurf')}"
    out = subprocess.run(
        [sys.executable, "-m", "paretosurf.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (out.returncode, out.stdout.strip()) == (0, expected), out.stderr
    script = Path(sys.executable).with_name("paretosurf")
    if not script.exists():
        pytest.skip("console script not installed next to this interpreter")
    out = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout.strip()) == (0, expected), out.stderr
    bad = subprocess.run(
        [str(script), "demo", "--n", "0"], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and "--n" in bad.stderr
