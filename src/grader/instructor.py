"""The instructor's commands behind the make targets, beside nbgrader's own.

    python -m grader.instructor check-config [--assignment NAME]
    python -m grader.instructor due ASSIGNMENT "2026-12-01 17:00:00 UTC"
    python -m grader.instructor roster students.csv
    python -m grader.instructor grades [ASSIGNMENT ...]

check-config loads nbgrader_config.py as nbgrader does and stops (exit 2) with
the file and line on any mistake; every make target that runs nbgrader runs it
first, so nbgrader never carries on with its defaults. `due` sets an
assignment's due date in the gradebook (make release DUEDATE=...). `grades`
writes grades.csv, the LMS exports, summary.txt and the grade report pages.
Exit status 2 for the instructor's mistakes, with a message saying what to fix.
"""

import argparse
import os
import sys

from . import course


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m grader.instructor",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--course", default=".", help="course folder with nbgrader_config.py")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check-config", help="check nbgrader_config.py (and a name)")
    check.add_argument("--assignment", default="",
                       help="an assignment name given to make (ASSIGNMENT=...); empty: all")
    check.add_argument("--duedate", default="", help="a due date given to make (DUEDATE=...)")
    due = commands.add_parser("due", help="set an assignment's due date in the gradebook")
    due.add_argument("assignment")
    due.add_argument("duedate", help='e.g. "2026-12-01 17:00:00 UTC"; "none" removes it')
    roster = commands.add_parser("roster", help="import the class roster from a CSV")
    roster.add_argument("csv")
    grades = commands.add_parser("grades", help="grades.csv, exports, summary and report pages")
    grades.add_argument("assignments", nargs="*", help="assignments (default: all)")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        settings = course.load(args.course)
        for warning in settings.warnings:
            print(warning, file=sys.stderr)
        if args.command == "check-config":
            if args.assignment:
                course.check_assignments(settings, [args.assignment])
            if args.duedate and args.duedate.strip().lower() != "none":
                parse_due_date(args.duedate)
            return 0
        if args.command == "due":
            course.check_assignments(settings, [args.assignment])
            print(set_due_date(settings, args.assignment, args.duedate))
            return 0
        if args.command == "roster":
            from .roster import import_roster

            people = import_roster(settings, args.csv)
            print(f"{len(people)} student(s) imported into the gradebook from {args.csv}")
            return 0
        names = args.assignments or settings.assignments
        course.check_assignments(settings, names)
        for line in write_grades(settings, names):
            print(line)
        return 0
    except course.CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def parse_due_date(text):
    """A due date as nbgrader stores it (naive UTC), from text such as '2026-12-01 17:00 UTC'."""
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(text)
    except (ValueError, OverflowError) as error:
        raise course.CourseError(f"due date {text!r} is not a date and time ({error}); "
                                 f"write it as \"2026-12-01 17:00:00 UTC\"") from None


def set_due_date(settings, assignment, text):
    """Records the due date of a released assignment; returns what was done, in words."""
    from nbgrader.api import Gradebook, MissingEntry

    due = None if text.strip().lower() == "none" else parse_due_date(text)
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise course.CourseError(f"assignment {assignment!r} is not in the gradebook: "
                                     f"run make release first") from None
        gb.update_or_create_assignment(assignment, duedate=due)
    if due is None:
        return f"{assignment}: no due date"
    return f"{assignment}: due {due:%Y-%m-%d %H:%M:%S} UTC"


def write_grades(settings, names):
    """Everything `make grades` writes; returns lines saying where each file is."""
    from .export import read_grades, write_exports
    from .record import rebuild_assignment_reports, write_report_pages, write_summary

    rebuild_assignment_reports(settings, names)
    people, grades = read_grades(settings, names)
    paths = write_exports(settings, people, grades)
    summary = os.path.join(settings.reports, "summary.txt")
    write_summary(settings, names, people, grades)
    pages = write_report_pages(settings, people, grades)
    relative = lambda path: os.path.relpath(path, settings.root)  # noqa: E731
    return ([f"grades (nbgrader's columns): {relative(paths['grades'])}",
             f"Canvas gradebook import:     {relative(paths['canvas'])}",
             f"roster with scores:          {relative(paths['roster'])}",
             f"summary:                     {relative(summary)}"]
            + [f"report page:                 {relative(p)}" for p in pages])


if __name__ == "__main__":
    sys.exit(main())
