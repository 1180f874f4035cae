"""The findings that name the solver's part in a result: a solver that does not move
(``stuck``), an end whose scalarized problem has no minimizer (``no_minimizer``), NaN or inf
met inside the solves (``non_finite``) and solves stopped in local minima (``local_minima``),
each on a problem built to have it and checked against what the construction guarantees,
and none of them on healthy problems; and remedies that fit the run's scalarization and
method."""

from __future__ import annotations

import math
import warnings
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from test_finding_bank import BAD_2D, BASINS_2D, Basins, C, GridCurve, Logistic, kinked

import paretosurf as ps
from paretosurf.findings import (
    Finding,
    diagnose,
    diagnose_surface,
    local_minimum_slots,
    revise,
    solver_findings,
)
from paretosurf.methods import uniform


def kinds(res: ps.Result | list[Finding]) -> list[str]:
    return [f.kind for f in (res.findings if isinstance(res, ps.Result) else res)]


def quiet(run: Any, *args: Any, **kwargs: Any) -> ps.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return run(*args, **kwargs)


def rounds(weights: np.ndarray, *points: np.ndarray) -> list[SimpleNamespace]:
    """A hand-made history: one record per array of points, at ``weights``."""
    return [SimpleNamespace(weights=weights, points=p) for p in points]


# -------------------------------------------------------------------------------- stuck
def test_a_solver_that_takes_no_steps_is_stuck_not_told_to_check_its_objectives() -> None:
    torch = pytest.importorskip("torch")
    theta = torch.zeros(1, dtype=torch.float64, requires_grad=True)

    def losses(params: list[Any]) -> Any:
        (p,) = params
        return torch.stack([(p[0] - 1.0) ** 2, (p[0] + 1.0) ** 2])

    # a learning rate of 0: the parameter never leaves its start 0, so every weight gets the
    # start's objectives (1, 1), whatever the weight
    solver = ps.adapters.from_torch(
        [theta], losses, steps=5, optimizer=lambda params: torch.optim.SGD(params, lr=0.0)
    )
    with pytest.warns(ps.ParetoWarning, match="returned the same point for every weight"):
        res = ps.surf(solver, 6, iterations=3)
    assert res.points.tolist() == [[1.0, 1.0]] * 7
    assert kinds(res) == ["stuck"] and not res.success and not res.converged
    (f,) = res.findings
    assert "takes steps" in f.remedy and "objectives you meant" not in f.remedy
    assert f.slots == tuple(range(7)) and len(f.summary) <= 60


def ends_only(w: float, state: Any) -> ps.Solution:
    """A solver whose interior solves never leave the start x = 0 (their steps fail), while
    the ends reach their minimizers x = -1 and x = 1 of (x - 1)^2 and (x + 1)^2."""
    x = 0.0 if state is None else float(state)
    if w in (0.0, 1.0):
        x = 2 * w - 1
    return ps.Solution([(x - 1) ** 2, (x + 1) ** 2], x)


@pytest.mark.parametrize("method", [ps.surf, uniform])
def test_slots_that_never_leave_their_start_are_stuck(method: Any) -> None:
    res = quiet(method, ends_only, 6, iterations=4)
    (f,) = [f for f in res.findings if f.kind == "stuck"]
    assert f.slots == (1, 2, 3, 4, 5) and f.fatal
    assert "collapsed" not in kinds(res)


def test_a_solver_that_returns_its_warm_starts_is_stuck() -> None:
    # each slot starts at its own point of the front (x^3 spreads them unevenly) and the
    # solver returns the state it is given: SURF moves the weights, no point moves
    starts = list(np.linspace(-1, 1, 7) ** 3)
    res = quiet(
        ps.surf,
        lambda w, s: ps.Solution([(s - 1) ** 2, (s + 1) ** 2], s),
        6,
        iterations=6,
        init_states=starts,
    )
    assert "stuck" in kinds(res) and not res.success
    assert "warm start" in next(f.message for f in res.findings if f.kind == "stuck")


def test_kinks_and_skipped_stretches_are_not_stuck() -> None:
    # an exact solver at a kink returns one point for a range of weights: optimal at each
    kink = quiet(uniform, GridCurve(kinked), 8, iterations=3)
    assert kinds(kink) == ["collapsed"]
    # an exact solver on a front of few points keeps its points as the weights move
    few = np.array([[1.0, 0.0], [0.4, 0.3], [0.1, 0.7], [0.0, 1.0]])
    exact = quiet(
        ps.surf, lambda w, s: ps.Solution(few[np.argmin(few @ [w, 1 - w])]), 6, iterations=6
    )
    assert "stuck" not in kinds(exact)
    # healthy solvers
    for solver in (
        ps.problems.GearToy(9).solver(),
        ps.problems.GearToy(2).gradient_solver(steps=20),
    ):
        assert ps.surf(solver, 8, iterations=10).findings == []


# ------------------------------------------------------------------------ no minimizer
def separable_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """40 points labelled by the side of the line x . u = 0 they lie on, none within 0.2 of it:
    linearly separable, with margin 0.2 along u."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 2))
    u = np.array([1.0, 0.5]) / math.hypot(1.0, 0.5)
    x = x[np.abs(x @ u) >= 0.2][:40]
    return x, np.sign(x @ u), u


def test_logistic_loss_on_separable_data_has_no_minimizer_at_w_1() -> None:
    torch = pytest.importorskip("torch")
    x, y, u = separable_data()
    # the truth, independent of any run: along u the loss falls towards 0 without reaching
    # it (each term log(1 + exp(-s y x.u)) < exp(-0.2 s)), so no finite theta minimizes it
    loss = [float(np.mean(np.logaddexp(0, -s * y * (x @ u)))) for s in (1.0, 10.0, 100.0)]
    assert loss[0] > loss[1] > loss[2] > 0 and loss[2] < math.exp(-0.2 * 100)
    xt, yt = torch.tensor(x), torch.tensor(y)

    def losses(params: list[Any]) -> Any:
        (theta,) = params
        z = yt * (xt @ theta)
        return torch.stack([torch.nn.functional.softplus(-z).mean(), (theta**2).sum()])

    def run(**kwargs: Any) -> ps.Result:
        theta = torch.zeros(2, dtype=torch.float64, requires_grad=True)
        solver = ps.adapters.from_torch([theta], losses, steps=20, lr=0.1)
        return quiet(uniform, solver, 6, iterations=8, **kwargs)

    res = run()
    # the w = 1 slot: its loss fell and its weights' norm grew in every round
    end = np.array([r.points[-1] for r in res.history])
    assert np.all(np.diff(end[:, 0]) < 0) and np.all(np.diff(end[:, 1]) > 0)
    (f,) = [f for f in res.findings if f.kind == "no_minimizer"]
    assert f.fatal and f.slots == (6,) and not res.success
    assert f.remedy_text() == "solve inside the ends: weight_bounds=(0.001, 0.999)"
    assert "logistic" in f.message and "Tchebycheff" not in f.message
    assert "unconverged" not in kinds(res) and "jump" not in kinds(res)
    # inside the ends every problem has a minimizer (strongly convex): the finding is gone
    bounded = run(weight_bounds=(1e-3, 0.999))
    assert "no_minimizer" not in kinds(bounded)


def test_a_solver_that_stops_on_its_tolerance_along_no_minimizer_is_named() -> None:
    x, y, _ = separable_data()

    def objectives(theta: np.ndarray) -> np.ndarray:
        return np.array([np.mean(np.logaddexp(0, -y * (x @ theta))), theta @ theta])

    def jac(theta: np.ndarray) -> np.ndarray:
        s = -y / (1 + np.exp(y * (x @ theta)))
        return np.stack([(x * s[:, None]).mean(axis=0), 2 * theta])

    # L-BFGS-B runs the w = 1 slot out until the gradient falls below its tolerance, then
    # stops there: a point the tolerance chose (it weighed the runaway, not a minimizer)
    solver = ps.adapters.from_scipy(objectives, np.zeros(2), jac=jac, steps=5)
    res = quiet(ps.surf, solver, 8, iterations=12)
    (f,) = [f for f in res.findings if f.kind == "no_minimizer"]
    assert f.slots == (8,) and "tolerance" in f.message
    assert "jump" not in kinds(res)


def test_slow_convergence_at_an_end_is_not_a_missing_minimizer() -> None:
    # 3 gradient steps a round: the end slots creep to their minimizers, their steps
    # shrinking by a factor of about 0.8 a round
    for method in (ps.surf, uniform):
        res = quiet(method, ps.problems.GearToy(2).gradient_solver(steps=3), 10, iterations=20)
        assert "no_minimizer" not in kinds(res)


def test_a_corner_of_a_surface_without_minimizer() -> None:
    w = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1 / 3, 1 / 3, 1 / 3]])
    base = np.array([[0.0, 2.0, 2.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.5, 0.5, 0.5]])
    history = []
    for t in range(6):  # corner 0: f1 -> 0 while f2 grows by 1 a round
        pts = base.copy()
        pts[0] = [0.1 * 0.5**t, 2.0 + t, 2.0 + 0.5 * t]
        history.append(SimpleNamespace(weights=w, points=pts))
    found = diagnose_surface(w, pts, pts, history=history)
    (f,) = [f for f in found if f.kind == "no_minimizer"]
    assert f.slots == (0,) and f.options == {"weight_bounds": (1e-3, 1 - 2 * 1e-3)}
    assert "endpoint" not in kinds(found)
    # the same corner converging (its rises halving each round) has a minimizer
    converging = []
    for t in range(6):
        pts = base.copy()
        pts[0] = [0.1 * 0.5**t, 3.0 - 0.5**t, 2.0]
        converging.append(SimpleNamespace(weights=w, points=pts))
    assert "no_minimizer" not in kinds(diagnose_surface(w, pts, pts, history=converging))


# -------------------------------------------------------------------------- non-finite
def domain_objectives(calls: list[bool]) -> Any:
    """sqrt(x1) + x2^2 and (x1 - 2)^2 + sqrt(x2 + 1): NaN for x1 < 0 or x2 < -1, which
    unconstrained steps reach; ``calls`` records whether each call was finite."""

    def objectives(x: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            f = np.array([np.sqrt(x[0]) + x[1] ** 2, (x[0] - 2) ** 2 + np.sqrt(x[1] + 1)])
        calls.append(bool(np.all(np.isfinite(f))))
        return f

    return objectives


def test_from_scipy_counts_the_evaluations_that_returned_nan() -> None:
    calls: list[bool] = []
    solver = ps.adapters.from_scipy(domain_objectives(calls), np.array([1.0, 0.0]))
    met = 0
    for w in np.linspace(0, 1, 9):
        calls.clear()
        sol = solver.solve(float(w), None)
        assert sol.info["non_finite"] == calls.count(False)  # counted by the objectives
        met += sol.info["non_finite"] > 0
    assert met >= 1
    healthy = ps.adapters.from_scipy(lambda x: np.array([x[0] ** 2, (x[0] - 1) ** 2]), [0.5])
    assert healthy.solve(0.3, None).info["non_finite"] == 0


def test_from_torch_counts_the_steps_whose_losses_were_not_finite() -> None:
    torch = pytest.importorskip("torch")
    theta = torch.zeros(1, requires_grad=True)
    step = [0]

    def losses(params: list[Any]) -> Any:
        (p,) = params
        step[0] += 1
        bad = float("inf") if step[0] % 4 == 0 else 0.0  # a constant: its gradient is 0
        return torch.stack([(p[0] - 1.0) ** 2, (p[0] + 1.0) ** 2 + bad])

    solver = ps.adapters.from_torch(
        [theta],
        losses,
        steps=12,
        optimizer="sgd",
        lr=0.1,
        evaluate_fn=lambda params: torch.stack(
            [(params[0][0] - 1.0) ** 2, (params[0][0] + 1.0) ** 2]
        ),
    )
    sol = solver.solve(0.5, None)
    assert sol.info["non_finite"] == 3 and np.all(np.isfinite(sol.objectives))


def test_a_run_names_the_nan_met_inside_its_solves() -> None:
    inner = ps.adapters.from_scipy(domain_objectives([]), np.array([1.0, 0.0]))
    met: dict[float, int] = {}

    def solver(w: float, state: Any) -> ps.Solution:
        sol = inner.solve(w, state)
        met[w] = sol.info["non_finite"]
        return sol

    res = quiet(ps.surf, solver, 8, iterations=5)
    (f,) = [f for f in res.findings if f.kind == "non_finite"]
    expected = tuple(i for i, w in enumerate(res.weights) if met[float(w)] > 0)
    assert f.slots == expected and f.fatal and not res.success
    assert "NaN or inf" in f.message and "bound the variables" in f.remedy
    assert "Tchebycheff" not in f.remedy_text()


def test_non_finite_counts_that_are_not_the_reported_points_only_advise() -> None:
    w = np.linspace(0, 1, 3)
    pts = np.c_[1 - w, w]
    args = {"history": [], "scalarization": "linear", "ideal": None, "aims_even": True}
    assert solver_findings(w, pts, pts, infos=[{"non_finite": 0}] * 3, **args) == []
    (aligned,) = solver_findings(w, pts, pts, infos=[{}, {"non_finite": 2}, {}], **args)
    assert aligned.fatal and aligned.slots == (1,) and "w = 0.5" in aligned.message
    # two solves for three points (Soup's ends, OLS's last visit): which points they made
    # is not known here
    (loose,) = solver_findings(w, pts, pts, infos=[{"non_finite": 5}, {}], **args)
    assert not loose.fatal and loose.slots == ()


def test_findings_that_nan_explains_are_revised_away() -> None:
    local = Finding("local_minima", "...", slots=(2, 3))
    dominated = Finding("dominated", "...", slots=(2,))
    nan = Finding("non_finite", "...", slots=(1, 2, 3))
    assert kinds(revise([local, dominated], [nan])) == ["dominated"]
    (told,) = revise([dominated], [Finding("local_minima", "...", slots=(2, 5))])
    assert told.kind == "dominated" and "local minima" in told.message
    assert "not more steps" in told.remedy
    assert kinds(revise([local], [Finding("non_finite", "...", slots=(2,))])) == [
        "local_minima"
    ]  # slot 3 is not explained


# ------------------------------------------------------------------------- local minima
@pytest.mark.parametrize("method", [ps.surf, uniform])
def test_solves_stopped_in_local_minima_are_named(method: Any) -> None:
    res = quiet(
        method, Basins(), 8, iterations=8, init_states=[np.array([0.5, y]) for y in BASINS_2D]
    )
    # the truth: the slots started outside basin 0 ended at the local minimum of their
    # basin (y near a non-zero integer n), both objectives about C n^2 above the front (the
    # minimum sits a little inside the integer: 0.29 for |n| = 1)
    y = np.array([s[1] for s in res.states])
    bad = {i for i in range(9) if round(y[i]) != 0}
    assert bad == BAD_2D
    x = np.array([s[0] for s in res.states])
    above = (res.points - np.c_[x**2, (1 - x) ** 2]).min(axis=1)
    n = np.round(y)
    assert np.all(above[sorted(bad)] >= 0.9 * C * n[sorted(bad)] ** 2)
    assert np.all(above[[0, 1, 3, 4, 7, 8]] < 1e-9)
    (f,) = [f for f in res.findings if f.kind == "local_minima"]
    assert set(f.slots) == bad and f.fatal and not res.success
    assert "multi-start" in f.remedy and "not more steps" in f.remedy
    assert "short solve" in f.message  # it says how it told them from one
    assert not {"noisy", "unconverged", "jump"} & set(kinds(res))
    # they are dominated too, and that finding names the cause, not more steps or averaging
    dominated = [f for f in res.findings if f.kind == "dominated"]
    assert all("local minima" in f.message and "moving_average" not in f.remedy for f in dominated)


def test_a_short_solve_is_not_called_a_local_minimum() -> None:
    # every slot in basin 0, but y descends slowly (a step 20 times below the safe one):
    # the points close in on the front round after round
    solver = Basins()
    slow = ps.Solution  # (keep the name short below)

    def short(w: float, state: Any) -> ps.Solution:
        s = np.array([0.5, 0.3] if state is None else state, dtype=float)
        lam = np.array([w, 1 - w])
        for _ in range(30):
            s[0] -= 0.25 * (2 * lam[0] * s[0] - 2 * lam[1] * (1 - s[0]))
            s[1] -= 0.002 * solver.h(float(s[1]))[1]
        return slow(solver.objectives(s), s)

    res = quiet(uniform, short, 8, iterations=8)
    assert "local_minima" not in kinds(res)
    first, last = res.history[0].points, res.history[-1].points
    assert np.all(last.sum(axis=1) < first.sum(axis=1))  # it was still improving


def test_noise_is_not_called_a_local_minimum() -> None:
    for seed in range(3):
        res = quiet(
            uniform,
            GridCurve(lambda t: np.c_[(1 - t) ** 2, t**2], noise=0.05, seed=seed),
            8,
            iterations=6,
        )
        assert "local_minima" not in kinds(res)


def test_local_minima_under_tchebycheff_come_from_the_solver_findings() -> None:
    w = np.linspace(0, 1, 7)
    ideal = np.array([-1e-6, -1e-6])
    curve = GridCurve(lambda t: np.c_[t**2, (1 - t) ** 2], kind="tchebycheff")
    front = np.stack([curve.solve(float(v), None).objectives for v in w])
    stuck = front.copy()
    stuck[3] += 0.2  # slot 3 in a basin 0.2 above the front
    history = rounds(w, stuck, stuck, stuck)
    # without the solver's scalarization the diagnosis cannot score the points
    assert "local_minima" not in kinds(
        diagnose(w, stuck, stuck, normalize="none", history=history, weighted_sum=False)
    )
    found = solver_findings(
        w,
        stuck,
        stuck,
        history=history,
        infos=[],
        aims_even=True,
        scalarization="tchebycheff",
        ideal=ideal,
    )
    (f,) = found
    assert f.kind == "local_minima" and f.slots == (3,)
    assert "Tchebycheff scalarization" in f.message
    # told the scalarization, the diagnosis finds them itself, and nothing is said twice
    said = diagnose(
        w, stuck, stuck, normalize="none", history=history, scalarization="tchebycheff", ideal=ideal
    )
    assert "local_minima" in kinds(said)
    assert (
        solver_findings(
            w,
            stuck,
            stuck,
            history=history,
            infos=[],
            aims_even=True,
            scalarization="tchebycheff",
            ideal=ideal,
            found=said,
        )
        == []
    )
    assert (
        local_minimum_slots(
            w, front, rounds(w, front, front, front), scalarization="tchebycheff", ideal=ideal
        )
        == []
    )


def test_a_solver_scalarizing_rescaled_objectives_has_no_local_minima() -> None:
    # the gear toy weighs sqrt(p)/2 (x - 1)^2 and x^2 / 2 but reports ((1 - x)^2, x^2): its
    # points are optimal at other weights than those it was given, and on the front
    res = ps.surf(ps.problems.GearToy(9).solver(), 8, iterations=5)
    assert local_minimum_slots(res.weights, res.points, res.history) == []


# -------------------------------------------------------- remedies fit the run they advise
def test_no_finding_tells_a_tchebycheff_run_to_use_tchebycheff() -> None:
    # ZDT2 as L-BFGS-B leaves it under weighted sums: most slots at the wrong end
    w = np.r_[0.001, 0.2310321 + 1e-13 * np.arange(9), 0.999]
    pts = np.array([[1.0, 0.0]] * 3 + [[0.0, 1.0]] * 8)
    for kind in ("tchebycheff", "modified_tchebycheff"):
        found = diagnose(w, pts, pts, normalize="none", scalarization=kind)
        assert {"collapsed", "jump"} <= set(kinds(found))
        text = " ".join(f"{f.message} {f.remedy_text()}" for f in found)
        assert "scalarization='tchebycheff'" not in text
    linear = diagnose(w, pts, pts, normalize="none", scalarization="linear")
    assert "scalarization='tchebycheff'" in next(f.message for f in linear if f.kind == "jump")


def test_surface_collapse_remedies_fit_the_scalarization() -> None:
    w = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0]])
    f = np.vstack([1 - w[:4], 1 - w[0]])  # slot 4 on slot 0's point

    def remedy(**kwargs: Any) -> str:
        (c,) = [x for x in diagnose_surface(w, f, f, **kwargs) if x.kind == "collapsed"]
        return c.remedy

    assert "scalarization='asf'" in remedy()  # weighted sums: asf or tchebycheff
    assert "'tchebycheff'" not in remedy(scalarization="tchebycheff")
    assert "scalarization='asf'" in remedy(scalarization="tchebycheff")
    asf = remedy(scalarization="asf")
    assert "'asf'" not in asf and "ideal point" in asf
    assert "ps.surf_simplex" in remedy(aims_even=False)


def test_uniform_w_at_a_kink_is_told_surf_not_tchebycheff() -> None:
    res = quiet(uniform, GridCurve(kinked), 8, iterations=1)
    (f,) = res.findings
    assert f.kind == "collapsed" and "ps.surf" in f.remedy
    assert "tchebycheff" not in f.remedy.lower()


def test_solver_findings_are_quiet_on_healthy_runs() -> None:
    for res in (
        ps.surf(ps.problems.GearToy(9).solver(), 10, iterations=20),
        ps.surf(Logistic(), 6, iterations=4, weight_bounds=(1e-3, 0.999)),
        uniform(Basins(), 8, iterations=6),
    ):
        assert not {"stuck", "no_minimizer", "non_finite", "local_minima"} & set(kinds(res))
