"""The regrade command, added to ``python -m grader`` by cli.py (docs/regrading.md):

    python -m grader regrade ASSIGNMENT [--students a,b] [--reason TEXT] [--apply] [--jobs N]
"""

import argparse

from ..sandbox import require_sandbox
from ..settings import loaded_with_warnings
from .regrading import regrade


def add_regrade_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]"
                         ) -> None:
    again = commands.add_parser("regrade", help="grade again against the current release: who "
                                "changes, then (--apply) change them")
    again.add_argument("assignment")
    again.add_argument("--students", default="", help="comma-separated student ids (default: "
                                                      "every student who handed in)")
    again.add_argument("--reason", default="", help="why, recorded and shown on the feedback")
    again.add_argument("--apply", action="store_true",
                       help="change the students whose results change (default: a dry run)")
    again.add_argument("--jobs", type=int, default=1,
                       help="students graded at once on this machine (default 1)")


def run_regrade(args: argparse.Namespace) -> int:
    require_sandbox()
    settings = loaded_with_warnings(args)
    settings.check_assignments([args.assignment])
    for line in regrade(settings, args.assignment, settings.limits,
                        [s for s in args.students.split(",") if s], args.reason, args.apply,
                        args.jobs):
        print(line)
    return 0


REGRADE_COMMANDS = {"regrade": run_regrade}
