"""The size of a run: ``n_points`` for every method, the positional N of the two-objective
methods the same run, the earlier keyword ``n_segments=`` working with a warning, and the
size given once."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import paretosurf as ps
from paretosurf.methods import METHODS

TWO_OBJECTIVE = sorted(name for name, info in METHODS.items() if not info.simplex)


class Line:
    """An exact solver of a convex front, (1 - w)^2 against w^2; its state is the weight, so
    that Soup can interpolate it and evaluate the result."""

    def solve(self, w: float, state: object) -> ps.Solution:
        return ps.Solution(self.evaluate(np.array([w])), state=np.array([w]))

    def evaluate(self, state: np.ndarray) -> np.ndarray:
        w = float(state[0])
        return np.array([(1.0 - w) ** 2, w**2])


def line(w: float, state: object) -> ps.Solution:
    return Line().solve(w, state)


#: What each method needs besides its size, for a run that draws the same on every call.
SEEDED = {"random": {"seed": 0}, "umod": {"seed": 0, "surrogate_steps": 50}}


def run(name: str, *args: object, **kwargs: object) -> ps.Result:
    info = METHODS[name]
    budget = info.budget(2, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        return info.entry(Line(), *args, **budget, **SEEDED.get(name, {}), **kwargs)


def test_every_two_objective_method_is_covered() -> None:
    assert set(TWO_OBJECTIVE) == {"surf", "uniform", "random", "ols", "umod", "soup"}


@pytest.mark.parametrize("name", TWO_OBJECTIVE)
def test_n_points_is_the_positional_size_plus_one(name: str) -> None:
    by_position = run(name, 4)
    by_points = run(name, n_points=5)
    assert len(by_points.weights) == len(by_position.weights) <= 5
    np.testing.assert_array_equal(by_points.weights, by_position.weights)
    np.testing.assert_array_equal(by_points.points, by_position.points)


@pytest.mark.parametrize("name", TWO_OBJECTIVE)
def test_the_earlier_keyword_warns_and_runs_the_same(name: str) -> None:
    # the solver by keyword too, as the library's own LLM protocol passes it
    info = METHODS[name]
    entry = info.entry.__name__
    warned = rf"{entry}\(n_segments=4\) is now {entry}\(n_points=5\)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        with pytest.warns(DeprecationWarning, match=warned):
            res = info.entry(
                solver=Line(), n_segments=4, **info.budget(2, 5), **SEEDED.get(name, {})
            )
    np.testing.assert_array_equal(res.weights, run(name, n_points=5).weights)


@pytest.mark.parametrize("name", TWO_OBJECTIVE)
def test_the_positional_size_and_n_points_do_not_warn(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        run(name, 4)
        run(name, n_points=5)


@pytest.mark.parametrize("name", TWO_OBJECTIVE)
def test_the_size_is_given_once(name: str) -> None:
    with pytest.raises(TypeError, match="takes the size once"):
        run(name, 4, n_points=5)
    with pytest.raises(TypeError, match="not neither"):
        run(name)


@pytest.mark.parametrize("bad", [1, 0])
def test_too_few_points_are_refused(bad: int) -> None:
    with pytest.raises(ValueError, match="n_points must be an integer >= 2"):
        ps.surf(line, n_points=bad)
    with pytest.raises(TypeError, match="n_points must be an integer"):
        ps.methods.uniform(line, n_points=5.0)  # type: ignore[arg-type]


def test_surf_simplex_counts_points_the_same_way() -> None:
    # the one spelling: n_points is the number of points for two objectives and for three
    two = ps.surf(line, n_points=6, iterations=1)
    assert len(two.points) == 6
    assert METHODS["surf_simplex"].entry.__name__ == "surf_simplex"
