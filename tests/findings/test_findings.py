"""What a result says about itself: structured findings, one definition of success, a short
message, remedies spelled per front end, and errors that keep tracebacks out of messages."""

from __future__ import annotations

import json

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.findings import (
    MESSAGE_LIMIT,
    Finding,
    check_target,
    contraction_rate,
    is_quiet,
    oscillating_finding,
    success_and_message,
    uneven_finding,
    unsettled_finding,
)
from paretosurf.solvers import InnerSolverError


def test_success_is_false_exactly_when_a_finding_is_fatal() -> None:
    advice = Finding("scale", "ranges differ", fatal=False)
    error = Finding("dominated", "a point is dominated", slots=(3,))
    assert success_and_message("SURF", 5, 0.1, 1.2, [])[0]
    assert success_and_message("SURF", 5, 0.1, 1.2, [advice])[0]
    assert not success_and_message("SURF", 5, 0.1, 1.2, [advice, error])[0]


def test_the_message_is_short_whatever_the_findings() -> None:
    many = [Finding(f"kind{i}", "x" * 500, summary="y" * 200) for i in range(12)]
    ok, text = success_and_message("SURF", 21, 0.123, 4.56, many)
    assert not ok and len(text) <= MESSAGE_LIMIT
    lines = text.splitlines()
    assert lines[0] == "SURF: 21 points, CV 0.123, gap ratio 4.56"
    assert lines[-1].startswith("(and ") and lines[-1].endswith(" more in res.findings)")
    shown = len(lines) - 2
    assert lines[-1] == f"(and {12 - shown} more in res.findings)"
    # fatal findings come first
    mixed = [
        Finding("scale", "...", fatal=False, summary="advice"),
        Finding("dominated", "...", summary="error"),
    ]
    assert success_and_message("X", 3, 0.1, 1.1, mixed)[1].splitlines()[1:] == [
        "dominated: error",
        "scale: advice",
    ]


def test_a_finding_reads_back_from_files_of_this_and_earlier_versions() -> None:
    f = Finding(
        "endpoint",
        "weakly optimal",
        remedy="{weight_bounds}",
        options={"weight_bounds": (0.001, 0.999)},
        slots=(0,),
        summary="end",
    )
    back = Finding.from_dict(json.loads(json.dumps(f.to_dict())))
    assert back.remedy_text() == "weight_bounds=[0.001, 0.999]"  # JSON has no tuples
    assert (back.code, back.slots, back.summary, back.fatal) == ("endpoint", (0,), "end", True)
    old = Finding.from_dict({"code": "scale", "message": "m", "fatal": False})
    assert (
        old.severity == "advice"
        and old.remedy == ""
        and old.line() == ("scale: objective ranges differ by over 1e3")
    )


def test_remedies_name_options_in_the_front_ends_spelling() -> None:
    f = Finding(
        "unsettled",
        "...",
        fatal=False,
        remedy="more rounds ({resume} with more {iterations}) or {alpha}",
        options={"resume": True, "iterations": None, "alpha": "auto"},
    )
    assert f.remedy_text() == "more rounds (resume=True with more iterations) or alpha='auto'"
    assert f.remedy_text(lambda name, value: f"<{name}>") == (
        "more rounds (<resume> with more <iterations>) or <alpha>"
    )


def test_the_rounds_still_needed_follow_the_measured_contraction() -> None:
    # the excess over 1 halves each round: 8, 4, 2, 1 -> after the last (ratio 2) the
    # target 1.25 (excess 0.25) needs two more halvings
    f = uneven_finding(
        2.0,
        1.25,
        surface=False,
        aims_even=True,
        out_of_rounds=True,
        ratios=[9.0, 5.0, 3.0, 2.0],
        rounds=4,
    )
    assert f is not None and f.fatal and "~2 more" in f.summary
    assert f.remedy_text() == "run about 2 more rounds (resume=True with more iterations)"
    # no contraction: no estimate, and a pointer to the other findings
    flat = uneven_finding(
        3.0,
        2.0,
        surface=True,
        aims_even=True,
        out_of_rounds=True,
        ratios=[3.0, 3.1, 2.9, 3.0],
        rounds=4,
    )
    assert flat is not None and "more" not in flat.summary and flat.summary.startswith("nn max/min")
    # even enough, or a baseline (advice only)
    assert uneven_finding(1.9, 2.0, surface=False, aims_even=True, out_of_rounds=True) is None
    base = uneven_finding(30.0, 2.0, surface=False, aims_even=False, out_of_rounds=True)
    assert base is not None and not base.fatal and "SURF" in base.remedy


@pytest.mark.parametrize("bad", [1.0, 0.5, -2, float("nan"), float("inf"), True, "2"])
def test_a_target_must_be_a_ratio_above_one(bad: object) -> None:
    with pytest.raises(ValueError, match="target must be a number > 1"):
        check_target(bad)
    with pytest.raises(ValueError, match="target must be a number > 1"):
        ps.surf(lambda w, s: ps.Solution([1 - w, w**2]), 4, iterations=1, target=bad)  # type: ignore[arg-type]


def test_success_follows_the_target_the_user_sets() -> None:
    def solver(w: float, s: object) -> ps.Solution:
        x = 3 * w / (1 + 2 * w)
        return ps.Solution([(1 - x) ** 2, x**2], x)

    res = ps.surf(solver, 10, iterations=3)
    ratio = res.gap_ratio
    assert ratio > 1.0
    loose = ps.surf(solver, 10, iterations=3, target=ratio * 1.01)
    tight = ps.surf(solver, 10, iterations=3, target=max(1.0001, ratio * 0.99))
    assert loose.success and not any(f.code == "uneven" for f in loose.findings)
    assert not tight.success and [f.code for f in tight.findings] == ["uneven"]
    # the baselines are only advised: Uniform-w on the same lopsided front
    uniform = ps.methods.uniform(solver, 10, iterations=1)
    assert uniform.gap_ratio > 2 and uniform.success
    (uneven,) = uniform.findings
    assert uneven.code == "uneven" and uneven.severity == "advice"


def test_a_failed_solve_keeps_its_traceback_out_of_the_message() -> None:
    def solver(w: float, s: object) -> ps.Solution:
        if w > 0.9:
            raise ZeroDivisionError("deep inside the solver")
        return ps.Solution([1 - w, w**2])

    with pytest.raises(InnerSolverError) as info:
        ps.surf(solver, 4, iterations=1, retries=0)
    message = str(info.value)
    assert "ZeroDivisionError: deep inside the solver" in message
    assert "Traceback" not in message and "\n" not in message
    cause = info.value.__cause__
    assert isinstance(cause, ps.executors.SolveTraceback)
    assert "Traceback" in str(cause) and "raise ZeroDivisionError" in str(cause)


@pytest.mark.parametrize(
    "objectives", [["1.0", "2.0"], ("a", 1.0), [None, 1.0], np.array([1 + 1j, 2.0])]
)
def test_objectives_that_are_not_numbers_are_refused(objectives: object) -> None:
    with pytest.raises(TypeError, match="objectives must be numbers"):
        ps.Solution(objectives)
    with pytest.raises(InnerSolverError, match="objectives must be numbers"):
        ps.surf(lambda w, s: ps.Solution(objectives), 3, iterations=1, retries=0)


def test_the_contraction_rate_is_fitted_with_its_confidence() -> None:
    # the excess over 1 shrinks by exactly 0.6 a round: a perfect fit, no doubt
    ratios = [1 + 5 * 0.6**t for t in range(6)]
    rate, upper = contraction_rate(ratios)
    assert rate == pytest.approx(0.6) and upper == pytest.approx(0.6)
    # the same trend with a swing on top: the fit's upper bound passes 1
    swing = [1 + 5 * 0.9**t * (3.0 if t % 2 else 1.0) for t in range(6)]
    assert contraction_rate(swing)[1] > 1.0
    assert contraction_rate([3.0, 2.0]) is None  # one factor: nothing to fit


def test_a_swinging_spacing_promises_no_more_rounds() -> None:
    # (the lasso path of the finding bank: 1.46, 3.34, 1.47, 2.69, 2.3 read "~1 more")
    ratios = [44.5, 5.59, 6.56, 11.1, 5.97, 2.92, 1.95, 1.46, 3.34, 1.47, 2.69, 2.3]
    f = uneven_finding(
        2.3, 2.0, surface=False, aims_even=True, out_of_rounds=True, ratios=ratios, rounds=12
    )
    assert f is not None and "~" not in f.summary and "about" not in f.remedy_text()


def test_an_oscillating_spacing_is_fatal_only_when_the_reported_round_is_uneven() -> None:
    ratios = [40.0, 9.0, 6.0, 1.6, 5.5, 1.7, 5.1, 1.6, 4.9, 1.8, 4.9]
    uneven = oscillating_finding(ratios, 4.9, 2.0, surface=False, aims_even=True)
    assert uneven is not None and uneven.fatal and uneven.code == "oscillating"
    assert uneven.options == {"report": "most-even", "moving_average": 0.2}
    assert "1.6-5.5" in uneven.summary and len(uneven.summary) <= 60
    # the run reported an even round of them (report="most-even"): advice, and the remedy
    # names only what the run does not do yet (a lower rate where it averages)
    even = oscillating_finding(
        ratios, 1.6, 2.0, surface=False, aims_even=True, report="most-even", moving_average=0.2
    )
    assert even is not None and not even.fatal
    assert even.options == {"moving_average": 0.1}
    assert is_quiet(even, "done") and is_quiet(uneven, "iterations")
    assert not is_quiet(uneven, "done")
    # a baseline advises; a steady descent, or swings within the target, is no oscillation
    base = oscillating_finding(ratios, 4.9, 2.0, surface=False, aims_even=False)
    assert base is not None and not base.fatal
    steady = [9.0, 5.0, 3.0, 2.5, 2.3, 2.2, 2.15, 2.1, 2.05]
    assert oscillating_finding(steady, 2.05, 2.0, surface=False, aims_even=True) is None
    small = [1.2, 1.6, 1.1, 1.7, 1.2, 1.6, 1.1, 1.5, 1.2]
    assert oscillating_finding(small, 1.2, 2.0, surface=False, aims_even=True) is None


def test_weights_still_moving_at_their_own_scale_are_unsettled() -> None:
    # a full step of 1e-6 is nothing against the even spacing 0.05, but 30% of the spacing
    # of weights that crowd within 1e-5 of an end
    assert unsettled_finding(1e-6, 21) == []
    (f,) = unsettled_finding(1e-6, 21, {"alpha": "auto"}, share=0.3)
    assert not f.fatal and "30% of their own spacing" in f.summary
    assert f.remedy_text() == "run more rounds (resume=True with more iterations) or alpha='auto'"
    assert unsettled_finding(1e-6, 21, share=0.01) == []  # settled at their scale
