"""The ``paretosurf`` command as a package: one module per subcommand, the library's errors
carrying the options they name (``OptionError``), and no module of ``paretosurf.cli`` that
rewrites an error's text with regular expressions."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import numpy as np
import pytest

import paretosurf as ps
from paretosurf import cli
from paretosurf._utils.validation import OptionError, SettingsMismatchError, python_spelling
from paretosurf.cli._terms import _error_spelling, _in_cli_terms, _setting_spelling
from paretosurf.methods import uniform
from paretosurf.storage._run_folder import RunFolder

CLI = Path(cli.__file__).parent


def solver(w: float, state: object) -> ps.Solution:
    return ps.Solution([(1 - w) ** 2, w**2], state=np.array([w]))


@pytest.fixture()
def saved_run(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    ps.surf(solver, 4, iterations=2, alpha=0.3, checkpoint=folder)
    return folder


# ---------------------------------------------------------------------------- options in errors
def test_a_resume_with_other_settings_raises_an_error_about_the_first_option(saved_run) -> None:
    with pytest.raises(SettingsMismatchError) as info:
        ps.surf(solver, 4, iterations=3, alpha=0.5, checkpoint=saved_run, resume=True)
    err = info.value
    assert isinstance(err, OptionError) and isinstance(err, ValueError)
    assert err.option == "alpha" and err.value == 0.5
    assert err.differing == {"alpha": (0.3, 0.5)}
    # the Python API's message is the one it always was; the command line's spells the option
    assert str(err).endswith(
        "with other settings; differing: alpha: 0.3 in the checkpoint, 0.5 now"
    )
    assert _in_cli_terms(err).endswith("differing: alpha (--alpha): 0.3 in the checkpoint, 0.5 now")


def test_a_resume_as_another_method_names_overwrite(saved_run) -> None:
    with pytest.raises(OptionError) as info:
        uniform(solver, 4, iterations=3, checkpoint=saved_run, resume=True)
    err = info.value
    assert (err.option, err.value) == ("overwrite", True)
    assert str(err).endswith(
        "cannot resume it as Uniform-w (use another folder, or overwrite=True)"
    )
    assert _in_cli_terms(err).endswith("(use another folder, or --overwrite)")


def test_an_option_error_spells_only_its_own_fields() -> None:
    err = OptionError("{path}/{x}: pass {overwrite} or {resume}", overwrite=True, resume="force")
    assert str(err) == "{path}/{x}: pass overwrite=True or resume='force'"
    assert err.text(lambda name, value: f"<{name}>") == "{path}/{x}: pass <overwrite> or <resume>"
    assert _in_cli_terms(err) == "{path}/{x}: pass --overwrite or resume='force'"
    with pytest.raises(TypeError, match="at least one option"):
        OptionError("no option named")


def test_option_errors_survive_pickling() -> None:
    # a run's errors may cross processes
    for err in (
        OptionError("pass {overwrite}", overwrite=True),
        SettingsMismatchError("cannot resume here; ", {"n_segments": (4, 8), "seed": (0, 1)}),
    ):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)
        assert back.options == err.options and (back.option, back.value) == (err.option, err.value)
        assert back.text(_error_spelling) == err.text(_error_spelling)


def test_the_command_line_spells_the_options_errors_name() -> None:
    assert _error_spelling("resume", True) == "--resume"
    assert _error_spelling("overwrite", True) == "--overwrite"
    assert _error_spelling("max_solves", None) == "max_solves (--iterations)"
    assert _error_spelling("rate", None) == "rate" == python_spelling("rate", None)


def test_a_folder_is_described_with_its_settings_spelled_by_the_caller(saved_run) -> None:
    folder = RunFolder(saved_run)
    assert "n_segments=4" in folder.describe() and "alpha=0.3" in folder.describe()
    assert "(N_SEGMENTS:4, ALPHA:0.3," in folder.describe(
        lambda name, value: f"{name.upper()}:{value}"
    )
    assert _setting_spelling("iterations", 5) == "--iterations 5"
    assert _setting_spelling("alpha", 0.3) == "alpha=0.3"


# ---------------------------------------------------------------------------- no regexes on text
#: Calls of the ``re`` module that the command may make, by module, each with its reason
#: (none today: the command spells the library's options from the errors that carry them).
RE_ALLOWED: dict[str, set[str]] = {}


def re_calls(path: Path) -> list[str]:
    """The calls of the ``re`` module in ``path`` (``re.sub``, ``re.match``, ...), and the
    names it imports from ``re``, as ``line: text``."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "re":
            found += [f"{node.lineno}: from re import {a.name}" for a in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
        ):
            found.append(f"{node.lineno}: re.{node.func.attr}")
    return found


def test_the_regex_scan_sees_a_planted_call(tmp_path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text("import re\nfrom re import sub\nx = re.sub('a', 'b', str(ValueError()))\n")
    assert re_calls(planted) == ["2: from re import sub", "3: re.sub"]


def test_no_module_of_the_command_uses_regexes() -> None:
    modules = sorted(CLI.glob("*.py"))
    assert {p.stem for p in modules} >= {"__init__", "_demo", "_bench", "_run", "_llm"}
    found = {
        p.name: calls
        for p in modules
        if (calls := [c for c in re_calls(p) if c.split(": ")[1] not in RE_ALLOWED.get(p.name, ())])
    }
    assert found == {}


# ---------------------------------------------------------------------------- the package
def test_each_subcommand_is_a_module_of_its_own() -> None:
    from paretosurf.cli import _ask, _bench, _demo, _llm, _run, _status, _tell

    modules = {"demo": _demo, "bench": _bench, "run": _run, "llm": _llm}
    modules.update(ask=_ask, tell=_tell, status=_status)
    assert {name: cli.COMMANDS[name] for name in modules} == {
        name: module.COMMAND for name, module in modules.items()
    }
