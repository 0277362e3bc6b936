"""The rehearsals' commands, added to ``python -m grader`` by cli.py (``rehearse-lti`` is
the LTI wing's):

    python -m grader rehearse [--students N] [--folder DIR] [--assignment NAME ...]
    python -m grader rehearse-lms [--folder DIR] [--assignment NAME ...]
"""

import argparse
import os
import sys

from .exchange import rehearse
from .lms import REHEARSAL_LMS, rehearse_lms


def add_rehearsal_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]"
                           ) -> None:
    rehearsal = commands.add_parser("rehearse", help="a whole fake class on this machine")
    rehearsal.add_argument("--students", type=int, default=4, help="how many students (default 4)")
    rehearsal.add_argument("--folder", default=os.path.join("course-data", "rehearsal"),
                           help="where the rehearsal runs (replaced; default "
                                "course-data/rehearsal)")
    rehearsal.add_argument("--assignment", action="append", default=[],
                           help="rehearse this assignment only (repeatable; default: all)")
    lms_rehearsal = commands.add_parser("rehearse-lms", help=f"a whole fake class that hands "
                                        f"in through {REHEARSAL_LMS.title}, without a hub")
    lms_rehearsal.add_argument("--folder", default=os.path.join("course-data", "rehearsal-lms"),
                               help="where the rehearsal runs (replaced; default "
                                    "course-data/rehearsal-lms)")
    lms_rehearsal.add_argument("--assignment", action="append", default=[],
                               help="rehearse this assignment only (repeatable; default: all)")


def run_rehearsal(args: argparse.Namespace) -> int:
    if not 1 <= args.students <= 200:
        print("error: --students takes a number from 1 to 200", file=sys.stderr)
        return 2
    rehearse(os.path.abspath(args.course), args.folder, args.students, args.assignment)
    return 0


def run_lms_rehearsal(args: argparse.Namespace) -> int:
    rehearse_lms(os.path.abspath(args.course), args.folder, args.assignment)
    return 0


REHEARSAL_COMMANDS = {"rehearse": run_rehearsal, "rehearse-lms": run_lms_rehearsal}
