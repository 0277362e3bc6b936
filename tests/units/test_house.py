"""Are the house rules of src/grader kept: small modules, a small command-line builder, and
the command line as it was, each wing adding its own commands?

The floors, the circles and the core that never imports its add-ons are
tests/units/test_imports.py's.
"""

import ast
import pathlib

import grader
from grader import cli

PACKAGE = pathlib.Path(grader.__file__).parent
MOST_LINES = 400  # of any module of src/grader
BUILDER_MOST_LINES = 60  # of cli.build_parser, from its def to its last line

# every command of `python -m grader` and its arguments (--course aside, which all take),
# as the command line had them before each wing added its own; push-grades, home-reader
# and apply-late-policy are new, and the page takes the home reader's socket
COMMANDS_BEFORE = {
    "autograde": "assignment --jobs --scheduler --tls-folder --allow-plaintext-dask --wait "
                 "--students --shard --db-url --timeout --memory-mib --tmpfs-mib",
    "summary": "assignments", "check-config": "--assignment --duedate",
    "due": "assignment duedate", "roster": "csv",
    "collect-zip": "assignment zip --lms --queue", "grades": "assignments",
    "release-feedback": "assignment", "feedback-zip": "assignment", "item-analysis": "assignment",
    "release-lines": "", "rehearse": "--students --folder --assignment",
    "rehearse-lms": "--folder --assignment", "similarity": "assignments --threshold",
    "canvas-push": "assignment --dry-run",
    "regrade": "assignment --students --reason --apply --jobs", "dask-certs": "--folder",
    "serve": "--workers --scheduler --lease", "queue": "--json --status",
    "page": "--port --address --instructors", "extensions": "csv --despite-public-solutions",
    "check": "assignment notebooks --student", "student-view": "assignment --student --json",
    "lti-keys": "", "lti-roster": "--dry-run", "lti-push": "assignment --dry-run",
    "rehearse-lti": "--folder --assignment", "publish": "--site --to", "leak-scan": "folder",
    "publish-repo": "remote --branch",
    "release-solutions": "assignment --site --despite-open-students",
    "new-term": "target --term --start --weeks --zone --course-id",
    "archive-term": "--purge --archive --confirm", "restore-term": "archive",
    "grade-explain": "assignment --seed --students", "defense-questions": "assignment --students",
}
NEW_COMMANDS = {"push-grades": "assignment --dry-run", "home-reader": "--socket --page-account",
                "apply-late-policy": "assignments",
                "page": "--port --address --instructors --home-reader",
                "grading-page": "--port --hub"}


def module_lines() -> dict[str, int]:
    return {str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
            for path in sorted(PACKAGE.rglob("*.py")) if "build" not in path.parts}


def test_no_module_is_over_four_hundred_lines():
    over = {name: count for name, count in module_lines().items() if count > MOST_LINES}
    assert over == {}


def test_the_command_line_module_is_well_under_the_limit():
    assert module_lines()["cli.py"] < MOST_LINES // 2


def test_the_command_line_builder_is_under_sixty_lines():
    tree = ast.parse(pathlib.Path(cli.__file__).read_text(encoding="utf-8"))
    [builder] = [node for node in tree.body
                 if isinstance(node, ast.FunctionDef) and node.name == "build_parser"]
    assert builder.end_lineno - builder.lineno + 1 < BUILDER_MOST_LINES


def subcommands() -> dict[str, "argparse.ArgumentParser"]:  # noqa: F821
    parser = cli.build_parser()
    [chooser] = [action for action in parser._actions if action.dest == "command"]
    return dict(chooser.choices)


def test_the_commands_and_their_arguments_are_those_of_before_and_the_new_ones():
    now = {name: " ".join(action.option_strings[0] if action.option_strings else action.dest
                          for action in command._actions if action.dest not in ("help", "course"))
           for name, command in subcommands().items()}
    assert now == {**COMMANDS_BEFORE, **NEW_COMMANDS}


def test_every_command_has_its_run_from_the_wing_that_adds_it():
    runs = {name: command.get_default("run") for name, command in subcommands().items()}
    assert [name for name, run in runs.items() if not callable(run)] == []
    wing_of = {name: run.__module__ for name, run in runs.items()}
    assert wing_of["autograde"] == "grader.autograde"
    assert wing_of["push-grades"] == wing_of["canvas-push"] == "grader.push.commands"
    assert wing_of["lti-push"] == wing_of["rehearse-lti"] == "grader.lti.commands"
    assert not [name for name, module in wing_of.items() if module == "grader.cli"]
