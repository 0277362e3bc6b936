"""The recording commands, added to ``python -m grader`` by cli.py (docs/deadlines.md):

    python -m grader apply-late-policy [ASSIGNMENT ...]
                         every recorded grade's late penalty charged again under the course's
                         late policy as it is now; who changed, before -> after
"""

import argparse

from ..settings import load
from .late_policy import late_policy_lines


def add_recording_commands(
        commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    policy = commands.add_parser("apply-late-policy", help="charge every recorded grade's late "
                                 "penalty again under the late policy of nbgrader_config.py "
                                 "as it is now, and say whose changed")
    policy.add_argument("assignments", nargs="*", help="assignments (default: all configured)")


def run_apply_late_policy(args: argparse.Namespace) -> int:
    settings = load(args.course)
    assignments = args.assignments or list(settings.assignments)
    settings.check_assignments(assignments)
    for line in late_policy_lines(settings, assignments):
        print(line)
    return 0


RECORDING_COMMANDS = {"apply-late-policy": run_apply_late_policy}
