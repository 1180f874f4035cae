"""The ``dominated`` finding for final points that a point an earlier round found dominates:
the result's own points cannot show that the solves ended in a poorer basin."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from paretosurf.findings import EARLIER_MARGIN, diagnose

W = np.linspace(0.0, 1.0, 9)
FRONT = np.c_[1.0 - W, W]  # the straight front f1 + f2 = 1, in weight order
SHIFTED = FRONT + 0.2  # every point 0.2 worse in both objectives: none dominates another


def codes(points: np.ndarray, history: list[SimpleNamespace], **options: object) -> dict:
    found = diagnose(W, points, points, normalize="none", history=history, **options)
    return {f.code: f for f in found}


def rounds(*point_sets: np.ndarray) -> list[SimpleNamespace]:
    return [SimpleNamespace(weights=W, points=p) for p in point_sets]


def test_points_an_earlier_round_beat_are_dominated() -> None:
    found = codes(SHIFTED, rounds(FRONT, SHIFTED))
    assert "dominated" in found and found["dominated"].fatal
    # the end slots are judged by the endpoint checks; every interior one is named
    assert set(range(1, 8)) <= set(found["dominated"].slots)
    assert "earlier rounds" in found["dominated"].message


def test_no_finding_without_the_evidence() -> None:
    assert "dominated" not in codes(SHIFTED, rounds(SHIFTED, SHIFTED))  # nothing better seen
    assert "dominated" not in codes(FRONT, rounds(SHIFTED, FRONT))  # earlier ones were worse
    # averaged runs keep raw noisy estimates in their history: not evidence
    assert "dominated" not in codes(SHIFTED, rounds(FRONT, SHIFTED), moving_average=0.3)


def test_a_lead_within_the_margin_is_no_evidence() -> None:
    """A point better by less than the margin (a solver's tolerance, a lag still closing)
    does not count: the final points' range is 1 in each objective."""
    middle = SHIFTED[4]
    close = np.repeat([middle - 0.9 * EARLIER_MARGIN], 9, axis=0)
    assert "dominated" not in codes(SHIFTED, rounds(close, SHIFTED))
    far = np.repeat([middle - 1.1 * EARLIER_MARGIN], 9, axis=0)
    assert codes(SHIFTED, rounds(far, SHIFTED))["dominated"].slots == (4,)


def test_one_finding_names_both_kinds() -> None:
    """A point its neighbours dominate and points earlier rounds beat: one finding, all
    their slots."""
    final = SHIFTED.copy()
    final[2] += 0.3  # its neighbour (slot 3) dominates it now
    found = diagnose(W, final, final, normalize="none", history=rounds(FRONT, final))
    dominated = [f for f in found if f.code == "dominated"]
    assert len(dominated) == 1
    assert 2 in dominated[0].slots and {3, 4, 5} <= set(dominated[0].slots)
    assert "earlier rounds" in dominated[0].message
    n = len(dominated[0].slots)
    assert dominated[0].summary.startswith(f"{n} of 9 points dominated (")


def test_points_beaten_by_earlier_rounds_match_a_search_of_every_earlier_point() -> None:
    """The "dominated" finding searches the earlier rounds' non-dominated points only; a
    brute-force search of every earlier point names the same slots and the same beaters."""
    from paretosurf.findings._dominated import _dominated_by_earlier

    rng = np.random.default_rng(7)
    for _ in range(50):
        m, n = int(rng.integers(2, 4)), int(rng.integers(3, 30))
        points = rng.random((n, m))
        history = [
            SimpleNamespace(points=rng.random((n, m)) * rng.uniform(0.4, 1.4)) for _ in range(3)
        ]
        seen = np.vstack([r.points for r in history])
        ranges = np.ptp(points, axis=0)
        expected = {}
        for i in range(n):
            better = seen[np.all(seen < points[i] - EARLIER_MARGIN * ranges, axis=1)]
            if len(better):
                expected[i] = better[np.argmin(np.sum((better - points[i]) / ranges, axis=1))]
        found = _dominated_by_earlier(points, history, list(range(n)), None)
        if not expected:
            assert found == []
            continue
        (finding,) = found
        shown = sorted(expected)[:3]
        for i in shown:
            beater = np.array2string(expected[i], precision=4, separator=", ")
            assert f"slot {i} by {beater}" in finding.message
