"""The explain commands, added to ``python -m grader`` by cli.py (docs/explain-questions.md):

    python -m grader grade-explain ASSIGNMENT [--seed TEXT] [--students a,b]
                         the explain answers graded by the rubric at the terminal, from stdin;
                         exit status 1 when a score changed in formgrader was not written over
    python -m grader defense-questions ASSIGNMENT [--students a,b]
                         one printable page per student: three questions on their own work
"""

import argparse
import sys

from ..settings import load
from .defense import write_defense_sheets
from .grading import grade_explain


def add_explain_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    grade = commands.add_parser("grade-explain", help="grade the explain answers of one "
                                "assignment by its rubric (rubrics/ASSIGNMENT.yaml), reading "
                                "the items' keys from the terminal; resumes where it stopped")
    grade.add_argument("assignment")
    grade.add_argument("--seed", default=None, help="the seed of the students' order (default: "
                       "the one kept in course-data/explain/, or a new one)")
    grade.add_argument("--students", default="", help="comma-separated ids (default: all)")
    sheets = commands.add_parser("defense-questions", help="one printable page per student: "
                                 "three questions about their own model and code, with the "
                                 "expected answers")
    sheets.add_argument("assignment")
    sheets.add_argument("--students", default="", help="comma-separated ids (default: all)")


def _students(text: str) -> list[str] | None:
    return [s.strip() for s in text.split(",") if s.strip()] or None


def run_grade_explain(args: argparse.Namespace) -> int:
    settings = load(args.course)
    settings.check_assignments([args.assignment])
    sitting = grade_explain(settings, args.assignment, (line.rstrip("\n") for line in sys.stdin),
                            lambda line: print(line, flush=True), args.seed,
                            _students(args.students))
    return 1 if sitting.conflicts else 0


def run_defense_questions(args: argparse.Namespace) -> int:
    settings = load(args.course)
    settings.check_assignments([args.assignment])
    for line in write_defense_sheets(settings, args.assignment, _students(args.students)):
        print(line)
    return 0


EXPLAIN_COMMANDS = {"grade-explain": run_grade_explain,
                    "defense-questions": run_defense_questions}
