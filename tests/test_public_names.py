"""The package's public surface: the types a run hands its user exported, the subpackages
reachable as attributes without importing their dependencies, and the earlier names
(``SurfResult``, ``SurfWarning``) working with a DeprecationWarning."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import paretosurf as ps


def test_every_name_in_all_resolves() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # no old name in __all__
        for name in ps.__all__:
            assert getattr(ps, name) is not None, name
    assert {"SurfResult", "SurfWarning"}.isdisjoint(ps.__all__)


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("Finding", "paretosurf.findings"),
        ("Piece", "paretosurf.pieces"),
        ("SurfacePiece", "paretosurf.surface_pieces"),
        ("RoundOutcome", "paretosurf.method"),
        ("StatePool", "paretosurf.states"),
        ("SlotMethod", "paretosurf.slots"),
        ("Executor", "paretosurf.executors"),
        ("ManagedExecutor", "paretosurf.executors"),
    ],
)
def test_the_types_users_receive_are_exported(name: str, module: str) -> None:
    assert getattr(ps, name) is getattr(importlib.import_module(module), name)
    assert name in ps.__all__


def test_a_runs_findings_are_the_exported_type() -> None:
    # a front with a jump: the run reports findings
    def solver(w: float, state: object) -> ps.Solution:
        f1 = 1.0 - w if w < 0.5 else 0.4 * (1.0 - w)
        return ps.Solution([f1, 1.0 - f1 if w < 0.5 else 0.2 - f1])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ps.ParetoWarning)
        res = ps.surf(solver, 8, iterations=3)
    assert res.findings and all(isinstance(f, ps.Finding) for f in res.findings)


def test_subpackages_are_attributes_imported_at_first_use() -> None:
    code = (
        "import sys, paretosurf as ps\n"
        "lazy = ('paretosurf.plotting', 'paretosurf.llm', 'paretosurf.testing', "
        "'paretosurf.bench', 'paretosurf.methods', 'matplotlib', 'pytest', 'torch')\n"
        "print(sorted(m for m in lazy if m in sys.modules))\n"
        "print(ps.plotting.__name__, ps.methods.__name__, ps.testing.__name__, ps.bench.__name__)\n"
        "print('plotting' in dir(ps), 'llm' in dir(ps))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:3] == [
        "[]",
        "paretosurf.plotting paretosurf.methods paretosurf.testing paretosurf.bench",
        "True True",
    ]


def test_an_unknown_attribute_still_raises() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'surff'"):
        _ = ps.surff  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("paretosurf", "SurfResult", "paretosurf.Result"),
        ("paretosurf", "SurfWarning", "paretosurf.ParetoWarning"),
        ("paretosurf.result", "SurfResult", "paretosurf.result.Result"),
        ("paretosurf.findings", "SurfWarning", "paretosurf.findings.ParetoWarning"),
        ("paretosurf.checkpoint", "Checkpointer", "paretosurf.run_checkpoints.Checkpointer"),
        (
            "paretosurf.checkpoint",
            "CHECKPOINT_SHARE",
            "paretosurf.run_checkpoints.CHECKPOINT_SHARE",
        ),
    ],
)
def test_earlier_names_work_with_a_deprecation_warning(module: str, old: str, new: str) -> None:
    mod = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=f"{module}.{old} is now {new}"):
        value = getattr(mod, old)
    home, name = new.rsplit(".", 1)
    assert value is getattr(importlib.import_module(home), name)


def test_from_import_of_an_earlier_name_warns_and_still_catches() -> None:
    with pytest.warns(DeprecationWarning):
        from paretosurf import SurfWarning
    with pytest.warns(SurfWarning):  # the old name catches the warnings runs raise
        ps.baselines.uniform(lambda w, s: ps.Solution([0.0, 0.0]), 2, iterations=1)
    result = ps.surf(lambda w, s: ps.Solution([1 - w, w]), 4, iterations=1)
    with pytest.warns(DeprecationWarning):
        assert isinstance(result, ps.SurfResult)
    np.testing.assert_allclose(result.points.sum(axis=1), 1.0)
