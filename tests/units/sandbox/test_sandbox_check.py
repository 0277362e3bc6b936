"""Every command that grades on this machine checks first that bubblewrap is there and can
make a sandbox's namespaces, and says in one line what to run when it cannot: a PATH
without bwrap, and a bwrap that fails as one does where user namespaces are not allowed
(bubblewrap itself stays installed)."""

import os

import pytest

from grader.cli import main
from grader.sandbox import sandbox_problem

REFUSED = ("bwrap: No permissions to create new namespace, likely because the kernel does "
           "not allow non-privileged user namespaces.")


@pytest.fixture
def no_bwrap(tmp_path, monkeypatch):
    """A PATH of one empty folder: no bwrap on it."""
    empty = tmp_path / "bin-without-bwrap"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def failing_bwrap(tmp_path, monkeypatch):
    """A bwrap on PATH that refuses, as one does without user namespaces; returns its path."""
    folder = tmp_path / "bin-with-a-failing-bwrap"
    folder.mkdir()
    fake = folder / "bwrap"
    fake.write_text(f"#!/bin/sh\necho '{REFUSED}' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return str(fake)


@pytest.fixture
def course(tmp_path):
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "nbgrader_config.py").write_text("c = get_config()\n")
    return str(tmp_path / "course")


def test_a_machine_without_bwrap_is_told_the_package_and_the_make_target(no_bwrap):
    assert sandbox_problem() == (
        "bubblewrap (bwrap) is not installed: run `make grading-system` (the Debian package "
        "bubblewrap); student code never runs unsandboxed")


def test_a_bwrap_that_cannot_make_namespaces_is_named_with_what_it_said(failing_bwrap):
    problem = sandbox_problem()
    assert problem.startswith(f"bubblewrap ({failing_bwrap}) cannot make a sandbox on this "
                              f"machine ({REFUSED}): run `make grading-system`")
    assert "\n" not in problem


def test_the_bwrap_installed_here_makes_a_sandbox():
    assert sandbox_problem() == ""


COMMANDS = [
    ["serve"],
    ["autograde", "tiny"],
    ["regrade", "tiny"],
    ["check", "tiny", "tiny.ipynb", "--student", "ada"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_each_command_that_grades_stops_at_once_with_one_line_without_bwrap(
        command, no_bwrap, course, capsys):
    assert main([*command, "--course", course]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "error: bubblewrap (bwrap) is not installed: run `make grading-system` (the Debian "
        "package bubblewrap); student code never runs unsandboxed"]
    assert not os.path.exists(os.path.join(course, "course-data"))  # nothing started


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_each_command_that_grades_stops_at_once_when_bwrap_fails(
        command, failing_bwrap, course, capsys):
    assert main([*command, "--course", course]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and REFUSED in lines[0] and "make grading-system" in lines[0]
