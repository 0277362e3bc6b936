"""The gradebook's commands of the course's settings, added to ``python -m grader`` by cli.py:

    python -m grader check-config [--assignment NAME] [--duedate DATE]
    python -m grader due ASSIGNMENT "2026-12-01 17:00:00 UTC"
    python -m grader release-lines
    python -m grader apply-late-policy [ASSIGNMENT ...]

`apply-late-policy` charges every recorded grade's late penalty again under the course's
late policy as it is now and says who changed, before -> after (docs/deadlines.md).

`check-config` also refuses an AI policy (c.AiPolicy.policies) for an assignment the course
does not have or longer than the policies' limit, and says what each add-on's own check
finds (``config_checks``, which cli.py gives the parser: c.LtiTool's, for one).
"""

import argparse
import os
import sys

from ..settings import (AiPolicy, CourseError, ai_policy_problems, loaded_with_warnings,
                        no_install_line_warning, stale_salts, write_release_lines)
from .due_dates import parse_due_date, set_due_date
from .late_policy import late_policy_lines


def add_recording_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]"
                           ) -> None:
    check = commands.add_parser("check-config", help="check nbgrader_config.py (and a name)")
    check.add_argument("--assignment", default="",
                       help="an assignment name given to make (ASSIGNMENT=...); empty: all")
    check.add_argument("--duedate", default="", help="a due date given to make (DUEDATE=...)")
    due = commands.add_parser("due", help="set an assignment's due date in the gradebook")
    due.add_argument("assignment")
    due.add_argument("duedate", help='e.g. "2026-12-01 17:00:00 UTC"; "none" removes it')
    commands.add_parser("release-lines", help="write the salt and the install line into the "
                        "instructor's notebooks (the first step of make release)")
    policy = commands.add_parser("apply-late-policy", help="charge every recorded grade's late "
                                 "penalty again under the late policy of nbgrader_config.py "
                                 "as it is now, and say whose changed")
    policy.add_argument("assignments", nargs="*", help="assignments (default: all configured)")


def run_check_config(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    if args.assignment:
        settings.check_assignments([args.assignment])
    stale = stale_salts(settings) + [line for check in getattr(args, "config_checks", ())
                                     for line in check(settings)]
    stale += ai_policy_problems(AiPolicy(config=settings.config).policies, settings.assignments)
    if stale:
        raise CourseError("\n".join(stale))
    if args.duedate and args.duedate.strip().lower() != "none":
        parse_due_date(args.duedate)
    return 0


def run_release_lines(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    for path, line in write_release_lines(settings):
        print(f"{os.path.relpath(path, settings.root)}: {line}")
    warning = no_install_line_warning(settings)
    if warning:
        print(warning, file=sys.stderr)
    return 0


def run_due(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    settings.check_assignments([args.assignment])
    print(set_due_date(settings, args.assignment, args.duedate))
    return 0


def run_apply_late_policy(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    assignments = args.assignments or list(settings.assignments)
    settings.check_assignments(assignments)
    for line in late_policy_lines(settings, assignments):
        print(line)
    return 0


RECORDING_COMMANDS = {"check-config": run_check_config, "due": run_due,
                      "release-lines": run_release_lines,
                      "apply-late-policy": run_apply_late_policy}
