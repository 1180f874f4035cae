"""``paretosurf bench``: results.json against a schema and independent recomputation, budgets,
argument handling, and the SURF ablation against the paper's closed forms and N^-2 floor."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest

from paretosurf import cli, plotting
from paretosurf.bench import METHODS, TASKS, get_task, hv_reference_point, run_task
from paretosurf.bench.ablation import (
    ABLATION_ALPHAS,
    ABLATION_EXACT_N,
    ABLATION_N,
    ABLATION_STEPS,
    fit_power_law,
    run_ablation,
)
from paretosurf.bench.figures import task_figures
from paretosurf.bench.runner import _fmt, format_table
from paretosurf.plotting import POSITION_LABEL, WEIGHT_LABEL, weights_cluster

PNG = b"\x89PNG\r\n\x1a\n"
ROOT_P = 3.0  # sqrt of the gear parameter p = 9


def gear_phi(w):
    """True arc-length CDF of the gear toy (p = 9) in closed form (see tests/test_cli.py)."""

    def s(x):
        u = 2 * x - 1
        return (u * np.sqrt(1 + u * u) + np.arcsinh(u)) / np.sqrt(2)

    x = ROOT_P * np.asarray(w, dtype=float) / (1 + (ROOT_P - 1) * np.asarray(w, dtype=float))
    return (s(x) - s(0.0)) / (s(1.0) - s(0.0))


# ---------------------------------------------------------------------------- schema
STAT = {"mean": float, "std": float}
METHOD_SCHEMA = {
    "hv": STAT,
    "igd": STAT,
    "cv": STAT,
    "gap_ratio": STAT,
    "front_distance_mean": STAT,
    "front_distance_max": STAT,
    "label": str,
    "points": "points",
    "weights": "weights",
    "n_solves": int,
    "n_steps": int,
    "seconds": STAT,
    "per_seed": "per_seed",
    "success": "bool_list",
    "messages": "str_list",
}
SCHEMA = {
    "task": str,
    "title": str,
    "solver": str,
    "n_segments": int,
    "iterations": int,
    "alpha": float,
    "seeds": "int_list",
    "hv_ref": "pair",
    "hv_ref_rule": str,
    "hv_exact_front": float,
    "exact_reference": bool,
    "igd_reference": str,
    "objective_names": "str_pair",
    "coordinates": str,
    "methods": "methods",
}
SCORE_KEYS = {"hv", "igd", "cv", "gap_ratio", "front_distance_mean", "front_distance_max"}


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_schema(data: dict) -> None:
    """Validate a results.json document by hand (jsonschema is not a dependency)."""
    assert set(data) == set(SCHEMA), set(data) ^ set(SCHEMA)
    n = data["n_segments"]
    for key, kind in SCHEMA.items():
        value = data[key]
        if kind is float:
            assert is_number(value), key
        elif kind in (int, str):
            assert isinstance(value, kind) and not isinstance(value, bool), key
        elif kind is bool:
            assert isinstance(value, bool), key
        elif kind == "int_list":
            assert value and all(isinstance(v, int) for v in value), key
        elif kind == "pair":
            assert len(value) == 2 and all(is_number(v) for v in value), key
        elif kind == "str_pair":
            assert len(value) == 2 and all(isinstance(v, str) for v in value), key
    assert data["solver"] in ("gradient", "exact")
    assert data["methods"] and set(data["methods"]) <= set(METHODS)
    for name, entry in data["methods"].items():
        extra = set(entry) - set(METHOD_SCHEMA)
        assert extra <= {"cdf_error"}, (name, extra)
        assert ("cdf_error" in entry) == (name == "surf")
        assert set(METHOD_SCHEMA) <= set(entry), (name, set(METHOD_SCHEMA) - set(entry))
        for key, kind in METHOD_SCHEMA.items():
            value = entry[key]
            if kind is STAT:
                assert set(value) == {"mean", "std"}, (name, key)
                assert all(is_number(v) for v in value.values()), (name, key)
                assert value["std"] >= 0
            elif kind is int:
                assert isinstance(value, int) and not isinstance(value, bool) and value > 0
            elif kind is str:
                assert value == METHODS[name].label
            elif kind == "bool_list":
                assert len(value) == len(data["seeds"]) and all(isinstance(v, bool) for v in value)
            elif kind == "str_list":
                assert len(value) == len(data["seeds"]) and all(
                    v.startswith(entry["label"]) for v in value
                )
            elif kind == "points":
                arr = np.asarray(value, dtype=float)
                assert arr.ndim == 2 and arr.shape[1] == 2 and np.all(np.isfinite(arr)), name
                if name == "ols":  # OLS stops early when no corner weight can improve
                    assert 2 <= arr.shape[0] <= n + 1
                else:
                    assert arr.shape == (n + 1, 2), (name, arr.shape)
            elif kind == "weights":
                arr = np.asarray(value, dtype=float)
                assert arr.shape == (len(entry["points"]),), name
                assert arr[0] == 0.0 and arr[-1] == 1.0
                assert np.all(np.diff(arr) >= 0)
            elif kind == "per_seed":
                assert len(value) == len(data["seeds"])
                for row in value:
                    assert SCORE_KEYS <= set(row) and all(is_number(v) for v in row.values())


# ---------------------------------------------------------------------------- independent truth
def hv_sweep(points: np.ndarray, ref: np.ndarray) -> float:
    """2-D hypervolume (minimization) of any point set: union of the boxes [p, ref], swept
    over f1 with the running minimum of f2."""
    p = points[np.all(points < ref, axis=1)]
    if p.size == 0:
        return 0.0
    p = p[np.argsort(p[:, 0], kind="stable")]
    xs = np.append(p[1:, 0], ref[0])
    best = np.minimum.accumulate(p[:, 1])
    return float(np.sum((xs - p[:, 0]) * (ref[1] - best)))


def igd_brute(points: np.ndarray, reference: np.ndarray) -> float:
    d = np.linalg.norm(reference[:, None, :] - points[None, :, :], axis=2)
    return float(np.mean(d.min(axis=1)))


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(argv)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def fishwood_exact(tmp_path_factory):
    out = tmp_path_factory.mktemp("fishwood")
    status, stdout, stderr = run_cli(
        ["bench", "fishwood", "--solver", "exact", "--seeds", "2", "--out", str(out), "--no-plots"]
    )
    return status, stdout, stderr, out, json.loads((out / "results.json").read_text())


@pytest.fixture(scope="module")
def gear_gradient(tmp_path_factory):
    out = tmp_path_factory.mktemp("gear")
    status, stdout, stderr = run_cli(
        [
            "bench",
            "gear",
            "--solver",
            "gradient",
            "--seeds",
            "2",
            "--iterations",
            "5",
            "--out",
            str(out),
        ]
    )
    return status, stdout, stderr, out, json.loads((out / "results.json").read_text())


RUNS = ["fishwood_exact", "gear_gradient"]


# ---------------------------------------------------------------------------- bench command
@pytest.mark.parametrize("run", RUNS)
def test_results_json_validates(run, request) -> None:
    status, _, _, _, data = request.getfixturevalue(run)
    assert status == 0
    check_schema(data)
    assert list(data["methods"]) == list(METHODS)
    assert data["seeds"] == [0, 1]


def test_settings_recorded(fishwood_exact, gear_gradient) -> None:
    fw, gear = fishwood_exact[4], gear_gradient[4]
    task = get_task("fishwood")
    assert (fw["task"], fw["solver"], fw["n_segments"], fw["iterations"]) == (
        "fishwood",
        "exact",
        task.n_segments,
        task.iterations,
    )
    assert (gear["task"], gear["solver"], gear["n_segments"], gear["iterations"]) == (
        "gear",
        "gradient",
        get_task("gear").n_segments,
        5,
    )


@pytest.mark.parametrize("run", RUNS)
def test_stdout_has_the_table_and_stderr_the_progress(run, request) -> None:
    _, stdout, stderr, out, data = request.getfixturevalue(run)
    assert stdout.strip() == (out / "table.md").read_text().strip()
    header = "| metric | " + " | ".join(m.label for m in METHODS.values()) + " |"
    assert header in stdout.splitlines()
    lines = stderr.strip().splitlines()
    progress = [line for line in lines if line.startswith(f"{data['task']} ")]
    assert len(progress) == len(METHODS) * 2
    for spec in METHODS.values():
        assert sum(f" {spec.label} " in line for line in progress) == 2
    assert lines[-1].startswith("wrote results.json, table.md") and str(out.resolve()) in lines[-1]


def test_figures_written_unless_no_plots(fishwood_exact, gear_gradient) -> None:
    assert not list(fishwood_exact[3].glob("*.png"))
    for name in ("front.png", "uniformity.png", "cdf_convergence.png"):
        data = (gear_gradient[3] / name).read_bytes()
        assert data.startswith(PNG) and len(data) > 5000


@pytest.mark.parametrize("run", RUNS)
def test_numbers_agree_with_independent_recomputation(run, request) -> None:
    _, _, _, _, data = request.getfixturevalue(run)
    problem = get_task(data["task"]).make_problem()
    reference = problem.reference_front(1001)
    ends = problem.front(np.array([0.0, 1.0]))
    # HV reference point from the exact front's extreme points (the endpoints in 2-D)
    nadir, ideal = ends.max(axis=0), ends.min(axis=0)
    ref = nadir + 0.1 * (nadir - ideal)
    np.testing.assert_allclose(data["hv_ref"], ref, rtol=1e-6, atol=1e-9)
    assert data["hv_exact_front"] == pytest.approx(hv_sweep(reference, ref), rel=1e-9)
    for name, entry in data["methods"].items():
        pts = np.asarray(entry["points"])
        first = entry["per_seed"][0]
        assert first["hv"] == pytest.approx(hv_sweep(pts, ref), rel=1e-9, abs=1e-12), name
        assert first["igd"] == pytest.approx(igd_brute(pts, reference), rel=1e-9), name
        g = np.linalg.norm(np.diff(pts, axis=0), axis=1)
        assert first["cv"] == pytest.approx(np.std(g) / np.mean(g), rel=1e-9), name
        assert first["gap_ratio"] == pytest.approx(g.max() / g.min(), rel=1e-9), name
        for key in ("hv", "igd", "cv", "gap_ratio"):
            values = [row[key] for row in entry["per_seed"]]
            assert entry[key]["mean"] == pytest.approx(np.mean(values), rel=1e-12)
            assert entry[key]["std"] == pytest.approx(np.std(values), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("run", RUNS)
def test_budgets_are_equal(run, request) -> None:
    _, _, _, _, data = request.getfixturevalue(run)
    m = data["methods"]
    n, t = data["n_segments"], data["iterations"]
    assert m["surf"]["n_solves"] == (n + 1) * t
    for name in ("uniform", "random", "umod"):
        assert m[name]["n_solves"] == m["surf"]["n_solves"], name
    assert m["ols"]["n_solves"] <= (n + 1) * t
    assert m["soup"]["n_solves"] == 2 * t  # two endpoints, t calls each
    if data["solver"] == "gradient":
        assert m["uniform"]["n_steps"] == m["random"]["n_steps"] == m["surf"]["n_steps"]
        task = get_task(data["task"])
        assert m["surf"]["n_steps"] == (n + 1) * t * task.steps + 2 * task.warmup_steps


def test_exact_endpoints(fishwood_exact) -> None:
    data = fishwood_exact[4]
    ends = get_task("fishwood").make_problem().front(np.array([0.0, 1.0]))
    for name in ("soup", "surf", "uniform"):
        pts = np.asarray(data["methods"][name]["points"])
        np.testing.assert_allclose(pts[[0, -1]], ends, rtol=1e-10, atol=1e-12, err_msg=name)


def test_surf_beats_uniform_weights(fishwood_exact) -> None:
    m = fishwood_exact[4]["methods"]
    assert m["surf"]["cv"]["mean"] < m["uniform"]["cv"]["mean"] / 10
    assert m["surf"]["gap_ratio"]["mean"] < 1.05


def test_default_output_folder_and_method_subset(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    status, stdout, _ = run_cli(
        [
            "bench",
            "gear",
            "--solver",
            "exact",
            "--seeds",
            "1",
            "--methods",
            "uniform,surf",
            "--iterations",
            "3",
            "--n",
            "4",
            "--no-plots",
        ]
    )
    assert status == 0
    data = json.loads((tmp_path / "bench-output" / "gear-exact" / "results.json").read_text())
    assert list(data["methods"]) == ["uniform", "surf"]
    assert data["n_segments"] == 4 and data["seeds"] == [0]
    np.testing.assert_allclose(data["methods"]["uniform"]["weights"], np.linspace(0, 1, 5))
    assert "| metric | Uniform-w | SURF |" in stdout


def test_alpha_option_reaches_surf_and_the_report(tmp_path) -> None:
    out = tmp_path / "gear"
    status, stdout, _ = run_cli(
        [
            "bench",
            "gear",
            "--solver",
            "exact",
            "--seeds",
            "1",
            "--methods",
            "surf",
            "--iterations",
            "4",
            "--alpha",
            "auto",
            "--no-plots",
            "--out",
            str(out),
        ]
    )
    assert status == 0
    data = json.loads((out / "results.json").read_text())
    assert data["alpha"] == "auto" and "SURF alpha auto" in stdout
    # the same run at the paper's alpha = 0.3 is further from even after four rounds
    status, _, _ = run_cli(
        [
            "bench",
            "gear",
            "--solver",
            "exact",
            "--seeds",
            "1",
            "--methods",
            "surf",
            "--iterations",
            "4",
            "--no-plots",
            "--out",
            str(tmp_path / "fixed"),
        ]
    )
    assert status == 0
    fixed = json.loads((tmp_path / "fixed" / "results.json").read_text())
    assert fixed["alpha"] == 0.3
    assert data["methods"]["surf"]["cv"]["mean"] < fixed["methods"]["surf"]["cv"]["mean"]


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["bench"], ["required: TASK"]),
        (["bench", "gear", "--alpha", "0"], ["argument --alpha: must be a number in (0, 1]"]),
        (
            ["bench", "gear", "--ablation", "--alpha", "0.5"],
            ["--alpha cannot be used with --ablation"],
        ),
        (["bench", "nope"], ["argument TASK: invalid choice: 'nope'", *TASKS]),
        (
            ["bench", "gear", "--methods", "surf,nope"],
            ["unknown method(s) 'nope'; choose from " + ", ".join(METHODS)],
        ),
        (["bench", "gear", "--methods", "surf,surf"], ["repeated method"]),
        (["bench", "gear", "--solver", "newton"], ["argument --solver: invalid choice"]),
        (["bench", "gear", "--seeds", "0"], ["argument --seeds: must be an integer >= 1"]),
        (["bench", "gear", "--n", "1"], ["argument --n: must be an integer >= 2"]),
        (
            ["bench", "gear", "--ablation", "--methods", "surf"],
            ["--methods cannot be used with --ablation"],
        ),
        (
            ["bench", "gear", "--ablation", "--seeds", "2"],
            ["--seeds cannot be used with --ablation"],
        ),
    ],
)
def test_bad_bench_arguments_exit_2(argv, fragments, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "paretosurf bench: error:" in err
    for fragment in fragments:
        assert fragment in err


def test_bench_help_documents_the_options(capsys) -> None:
    with pytest.raises(SystemExit):
        cli.main(["bench", "--help"])
    out = capsys.readouterr().out
    for option in (
        "TASK",
        "--methods",
        "--seeds",
        "--n",
        "--iterations",
        "--solver",
        "--out",
        "--no-plots",
        "--ablation",
    ):
        assert option in out


def test_hv_reference_point_rule() -> None:
    # nadir + 0.1 (nadir - ideal); a constant objective gets 0.1 max(|nadir|, 1)
    got = hv_reference_point([[0.0, 5.0, -3.0], [4.0, 5.0, -1.0]])
    np.testing.assert_allclose(got, [4.4, 5.5, -0.8])
    np.testing.assert_allclose(hv_reference_point([[0.0, 0.2], [0.0, 0.4]]), [0.1, 0.42])
    with pytest.raises(ValueError, match="reference_front"):
        hv_reference_point([[0.0, math.nan]])


# ---------------------------------------------------------------------------- table and figures
def table_cells(table: str, metric: str) -> dict[str, str]:
    """The cells of one metric's row of a Markdown table, by column label."""
    lines = table.splitlines()
    head = next(line for line in lines if line.startswith("| metric |"))
    labels = [c.strip() for c in head.strip("|").split("|")][1:]
    row = next(line for line in lines if line.startswith(f"| {metric} |"))
    return dict(zip(labels, [c.strip() for c in row.strip("|").split("|")][1:], strict=True))


@pytest.mark.parametrize(
    ("mean", "std", "cell"),
    [
        (0.09762, 7.3e-15, "0.09762 +- 0"),  # a deterministic method's rounding noise
        (0.0005, 7.9e-17, "0.0005000 +- 0"),
        (2.5e-8, 1e-23, "2.500e-08 +- 0"),  # the rule is relative: any scale
        (1942.0, 1e-10, "1942 +- 0"),
        (1.0, 1e-9, "1.000 +- 0"),  # the threshold itself is noise
        (1.0, 2e-9, "1.000 +- 2e-09"),  # just above: printed
        (0.004978, 9.2e-09, "0.004978 +- 9.2e-09"),  # real spread across seeds, however small
        (2.595, 0.62, "2.595 +- 0.62"),
        (0.0, 0.0, "0.000 +- 0"),
        (-3.0, 1e-15, "-3.000 +- 0"),
        (0.0, 1e-20, "0.000 +- 0"),  # below the absolute floor: rounding
        (3.394e-08, 7.8e-16, "3.394e-08 +- 0"),  # a tiny difference of O(1) objectives
        (1e-6, 2e-13, "1.000e-06 +- 2e-13"),  # above both floors: printed
    ],
)
def test_std_noise_rule(mean, std, cell) -> None:
    assert _fmt({"mean": mean, "std": std}) == cell
    assert _fmt({"mean": mean, "std": std}, with_std=False) == cell.split(" +- ")[0]


@pytest.fixture(scope="module")
def gear_report():
    return run_task(get_task("gear"), seeds=2, solver_kind="exact", iterations=3)


def test_table_shows_noise_as_zero_and_keeps_real_spread(gear_report) -> None:
    report = copy.copy(gear_report)
    report.scores = {name: [dict(s) for s in runs] for name, runs in gear_report.scores.items()}
    a, b = 0.09762, 0.09762 * (1 + 3e-15)  # the same value up to rounding: std ~1.5e-16
    report.scores["soup"][0]["cv"], report.scores["soup"][1]["cv"] = a, b
    report.scores["surf"][0]["hv"], report.scores["surf"][1]["hv"] = 0.004978, 0.004978 + 2e-8
    report.scores["random"][0]["cv"], report.scores["random"][1]["cv"] = 2.0, 3.2
    table = format_table(report)
    assert np.std([a, b]) > 0  # a real (noise) std, not an exact zero
    assert table_cells(table, "CV")["Soup"] == "0.09762 +- 0"
    assert table_cells(table, "CV")["Random-w"] == "2.600 +- 0.6"
    assert table_cells(table, "HV")["SURF"] == "0.004978 +- 1e-08"


def test_deterministic_methods_print_zero_spread(fishwood_exact) -> None:
    """With the exact solver every method but Random-w gives the same points for every seed:
    their std over seeds is 0 or rounding noise, printed ``+- 0``; Random-w's is not."""
    table = (fishwood_exact[3] / "table.md").read_text()
    data = fishwood_exact[4]
    for metric, key in (
        ("HV", "hv"),
        ("IGD", "igd"),
        ("CV", "cv"),
        ("gap ratio", "gap_ratio"),
        ("distance to front (mean)", "front_distance_mean"),
    ):
        cells = table_cells(table, metric)
        for name, entry in data["methods"].items():
            cell = cells[entry["label"]]
            values = np.array([row[key] for row in entry["per_seed"]])
            if name == "random":
                assert not cell.endswith(" +- 0"), (metric, cell)
            else:
                assert np.ptp(values) <= 1e-12 * np.abs(values).max(), (metric, name)
                assert cell.endswith(" +- 0"), (metric, name, cell)


def test_front_figure_has_a_panel_per_method(gear_report, tmp_path, monkeypatch) -> None:
    saved = {}
    real_save = plotting.save_figure

    def keep(fig, path, **kwargs):
        saved[Path(path).name] = fig
        return real_save(fig, path, **kwargs)

    monkeypatch.setattr(plotting, "save_figure", keep)
    written = task_figures(gear_report, tmp_path)
    assert (tmp_path / "front.png") in written
    fig = saved["front.png"]
    firsts = [runs[0] for runs in gear_report.results.values()]
    panels = [a for a in fig.axes if a.get_label() != "<colorbar>"]
    assert len(panels) == len(METHODS) and len(fig.axes) == len(METHODS) + 1
    clustered = any(weights_cluster(r.weights) for r in firsts)
    assert fig.axes[-1].get_ylabel() == (POSITION_LABEL if clustered else WEIGHT_LABEL)
    assert fig.get_suptitle().startswith(get_task("gear").title)
    ref = gear_report.reference_front
    for ax, result in zip(panels, firsts, strict=True):
        label, numbers = ax.get_title().split("\n")
        assert label == result.label
        g = np.linalg.norm(np.diff(result.points, axis=0), axis=1)
        cv, ratio = (float(part.split()[-1]) for part in numbers.split(", "))
        assert cv == pytest.approx(np.std(g) / np.mean(g), rel=5e-3)
        assert ratio == pytest.approx(g.max() / g.min(), rel=5e-3)
        reference, join = ax.lines
        np.testing.assert_array_equal(np.c_[reference.get_xdata(), reference.get_ydata()], ref)
        np.testing.assert_array_equal(np.c_[join.get_xdata(), join.get_ydata()], result.points)
        assert np.all(np.diff(result.weights) > 0)
        assert ax.get_xlim() == panels[0].get_xlim() and ax.get_ylim() == panels[0].get_ylim()
    # two rows of three: x labels on the bottom row, y labels on the left column
    assert [bool(ax.get_xlabel()) for ax in panels] == [False] * 3 + [True] * 3
    assert [bool(ax.get_ylabel()) for ax in panels] == [True, False, False] * 2


# ---------------------------------------------------------------------------- ablation
def monotone_ish(errors: np.ndarray) -> bool:
    """No step up by more than 10 % plus the final floor."""
    return bool(np.all(errors[1:] <= 1.1 * errors[:-1] + errors[-1]))


def test_ablation_exact_curves_decrease_to_the_true_cdf() -> None:
    rep = run_ablation(
        get_task("gear"),
        solver_kind="exact",
        n_list=(6, 12),
        alphas=(0.3, 0.6),
        exact_n_list=(),
        n_fixed=8,
        iterations=20,
    )
    assert rep.panels["steps"] == [] and rep.exact == [] and rep.slope is None
    grid = np.linspace(0.0, 1.0, 200_001)
    identity_error = np.max(np.abs(grid - gear_phi(grid)))
    curves = [c for name in ("n_segments", "alpha") for _, c in rep.panels[name]]
    assert [c.n_segments for c in curves] == [6, 12, 8, 8]
    assert [c.alpha for c in curves] == [0.3, 0.3, 0.3, 0.6]
    for c in curves:
        assert c.errors.shape == (21,)
        assert c.errors[0] == pytest.approx(identity_error, rel=1e-4)  # Phi_0 = identity
        assert monotone_ish(c.errors), c.errors
        assert c.final_error < c.errors[0] / 50
        # the recorded error is the sup distance of the final CDF to the closed-form Phi
        assert c.final_error == pytest.approx(
            np.max(np.abs(c.result.cdf(grid) - gear_phi(grid))), rel=2e-2
        )
        assert c.result.n_solves == (c.n_segments + 1) * 20
    # a larger alpha gets there sooner (Theorem 1's contraction 1 - alpha * ...)
    slow, fast = (c for _, c in rep.panels["alpha"])
    assert fast.errors[5] < slow.errors[5]


def test_ablation_k_panel_uses_k_inner_steps() -> None:
    task = get_task("gear")
    rep = run_ablation(
        task, n_list=(), alphas=(), steps_list=(3, 7), exact_n_list=(), n_fixed=6, iterations=4
    )
    ks = [(k, c.steps, c.solver_kind, c.result.n_steps) for k, c in rep.panels["steps"]]
    assert ks == [(3, 3, "gradient", 3 * 7 * 4), (7, 7, "gradient", 7 * 7 * 4)]


def test_final_error_follows_the_n_minus_2_floor() -> None:
    # The paper's floor ||Phi_T - Phi|| = O(N^-2); on the gear toy N >= 16 is in that regime
    # (for N <= 12 the observed decay is steeper).
    ns = (16, 24, 32, 48, 64)
    rep = run_ablation(
        get_task("gear"), n_list=(), alphas=(), steps_list=(), exact_n_list=ns, iterations=60
    )
    final = np.array([c.final_error for c in rep.exact])
    slope = np.polyfit(np.log(ns), np.log(final), 1)[0]
    assert rep.slope == pytest.approx(slope, rel=1e-9)
    assert -2.6 <= rep.slope <= -1.4
    assert rep.constant_n2 == pytest.approx(np.exp(np.mean(np.log(final) + 2 * np.log(ns))))
    assert all(c.solver_kind == "exact" and c.steps is None for c in rep.exact)


def test_fit_power_law_recovers_a_power_law() -> None:
    n = np.array([3.0, 5.0, 11.0, 40.0])
    slope, c = fit_power_law(n, 0.7 * n**-1.7)
    assert (slope, c) == (pytest.approx(-1.7, abs=1e-12), pytest.approx(0.7, rel=1e-12))
    with pytest.raises(ValueError, match="> 0"):
        fit_power_law([1, 2], [1.0, 0.0])
    with pytest.raises(ValueError, match="distinct"):
        fit_power_law([2, 2], [1.0, 0.5])


def test_ablation_rejects_bad_input() -> None:
    task = get_task("gear")
    with pytest.raises(TypeError, match="task must be a Task"):
        run_ablation("gear")
    with pytest.raises(ValueError, match="steps_list"):
        run_ablation(task, solver_kind="exact", steps_list=(10,))
    with pytest.raises(ValueError, match="solver_kind"):
        run_ablation(task, solver_kind="newton")
    with pytest.raises(ValueError, match="alphas"):
        run_ablation(task, alphas=(0.0,))
    with pytest.raises(ValueError, match="n_list"):
        run_ablation(task, n_list=(5, 5))
    with pytest.raises(ValueError, match="nothing to run"):
        run_ablation(task, n_list=(), alphas=(), steps_list=(), exact_n_list=())


def test_ablation_command_writes_json_png_and_table(tmp_path) -> None:
    out = tmp_path / "abl"
    status, stdout, stderr = run_cli(
        ["bench", "gear", "--ablation", "--n", "8", "--iterations", "6", "--out", str(out)]
    )
    assert status == 0
    data = json.loads((out / "ablation.json").read_text())
    assert (out / "ablation.png").read_bytes().startswith(PNG)
    assert stdout.strip() == (out / "ablation.md").read_text().strip()
    assert (data["task"], data["solver"], data["iterations"]) == ("gear", "gradient", 6)
    panels = data["panels"]
    expect = {"n_segments": ABLATION_N, "alpha": ABLATION_ALPHAS, "steps": ABLATION_STEPS}
    for name, values in expect.items():
        curves = panels[name]["curves"]
        assert [c["value"] for c in curves] == list(values)
        assert all(len(c["errors"]) == 7 and c["errors"][-1] == c["final_error"] for c in curves)
    assert [c["n_segments"] for c in panels["alpha"]["curves"]] == [8] * 4
    assert [c["steps"] for c in panels["steps"]["curves"]] == list(ABLATION_STEPS)
    assert panels["n_segments"]["fixed"] == {"alpha": 0.3, "steps": get_task("gear").steps}
    d = data["final_error_vs_n"]
    assert d["n_segments"] == list(ABLATION_EXACT_N) and len(d["final_error"]) == 9
    assert d["reference"]["exponent"] == -2 and d["fitted_slope"] < 0
    n_runs = len(ABLATION_N) + len(ABLATION_ALPHAS) + len(ABLATION_STEPS) + 9
    # the run with N = 8, alpha = 0.3 and the task's K is shared by panels (b) and (c)
    assert sum(" ablation N=" in line for line in stderr.splitlines()) == n_runs - 1
    assert (
        stderr.strip().splitlines()[-1].startswith("wrote ablation.json, ablation.md, ablation.png")
    )


def test_ablation_default_output_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, _ = run_cli(
        [
            "bench",
            "gear",
            "--ablation",
            "--solver",
            "exact",
            "--n",
            "6",
            "--iterations",
            "3",
            "--no-plots",
        ]
    )
    assert status == 0
    data = json.loads(Path("bench-output/gear-ablation-exact/ablation.json").read_text())
    assert data["panels"]["steps"]["curves"] == []
    assert not list(tmp_path.rglob("*.png"))


class _NoExactFront:
    """The gear toy with its exact front hidden, as a deep-RL problem presents itself."""

    def __init__(self) -> None:
        from paretosurf.problems import GearToy

        self.inner = GearToy(9)

    def reference_front(self, n_points: int) -> None:
        return None

    def cdf(self) -> None:
        return None

    def __getattr__(self, name: str):  # solver(), gradient_solver(), ...
        return getattr(self.inner, name)


def test_problem_without_exact_front_is_scored_against_the_union_of_points() -> None:
    import dataclasses

    task = dataclasses.replace(get_task("gear"), name="gear-hidden", make_problem=_NoExactFront)
    report = run_task(task, methods=["surf", "uniform"], seeds=2, solver_kind="exact", iterations=5)
    union = np.concatenate([r.points for runs in report.results.values() for r in runs])
    # the gear front is convex and every exact point lies on it: none is dominated, so the
    # reference is the union itself (duplicates removed), and the HV point follows the rule
    assert len(report.reference_front) == len(np.unique(union, axis=0))
    np.testing.assert_allclose(report.hv_ref, hv_reference_point(union))
    for scores in report.scores.values():
        for sc in scores:
            assert sc["igd"] >= 0 and sc["front_distance_max"] == pytest.approx(0, abs=1e-12)
            assert "cdf_error" not in sc
    data = report.to_json()
    assert data["exact_reference"] is False and "non-dominated union" in data["igd_reference"]
    assert "non-dominated union" in format_table(report)


def test_task_with_own_solver_refuses_the_exact_kind_and_takes_a_budget() -> None:
    import dataclasses

    made = []

    def make_solver(problem, steps, seed):
        made.append((steps, seed))
        return problem.gradient_solver(steps=steps, lr=0.1, optimizer="sgd")

    task = dataclasses.replace(get_task("gear"), make_solver=make_solver)
    with pytest.raises(ValueError, match="no exact solver"):
        task.solver(task.make_problem(), "exact")
    run_task(task, methods=["uniform"], seeds=[3], iterations=2, steps=7)
    assert made == [(7, 3)]


def test_bench_on_a_process_pool_gives_the_local_results(tmp_path) -> None:
    points = {}
    for executor in ("local", "processes"):
        out = tmp_path / executor
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            status = cli.main(
                [
                    "bench",
                    "gear",
                    "--solver",
                    "gradient",
                    "--seeds",
                    "1",
                    "--methods",
                    "surf,uniform",
                    "--iterations",
                    "3",
                    "--steps",
                    "5",
                    "--executor",
                    executor,
                    "--no-plots",
                    "--out",
                    str(out),
                    *(["--workers", "2"] if executor == "processes" else []),
                ]
            )
        assert status == 0
        data = json.loads((out / "results.json").read_text())
        points[executor] = {m: data["methods"][m]["points"] for m in ("surf", "uniform")}
        assert data["methods"]["surf"]["n_steps"] == 5 * 3 * 21  # --steps per call
    assert points["processes"] == points["local"]


def test_table_says_when_a_method_returned_fewer_points() -> None:
    report = run_task(
        get_task("gear"), methods=["ols", "surf"], seeds=1, solver_kind="exact", iterations=1
    )
    ols_points = len(report.results["ols"][0].points)
    assert ols_points < 21  # one solve per slot is too little for OLS to find 21 corners
    row = [line for line in format_table(report).splitlines() if line.startswith("| points")]
    assert row == [f"| points (of N + 1 = 21) | {ols_points} | 21 |"]
    full = run_task(get_task("gear"), methods=["surf"], seeds=1, solver_kind="exact", iterations=2)
    assert "| points" not in format_table(full)


def test_a_lone_method_without_exact_front_gets_no_self_referential_igd() -> None:
    import dataclasses

    task = dataclasses.replace(get_task("gear"), name="gear-hidden", make_problem=_NoExactFront)
    report = run_task(task, methods=["surf"], seeds=1, solver_kind="exact", iterations=3)
    assert set(report.scores["surf"][0]) == {"hv", "cv", "gap_ratio"}
    table = format_table(report)
    assert "| IGD |" not in table and "| HV |" in table
