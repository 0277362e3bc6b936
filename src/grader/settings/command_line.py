"""What every wing's commands share of the settings: the course loaded with its warnings
said, the settings' help at the end of a command's help, and the command that prints
the lines of one assignment's work."""

import argparse
import sys
from collections.abc import Callable, Iterable

from .course import Settings, load


def settings_help(configurables: tuple[type, ...],
                  heading: str = "(c.Execute.timeout is the limit per cell)") -> str:
    """The grader's settings in nbgrader_config.py, each with its default (from its class)."""
    lines = [f"settings in nbgrader_config.py {heading}:"]
    for configurable in configurables:
        for name, trait in sorted(configurable.class_traits(config=True).items()):
            lines.append(f"  c.{configurable.__name__}.{name} = {trait.default()!r}: {trait.help}")
    return "\n".join(lines)


def loaded_with_warnings(args: argparse.Namespace) -> Settings:
    """The settings of the course of a command (--course), with the configuration's warnings
    printed."""
    settings = load(args.course)
    for warning in settings.warnings:
        print(warning, file=sys.stderr)
    return settings


Command = Callable[[argparse.Namespace], int]  # one command: its arguments to its exit status


def lines_of_one_assignment(work: Callable[[Settings, str], Iterable[str]]) -> Command:
    """The command that prints the lines `work(settings, assignment)` returns."""
    def run(args: argparse.Namespace) -> int:
        settings = loaded_with_warnings(args)
        settings.check_assignments([args.assignment])
        for line in work(settings, args.assignment):
            print(line)
        return 0
    return run
