"""The reports' commands, added to ``python -m grader`` by cli.py:

    python -m grader summary [ASSIGNMENT ...]
    python -m grader roster students.csv
    python -m grader grades [ASSIGNMENT ...]
    python -m grader item-analysis ASSIGNMENT
"""

import argparse

from ..recording import rebuild_assignment_reports
from ..settings import lines_of_one_assignment, load, loaded_with_warnings
from .items import item_analysis_of
from .outputs import write_grades
from .roster import import_roster
from .summary import write_summary


def add_report_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]"
                        ) -> None:
    summary = commands.add_parser("summary", help="per-student status and per-question pass rates")
    summary.add_argument("assignments", nargs="*", help="assignments (default: all configured)")
    roster = commands.add_parser("roster", help="import the class roster from a CSV")
    roster.add_argument("csv")
    grades = commands.add_parser("grades", help="grades.csv, exports, summary and report pages")
    grades.add_argument("assignments", nargs="*", help="assignments (default: all)")
    items = commands.add_parser("item-analysis", help="each check's difficulty and "
                                "discrimination, a CSV and a page")
    items.add_argument("assignment")


def run_summary(args: argparse.Namespace) -> int:
    settings = load(args.course)
    names = args.assignments or settings.assignments
    rebuild_assignment_reports(settings, names)
    print(write_summary(settings, names))
    return 0


def run_roster(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    notes = []
    people = import_roster(settings, args.csv, notes)
    for note in notes:
        print(note)
    print(f"{len(people)} student(s) imported into the gradebook from {args.csv}")
    return 0


def run_grades(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    names = args.assignments or settings.assignments
    settings.check_assignments(names)
    for line in write_grades(settings, names):
        print(line)
    return 0


REPORT_COMMANDS = {"summary": run_summary, "roster": run_roster, "grades": run_grades,
                   "item-analysis": lines_of_one_assignment(item_analysis_of)}
