"""The findings as a package (``paretosurf.findings``): the modules it replaced
(``paretosurf.diagnostics``, ``paretosurf.solver_findings``, ``paretosurf.degenerate``) still
import, with a DeprecationWarning that names the importing line, and give the package's own
objects; the library itself imports none of them."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

import paretosurf.findings as findings

#: The earlier modules and names code imported from them.
MOVED = {
    "paretosurf.diagnostics": [
        "EARLIER_MARGIN",
        "JUMP_GAP",
        "LOCAL_ROUNDS",
        "WEIGHT_TOL",
        "Finding",
        "ParetoWarning",
        "coincident_pairs",
        "diagnose",
        "diagnose_surface",
        "dominated_in_local_minima",
        "frozen_and_beaten",
        "jump_gaps",
        "local_minima_finding",
        "local_minimum_slots",
    ],
    "paretosurf.solver_findings": [
        "declared_scalarization",
        "diagnose_run",
        "pieces_jump",
        "revise",
        "solver_findings",
    ],
    "paretosurf.degenerate": ["conflict_free_pairs", "curve_share", "degenerate_finding"],
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_earlier_module_warns_and_gives_the_same_objects(
    old: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)  # (imported afresh: it warns once)
    message = f"{old} is now paretosurf.findings; the old path goes in paretosurf 0.2"
    with pytest.warns(DeprecationWarning, match=message) as caught:
        module = importlib.import_module(old)
    # the warning names the line that imports the module, not the import machinery
    assert [w.filename for w in caught if w.category is DeprecationWarning] == [__file__]
    for name in MOVED[old]:
        assert getattr(module, name) is getattr(findings, name), name
    assert all(hasattr(module, name) for name in module.__all__)


def test_every_name_of_the_package_resolves() -> None:
    assert all(hasattr(findings, name) for name in findings.__all__)
    assert len(set(findings.__all__)) == len(findings.__all__)
    assert not [name for name in findings.__all__ if name.startswith("_")]


def test_the_library_imports_no_earlier_module() -> None:
    root = Path(findings.__file__).parent.parent
    shims = {root / f"{name.rsplit('.', 1)[1]}.py" for name in MOVED}
    found = []
    for path in sorted(root.rglob("*.py")):
        if path in shims:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            found += [f"{path.relative_to(root)}: {n}" for n in names if n in MOVED]
            if isinstance(node, ast.ImportFrom) and node.module == "paretosurf":
                old = {name.rsplit(".", 1)[1] for name in MOVED}
                found += [
                    f"{path.relative_to(root)}: {a.name}" for a in node.names if a.name in old
                ]
    assert found == []
