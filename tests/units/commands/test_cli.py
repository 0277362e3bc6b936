"""Does `python -m grader` tell the instructor's mistakes (exit 2) without a released course,
and do its settings and help give SandboxGrader's defaults?

The mistakes that need a released course are in tests/instructor/test_autograde_command.py.
"""

import pytest

from grader.settings import Limits
from testsupport.tiny_course import grader


@pytest.mark.slow  # `python -m grader autograde`, a fresh interpreter
def test_a_folder_without_nbgrader_config_is_the_instructors_error(tmp_path):
    result = grader("autograde", "tiny", cwd=str(tmp_path))
    assert result.returncode == 2
    assert "no nbgrader_config.py" in result.stderr


@pytest.mark.slow  # `python -m grader autograde`, a fresh interpreter
def test_a_broken_config_is_the_instructors_error(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.Execute.timeout = (\n")
    result = grader("autograde", "tiny", cwd=str(tmp_path))
    assert result.returncode == 2
    assert "nbgrader_config.py, line 2: " in result.stderr


def test_the_sandbox_limits_come_from_the_config_with_sandboxgraders_defaults(tmp_path, capsys):
    from nbgrader.preprocessors import Execute

    from grader.cli import main
    from grader.settings import SandboxGrader, load

    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n"
                                                 "c.SandboxGrader.tmpfs_mib = 5\n")
    limits = load(str(tmp_path)).limits
    # what is set comes from the file; the cell limit is nbgrader's own c.Execute.timeout
    assert limits.tmpfs_mib == 5 and limits.timeout == Execute().timeout
    # the rest, in Limits and in the command's help alike, is SandboxGrader's default
    defaults = SandboxGrader()
    assert (limits.memory_mib, limits.file_mib, limits.max_processes) == (
        defaults.memory_mib, defaults.file_mib, defaults.max_processes)
    assert Limits(timeout=1).tmpfs_mib == defaults.tmpfs_mib
    with pytest.raises(SystemExit):
        main(["autograde", "--help"])
    text = capsys.readouterr().out
    for name in SandboxGrader.class_traits(config=True):
        assert f"c.SandboxGrader.{name} = {getattr(defaults, name)!r}:" in text, name


def test_the_course_gives_a_notebook_three_cell_limits_and_its_first_cell_says_so():
    import json

    from grader.settings import load
    from testsupport.course import ROOT, assignments, read_notebook

    settings = load(ROOT)
    assert settings.config.SandboxGrader.notebook_budget == 0  # three cell limits
    assert settings.limits.notebook_seconds == 3 * settings.limits.timeout == 180
    for assignment in assignments():
        for folder in ("solutions", "exercises"):
            intro = "".join(read_notebook(folder, assignment)["cells"][0]["source"])
            words = " ".join(intro.split())
            assert ("each cell at most one minute and the whole notebook three minutes"
                    in words), (folder, assignment, json.dumps(intro[-400:]))


def test_the_usage_at_the_top_of_cli_names_every_command_and_no_other():
    import re

    from grader import cli

    listed = re.search(r"\{([a-z,-]+)\}", cli.build_parser().format_usage()).group(1)
    usage = re.findall(r"^    python -m grader ([a-z-]+)", cli.__doc__, flags=re.M)
    assert sorted(usage) == sorted(listed.split(","))
    assert "release-lines" in usage


def test_each_wing_adds_the_commands_the_command_line_names_for_it():
    import argparse
    import importlib

    from grader import cli

    for wing in cli.WINGS:
        module = importlib.import_module(wing.module)
        commands = argparse.ArgumentParser().add_subparsers()
        getattr(module, wing.add_commands)(commands)
        assert tuple(commands.choices) == wing.commands, wing.module
        assert sorted(getattr(module, wing.runs)) == sorted(wing.commands), wing.module


def test_a_command_line_naming_no_wings_command_builds_every_wing():
    from grader import cli

    assert cli.wings_for(["--help"]) == cli.wings_for(["chek-config"]) == cli.WINGS
    assert [wing.module for wing in cli.wings_for(["due", "--course", "x", "parameters"])] == [
        "grader.recording.commands"]


def test_a_command_imports_its_own_wing_and_no_other():
    """In a fresh interpreter: `due --help` loads the recording wing's commands, not the
    service's, the publishing's or JupyterHub's (each costs every command up to a second)."""
    import json
    import subprocess
    import sys

    probe = ("import contextlib, io, json, sys\nfrom grader.cli import main\n"
             "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
             "    main(['due', '--help'])\n"
             "print(json.dumps(sorted(sys.modules)))")
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True,
                                           text=True, check=True).stdout))
    assert "grader.recording.commands" in loaded
    assert not loaded & {"grader.service", "grader.publish", "grader.lti", "grader.terms",
                         "grader.grading_page", "grader.explain", "jupyterhub"}


def test_an_instructors_error_exits_two_with_its_message_and_another_error_is_raised(
        tmp_path, capsys, monkeypatch):
    from grader.cli import main
    from grader.recording import commands

    assert main(["due", "tiny", "none", "--course", str(tmp_path)]) == 2
    assert "no nbgrader_config.py" in capsys.readouterr().err

    def fails(args):
        raise ValueError("the grader's own fault")

    monkeypatch.setitem(commands.RECORDING_COMMANDS, "due", fails)
    with pytest.raises(ValueError, match="the grader's own fault"):
        main(["due", "tiny", "none", "--course", str(tmp_path)])
    with pytest.raises(SystemExit):
        main(["due"])  # argparse's own: a missing argument
