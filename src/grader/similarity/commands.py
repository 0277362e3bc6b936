"""The similarity command, added to ``python -m grader`` by cli.py:

    python -m grader similarity [ASSIGNMENT ...] [--threshold SIMILARITY]
"""

import argparse
import os
import sys

from ..settings import loaded_with_warnings
from .report import write_similarity


def add_similarity_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]"
                            ) -> None:
    similar = commands.add_parser("similarity", help="pairs of students whose answers look alike")
    similar.add_argument("assignments", nargs="*", help="assignments (default: all)")
    similar.add_argument("--threshold", type=float, default=None, metavar="SIMILARITY",
                         help="list pairs at or above this similarity, 0 to 1 (default: "
                              "c.SimilarityReport.threshold)")


def run_similarity(args: argparse.Namespace) -> int:
    if args.threshold is not None and not 0 <= args.threshold <= 1:
        print("error: --threshold takes a similarity from 0 to 1", file=sys.stderr)
        return 2
    settings = loaded_with_warnings(args)
    names = args.assignments or settings.assignments
    settings.check_assignments(names)
    for name in names:
        for path in write_similarity(settings, name, args.threshold):
            print(f"similarity report: {os.path.relpath(path, settings.root)}")
    return 0


SIMILARITY_COMMANDS = {"similarity": run_similarity}
