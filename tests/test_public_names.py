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
        ("Piece", "paretosurf.curves._pieces"),
        ("SurfacePiece", "paretosurf.surfaces._pieces"),
        ("RoundOutcome", "paretosurf.loop._method"),
        ("StatePool", "paretosurf.storage._states"),
        ("SlotMethod", "paretosurf.methods._slots"),
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
        "'paretosurf.bench', 'matplotlib', 'pytest', 'torch')\n"
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
        ps.methods.uniform(lambda w, s: ps.Solution([0.0, 0.0]), 2, iterations=1)
    result = ps.surf(lambda w, s: ps.Solution([1 - w, w]), 4, iterations=1)
    with pytest.warns(DeprecationWarning):
        assert isinstance(result, ps.SurfResult)
    np.testing.assert_allclose(result.points.sum(axis=1), 1.0)


#: Modules that moved into the subpackages: (earlier path, a name it had, its public home).
MOVED = [
    ("paretosurf.driver", "run", "paretosurf.loop"),
    ("paretosurf.surf", "SurfMethod", "paretosurf.methods"),
    ("paretosurf.surf_simplex", "SurfSimplexMethod", "paretosurf.methods"),
    ("paretosurf.checkpoint", "pack_arrays", "paretosurf.storage"),
    ("paretosurf.checkpoint", "Checkpointer", "paretosurf.loop"),
    ("paretosurf.run_folder", "RunFolder", "paretosurf.storage"),
    ("paretosurf.states", "StatePool", "paretosurf.storage"),
    ("paretosurf.cdf", "ArcLengthCDF", "paretosurf.curves"),
    ("paretosurf.pieces", "Piece", "paretosurf.curves"),
    ("paretosurf.surface_pieces", "SurfacePiece", "paretosurf.surfaces"),
    ("paretosurf.simplex_weights", "simplex_lattice", "paretosurf.surfaces"),
    ("paretosurf.front_ends", "FrontEnds", "paretosurf.findings"),
    ("paretosurf.method", "RoundOutcome", "paretosurf.loop"),
    ("paretosurf.slots", "SlotMethod", "paretosurf.methods"),
    ("paretosurf.solver_identity", "solver_identity", "paretosurf.solvers"),
    ("paretosurf.baselines.umod", "UMODMethod", "paretosurf.methods"),
    ("paretosurf.baselines.uniform", "FixedWeightsMethod", "paretosurf.methods"),
]


@pytest.mark.parametrize(("old", "name", "home"), MOVED)
def test_a_moved_module_still_imports_with_a_warning(old: str, name: str, home: str) -> None:
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=f"{old}.{name} is now {home}.{name}"):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(home), name)


def test_from_import_of_a_moved_module_warns_where_it_is_written() -> None:
    code = (
        "import warnings\n"
        "warnings.simplefilter('always')\n"
        "from paretosurf.driver import run\n"
        "import paretosurf as ps\n"
        "print(run is ps.run)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
    assert "<string>:3: DeprecationWarning: paretosurf.driver.run is now paretosurf.loop.run" in (
        out.stderr
    )


def test_the_function_keeps_the_name_of_the_module_it_left() -> None:
    # paretosurf.surf was a module and the function it defined; the function stays on the
    # package whatever imports the earlier module path
    with pytest.warns(DeprecationWarning):
        from paretosurf.surf import SurfMethod
    import paretosurf.surf  # noqa: F401 - the import must not rebind the package attribute

    assert callable(ps.surf) and ps.surf is ps.methods.surf
    assert SurfMethod is ps.methods.SurfMethod
    assert ps.baselines.__name__ == "paretosurf.baselines"
    with pytest.warns(DeprecationWarning, match="paretosurf.baselines.uniform is now"):
        assert ps.baselines.uniform is ps.methods.uniform


def test_an_unknown_name_of_a_moved_module_raises() -> None:
    import paretosurf.driver as old

    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        _ = old.nothing  # type: ignore[attr-defined]
