"""The package's shape: no import cycles (function-local imports included), no extra imported
by ``import paretosurf``."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import types
from pathlib import Path

import paretosurf

ROOT = Path(paretosurf.__file__).parent
PACKAGE = "paretosurf"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in ROOT.rglob("*.py")}


def _in_type_checking(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Modules of the package that ``name`` imports anywhere in its code (at module level or
    inside functions), outside ``if TYPE_CHECKING`` blocks."""
    tree = ast.parse(path.read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if _in_type_checking(node, parents):
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == PACKAGE}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != PACKAGE:
                continue
            subs = {f"{target}.{a.name}" for a in node.names} & known
            out |= subs if subs else {target}
    return {m for m in out if m in known and m != name}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    colour: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if colour.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in colour and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        colour[node] = 2
        return None

    for node in sorted(graph):
        if node not in colour and (cycle := visit(node)):
            return cycle
    return None


def test_cycle_finder_sees_a_cycle_through_a_local_import() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_module_imports_one_that_imports_it_back() -> None:
    mods = modules()
    known = set(mods)
    graph = {name: imports_of(name, path, known) for name, path in mods.items()}
    # the package's own __init__ re-exports everything; a submodule importing a sibling
    # through it (``from paretosurf import metrics``) is resolved to the sibling above
    graph[PACKAGE] = set()
    # the parser sees real imports
    assert "paretosurf.loop" in graph["paretosurf.methods._surf"]
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph) or [])}"


#: Modules below the driver: what a method needs (the interface, the run's saved state, the
#: loop options' descriptions) imports nothing that imports the driver, so that the driver
#: can import them and a method module needs only them and ``run``.
BELOW_DRIVER = (
    "paretosurf.loop._method",
    "paretosurf.loop._state",
    "paretosurf.loop._options",
    "paretosurf.storage._files",
    "paretosurf.storage._states",
    "paretosurf.loop._spacing_options",
    "paretosurf.loop._kept_rounds",
    "paretosurf.loop._solving",
    "paretosurf.loop._reporting",
    "paretosurf.loop._start",
    "paretosurf.loop._interrupts",
    "paretosurf.curves._flat_ends",
)


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_reachable_follows_imports_transitively() -> None:
    assert reachable({"a": {"b"}, "b": {"c"}, "c": set()}, "a") == {"b", "c"}


def test_the_method_interface_and_the_run_state_sit_below_the_driver() -> None:
    mods = modules()
    known = set(mods)
    graph = {name: imports_of(name, path, known) for name, path in mods.items()}
    graph[PACKAGE] = set()
    for name in BELOW_DRIVER:
        assert "paretosurf.loop._driver" not in reachable(graph, name), name
    assert {"paretosurf.loop._method", "paretosurf.loop._state"} <= graph["paretosurf.loop._driver"]
    # the loop options' descriptions import nothing of the package but its shared checks:
    # the driver documents run() with them
    assert graph["paretosurf.loop._options"] <= {"paretosurf._utils.validation"}


def test_importing_the_package_imports_no_extra() -> None:
    code = (
        "import sys, paretosurf, paretosurf.loop, paretosurf.methods, paretosurf.bench,"
        " paretosurf.problems;"
        "print(sorted(m for m in ('torch', 'gymnasium', 'mo_gymnasium', 'ray', "
        "'transformers', 'matplotlib', 'numba', 'submitit') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def root_imports(path: Path, source: str | None = None) -> list[str]:
    """The lines of ``path`` (or of ``source``) that import the package root itself: ``import
    paretosurf`` (``as ps``) or ``from paretosurf import NAME`` where ``NAME`` is not a
    subpackage or module (a submodule imported through the root is fine: Python binds it
    either way)."""
    tree = ast.parse(path.read_text() if source is None else source)
    submodules = {p.stem for p in ROOT.glob("*.py")} | {
        p.parent.name for p in ROOT.glob("*/__init__.py")
    }
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [f"import {a.name}" for a in node.names if a.name == PACKAGE]
        elif isinstance(node, ast.ImportFrom) and node.module == PACKAGE and not node.level:
            out += [
                f"from {PACKAGE} import {a.name}" for a in node.names if a.name not in submodules
            ]
    return out


def test_the_root_import_check_sees_a_planted_import() -> None:
    path = ROOT / "metrics.py"
    assert root_imports(path, "def f():\n    import paretosurf as ps\n") == ["import paretosurf"]
    assert root_imports(path, "from paretosurf import Result, metrics\n") == [
        "from paretosurf import Result"
    ]
    assert root_imports(path, "from paretosurf import metrics\nimport numpy\n") == []


def test_no_module_imports_the_package_root() -> None:
    # a module that imports the root depends on every layer: the root re-exports them all
    found = {
        name: lines
        for name, path in modules().items()
        if name != PACKAGE and (lines := root_imports(path))
    }
    assert found == {}


#: The layers of the package, bottom up (docs/architecture.md): a module imports modules of its
#: own layer or of layers below. Every module and subpackage at the package's top level has a
#: layer here, so that a new one is placed on purpose.
LAYERS: tuple[tuple[str, ...], ...] = (
    # utilities: argument checks, the progress bar, ties, the earlier names and paths
    ("_utils", "_version"),
    # bytes on disk
    ("storage",),
    # the inner-solver contract, the scalarizations and adapters, the metrics
    ("solvers", "adapters", "metrics"),
    # the geometry of fronts (two objectives) and surfaces (three or more)
    ("curves", "surfaces"),
    # findings (and the old paths of its modules)
    ("findings", "diagnostics", "solver_findings", "degenerate"),
    ("result",),
    ("executors",),
    ("loop",),
    # methods (and the old path of the baselines)
    ("methods", "baselines"),
    # applications (jobs: runs driven by ask and tell)
    ("problems", "plotting", "bench", "llm", "testing", "jobs"),
    # front ends
    ("cli", "__main__"),
)

#: Imports that still run upward, each with its reason.
UPWARD_ALLOWED: set[tuple[str, str]] = set()

#: Modules left at an earlier path, which re-export private names of their new home.
OLD_PATHS = ("paretosurf.diagnostics", "paretosurf.solver_findings", "paretosurf.degenerate")


def layer_of() -> dict[str, int]:
    return {name: i for i, names in enumerate(LAYERS) for name in names}


def upward_imports(graph: dict[str, set[str]], layers: dict[str, int]) -> set[tuple[str, str]]:
    """The (importer, imported) pairs of top-level modules whose import runs to a higher layer,
    from the module graph ``graph`` (full dotted names)."""

    def top(name: str) -> str:
        return name.split(".")[1] if "." in name else name

    out = set()
    for name, deps in graph.items():
        if name == PACKAGE:
            continue
        for dep in deps:
            a, b = top(name), top(dep)
            if a != b and layers[b] > layers[a]:
                out.add((a, b))
    return out


def test_the_layer_check_sees_a_planted_upward_import() -> None:
    layers = {"low": 0, "high": 1}
    graph = {"paretosurf.low.x": {"paretosurf.high"}, "paretosurf.high": {"paretosurf.low.y"}}
    assert upward_imports(graph, layers) == {("low", "high")}


def test_every_top_level_module_has_a_layer() -> None:
    tops = {name.split(".")[1] for name in modules() if name != PACKAGE}
    placed = layer_of()
    assert tops - set(placed) == set(), "place the new modules in LAYERS"
    assert set(placed) - tops == set(), "LAYERS names modules that are gone"


def test_no_module_imports_a_layer_above_its_own() -> None:
    mods = modules()
    known = set(mods)
    graph = {name: imports_of(name, path, known) for name, path in mods.items()}
    upward = upward_imports(graph, layer_of())
    assert upward - UPWARD_ALLOWED == set()
    assert UPWARD_ALLOWED <= upward, "an allowed upward import is gone: remove it from the list"


def top_level(name: str) -> str:
    """The subpackage (or top-level module) of the package that module ``name`` is in."""
    return name.split(".")[1] if "." in name else name


def private_imports(name: str, path: Path, source: str | None = None) -> list[str]:
    """The imports of ``name`` (at ``path``, or ``source``) that reach a private module or a
    private name of another subpackage (``from paretosurf.loop._state import RunState`` in
    ``paretosurf.methods._surf``; ``from paretosurf.findings import _short``). The shared
    utilities (``paretosurf._utils``) are private to the package, not to a subpackage."""
    tree = ast.parse(path.read_text() if source is None else source)
    own = top_level(name)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            parts = node.module.split(".")
            targets = [(parts, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [(a.name.split("."), "") for a in node.names]
        else:
            continue
        for parts, imported in targets:
            if parts[0] != PACKAGE or len(parts) < 2 or parts[1] in ("_utils", "_version"):
                continue
            if parts[1] == own:
                continue
            if any(p.startswith("_") for p in parts[2:]) or imported.startswith("_"):
                out.append(".".join(parts) + (f" import {imported}" if imported else ""))
    return out


def test_the_private_import_check_sees_a_planted_import() -> None:
    path = ROOT / "methods" / "_surf.py"
    name = "paretosurf.methods._surf"
    planted = "from paretosurf.loop._state import RunState\n"
    assert private_imports(name, path, planted) == ["paretosurf.loop._state import RunState"]
    assert private_imports(name, path, "from paretosurf.findings import _short\n") == [
        "paretosurf.findings import _short"
    ]
    assert private_imports(name, path, "from paretosurf.methods._slots import SlotMethod\n") == []
    assert private_imports(name, path, "from paretosurf._utils.validation import x\n") == []


def test_no_module_imports_private_names_of_another_subpackage() -> None:
    found = {
        name: lines
        for name, path in modules().items()
        if name not in OLD_PATHS and (lines := private_imports(name, path))
    }
    assert found == {}


def test_no_public_module_is_shadowed_by_a_name_of_its_package() -> None:
    # ``paretosurf.surf`` was a module and the function it defined: the function, bound
    # on the package, hid the module (``paretosurf.surf.SurfMethod`` failed)
    shadowed = []
    for name in sorted(modules()):
        parent, _, leaf = name.rpartition(".")
        if not parent or leaf.startswith("_"):
            continue
        value = importlib.import_module(parent).__dict__.get(leaf)
        if value is not None and not isinstance(value, types.ModuleType):
            shadowed.append(name)
    assert shadowed == []


def test_the_subpackages_modules_are_private() -> None:
    # the layers laid out as subpackages show their public surface in their __init__
    public = [
        name
        for name in modules()
        if name.count(".") >= 2
        and top_level(name) in ("storage", "solvers", "curves", "surfaces", "loop", "methods")
        and not name.rpartition(".")[2].startswith("_")
    ]
    assert public == []
