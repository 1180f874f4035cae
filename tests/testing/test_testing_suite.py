"""paretosurf.testing on a method written here, as a user would write one: the shipped contract
suite runs on any :class:`paretosurf.Method`, not only the library's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import paretosurf as ps
from paretosurf.methods import METHODS, get_method, method_names
from paretosurf.methods._slots import SlotMethod
from paretosurf.testing import Candidate, MethodContract


class HalvesMethod(SlotMethod):
    """Weights ``(n / N) ** 2``, fixed: a user's method, in a dozen lines."""

    name = "halves"
    label = "Halves"

    def __init__(self, n_segments: int) -> None:
        super().__init__(n_segments, warm_start="slot")
        self.weights = (np.arange(self.n_segments + 1) / self.n_segments) ** 2

    def settings(self) -> dict[str, Any]:
        return {"n_segments": self.n_segments}

    def next_weights(self) -> NDArray[np.float64]:
        return self.weights.copy()

    def state_dict(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        return self.slot_state()

    def load_state_dict(
        self,
        meta: Mapping[str, Any],
        arrays: Mapping[str, NDArray[Any]],
        history: Sequence[ps.IterationRecord],
    ) -> None:
        self.load_slot_state(meta, arrays)


class TestAUsersMethod(MethodContract):
    check_processes = False  # the class lives in a test module

    @pytest.fixture
    def method(self) -> Candidate:
        return Candidate.of(lambda n_points, n_objectives: HalvesMethod(n_points - 1))


def test_the_registry_names_every_method_once() -> None:
    assert len(METHODS) == 11
    for name, info in METHODS.items():
        assert get_method(name) is info and info.name == name
        assert all(get_method(alias) is info for alias in info.aliases)
        assert info.entry.__name__ in (name, *info.aliases)
        assert getattr(ps.methods, info.entry.__name__) is info.entry  # its public home
    assert get_method("uniform_random").name == "random"  # runs record "random"
    assert method_names(simplex=True) == [
        "surf_simplex",
        "das_dennis",
        "random_simplex",
        "energy",
        "simplex_weights",
    ]
    with pytest.raises(KeyError, match="known: surf"):
        get_method("nope")


def test_new_names_are_the_old_classes() -> None:
    with pytest.warns(DeprecationWarning):
        assert ps.Result is ps.SurfResult and ps.ParetoWarning is ps.SurfWarning
    with pytest.warns(ps.ParetoWarning):
        import warnings

        warnings.warn("x", ps.ParetoWarning, stacklevel=1)
    res = ps.surf(lambda w, s: ps.Solution([1 - w, w]), n_points=5, iterations=1)
    assert isinstance(res, ps.Result) and len(res.points) == 5
    with pytest.raises(TypeError, match="not both"):
        ps.surf(lambda w, s: ps.Solution([1 - w, w]), 4, n_points=5)
    with pytest.raises(ValueError, match="n_points"):
        ps.surf(lambda w, s: ps.Solution([1 - w, w]), n_points=1)
    with pytest.raises(TypeError, match="surf\\(\\) got an unexpected keyword argument"):
        ps.surf(lambda w, s: ps.Solution([1 - w, w]), 4, nope=1)


def test_every_entry_function_documents_every_loop_option() -> None:
    from paretosurf.loop._options import LOOP_OPTIONS

    for info in METHODS.values():
        doc = info.entry.__doc__ or ""
        missing = [k for k in LOOP_OPTIONS if f"\n    {k} :" not in doc]
        assert not missing, (info.name, missing)
        assert "<loop options>" not in doc and "map(" not in doc


def test_the_testing_package_keeps_its_public_names() -> None:
    """paretosurf.testing is a package of private modules; its names, and the path a pickle or
    a run folder records for its solvers, stay ``paretosurf.testing``."""
    import pickle

    import paretosurf.testing as testing
    from paretosurf.solvers import solver_name

    assert sorted(testing.__all__) == [
        "BowlKStep",
        "Candidate",
        "DiskGearKStep",
        "ExecutorContract",
        "FailingSolver",
        "GearKStep",
        "Interrupt",
        "MethodContract",
        "QuadraticSolver",
        "assert_same_result",
        "gear_curve",
        "interrupt_after",
    ]
    assert all(getattr(testing, name).__module__ == testing.__name__ for name in testing.__all__)
    assert testing.GEAR == 9.0
    assert solver_name(testing.GearKStep()) == "paretosurf.testing:GearKStep"
    assert type(pickle.loads(pickle.dumps(testing.BowlKStep()))) is testing.BowlKStep
